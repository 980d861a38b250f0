"""The ``jackal play`` application: prompt_toolkit in front, trio behind, in one thread
(:class:`TuiApp` runs trio as a guest on prompt_toolkit's asyncio loop), sharing nothing
but the :class:`~jackal.client.tui.state.TuiState`. It plays the embedded game (a server in
this process) or a remote server's lobby."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ...game.seats import Seat
from ...protocol import messages as m
from ...protocol import requests
from ...protocol.errors import ErrorCode
from ..connection import ClientError, Connection, ConnectionLost, ServerError, also_an_event
from ..embedded import EmbeddedGame
from ..lobby_link import LobbyLink
from ..mirror import TableMirror
from ..seat_store import SavedSeat, SeatStore, server_key
from ..session import Backoff, SeatSession, SessionLost, SessionStatus
from .clock import clock_warning
from .events import apply, on_message
from .gathering import bots_only
from .keys import create_key_bindings
from .layout import build_layout
from .lobby import JoinSeat, SpectateTable
from .parts import Bell
from .state import Intent, Mode, PlayAgain, TuiState
from .style import STYLE

__all__ = ["PlayOptions", "TuiApp", "run_tui"]

#: How often the lobby's table list refreshes by itself.
LOBBY_REFRESH_SECONDS = 5.0


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
    #: On a server: go straight to this table (no lobby first), at ``seat`` if given.
    table: str | None = None
    seat: Seat | None = None
    #: With ``table``: the invitation code of a seat of that private table.
    invite: str | None = None
    #: Where seat tokens are saved, so a restarted client takes its seat back (None:
    #: nowhere; the embedded game never saves: its server ends with the process).
    store: SeatStore | None = None
    #: Ring the terminal bell when it becomes your turn.
    bell: bool = True
    #: Ask before a card is played (a second Enter sends it).
    confirm: bool = False


class TuiApp:
    """One run of the terminal client. ``input``/``output`` are for tests.

    prompt_toolkit runs on asyncio; the network code (the shared client library, and the
    embedded server) is trio. :meth:`TuiApp.run` starts trio as a *guest* on the asyncio
    loop (``trio.lowlevel.start_guest_run``) and awaits ``app.run_async()``, so both run in
    one thread and share nothing but the :class:`~jackal.client.tui.state.TuiState`:

    - trio tasks show server messages on the state and call ``app.invalidate()``; the table
      itself is the one mirror of the process (the seat session's while seated);
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

    def __init__(self, options: PlayOptions, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.options = options
        self.state = TuiState(mode=Mode.TABLE if options.server is None else Mode.LOBBY,
                              bell=Bell(options.bell), confirm=options.confirm,
                              on_server=options.server is not None)
        server = "" if options.server is None else f"{options.server[0]}:{options.server[1]}"
        self.app: Application[int] = Application(
            layout=build_layout(self.state, symbols=options.symbols, server=server),
            key_bindings=create_key_bindings(self.state), style=STYLE, full_screen=True,
            mouse_support=True, input=input, output=output,
            # Countdowns (the next reconnect attempt, a turn's clock) tick on screen.
            refresh_interval=0.5)
        self._token: trio.lowlevel.TrioToken | None = None
        self._wakeup = trio.Event()
        self._cancel: trio.CancelScope | None = None
        #: The embedded server's port once known, and the current seat (for tests).
        self.port: int | None = None
        self.session: SeatSession | None = None
        self.failure: BaseException | None = None
        self.link: LobbyLink | None = None
        #: The table we watch as a spectator (watched again after a reconnect).
        self._watching: str | None = None
        #: A seat session is taking its seat (not yet seated).
        self._taking_seat = False

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
                    nursery.start_soon(self._tick)
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
                        await self._server_loop(host, port)
                    nursery.cancel_scope.cancel()
            except Exception as exc:  # shown on the screen, never as a traceback
                reason = _describe(exc)
                self._show_lost(reason, f"Stopped: {reason}. Ctrl-Q quits.")
                await trio.sleep_forever()

    async def _tick(self) -> None:
        """While a turn's clock runs, redraw twice a second (the time left, and the
        warning's bell when it comes)."""
        while True:
            await trio.sleep(0.5)
            if self.state.clock.running is not None:
                clock_warning(self.state)
                self._redraw()

    def _wake(self) -> None:
        token = self._token
        if token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(self._wakeup.set)

    def _redraw(self) -> None:
        if self.state.bell.take():
            output = self.app.output
            output.bell()
            output.flush()
        self.app.invalidate()

    def _on_status(self, status: SessionStatus, detail: str) -> None:
        if self._taking_seat and status in (SessionStatus.LOST, SessionStatus.CLOSED):
            # Refused before it was seated: the lobby link is still up, and the lobby
            # says why the seat was refused.
            return
        self.state.set_status(status.value, detail)
        self._redraw()

    def _on_retry(self, delay: float, reason: str) -> None:
        self.state.set_status(SessionStatus.RECONNECTING.value, reason, delay)
        self._redraw()

    def _on_link_status(self, status: str, detail: str, retry_in: float | None) -> None:
        # While seated, the header shows the seat's link; the lobby's comes back quietly.
        if self.session is None:
            self.state.set_status(status, detail, retry_in)
            self._redraw()

    def _show_lost(self, reason: str, message: str) -> None:
        """The server or the seat is gone for good: the header shows ``reason``, the
        message line ``message``."""
        self.state.set_status("lost", reason)
        self.state.say(message, "error")
        self._redraw()

    # ------------------------------------------------------------------ the outbox

    async def _next_intent(self) -> Intent:
        while not self.state.outbox:
            await self._wakeup.wait()
            self._wakeup = trio.Event()
        return self.state.outbox.popleft()

    async def _request(self, send: Callable[[requests.ClientMessage], Any],
                       msg: requests.ClientMessage) -> m.ServerMessage | None:
        """Send one request; apply its reply or show its error. Never raises ClientError."""
        reply: m.ServerMessage | None = None
        try:
            reply = await send(msg)
        except ServerError as exc:
            self.state.on_error(exc.code, exc.message)
        except ConnectionLost as exc:
            self.state.composer.awaiting_play = None
            self.state.say(f"Not sent: not connected ({exc.reason}); try again in a moment.",
                           "error")
        except ClientError as exc:
            self.state.composer.awaiting_play = None
            self.state.say(f"Not sent: {exc}", "error")
        else:
            if reply is not None and not also_an_event(reply):
                on_message(self.state, reply)  # a reply: nothing in it belongs to the mirror
            # A bot we add at our own table reaches the mirror as the table's player_joined
            # event, which the server sends us too after the ok.
        self._redraw()
        return reply

    # ------------------------------------------------------------------ a seat

    async def _play_seat(self, session: SeatSession, *,
                         raise_refusal: bool = False) -> Intent | None:
        """Play at ``session``'s seat until the match ends and the player asks for what is
        next (returned), or the seat is lost (None). Bots the session adds show up in the
        ``table_state`` it gets on joining. With ``raise_refusal``, a server that refuses
        the seat (a stale saved token, a taken seat) raises ``ServerError``, so the caller
        can decide what next; otherwise the screen says so."""
        state = self.state
        self.session = session
        # The session's mirror is the screen's: the session feeds it each event and says
        # what changed (session.change), and the screen shows that.
        state.mirror = session.mirror
        state.questions_to_me.clear()
        result: list[Intent | None] = [None]
        self._taking_seat = True
        try:
            async with trio.open_nursery() as nursery:
                try:
                    await nursery.start(session.run)
                except ClientError as exc:
                    if raise_refusal and isinstance(exc, ServerError):
                        nursery.cancel_scope.cancel()
                        raise
                    self._show_lost(_describe(exc),
                                    f"Could not take the seat: {_describe(exc)}")
                    nursery.cancel_scope.cancel()
                    return None
                self._taking_seat = False
                await self._seated(session)
                nursery.start_soon(self._show_seat_events, session)
                nursery.start_soon(self._send_for_seat, session, nursery, result)
        except BaseExceptionGroup as group:
            # The refusal left the nursery wrapped in a group: the caller wants it bare
            # (it goes back to the lobby and says why; a group would end the client).
            refusal = _unwrapped(group)
            if raise_refusal and isinstance(refusal, ServerError):
                raise refusal from None
            raise
        finally:
            self.session = None
            self._taking_seat = False
        await session.aclose()
        return result[0]

    async def _seated(self, session: SeatSession) -> None:
        """The seat is ours: save it, show the table, and say ready if nobody is to greet."""
        self._save_seat(session)
        self.state.can_rematch = session.stays_for_rematch
        self.state.mode = Mode.TABLE
        self._redraw()
        if session.seated_status == "waiting" and bots_only(session.seated_with, session.seat):
            # Alone with bots there is nobody to greet: sitting down is being ready. With
            # people, each says ready (n) when they are (the table line says so); a seat
            # taken back between deals keeps n theirs too.
            await self._request(session.request, requests.Ready())

    async def _show_seat_events(self, session: SeatSession) -> None:
        """Each event of the seat to the screen, until the session ends."""
        try:
            async for event in session.events():
                on_message(self.state, event, session.change)
                if isinstance(event, m.MatchEnded):
                    self._forget_seat(session)
                elif isinstance(event, m.RematchStarted):
                    self._save_seat(session)  # a seat to take back again
                self._redraw()
        except SessionLost as exc:
            # With endless retries, only a refusal ends a session: the server no longer
            # holds the seat, so its token is worthless.
            self._forget_seat(session)
            self._show_lost(str(exc), f"The seat is lost: {exc}")

    async def _send_for_seat(self, session: SeatSession, nursery: trio.Nursery,
                             result: list[Intent | None]) -> None:
        """Send what the keys queue, until one asks to leave the seat for what is next
        (kept in ``result``, and the seat's nursery cancelled)."""
        while True:
            item = await self._next_intent()
            if isinstance(item, PlayAgain | JoinSeat | SpectateTable):
                result[0] = item
                nursery.cancel_scope.cancel()
                return
            if isinstance(item, requests.Leave):
                self._forget_seat(session)
            await self._request(session.request, item)

    # ------------------------------------------------------------------ saved seats

    def _store_key(self, session: SeatSession) -> str | None:
        if self.options.store is None or self.options.server is None:
            return None
        return server_key(session.host, session.port)

    def _save_seat(self, session: SeatSession) -> None:
        key = self._store_key(session)
        if key is None or session.token is None or session.table is None \
                or session.seat is None:
            return
        try:
            assert self.options.store is not None
            self.options.store.save(key, session.table, session.seat.value, session.token,
                                    name=session.name)
        except OSError as exc:  # a read-only home must not stop the game
            self.state.add_log(f"Could not save the seat token: {exc}", "warn")

    def _save_invitations(self, host: str, port: int, created: m.TableCreated) -> None:
        """Keep a private table's codes on disk: the server cannot show them again."""
        if self.options.store is None or not created.invitations:
            return
        try:
            self.options.store.save_invitations(
                server_key(host, port), created.table, created.name,
                {seat.value: code for seat, code in created.invitations.items()})
        except OSError as exc:  # a read-only home must not stop the game
            self.state.add_log(f"Could not save the invitation codes: {exc}", "warn")

    def _forget_seat(self, session: SeatSession) -> None:
        key = self._store_key(session)
        if key is None or session.table is None or session.seat is None:
            return
        with contextlib.suppress(OSError):
            assert self.options.store is not None
            self.options.store.forget(key, session.table, session.seat.value)

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

    # ------------------------------------------------------------------ a server

    async def _server_loop(self, host: str, port: int) -> None:
        """A remote server: a saved or named seat first, then the lobby.

        The lobby link lives beside any seat session, never around it: when it drops it
        reconnects by itself, and a seat being played goes on regardless.
        """
        state = self.state
        options = self.options
        if options.store is not None:  # the codes of private tables we created before
            with contextlib.suppress(OSError):
                for saved in options.store.invitations(server_key(host, port)):
                    state.lobby.remember(saved.table, saved.name,
                                         {Seat(seat): code for seat, code in saved.codes.items()
                                          if seat in Seat.__members__})
        link = self.link = LobbyLink(
            host, port, name=options.game.name, password=options.password,
            client="jackal-play", on_status=self._on_link_status,
            on_connected=self._lobby_connected)
        async with trio.open_nursery() as nursery:
            try:
                await nursery.start(link.run)
            except ServerError as exc:
                self._show_lost(exc.message, f"The server refused us: {_describe(exc)}. "
                                "Ctrl-Q quits.")
                await trio.sleep_forever()
            nursery.start_soon(self._watch_events, link)

            first = self._first_seat(host, port)
            if first is not None:
                await self._seat_then_lobby(host, port, first)
            else:
                await self._back_to_lobby(link)

            async def refresh() -> None:
                # Other people create and fill tables too: keep the list fresh.
                while True:
                    await trio.sleep(LOBBY_REFRESH_SECONDS)
                    if state.mode is Mode.LOBBY and state.prompt is None and link.conn:
                        state.send(requests.ListTables())

            nursery.start_soon(refresh)
            while True:
                item = await self._next_intent()
                if isinstance(item, JoinSeat):
                    await self._stop_watching(link)
                    await self._seat_then_lobby(host, port, item)
                elif isinstance(item, SpectateTable):
                    reply = await self._request(link.request, requests.Spectate(table=item.table))
                    if isinstance(reply, m.TableState):
                        self._watching = item.table
                        apply(state, reply)
                elif isinstance(item, PlayAgain):
                    await self._stop_watching(link)
                    await self._back_to_lobby(link)
                else:
                    reply = await self._request(link.request, item)
                    if isinstance(reply, m.TableCreated) and reply.invitations:
                        self._save_invitations(host, port, reply)

    async def _watch_events(self, link: LobbyLink) -> None:
        """The lobby link's pushed events matter while we watch a table, and its chat
        while we are in the lobby."""
        async for event in link.events():
            if self.session is not None:
                continue
            if self._watching is not None:
                if isinstance(event, m.TableState) and event.id is not None:
                    continue  # a spectate reply, which its caller applied already
                apply(self.state, event)
                self._redraw()
            elif isinstance(event, m.ChatMessage) and event.channel == "lobby":
                on_message(self.state, event)
                self._redraw()

    async def _lobby_connected(self, conn: Connection) -> None:
        """Every (re)connection of the lobby link: the table list, and the table we
        watched, again (the server forgot both with the old connection)."""
        if self.session is not None:
            return  # seated: the lobby is refreshed on the way back to it
        if self._watching is not None:
            reply = await conn.request(requests.Spectate(table=self._watching))
            apply(self.state, reply)  # the snapshot redraws the table as it is now
        else:
            on_message(self.state, await conn.request(requests.ListTables()))
        self._redraw()

    async def _stop_watching(self, link: LobbyLink) -> None:
        if self._watching is not None:
            self._watching = None
            await self._request(link.request, requests.Leave())

    def _first_seat(self, host: str, port: int) -> JoinSeat | SavedSeat | None:
        """What to sit at before any lobby: ``--table`` (with its saved token if we have
        one), else the newest seat saved for this server, if any."""
        options = self.options
        store = options.store
        key = server_key(host, port)
        seat = None if options.seat is None else options.seat.value
        if options.table is not None:
            saved = store.find(key, options.table, seat) if store is not None else None
            return saved or JoinSeat(options.table, options.seat, options.invite)
        found = store.seats(key) if store is not None else []
        return found[0] if found else None

    async def _seat_then_lobby(self, host: str, port: int,
                               target: JoinSeat | SavedSeat) -> None:
        """Play a seat (joined, or reclaimed with a saved token), then back to the lobby
        (or on to what the player asked for next)."""
        state = self.state
        options = self.options
        # At a private table we created, its codes stay at hand in the log (l), for
        # friends who come late.
        for line in state.lobby.invitation_lines(target.table):
            state.add_log(f"Invitation codes: {line}")
        while True:
            if isinstance(target, SavedSeat):
                session = self._new_session(host, port, table=target.table,
                                            seat=Seat(target.seat), token=target.token)
                state.taking_back = True
                state.say(f"Taking back your seat {target.seat} at table {target.table}...")
            else:
                session = self._new_session(host, port, table=target.table,
                                            seat=target.seat, invite=target.invite)
            try:
                nxt = await self._play_seat(session, raise_refusal=True)
            except ServerError as exc:
                if isinstance(target, SavedSeat) and exc.code is ErrorCode.BAD_TOKEN:
                    # The server no longer holds it (match over, or the server forgot).
                    if options.store is not None:
                        options.store.forget(target.server, target.table, target.seat)
                    state.add_log(f"Your saved seat {target.seat} at table {target.table} "
                                  "is no longer held.", "warn")
                    if options.table is not None and target.table == options.table:
                        target = JoinSeat(options.table, options.seat, options.invite)
                        continue
                else:
                    state.say(f"Could not take the seat: {_describe(exc)}", "error")
                    state.add_log(f"Could not take the seat: {_describe(exc)}", "error")
                nxt = None
            break
        if self.link is not None:
            await self._back_to_lobby(self.link)
        if nxt is not None and not isinstance(nxt, PlayAgain):
            self.state.outbox.appendleft(nxt)

    def _new_session(self, host: str, port: int, *, table: str, seat: Seat | None,
                     token: str | None = None, invite: str | None = None) -> SeatSession:
        return SeatSession(host, port, name=self.options.game.name, table=table, seat=seat,
                           token=token, invite=invite, password=self.options.password,
                           auto_ready=False,
                           on_status=self._on_status, on_retry=self._on_retry,
                           client="jackal-play", rematch=True,
                           # A LAN evening waits for its server however long it takes;
                           # the player quits with Ctrl-Q.
                           reconnect=Backoff(give_up_after=math.inf))

    async def _back_to_lobby(self, link: LobbyLink) -> None:
        state = self.state
        if state.mirror.table is not None:
            # The old table's story is over: the lobby starts a fresh log.
            state.log.clear()
            state.say("")
        state.mirror = TableMirror()
        state.mode = Mode.LOBBY
        state.set_status(link.status)
        if link.conn is not None:
            await self._request(link.request, requests.ListTables())


def _unwrapped(exc: BaseException) -> BaseException:
    """``exc`` without the task-group wrappers of a single exception."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    """A one-line reason for the screen, looking inside task-group wrappers."""
    exc = _unwrapped(exc)
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

