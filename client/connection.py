"""One trio TCP connection to a Jackal server, shared by bots and the terminal UI:
:class:`Connection` (made by :func:`connect` in the caller's nursery, or by
:func:`open_connection`), its routing table and the errors it raises. What a caller may
rely on (request ids and replies, which replies also come as events, the event budget,
the idle ping) is docs/BOTS.md's ("The connection")."""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar, overload

import msgspec
import trio

from ..protocol.connection import CLIENT_MAX_LINE, ClientConnection
from ..protocol.errors import ErrorCode, RemoteProtocolError
from ..protocol.messages import (
    AnswerMessage,
    BotTakeover,
    ChatMessage,
    Clock,
    ConventionsChanged,
    DealEnded,
    DealStarted,
    Error,
    ExpertCost,
    Explanation,
    HelloOk,
    HelpReply,
    HintReply,
    HintTaken,
    Joined,
    MatchEnded,
    Ok,
    PauseState,
    Played,
    PlayerBack,
    PlayerGone,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    Question,
    QuestionAsked,
    RematchStarted,
    RematchWanted,
    ServerMessage,
    ServerPing,
    ServerPong,
    ServerShutdown,
    TableCreated,
    Tables,
    TableState,
    Turn,
    Welcome,
    YourTurn,
)
from ..protocol.replies import expects_reply, is_reply
from ..protocol.requests import ClientMessage, Ping, Pong
from .event_stream import MAX_EVENT_BYTES, EventStream
from .handlers import Handlers

__all__ = [
    "MAX_EVENT_BYTES",
    "ROUTES",
    "ClientError",
    "Connection",
    "ConnectionLost",
    "EventStream",
    "RequestTimeout",
    "ServerError",
    "UnexpectedReply",
    "also_an_event",
    "connect",
    "first_leaf",
    "open_connection",
    "parse_address",
]

log = logging.getLogger("jackal.client")

_E = TypeVar("_E", bound=BaseException)

DEFAULT_TIMEOUT = 30.0
#: A connection that hears nothing (not even a pong to its own ping) this long is lost.
DEFAULT_IDLE_TIMEOUT = 60.0


class ClientError(Exception):
    """Base of every error the client library raises."""


class ServerError(ClientError):
    """The server answered a request with ``error``; nothing changed on the server.
    Compare ``code`` with :class:`ErrorCode` members; a newer server's code is a stand-in
    that equals none of them (``code.known`` is False)."""

    def __init__(self, code: ErrorCode, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after


class ConnectionLost(ClientError):
    """The connection is gone (closed by either side, reset, or unusable)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnexpectedReply(ClientError):
    """The server answered a request with a type the reply table does not name for it
    (a server speaking another protocol, or a bug); the connection stays open."""


class RequestTimeout(ClientError):
    """No reply came within the request's timeout (the connection stays open)."""


def parse_address(text: str, default_port: int = 7878) -> tuple[str, int]:
    """Split ``HOST:PORT`` (or ``HOST``, or ``[v6]:PORT``); raise ``ValueError`` if malformed."""
    text = text.strip()
    if not text:
        raise ValueError("empty server address")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise ValueError(f"bad server address {text!r}")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"bad server address {text!r} (no host)")
    if not port_text:
        return host, default_port
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"bad port in server address {text!r}") from None
    if not 0 < port < 65536:
        raise ValueError(f"port out of range in server address {text!r}")
    return host, port


class _Pending:
    """One request waiting for its reply."""

    __slots__ = ("done", "reply")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.reply: ServerMessage | None = None


