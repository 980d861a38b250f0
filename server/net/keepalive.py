"""Every connection's timers (hello deadline, keepalive ping, ping timeout) in one task.

A task per connection per timer would cost a coroutine, its frame and its cancel scopes
for every connection, for as long as it lives: at thousands of connections, most of what
the garbage collector has to walk. So one task keeps every connection's next due time.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Protocol

import trio

__all__ = ["Keepalive", "Watched"]


class Watched(Protocol):
    """A connection the keepalive looks after."""

    def check(self, now: float) -> float | None:
        """Act on whatever is due at ``now``; the next time to be checked, or None."""
        ...


class Keepalive:
    """The server's one timer task for all connections.

    Each connection says when it next needs looking at; this task keeps those times in a
    heap, sleeps until the earliest and calls :meth:`Watched.check` on whoever is due,
    which returns the next time that connection needs a look (or None once it is
    closing). Nothing is rescheduled when data arrives: the connection just notes the
    time, and the check that comes due sees the fresh time and asks to be looked at later.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Watched]] = []
        self._order = itertools.count()
        self._sleeping_until = math.inf
        self._wakeup = trio.lowlevel.ParkingLot()

    def watch(self, who: Watched, at: float) -> None:
        """Check ``who`` at time ``at`` (and then whenever it asks)."""
        heapq.heappush(self._heap, (at, next(self._order), who))
        if at < self._sleeping_until:
            self._wakeup.unpark_all()

    def __len__(self) -> int:
        return len(self._heap)

    async def run(self) -> None:
        """Check connections as they come due, until cancelled."""
        heap = self._heap
        while True:
            now = trio.current_time()
            while heap and heap[0][0] <= now:
                _, _, who = heapq.heappop(heap)
                again = who.check(now)
                if again is not None:
                    # Never "again right now": that would spin this loop.
                    heapq.heappush(heap, (max(again, now + 0.001), next(self._order), who))
            self._sleeping_until = heap[0][0] if heap else math.inf
            with trio.move_on_at(self._sleeping_until):
                await self._wakeup.park()
            self._sleeping_until = math.inf
