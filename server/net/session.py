"""One client connection: its reader, its outgoing bytes, its timers.

A connection costs as little as possible while it is held, because a server holds
thousands: one task (the one the listener started for it) reads, and nothing else runs
for it while it is idle.

- The reader feeds received bytes to the connection's sans-IO
  :class:`~jackal.protocol.connection.ServerConnection` (framing, decoding and the
  protocol state machine: the hello-first rule lives there), checks the rate limit for
  every line, answers a refused or undecodable line with its error code, and hands each
  good message to the ``on_message`` callback (the hub), which answers synchronously
  (nothing in message handling awaits).
- Rate limit: every line takes a token, blank ones included; every whole KiB of a line,
  and of what a request made the server send back to its sender, takes one more
  (:mod:`.ratelimit`). So no kind of input is free, and a burst of requests can never
  queue more reply bytes than the burst is worth.
- Outgoing bytes go to an :class:`~.transport.Outgoing`, bounded in bytes
  (``send_buffer``) and written by the server's one flusher task in one write per round;
  a writer task exists only while the socket is full. Table code only ever calls
  :meth:`deliver` or :meth:`send_line`, which never block: if the bound would be passed
  the client is not reading, so it is dropped and its seat is held. What was queued for
  it is discarded and error ``slow_reader`` is queued in its place, best effort: it is
  sent only if the socket takes it within ``CLOSE_GRACE`` (usually it does not).
- Timers (no hello within ``hello_timeout``; ``ping`` after ``ping_interval`` of silence
  and ``timeout`` if still silent ``ping_timeout`` later) are kept by the server's one
  :class:`~.keepalive.Keepalive` task, which calls :meth:`Session.check` when they are
  due. Any bytes from the client count as life.

A line that completes in the same chunk as an over-long line is still answered, and then
the connection is closed with ``line_too_long`` (the order in which they arrived).

The session is transport plus identity (its number, address and accepted name); where it
sits is the lobby's and the tables' business, and it knows nothing of the hub.

Closing politely (framing errors, floods, timeouts, slow readers, server shutdown) means:
queue the final ``error`` (or ``server_shutdown``), stop reading, wait until what is queued
is written (at most ``CLOSE_GRACE`` seconds), then close the socket. Lines arriving
meanwhile are not acted on. End of input from the client closes the connection the same
way once what it sent has been answered. Whole lines are written, so a client never sees
a final message glued to half a line.
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
from .transport import Flusher, Outgoing, read_some

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
    """A connected client: who it is, and its outgoing bytes."""

    # Slots: thousands are alive at once, and each is one object the collector walks
    # instead of two (no __dict__).
    __slots__ = ("_dropped", "_handler", "_hello_deadline", "_keepalive", "_ping_deadline",
                 "_ping_heard", "_scope", "address", "bad_passwords", "bucket", "chat_bucket",
                 "config", "conn", "dropped_reason", "heard", "hint_bucket",
                 "last_seen", "number", "out", "paused_until", "stream", "tables_created")

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
        self.out = Outgoing(stream, config.send_buffer, flusher, self)
        now = trio.current_time()
        self.last_seen = now
        #: Counts every receive: "has anything arrived since?" without comparing clock times.
        self.heard = 0
        self._hello_deadline = now + config.hello_timeout
        #: While a ping waits for an answer: ``heard`` when it was sent, and its deadline.
        self._ping_heard: int | None = None
        self._ping_deadline = math.inf
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, now)
        #: Chat lines have a bucket of their own (made at the first line).
        self.chat_bucket: TokenBucket | None = None
        #: What runs now (reading, then the last writes): cancelled to stop it.
        self._scope = trio.CancelScope()
        self._dropped = False
        self.dropped_reason: str | None = None
        self.bad_passwords = 0
        #: Tables this connection created that are still open (the hub keeps count).
        self.tables_created = 0
        #: Hints this connection may still have worked out (made at its first hint).
        self.hint_bucket: TokenBucket | None = None
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
        """Queue ``msg``; never blocks. A client that does not read is dropped."""
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
        reads again in time."""
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
        """Send ``last`` (an error or a message, if any) as the last message, then close."""
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
        answer is overdue, ping it if it has been silent; when to look again."""
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
        """Act on every line the connection has ready, in order."""
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
        self.deliver(Error(id=msg_id, code=ErrorCode.RATE_LIMITED.value,
                           message=f"too many messages; wait {hint:.3f} s", retry_after=hint))