class Connection:
    """A connected, greeted client connection. Make it with :func:`connect`.

    Two small tasks serve it, in the nursery given to :func:`connect`: a reader that feeds
    the bytes to the sans-IO :class:`~jackal.protocol.connection.ClientConnection` and
    routes each message by the table :data:`ROUTES` (``ping`` answered here, a reply to
    the request waiting for its id, the rest to the :class:`EventStream`), and a writer that
    drains a bounded outgoing queue, so the reader can queue a ``pong`` without ever
    blocking on the socket. ``event_stream`` is that stream: the connection's own, ended
    with the connection, or one given by a caller that hands it to each connection it
    makes in turn (a seat session, the lobby link), which it outlives.
    """

    def __init__(self, stream: trio.abc.Stream, *, max_line: int = CLIENT_MAX_LINE,
                 event_stream: EventStream | None = None, max_outgoing: int = 256,
                 max_event_bytes: int = MAX_EVENT_BYTES,
                 on_event: Callable[[Connection, ServerMessage], None] | None = None,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT) -> None:
        self._stream = stream
        self._idle_timeout = idle_timeout
        self._last_heard = trio.current_time()
        self._conn = ClientConnection(max_line=max_line)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._owns_events = event_stream is None
        #: Where pushed events go, each with its wire size, until read.
        self.event_stream = EventStream(max_event_bytes) if event_stream is None \
            else event_stream
        # Told of each event (with this connection) as it is queued, in the reader task:
        # it must not block.
        self._on_event = on_event
        self._out_in, self._out_out = trio.open_memory_channel[bytes](max_outgoing)
        self._welcomed = trio.Event()
        self._finished = trio.Event()
        self._cancel = trio.CancelScope()
        #: Why the connection ended, once it has.
        self.lost_reason: str | None = None

    @property
    def welcome(self) -> Welcome | None:
        """The server's greeting, once it has arrived (kept by the sans-IO connection)."""
        return self._conn.welcome

    async def aclose(self) -> None:
        """Close the connection (idempotent) and wait until its tasks have ended."""
        self.close_soon()
        await self._finished.wait()

    def close_soon(self) -> None:
        """Close the connection without waiting (its tasks end at their next checkpoint)."""
        self._mark_lost("closed by the client")
        self._cancel.cancel()

    async def wait_closed(self) -> None:
        """Return once the connection has ended and its tasks with it."""
        await self._finished.wait()

    @property
    def closed(self) -> bool:
        return self.lost_reason is not None

    async def _run(self) -> None:
        try:
            with self._cancel:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer)
                    if self._idle_timeout is not None:
                        nursery.start_soon(self._watchdog, self._idle_timeout)
                    await self._reader()
                    nursery.cancel_scope.cancel()
        except Exception as exc:
            # The caller's nursery must not fail for this: a bug here is a lost connection.
            log.debug("connection task failed", exc_info=True)
            self._mark_lost(f"internal error in the client: {_describe(exc)}")
        finally:
            self._mark_lost("closed")
            with trio.CancelScope(shield=True):
                await self._stream.aclose()
            self._finished.set()

    # ------------------------------------------------------------------ sending

    async def send(self, msg: ClientMessage) -> None:
        """Queue ``msg`` for sending without waiting for any reply."""
        if self.lost_reason is not None:
            raise ConnectionLost(self.lost_reason)
        try:
            await self._out_in.send(self._conn.send(msg))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise ConnectionLost(self.lost_reason or "closed") from None

    async def request(self, msg: ClientMessage, *,
                      timeout: float | None = DEFAULT_TIMEOUT) -> ServerMessage:
        """Send ``msg`` with a fresh ``id`` and return the server's direct reply.

        Raises :class:`ServerError` on an ``error`` reply, :class:`UnexpectedReply` on a
        reply of a type the protocol's reply table (:mod:`jackal.protocol.replies`) does
        not name for ``msg``, :class:`RequestTimeout` when no reply comes in ``timeout``
        seconds (``None``: wait forever) and :class:`ConnectionLost` when the connection
        ends first. A message nothing answers (``pong``) is refused with ``ValueError``.
        """
        if not expects_reply(msg):
            raise ValueError(f"the server does not answer {type(msg).__name__}: send() it")
        request_id = next(self._ids)
        pending = _Pending()
        self._pending[request_id] = pending
        try:
            await self.send(msgspec.structs.replace(msg, id=request_id))
            with trio.move_on_after(math.inf if timeout is None else timeout):
                await pending.done.wait()
        finally:
            self._pending.pop(request_id, None)
        reply = pending.reply
        if reply is None:
            if self.lost_reason is not None:
                raise ConnectionLost(self.lost_reason)
            raise RequestTimeout(f"no reply to {type(msg).__name__} within {timeout}s")
        if isinstance(reply, Error):
            raise ServerError(reply.code, reply.message, retry_after=reply.retry_after)
        if not is_reply(msg, reply):
            raise UnexpectedReply(f"{type(msg).__name__} was answered with "
                                  f"{type(reply).__name__}, which does not answer it")
        return reply

    async def _writer(self) -> None:
        async with self._out_out:
            async for data in self._out_out:
                try:
                    await self._stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    self._mark_lost(f"send failed: {_describe(exc)}")
                    self._cancel.cancel()
                    return

    # ------------------------------------------------------------------ receiving

    async def events(self) -> AsyncIterator[ServerMessage]:
        """Every pushed event in arrival order; raises :class:`ConnectionLost` at the end.

        Only one task should iterate at a time.
        """
        while True:
            yield await self.next_event()

    async def next_event(self) -> ServerMessage:
        """The next pushed event; raises :class:`ConnectionLost` once none can come.

        For a connection with its own stream; a caller that gave one reads that.
        """
        try:
            return await self.event_stream.get()
        except trio.EndOfChannel:
            raise ConnectionLost(self.lost_reason or "closed") from None

    async def _watchdog(self, limit: float) -> None:
        """Notice a link that died without a close (a half-open TCP connection).

        The server pings a silent client, so a live link is never quiet for long; after
        half the limit without a byte we ping the server ourselves, and after the whole
        limit the connection counts as lost.
        """
        pinged_at: float | None = None
        while True:
            await trio.sleep(limit / 8)
            heard = self._last_heard
            quiet = trio.current_time() - heard
            if quiet >= limit:
                self._mark_lost(f"nothing heard from the server for {limit:g}s")
                self._cancel.cancel()
                return
            if quiet >= limit / 2 and pinged_at != heard:
                pinged_at = heard  # one ping per silence
                with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
                    self._out_in.send_nowait(self._conn.send(Ping()))

    async def _reader(self) -> None:
        conn = self._conn
        while True:
            try:
                data = await self._stream.receive_some(65536)
                self._last_heard = trio.current_time()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                self._mark_lost(f"receive failed: {_describe(exc)}")
                return
            conn.receive_data(data)
            while True:
                try:
                    msg = conn.next_message()
                except RemoteProtocolError as exc:
                    if exc.fatal:
                        self._mark_lost(f"bad data from the server: {exc}")
                        return
                    # A message this client does not understand (a newer server?): log, go on.
                    log.warning("ignoring a server line: %s", exc)
                    continue
                if msg is None:
                    break
                if not self._dispatch(msg):
                    return
            if conn.peer_closed:
                self._mark_lost("the server closed the connection")
                return

    def _dispatch(self, msg: ServerMessage) -> bool:
        """Route one decoded message by :data:`ROUTES`; False when the connection must end."""
        route = ROUTES.get(msg)
        if route is None:  # not in the table: a type this client does not know
            log.warning("ignoring a %s from the server", type(msg).__name__)
            return True
        return route(self, msg)

    def _on_ping(self, _msg: ServerMessage) -> bool:
        # If the writer is backed up, that traffic counts as life too: skip the pong.
        if self.lost_reason is None:
            with contextlib.suppress(trio.WouldBlock):
                self._out_in.send_nowait(self._conn.send(Pong()))
        return True

    def _on_welcome(self, msg: ServerMessage) -> bool:
        if msg is self._conn.welcome and not self._welcomed.is_set():
            self._welcomed.set()  # the first welcome, which the sans-IO object keeps
            return True
        return self._queue_event(msg)

    def _answer(self, msg: ServerMessage) -> bool:
        """Hand ``msg`` to the request waiting for its id; False when none waits."""
        msg_id = getattr(msg, "id", None)
        pending = self._pending.get(msg_id) if isinstance(msg_id, int) else None
        if pending is None or pending.done.is_set():
            return False
        pending.reply = msg
        pending.done.set()
        return True

    def _on_reply(self, msg: ServerMessage) -> bool:
        # Errors without an id (e.g. line_too_long before a close) are events; the EOF that
        # follows a fatal one ends the connection.
        return self._answer(msg) or self._queue_event(msg)

    def _on_pong(self, msg: ServerMessage) -> bool:
        self._answer(msg)  # else the answer to the watchdog's ping: proof of life, no more
        return True

    def _on_table_reply(self, msg: ServerMessage) -> bool:
        self._answer(msg)
        return self._queue_event(msg)

    def _on_push(self, msg: ServerMessage) -> bool:
        return self._queue_event(msg)

    def _on_shutdown(self, msg: ServerMessage) -> bool:
        assert isinstance(msg, ServerShutdown)
        self._queue_event(msg)
        # The state machine has closed: nothing the server says after this counts.
        self._mark_lost(f"server shutdown: {msg.reason}")
        return False

    def _queue_event(self, msg: ServerMessage) -> bool:
        events = self.event_stream
        if not events.put(msg, self._conn.last_line_size):
            if events.ended:
                return False
            self._mark_lost(f"more than {events.max_bytes} bytes of unread events "
                            "(the consumer fell behind)")
            return False
        if self._on_event is not None:
            self._on_event(self, msg)
        return True

    def _mark_lost(self, reason: str) -> None:
        """Record why the connection ended (first reason wins) and wake every waiter."""
        if self.lost_reason is not None:
            return
        self.lost_reason = reason
        self._conn.close()
        log.debug("connection ended: %s", reason)
        self._welcomed.set()
        for pending in self._pending.values():
            pending.done.set()
        if self._owns_events:
            self.event_stream.end()
        self._out_in.close()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@overload
