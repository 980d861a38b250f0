"""The client's one queue of pushed server events: :class:`EventStream`, bounded by one
budget, the wire bytes of the events not yet read. A connection writes into it; a seat
session or lobby link hands the same stream to each connection it makes in turn, so an
event waits in exactly one queue between the socket and the code that reads it."""

from __future__ import annotations

import math

import trio

from ..protocol.messages import ServerMessage

__all__ = ["MAX_EVENT_BYTES", "EventStream"]

#: Bytes (as they came on the wire) of pushed events a reader may leave unread. Thousands
#: of real events fit: a ``table_state`` with two inline cards is about 10 KB.
MAX_EVENT_BYTES = 4 << 20


class EventStream:
    """Pushed events in arrival order, for one reader.

    :meth:`put` never blocks (the connection's reader must not wait on a slow consumer):
    it refuses an event that would take the unread bytes past ``max_bytes``, and the
    writer then drops its connection. :meth:`end` says no more will come; the reader gets
    what is queued, then ``trio.EndOfChannel``.
    """

    __slots__ = ("_in", "_out", "ended", "max_bytes", "unread_bytes")

    def __init__(self, max_bytes: int = MAX_EVENT_BYTES) -> None:
        # Unbounded in count: the budget in bytes is the one bound.
        self._in, self._out = trio.open_memory_channel[tuple[ServerMessage, int]](math.inf)
        self.max_bytes = max_bytes
        #: Wire bytes of the events queued and not yet read.
        self.unread_bytes = 0
        #: :meth:`end` was called.
        self.ended = False

    def put(self, msg: ServerMessage, size: int) -> bool:
        """Queue ``msg`` (``size`` bytes on the wire); False, and nothing queued, when it
        does not fit in the budget or the stream has ended."""
        if self.unread_bytes + size > self.max_bytes:
            return False
        try:
            self._in.send_nowait((msg, size))
        except trio.ClosedResourceError:
            return False
        self.unread_bytes += size
        return True

    def end(self) -> None:
        """No more events (idempotent): the reader gets those queued, then the end."""
        self.ended = True
        self._in.close()

    async def get(self) -> ServerMessage:
        """The next event; ``trio.EndOfChannel`` once the stream ended and is read out."""
        try:
            msg, size = await self._out.receive()
        except trio.ClosedResourceError:
            raise trio.EndOfChannel from None
        self.unread_bytes -= size
        return msg
