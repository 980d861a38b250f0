"""One client connection: a reader, one writer, and its timers.

Each connection runs in its own nursery inside its own cancel scope:

- the reader feeds received bytes to the connection's sans-IO
  :class:`~jackal.protocol.connection.ServerConnection` (framing, decoding and the
  protocol state machine: the hello-first rule lives there), checks the rate limit for
  every line, answers a refused or undecodable line with its error code, and hands each
  good message to the ``on_message`` callback (the hub), which answers synchronously
  (nothing in message handling awaits);
- ONE writer drains a bounded memory channel of encoded lines to the socket, sending
  whatever has queued up in one write. Table code only ever calls :meth:`deliver`,
  which never blocks: if the channel is full the client is not reading, so it is
  dropped and its seat is held. What was queued for it is discarded and error
  ``slow_reader`` is queued in its place, best effort: the writer sends it only if the
  socket takes the batch it is stuck on within ``CLOSE_GRACE`` (usually it does not);
- keepalive: after ``ping_interval`` of silence the server sends ``ping``; if nothing
  at all arrives within ``ping_timeout`` more, the connection is closed (``timeout``).
  Any bytes from the client count as life;
- a connection that has not said ``hello`` within ``hello_timeout`` gets ``timeout``
  and is closed.

A line that completes in the same chunk as an over-long line is still answered, and then
the connection is closed with ``line_too_long`` (the order in which they arrived).

The session is transport plus identity (its number, address and accepted name); where it
sits is the lobby's and the tables' business, and it knows nothing of the hub.

Closing politely (framing errors, floods, timeouts, slow readers, server shutdown) means:
queue the final ``error`` (or ``server_shutdown``), close the channel, let the writer drain
it (at most ``CLOSE_GRACE`` seconds), then close the socket. Lines arriving meanwhile are
not acted on. End of input from the client closes the connection the same way once what
it sent has been answered. Whole batches of lines are written, so a client never sees a
final message glued to half a line.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import trio

from ..protocol.connection import ServerConnection
from ..protocol.errors import ErrorCode, ProtocolError, RemoteProtocolError
from ..protocol.messages import (
    ClientMessage,
    Error,
    MessageId,
    ServerMessage,
    ServerPing,
    ServerShutdown,
)
from ..protocol.state import ConnState
from .config import ServerConfig
from .ratelimit import TokenBucket

__all__ = ["CLOSE_GRACE", "MessageHandler", "Session"]

log = logging.getLogger("jackal.server")

#: How long a closing connection may take to receive its last messages.
CLOSE_GRACE = 2.0
#: Coalesce at most this many queued bytes into one socket write.
_WRITE_BATCH = 65536


#: Called with each good message from a client, and the time it arrived.
MessageHandler = Callable[["Session", ClientMessage, float], None]


class Session:
    """A connected client: who it is, and its queue of outgoing lines."""

    def __init__(self, stream: trio.SocketStream | trio.abc.Stream, number: int, address: str,
                 config: ServerConfig, on_message: MessageHandler,
                 on_closed: Callable[[Session], None]) -> None:
        self.stream = stream
        self.number = number
        self.address = address
        self.config = config
        self.conn = ServerConnection(max_line=config.max_line)
        self._on_message = on_message
        self._on_closed = on_closed
        self._send, self._receive = trio.open_memory_channel[bytes](config.send_queue)
        now = trio.current_time()
        self.last_seen = now
        #: Counts every receive: "has anything arrived since?" without comparing clock times.
        self.heard = 0
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, now)
        self.scope = trio.CancelScope()
        self.dropped_reason: str | None = None
        self.bad_passwords = 0
        self._nursery: trio.Nursery | None = None

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
        """True once nothing more is read or queued (the last lines may still be written)."""
        return self.conn.state is ConnState.CLOSED

    # ------------------------------------------------------------------ sending

    def deliver(self, msg: ServerMessage) -> None:
        """Queue ``msg``; never blocks. A full queue drops the connection."""
        if not self.closing:
            self.send_line(self.conn.send(msg))

    def send_line(self, data: bytes) -> None:
        """Queue one encoded line; never blocks. A full queue drops the connection."""
        if self.closing:
            return
        try:
            self._send.send_nowait(data)
        except trio.WouldBlock:
            self._overflow()
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    def _overflow(self) -> None:
        """The queue is full: the client is not reading. Drop it, telling it why if it can."""
        log.warning("connection #%d %s: not reading, dropped", self.number, self.address)
        self.dropped_reason = "slow_reader"
        # Nothing queued will be read in time; discard it so that the next line after the
        # batch the writer is stuck on is the reason (and the memory goes at once).
        while True:
            try:
                self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                break
        self.close_with(ProtocolError(ErrorCode.SLOW_READER,
                                      "you stopped reading: closing", fatal=True))

    def shutdown(self) -> None:
        """The server is stopping: ``server_shutdown`` after what is queued, then close."""
        self.close_with(ServerShutdown())

    def close_with(self, last: ProtocolError | ServerMessage | None) -> None:
        """Send ``last`` (an error or a message, if any) as the last message, then close."""
        if self.closing:
            return
        if isinstance(last, ProtocolError):
            self.deliver(last.to_message())
        elif last is not None:
            self.deliver(last)
        self.conn.close()
        self._send.close()  # the writer drains what is queued, then ends the session
        if self._nursery is not None:
            self._nursery.start_soon(self._grace_timer)

    def drop(self, reason: str) -> None:
        """Close at once without sending anything more."""
        self.dropped_reason = reason
        self.conn.close()
        self.scope.cancel()

    async def _grace_timer(self) -> None:
        await trio.sleep(CLOSE_GRACE)
        self.scope.cancel()

    # ------------------------------------------------------------------ tasks

    async def run(self) -> None:
        """Serve the connection until it ends; then tell the hub.

        A server that stops calls :meth:`shutdown` first and cancels this task only if
        the connection has not ended within the shutdown grace.
        """
        try:
            with self.scope:
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    nursery.start_soon(self._reader)
                    nursery.start_soon(self._writer)
                    nursery.start_soon(self._keepalive)
                    if not self.helloed:
                        nursery.start_soon(self._hello_timer)
        except Exception:
            # A bug in handling this connection must not take the server down.
            log.exception("connection #%d %s failed", self.number, self.address)
        finally:
            self.conn.close()
            self._on_closed(self)
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_GRACE):
                await self.stream.aclose()

    async def _reader(self) -> None:
        conn = self.conn
        while not self.closing:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.drop("connection lost")
                return
            self.last_seen = trio.current_time()
            self.heard += 1
            if self.closing:
                return  # closing: what arrives now is not acted on (nobody would hear why)
            conn.receive_data(data)
            self._answer_lines()
            if not self.closing and conn.peer_closed:
                self.close_with(None)  # everything it sent before its EOF is answered
            # No extra checkpoint here: receive_some is a schedule point even when data is
            # already waiting, so a flooding client cannot starve the writer or others.

    def _answer_lines(self) -> None:
        """Act on every line the connection has ready, in order."""
        conn = self.conn
        while not self.closing:
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
                self._on_message(self, msg, self.last_seen)

    def _admit(self, msg_id: MessageId | None) -> bool:
        """Take one token from the rate limit for a line; answer ``rate_limited`` if none."""
        wait = self.bucket.take(trio.current_time())
        if not wait:
            return True
        if self.bucket.refused_in_a_row >= self.config.flood_limit:
            log.warning("connection #%d %s: flooding, closed", self.number, self.address)
            self.close_with(ProtocolError(ErrorCode.RATE_LIMITED,
                                          "too many messages: closing", fatal=True))
            return False
        # Round UP to the millisecond: a hint of 0.0 (or one a little short) would invite
        # an immediate retry that is refused again.
        hint = max(0.001, math.ceil(wait * 1000.0) / 1000.0)
        self.deliver(Error(id=msg_id, code=ErrorCode.RATE_LIMITED.value,
                           message=f"too many messages; wait {hint:.3f} s", retry_after=hint))
        return False

    async def _writer(self) -> None:
        receive = self._receive
        try:
            async for data in receive:
                chunks = [data]
                size = len(data)
                while size < _WRITE_BATCH:
                    try:
                        more = receive.receive_nowait()
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                    chunks.append(more)
                    size += len(more)
                await self.stream.send_all(b"".join(chunks))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.dropped_reason = self.dropped_reason or "connection lost"
        self.conn.close()
        self.scope.cancel()

    async def _keepalive(self) -> None:
        config = self.config
        while True:
            idle_until = self.last_seen + config.ping_interval
            if trio.current_time() < idle_until:
                await trio.sleep_until(idle_until)
                continue
            heard = self.heard
            self.deliver(ServerPing())
            await trio.sleep(config.ping_timeout)
            if self.heard == heard:
                log.info("connection #%d %s: silent, closed", self.number, self.address)
                self.close_with(ProtocolError(ErrorCode.TIMEOUT,
                                              "no answer to ping: closing", fatal=True))
                await trio.sleep(math.inf)

    async def _hello_timer(self) -> None:
        await trio.sleep(self.config.hello_timeout)
        if not self.helloed:
            log.info("connection #%d %s: no hello, closed", self.number, self.address)
            self.close_with(ProtocolError(ErrorCode.TIMEOUT,
                                          "no hello in time: closing", fatal=True))
