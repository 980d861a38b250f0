"""The ``jackal play`` application: prompt_toolkit in front, trio behind.

prompt_toolkit runs on asyncio; the network code (the shared client library, and the
embedded server) is trio. :meth:`TuiApp.run` starts trio as a *guest* on the asyncio
loop (``trio.lowlevel.start_guest_run``) and awaits ``app.run_async()``, so both run in
one thread and share nothing but the :class:`~jackal.client.tui_state.TuiState`:

- trio tasks apply server messages to the state and call ``app.invalidate()``;
- key handlers change the state and queue outgoing messages in ``state.outbox``, then
  ``state.wake()`` (a ``TrioToken.run_sync_soon`` that sets an event) wakes the trio task
  that sends them, one at a time and in order;
- when the application exits, the trio run is cancelled and awaited before returning.

Two ways to play: :class:`EmbeddedGame` (the default: a server in this process, bots in
the other seats, "play again" makes a new table) or a remote server's lobby
(``server=(host, port)``), from which one joins a seat (a
:class:`~jackal.client.session.SeatSession`, which reclaims the seat after a dropped
connection) or spectates.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..protocol import messages as m
from .connection import ClientError, Connection, ConnectionLost, ServerError
from .embedded import EmbeddedGame
from .mirror import TableMirror
from .session import SeatSession, SessionLost, Status
from .tui_keys import create_key_bindings
from .tui_layout import STYLE, build_layout
from .tui_lobby import JoinSeat, SpectateTable
from .tui_state import Mode, Outgoing, PlayAgain, TuiState

__all__ = ["PlayOptions", "TuiApp", "run_tui"]

#: How often the lobby's table list refreshes by itself.
LOBBY_REFRESH_SECONDS = 5.0
#: Replies the client library also delivers as events: applying them twice would log twice.
_ALSO_EVENTS = (m.Played, m.TableState, m.Explanation, m.Question, m.AnswerMessage)


@dataclass(frozen=True)
class PlayOptions:
    """How ``jackal play`` was asked to run."""

    game: EmbeddedGame = field(default_factory=EmbeddedGame)
    #: A remote server's (host, port); None plays the embedded game.
    server: tuple[str, int] | None = None
    #: Starts the embedded game's server in a nursery and returns its port; given by the
    #: command (``jackal.cli.play``), which may import the server where the client may not.
    start_server: Callable[[trio.Nursery], Awaitable[int]] | None = None
    password: str | None = None
    #: Suit symbols instead of letters.
    symbols: bool = False


class TuiApp:
    """One run of the terminal client. ``input``/``output`` are for tests."""

    def __init__(self, options: PlayOptions, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.options = options
        self.state = TuiState(mode=Mode.TABLE if options.server is None else Mode.LOBBY)
        server = "" if options.server is None else f"{options.server[0]}:{options.server[1]}"
        self.app: Application[int] = Application(
            layout=build_layout(self.state, symbols=options.symbols, server=server),
            key_bindings=create_key_bindings(self.state), style=STYLE, full_screen=True,
            mouse_support=True, input=input, output=output)
        self._token: trio.lowlevel.TrioToken | None = None
        self._wakeup = trio.Event()
        self._cancel: trio.CancelScope | None = None
        #: The embedded server's port once known, and the current seat (for tests).
        self.port: int | None = None
        self.session: SeatSession | None = None
        self.failure: BaseException | None = None

    # ------------------------------------------------------------------ the two loops

    async def run(self) -> int:
        """Run the application until the player quits; returns the exit status."""
        loop = asyncio.get_running_loop()
        trio_done: asyncio.Future[Any] = loop.create_future()

        def done(outcome: Any) -> None:
            if not trio_done.done():
                trio_done.set_result(outcome)

        trio.lowlevel.start_guest_run(
            self._trio_main, run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done, host_uses_signal_set_wakeup_fd=True)
        try:
            result = await self.app.run_async()
        finally:
            self._stop_trio()
            outcome = await trio_done
        try:
            outcome.unwrap()
        except BaseException as exc:  # reported after the screen is restored
            self.failure = exc
            return 1
        return result if isinstance(result, int) else 0

    def _stop_trio(self) -> None:
        token, scope = self._token, self._cancel
        if token is not None and scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(scope.cancel)

    async def _trio_main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self.state.wake = self._wake
        with trio.CancelScope() as self._cancel:
            try:
                async with trio.open_nursery() as nursery:
                    if self.options.server is None:
                        start = self.options.start_server
                        if start is None:
                            raise RuntimeError("no server given and none to start")
                        self.state.add_log("Starting the game...")
                        port = await start(nursery)
                        self.port = port
                        await self._embedded_loop("127.0.0.1", port)
                    else:
                        host, port = self.options.server
                        await self._lobby_loop(host, port)
                    nursery.cancel_scope.cancel()
            except Exception as exc:  # shown on the screen, never as a traceback
                reason = _describe(exc)
                self._show_lost(reason, f"Stopped: {reason}. Ctrl-Q quits.")
                await trio.sleep_forever()

    def _wake(self) -> None:
        token = self._token
        if token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(self._wakeup.set)

    def _redraw(self) -> None:
        self.app.invalidate()

    def _on_status(self, status: Status, detail: str) -> None:
        self.state.set_status(status.value, detail)
        self._redraw()

    def _show_lost(self, reason: str, message: str) -> None:
        """The server or the seat is gone for good: the header shows ``reason``, the
        message line ``message``."""
        self.state.set_status("lost", reason)
        self.state.say(message, "error")
        self._redraw()

    # ------------------------------------------------------------------ the outbox

    async def _next_outgoing(self) -> Outgoing:
        while not self.state.outbox:
            await self._wakeup.wait()
            self._wakeup = trio.Event()
        return self.state.outbox.popleft()

    async def _request(self, send: Callable[[m.ClientMessage], Any],
                       msg: m.ClientMessage) -> m.ServerMessage | None:
        """Send one request; apply its reply or show its error. Never raises ClientError."""
        reply: m.ServerMessage | None = None
        try:
            reply = await send(msg)
        except ServerError as exc:
            self.state.on_error(exc.code, exc.message)
        except ConnectionLost as exc:
            self.state.awaiting_play = None
            self.state.say(f"Not sent: not connected ({exc.reason}); try again in a moment.",
                           "error")
        except ClientError as exc:
            self.state.awaiting_play = None
            self.state.say(f"Not sent: {exc}", "error")
        else:
            if reply is not None and not isinstance(reply, _ALSO_EVENTS):
                self.state.apply(reply)
            # A bot we add at our own table reaches the mirror as the table's player_joined
            # event, which the server sends us too after the ok.
        self._redraw()
        return reply

    # ------------------------------------------------------------------ a seat

    async def _play_seat(self, session: SeatSession) -> Outgoing | None:
        """Play at ``session``'s seat until the match ends and the player asks for what is
        next (returned), or the seat is lost (None). Bots the session adds show up in the
        ``table_state`` it gets on joining."""
        state = self.state
        self.session = session
        # Our own mirror, fed from the session's events (which the session has already
        # folded into its mirror: sharing it would hide which events changed something).
        state.mirror = TableMirror()
        state.questions_to_me.clear()
        result: list[Outgoing | None] = [None]
        async with trio.open_nursery() as nursery:
            try:
                await nursery.start(session.run)
            except ClientError as exc:
                self._show_lost(_describe(exc), f"Could not take the seat: {_describe(exc)}")
                nursery.cancel_scope.cancel()
                return None
            state.mode = Mode.TABLE
            self._redraw()
            await self._request(session.request, m.Ready())

            async def pump() -> None:
                try:
                    async for event in session.events():
                        state.apply(event)
                        self._redraw()
                except SessionLost as exc:
                    self._show_lost(str(exc), f"The seat is lost: {exc}")

            async def send() -> None:
                while True:
                    item = await self._next_outgoing()
                    if isinstance(item, PlayAgain | JoinSeat | SpectateTable):
                        result[0] = item
                        nursery.cancel_scope.cancel()
                        return
                    await self._request(session.request, item)

            nursery.start_soon(pump)
            nursery.start_soon(send)
        await session.aclose()
        return result[0]

    async def _embedded_loop(self, host: str, port: int) -> None:
        game = self.options.game
        match = 1
        while True:
            session = SeatSession(
                host, port, name=game.name, seat=game.seat, create=game.create_table(match),
                bots=game.bots(), auto_ready=False, on_status=self._on_status,
                client="jackal-play")
            nxt = await self._play_seat(session)
            if nxt is None:
                await trio.sleep_forever()  # the screen says why; the player quits
            match += 1
            self.state.log.clear()
            self.state.add_log(f"New match {match}.", "good")

    # ------------------------------------------------------------------ the lobby

    async def _lobby_loop(self, host: str, port: int) -> None:
        state = self.state
        conn = await Connection.open(host, port)
        try:
            await conn.request(m.Hello(name=self.options.game.name, protocol=1,
                                       client="jackal-play", password=self.options.password))
            state.set_status("connected", f"{host}:{port}")
            await self._request(conn.request, m.ListTables())
            spectating = False

            async def pump() -> None:
                async for event in conn.events():
                    if spectating:
                        state.apply(event)
                        self._redraw()

            async def refresh() -> None:
                # Other people create and fill tables too: keep the list fresh.
                while True:
                    await trio.sleep(LOBBY_REFRESH_SECONDS)
                    if state.mode is Mode.LOBBY and state.prompt is None:
                        state.send(m.ListTables())

            async with trio.open_nursery() as nursery:
                nursery.start_soon(pump)
                nursery.start_soon(refresh)
                while True:
                    item = await self._next_outgoing()
                    if isinstance(item, JoinSeat):
                        spectating = False
                        await self._seat_from_lobby(host, port, item)
                        await self._back_to_lobby(conn)
                    elif isinstance(item, SpectateTable):
                        reply = await self._request(conn.request, m.Spectate(table=item.table))
                        if isinstance(reply, m.TableState):
                            spectating = True
                            state.apply(reply)
                    elif isinstance(item, PlayAgain):
                        if spectating:
                            spectating = False
                            await self._request(conn.request, m.Leave())
                        await self._back_to_lobby(conn)
                    else:
                        await self._request(conn.request, item)
        except ConnectionLost as exc:
            self._show_lost(exc.reason, f"Lost the server: {exc.reason}. Ctrl-Q quits.")
            await trio.sleep_forever()
        finally:
            with trio.CancelScope(shield=True):
                await conn.aclose()

    async def _seat_from_lobby(self, host: str, port: int, item: JoinSeat) -> None:
        session = SeatSession(host, port, name=self.options.game.name, table=item.table,
                              seat=item.seat, password=self.options.password,
                              auto_ready=False, on_status=self._on_status,
                              client="jackal-play")
        nxt = await self._play_seat(session)
        if nxt is not None and not isinstance(nxt, PlayAgain):
            self.state.outbox.appendleft(nxt)

    async def _back_to_lobby(self, conn: Connection) -> None:
        state = self.state
        state.mirror = TableMirror()
        state.mode = Mode.LOBBY
        state.set_status("connected")
        await self._request(conn.request, m.ListTables())


def _describe(exc: BaseException) -> str:
    """A one-line reason for the screen, looking inside task-group wrappers."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, ConnectionLost):
        return exc.reason
    if isinstance(exc, ServerError):
        return f"{exc.message} [{exc.code}]"
    return str(exc) or type(exc).__name__


def run_tui(options: PlayOptions, *, input: Input | None = None,
            output: Output | None = None) -> int:
    """Run ``jackal play`` in this (main) thread; returns the exit status."""
    app = TuiApp(options, input=input, output=output)
    status = asyncio.run(app.run())
    if app.failure is not None:
        import sys

        print(f"jackal play stopped: {app.failure}", file=sys.stderr)
    return status