def first_leaf(exc: BaseExceptionGroup[_E]) -> _E: ...
@overload
def first_leaf(exc: BaseException) -> BaseException: ...
def first_leaf(exc: BaseException) -> BaseException:
    """``exc`` without the exception groups around it: the first leaf of a (nested) group,
    e.g. what failed inside a nursery; any other exception as it is."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def connect(nursery: trio.Nursery, host: str, port: int, *,
                  connect_timeout: float = 10.0, **options: Any) -> Connection:
    """Connect, start the connection's reader and writer in ``nursery``, and wait for the
    server's ``welcome``; ``options`` go to :class:`Connection`.

    The tasks end with the connection (:meth:`Connection.aclose`, or a drop), never with
    an exception. Raises :class:`ConnectionLost` if the server cannot be reached or does
    not greet.
    """
    try:
        with trio.fail_after(connect_timeout):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as exc:
        # Never connected: nothing was lost, the server is not there (yet).
        raise ConnectionLost(f"cannot reach {host}:{port} ({_describe(exc)})") from None
    conn = Connection(stream, **options)
    nursery.start_soon(conn._run)
    with trio.move_on_after(connect_timeout):
        await conn._welcomed.wait()
    if conn.welcome is None:
        reason = conn.lost_reason or f"no welcome from {host}:{port} within {connect_timeout}s"
        await conn.aclose()
        raise ConnectionLost(reason)
    return conn


@asynccontextmanager
async def open_connection(host: str, port: int, **options: Any) -> AsyncIterator[Connection]:
    """``async with open_connection(host, port) as conn:`` -- :func:`connect` in a nursery
    of its own, closed on exit. An exception of the block leaves it bare, not in a group."""
    error: Exception | None = None
    async with trio.open_nursery() as nursery:
        conn = await connect(nursery, host, port, **options)
        try:
            yield conn
        except Exception as exc:
            error = exc  # raised below, outside the nursery that would wrap it
        finally:
            with trio.CancelScope(shield=True):
                await conn.aclose()
    if error is not None:
        raise error


#: What the connection does with each server message (a test checks that every type of
#: the protocol's union is here). A reply goes to the request waiting for its id; the
#: replies that carry table state are queued as events too, so a mirror fed from the events
#: sees them in order with the rest.
ROUTES: Handlers[Callable[[Connection, Any], bool]] = Handlers({
    ServerPing: Connection._on_ping,
    Welcome: Connection._on_welcome,
    ServerPong: Connection._on_pong,
    ServerShutdown: Connection._on_shutdown,
    **dict.fromkeys((Ok, HelloOk, Joined, Tables, TableCreated, HelpReply, HintReply, Error),
                    Connection._on_reply),
    **dict.fromkeys((Played, TableState, Explanation, Question, AnswerMessage, ChatMessage,
                     PauseState), Connection._on_table_reply),
    **dict.fromkeys((DealStarted, Turn, YourTurn, Clock, DealEnded, MatchEnded, ExpertCost,
                     PlayerJoined, PlayerLeft, PlayerReady, PlayerGone, PlayerBack,
                     BotTakeover, ConventionsChanged, QuestionAsked, HintTaken,
                     RematchWanted, RematchStarted), Connection._on_push),
})


def also_an_event(reply: ServerMessage) -> bool:
    """A reply that reaches the event stream as well (it carries table state)."""
    return ROUTES.get(reply) is Connection._on_table_reply
