"""One trio TCP connection to a Jackal server, shared by bots and the terminal UI:
:class:`Connection` (open it with :meth:`Connection.open` or :func:`open_connection`) and
the errors it raises. What a caller may rely on (request ids and replies, which replies
also come as events, the bounded event queue, the idle ping) is docs/BOTS.md's ("The
connection")."""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import trio

from ..protocol.connection import CLIENT_MAX_LINE, ClientConnection
from ..protocol.errors import ErrorCode, RemoteProtocolError
from ..protocol.messages import (
    AnswerMessage,
    ChatMessage,
    Error,
    Explanation,
    PauseState,
    Played,
    Question,
    ServerMessage,
    ServerPing,
    ServerPong,
    ServerShutdown,
    TableState,
    Welcome,
)
from ..protocol.replies import expects_reply, is_reply
from ..protocol.requests import ClientMessage, Ping, Pong
from ..protocol.state import ConnState

__all__ = [
    "MAX_EVENT_BYTES",
    "STATEFUL_REPLIES",
    "ClientError",
    "Connection",
    "ConnectionLost",
    "RequestTimeout",
    "ServerError",
    "UnexpectedReply",
    "open_connection",
    "parse_address",
]

log = logging.getLogger("jackal.client")

#: Replies that also carry table state, so they go to the event queue as well.
STATEFUL_REPLIES = (Played, TableState, Explanation, Question, AnswerMessage, ChatMessage,
                     PauseState)

DEFAULT_TIMEOUT = 30.0
#: A connection that hears nothing (not even a pong to its own ping) this long is lost.
DEFAULT_IDLE_TIMEOUT = 60.0
#: Bytes (as they came on the wire) of pushed events a consumer may leave unread, here and
#: in each queue after it (SeatSession, LobbyLink). Thousands of real events fit: a
#: ``table_state`` with two inline cards is about 10 KB.
MAX_EVENT_BYTES = 4 << 20


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
    """A connected, greeted client connection. Build it with :meth:`open`.

    Two small tasks serve it: a reader that feeds the bytes to the sans-IO
    :class:`~jackal.protocol.connection.ClientConnection`, answers ``ping`` itself, hands a
    reply to the request waiting for its id and queues the rest as events; and a writer
    that drains a bounded outgoing queue, so the reader can queue a ``pong`` without ever
    blocking on the socket.
    """

    def __init__(self, stream: trio.abc.Stream, *, max_line: int = CLIENT_MAX_LINE,
                 max_events: int = 4096, max_outgoing: int = 256,
                 max_event_bytes: int = MAX_EVENT_BYTES,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT) -> None:
        self._stream = stream
        self._idle_timeout = idle_timeout
        self._last_heard = trio.current_time()
        self._conn = ClientConnection(max_line=max_line)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        # Each event travels with its size on the wire, counted in _event_bytes until read.
        self._events_in, self._events_out = trio.open_memory_channel[
            tuple[ServerMessage, int]](max_events)
        self._max_event_bytes = max_event_bytes
        self._event_bytes = 0
        #: Wire size in bytes of the event :meth:`next_event` returned last.
        self.last_event_size = 0
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

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, host: str, port: int, *, nursery: trio.Nursery | None = None,
                   connect_timeout: float = 10.0, **options: Any) -> Connection:
        """Connect, start the reader and writer, and wait for the server's ``welcome``.

        With ``nursery`` the tasks run there; without, they run as trio system tasks.
        Raises :class:`ConnectionLost` if the server cannot be reached or does not greet.
        """
        try:
            with trio.fail_after(connect_timeout):
                stream = await trio.open_tcp_stream(host, port)
        except (OSError, trio.TooSlowError) as exc:
            # Never connected: nothing was lost, the server is not there (yet).
            raise ConnectionLost(f"cannot reach {host}:{port} ({_describe(exc)})") from None
        conn = cls(stream, **options)
        if nursery is None:
            trio.lowlevel.spawn_system_task(conn._run)
        else:
            nursery.start_soon(conn._run)
        with trio.move_on_after(connect_timeout):
            await conn._welcomed.wait()
        if conn.welcome is None:
            reason = conn.lost_reason or f"no welcome from {host}:{port} within {connect_timeout}s"
            await conn.aclose()
            raise ConnectionLost(reason)
        return conn

    async def aclose(self) -> None:
        """Close the connection (idempotent) and wait until its tasks have ended."""
        self._mark_lost("closed by the client")
        self._cancel.cancel()
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
            # A system task must never raise: report a bug here as a lost connection.
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
        """The next pushed event; raises :class:`ConnectionLost` once none can come."""
        try:
            msg, size = await self._events_out.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise ConnectionLost(self.lost_reason or "closed") from None
        self._event_bytes -= size
        self.last_event_size = size
        return msg

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
        """Route one decoded message; False when the connection must end."""
        if isinstance(msg, ServerPing):
            # If the writer is backed up, that traffic counts as life too: skip the pong.
            if self.lost_reason is None:
                with contextlib.suppress(trio.WouldBlock):
                    self._out_in.send_nowait(self._conn.send(Pong()))
            return True
        if msg is self._conn.welcome and not self._welcomed.is_set():
            self._welcomed.set()  # the first welcome, which the sans-IO object keeps
            return True
        msg_id = getattr(msg, "id", None)
        pending = self._pending.get(msg_id) if isinstance(msg_id, int) else None
        if pending is not None and not pending.done.is_set():
            pending.reply = msg
            pending.done.set()
            if not isinstance(msg, STATEFUL_REPLIES):
                return True
        if isinstance(msg, ServerPong):
            return True  # the answer to the watchdog's ping: proof of life, nothing more
        if self._conn.state is ConnState.CLOSED:  # the state machine: server_shutdown ends it
            assert isinstance(msg, ServerShutdown)
            self._queue_event(msg)
            self._mark_lost(f"server shutdown: {msg.reason}")
            return False
        # Errors without an id (e.g. line_too_long before a close) are events; the EOF that
        # follows a fatal one ends the connection.
        return self._queue_event(msg)

    def _queue_event(self, msg: ServerMessage) -> bool:
        size = self._conn.last_line_size
        if self._event_bytes + size > self._max_event_bytes:
            self._mark_lost(f"more than {self._max_event_bytes} bytes of unread events "
                            "(the consumer fell behind)")
            return False
        try:
            self._events_in.send_nowait((msg, size))
        except trio.WouldBlock:
            self._mark_lost("too many unread events (the consumer fell behind)")
            return False
        except trio.ClosedResourceError:
            return False
        self._event_bytes += size
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
        self._events_in.close()
        self._out_in.close()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@asynccontextmanager
async def open_connection(host: str, port: int, **options: Any) -> AsyncIterator[Connection]:
    """``async with open_connection(host, port) as conn:`` -- closed on exit."""
    async with trio.open_nursery() as nursery:
        conn = await Connection.open(host, port, nursery=nursery, **options)
        try:
            yield conn
        finally:
            await conn.aclose()
