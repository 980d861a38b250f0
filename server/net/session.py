"""One client connection: its reader, its rate limit, its outgoing bytes, its timers.

A :class:`Session` is transport plus identity (its number, address and accepted name);
where it sits is the lobby's and the tables' business. What a client sees of it (framing
and rate-limit errors, closing, the slow-reader drop) is in docs/PROTOCOL.md.
"""

from __future__ import annotations

import logging
import math
from typing import Protocol

import trio

from ...protocol.connection import ServerConnection
from ...protocol.errors import ErrorCode, ProtocolError, RemoteProtocolError
from ...protocol.messages import Error, MessageId, ServerMessage, ServerPing, ServerShutdown
from ...protocol.requests import ClientMessage
from ...protocol.state import ConnState
from ..config import ServerConfig
from .keepalive import Keepalive
from .ratelimit import TokenBucket, retry_hint
from .transport import Flusher, SendQueue, read_some

__all__ = ["CLOSE_GRACE", "Session", "SessionHandler"]

log = logging.getLogger("jackal.server")

#: How long a closing connection may take to receive its last messages.
CLOSE_GRACE = 2.0
#: A read takes at most this much at once. Each read is a turn: a client that keeps its
#: socket full gets this much handled, then everyone else's turn comes.
_READ_SIZE = 16384


class SessionHandler(Protocol):
    """What a session reports to (the hub): each good message, and its end."""

    def handle_message(self, session: Session, msg: ClientMessage, now: float) -> None:
        """Answer one message (synchronously: never awaits)."""
        ...

    def connection_closed(self, session: Session) -> None:
        """The connection has ended."""
        ...


