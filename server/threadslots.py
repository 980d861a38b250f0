"""Worker-thread slots for server-side bots, handed out so no table starves another.

Bot decisions run in a few worker threads. With a plain FIFO limiter, a human's table
whose bot must move waits behind every decision queued before it: with hundreds of
bots-only tables that is seconds. Here a decision for a table where a person is playing
(*attended*) always gets the next free slot before any decision for a table of bots
alone; within each class the order is first come, first served, and as every table has
at most one decision pending at a time, that is round robin over the tables.

:meth:`ThreadSlots.lease` returns an object with trio's limiter interface
(``acquire_on_behalf_of`` / ``release_on_behalf_of``), so it is passed straight to
``trio.to_thread.run_sync(..., limiter=...)`` and a slot stays taken until its thread
really finishes, even a thread abandoned after its time ran out.
"""

from __future__ import annotations

import trio

__all__ = ["ThreadSlots"]


class ThreadSlots:
    """``total`` slots; waiting attended tables are served before the others."""

    def __init__(self, total: int) -> None:
        self.total = max(1, total)
        self.free = self.total
        self._attended = trio.lowlevel.ParkingLot()
        self._others = trio.lowlevel.ParkingLot()

    def lease(self, attended: bool) -> _Lease:
        return _Lease(self, attended)

    async def acquire(self, attended: bool) -> None:
        if self.free > 0 and not self._attended and (attended or not self._others):
            self.free -= 1
            await trio.lowlevel.checkpoint()
            return
        lot = self._attended if attended else self._others
        # Woken only by release(), which hands its slot straight to the woken task.
        await lot.park()

    def release(self) -> None:
        for lot in (self._attended, self._others):
            if lot.unpark(count=1):
                return
        self.free += 1

    @property
    def waiting(self) -> int:
        return len(self._attended) + len(self._others)


class _Lease:
    """One decision's claim on a slot, in the shape trio's thread helper expects."""

    __slots__ = ("attended", "slots")

    def __init__(self, slots: ThreadSlots, attended: bool) -> None:
        self.slots = slots
        self.attended = attended

    # The trio limiter protocol hands over the borrower; these slots only count.
    async def acquire_on_behalf_of(self, borrower: object) -> None:  # noqa: ARG002
        await self.slots.acquire(self.attended)

    def release_on_behalf_of(self, borrower: object) -> None:  # noqa: ARG002
        self.slots.release()