class Session:
    """A connected client: who it is, and its outgoing bytes.

    A connection costs as little as possible while it is held, because a server holds
    thousands: one task (the one the listener started for it, :meth:`run`) reads, and
    nothing else runs for it while it is idle. Its bytes go out through an
    :class:`~.transport.SendQueue` written by the server's one flusher task, and its timers
    (hello deadline, ping, ping timeout) are kept by the server's one
    :class:`~.keepalive.Keepalive` task, which calls :meth:`check` when they are due. It
    reports to a :class:`SessionHandler` (the hub) and knows nothing else of it.
    """

    # Slots: thousands are alive at once, and each is one object the collector walks
    # instead of two (no __dict__).
    __slots__ = ("_dropped", "_handler", "_hello_deadline", "_keepalive", "_ping_deadline",
                 "_ping_heard", "_scope", "address", "bucket",
                 "config", "conn", "dropped_reason", "heard",
                 "last_seen", "number", "out", "paused_until", "stream")

    def __init__(self, stream: trio.SocketStream | trio.abc.Stream, number: int, address: str,
                 config: ServerConfig, handler: SessionHandler, flusher: Flusher,
                 keepalive: Keepalive) -> None:
        self.stream = stream
        self.number = number
        self.address = address
        self.config = config
        self.conn = ServerConnection(max_line=config.max_line)
        self._handler = handler
        self._keepalive = keepalive
        self.out = SendQueue(stream, config.send_buffer, flusher, self)
        now = trio.current_time()
        self.last_seen = now
        #: Counts every receive: "has anything arrived since?" without comparing clock times.
        self.heard = 0
        self._hello_deadline = now + config.hello_timeout
        #: While a ping waits for an answer: ``heard`` when it was sent, and its deadline.
        self._ping_heard: int | None = None
        self._ping_deadline = math.inf
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, now)
        #: What runs now (reading, then the last writes): cancelled to stop it.
        self._scope = trio.CancelScope()
        self._dropped = False
        self.dropped_reason: str | None = None
        #: Nothing more is read or acted on before this time (see :meth:`pause`).
        self.paused_until = -math.inf

    def __repr__(self) -> str:
        return f"<Session #{self.number} {self.address} {self.name or '-'}>"

    @property
    def name(self) -> str | None:
        """The name from the accepted ``hello`` (None before it)."""
        return self.conn.name

    @property
    def helloed(self) -> bool:
        return self.conn.hello_done

    @property
    def closing(self) -> bool:
        """True once nothing more is read or queued (the last lines may still be written):
        the protocol object is closed."""
        return self.conn.state is ConnState.CLOSED


    # ------------------------------------------------------------------ sending

    def deliver(self, msg: ServerMessage) -> None:
        """Queue ``msg``; never blocks. A client that does not read is dropped.

        Table code only ever sends through this or :meth:`send_line`, so no table waits for
        a socket: what passes the ``send_buffer`` bound is never queued (:meth:`_overflow`).
        """
        if not self.closing:
            self.send_line(self.conn.send(msg))

    def send_line(self, data: bytes) -> None:
        """Queue one encoded line; never blocks. A client that does not read is dropped."""
        if not self.closing and not self.out.push(data):
            self._overflow()

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue one line given in pieces (a canned reply, :mod:`..canned`)."""
        if not self.closing and not self.out.push_parts(parts):
            self._overflow()

    def _overflow(self) -> None:
        """The bound is reached: the client is not reading. Drop it, telling it why if it
        reads again in time (``slow_reader`` is sent only if the socket takes it within
        ``CLOSE_GRACE``; usually it does not). Its seat is held as for any disconnect."""
        log.warning("connection #%d %s: not reading, dropped", self.number, self.address)
        self.dropped_reason = "slow_reader"
        error = ProtocolError(ErrorCode.SLOW_READER, "you stopped reading: closing",
                              fatal=True)
        # Nothing queued will be read in time: discard it (the memory goes at once) so the
        # next line after the one being written is the reason.
        self.out.push_last(self.conn.send_error(error))
        self._stop_reading()

    def shutdown(self) -> None:
        """The server is stopping: ``server_shutdown`` after what is queued, then close."""
        self.close_with(ServerShutdown())

    def close_with(self, last: ProtocolError | ServerMessage | None) -> None:
        """Send ``last`` (an error or a message, if any) as the last message, then close.

        Closing politely (framing errors, floods, timeouts, server shutdown, the client's
        end of input): queue the last message after what is queued, stop reading (lines
        arriving meanwhile are not acted on), and :meth:`run` closes the socket once what
        is queued is written, within ``CLOSE_GRACE``. The transport writes whole lines, so
        the last message is never glued to half a line.
        """
        if self.closing:
            return
        if isinstance(last, ProtocolError):
            last = last.to_message()
        if last is not None:
            data = self.conn.send(last)
            if not self.out.push(data):
                self.out.push_last(data)  # a last word is short: it may pass the bound
        self._stop_reading()

    def _stop_reading(self) -> None:
        self.conn.close()
        self._scope.cancel()  # run() goes on to write what is queued, then closes

    def drop(self, reason: str) -> None:
        """Close at once without sending anything more."""
        self.dropped_reason = reason
        self._dropped = True
        self.conn.close()
        self._scope.cancel()

    def lost(self) -> None:
        """A write failed: the peer is gone (the outgoing side tells us)."""
        self.drop(self.dropped_reason or "connection lost")

    def pause(self, until: float) -> None:
        """Act on nothing more from this client before ``until`` (its lines wait in the
        socket): after a guess refused with ``rate_limited``, a client that does not wait
        costs the server nothing until the time it was told."""
        self.paused_until = max(self.paused_until, until)

    # ------------------------------------------------------------------ timers

    def check(self, now: float) -> float | None:
        """The keepalive's look at this connection: close it if its hello or its ping
        answer is overdue, ping it if it has been silent; when to look again. Any bytes
        the client sent count as life (``last_seen`` and ``heard`` are set by each read)."""
        if self.closing:
            return None
        config = self.config
        if not self.helloed and now >= self._hello_deadline:
            log.info("connection #%d %s: no hello, closed", self.number, self.address)
            self.close_with(ProtocolError(ErrorCode.TIMEOUT, "no hello in time: closing",
                                          fatal=True))
            return None
        if self._ping_heard is not None:
            if self.heard != self._ping_heard:
                self._ping_heard, self._ping_deadline = None, math.inf  # it answered
            elif now >= self._ping_deadline:
                log.info("connection #%d %s: silent, closed", self.number, self.address)
                self.close_with(ProtocolError(ErrorCode.TIMEOUT, "no answer to ping: closing",
                                              fatal=True))
                return None
        if self._ping_heard is None and now >= self.last_seen + config.ping_interval:
            self._ping_heard, self._ping_deadline = self.heard, now + config.ping_timeout
            self.deliver(ServerPing())
        due = (self._ping_deadline if self._ping_heard is not None
               else self.last_seen + config.ping_interval)
        return due if self.helloed else min(due, self._hello_deadline)

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        """Serve the connection until it ends; then tell the hub.

        A server that stops calls :meth:`shutdown` first and cancels this task only if
        the connection has not ended within the shutdown grace.
        """
        try:
            self._keepalive.watch(self, min(self._hello_deadline,
                                            self.last_seen + self.config.ping_interval))
            with self._scope:
                await self._read()
            if not self.closing:
                self.close_with(None)
            if not self._dropped:
                # Closing politely: the last lines go out first, within the grace.
                with trio.move_on_after(CLOSE_GRACE) as self._scope:
                    await self.out.flushed()
        except Exception:
            # A bug in handling this connection must not take the server down.
            log.exception("connection #%d %s failed", self.number, self.address)
        finally:
            self.conn.close()
            self.out.detach()  # before the socket closes: its number may be reused
            self._handler.connection_closed(self)
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_GRACE):
                await self.stream.aclose()

    async def _read(self) -> None:
        """Feed what the socket gives to the sans-IO connection (framing, decoding and the
        protocol's state machine, the hello-first rule included) and answer the lines it
        completes, until the connection closes."""
        conn = self.conn
        stream = self.stream
        while not self.closing:
            try:
                data = await read_some(stream, _READ_SIZE)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.drop("connection lost")
                return
            now = self.last_seen = trio.current_time()
            self.heard += 1
            if self.closing:
                return  # closing: what arrives now is not acted on (nobody would hear why)
            conn.receive_data(data)
            blank = conn.take_blank_lines()
            if blank and not self._admit_blank(blank, now):
                return
            self._answer_lines()
            while self.paused_until > trio.current_time() and not self.closing:
                await trio.sleep_until(self.paused_until)
                self._answer_lines()  # what arrived before the pause, then read again
            if not self.closing and conn.peer_closed:
                self.close_with(None)  # everything it sent before its EOF is answered
            # No extra checkpoint here: waiting for the next chunk is a schedule point
            # even when data is already there, so a flooding client cannot starve others.

    def _answer_lines(self) -> None:
        """Act on every line the connection has ready, in order: each one passes the rate
        limit first; a refused or undecodable one is answered with its error code, a good
        one goes to the handler, which answers synchronously (nothing in it awaits). Lines
        that completed before an over-long one, even in the same read, are answered before
        its fatal ``line_too_long``."""
        conn = self.conn
        out = self.out
        while not self.closing and self.paused_until <= trio.current_time():
            try:
                msg = conn.next_message()
            except RemoteProtocolError as exc:
                if exc.fatal:
                    self.close_with(exc)
                    return
                if self._admit(exc.id):
                    self.deliver(exc.to_message())
                continue
            if msg is None:
                return
            if self._admit(msg.id):
                before = out.pushed
                self._handler.handle_message(self, msg, self.last_seen)
                # Size costs too, a token per whole KiB: of the line, and of what the
                # request made us send back (so a burst can never queue more reply bytes
                # than it is worth). Small requests cost one token, as ever.
                self.bucket.charge(conn.last_line_size // 1024
                                   + (out.pushed - before) // 1024)

    def _admit(self, msg_id: MessageId | None) -> bool:
        """Take one token from the rate limit for a line; answer ``rate_limited`` if none."""
        wait = self.bucket.take(trio.current_time())
        if not wait:
            return True
        self._refused(msg_id, wait)
        return False

    def _admit_blank(self, count: int, now: float) -> bool:
        """Blank lines cost a token each too; refusals of a batch are answered once."""
        if not self.bucket.take_many(count, now):
            return True
        self._refused(None, self.bucket.wait_for_one())
        return not self.closing

    def _refused(self, msg_id: MessageId | None, wait: float) -> None:
        if self.bucket.refused_in_a_row >= self.config.flood_limit:
            log.warning("connection #%d %s: flooding, closed", self.number, self.address)
            self.close_with(ProtocolError(ErrorCode.RATE_LIMITED,
                                          "too many messages: closing", fatal=True))
            return
        hint = retry_hint(wait)
        self.deliver(Error(id=msg_id, code=ErrorCode.RATE_LIMITED,
                           message=f"too many messages; wait {hint:.3f} s", retry_after=hint))
