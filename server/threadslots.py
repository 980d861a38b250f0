"""Worker-thread slots for server-side bots, handed out so no table starves another.

Bot decisions and hints run in a few worker threads. With a plain FIFO limiter, a human's
table whose bot must move waits behind every decision queued before it: with hundreds of
bots-only tables, or a flood of hints, that is seconds. Here a free slot goes, in this
order, to a bot move at a table where a person is playing (*attended*), then to a hint
(a person waits for it too, but it is extra help, and each connection's hints are
rate-limited), then to a move at a table of bots alone. Within each class the order is
first come, first served, and as every table has at most one decision pending at a time,
that is round robin over the tables. Hints never hold every slot: one is always left for
moves, so a move never waits for a hint to finish (:attr:`ThreadSlots.hint_cap`).

:meth:`ThreadSlots.lease` returns an object with trio's limiter interface
(``acquire_on_behalf_of`` / ``release_on_behalf_of``), so it is passed straight to
``trio.to_thread.run_sync(..., limiter=...)`` and a slot stays taken until its thread
really finishes, even a thread abandoned after its time ran out.
"""

from __future__ import annotations

import trio

__all__ = ["ThreadSlots"]

#: The classes, first served first.
_ATTENDED, _HINT, _BOTS = 0, 1, 2


class ThreadSlots:
    """``total`` slots; attended tables' moves first, then hints, then the others."""

    def __init__(self, total: int) -> None:
        self.total = max(1, total)
        self.free = self.total
        #: Most hints running at once: all slots but one (one if there is only one).
        self.hint_cap = max(1, self.total - 1)
        self.hints_running = 0
        self._lots = (trio.lowlevel.ParkingLot(), trio.lowlevel.ParkingLot(),
                      trio.lowlevel.ParkingLot())

    def lease(self, attended: bool, hint: bool = False) -> _Lease:
        return _Lease(self, _kind(attended, hint))

    async def acquire(self, attended: bool, hint: bool = False) -> None:
        await self._acquire(_kind(attended, hint))

    def release(self, hint: bool = False) -> None:
        self._release(_HINT if hint else _ATTENDED)

    async def _acquire(self, kind: int) -> None:
        # Free, and nobody who may start is waiting in this class or one served before.
        if self.free > 0 and self._may_start(kind) and not any(
                self._lots[earlier] and self._may_start(earlier)
                for earlier in range(kind + 1)):
            self.free -= 1
            self.hints_running += kind == _HINT
            await trio.lowlevel.checkpoint()
            return
        # Woken only by _release(), which hands its slot straight to the woken task.
        await self._lots[kind].park()

    def _may_start(self, kind: int) -> bool:
        return kind != _HINT or self.hints_running < self.hint_cap

    def _release(self, kind: int) -> None:
        self.hints_running -= kind == _HINT
        for waiting, lot in enumerate(self._lots):
            if self._may_start(waiting) and lot.unpark(count=1):
                self.hints_running += waiting == _HINT
                return
        self.free += 1

    @property
    def waiting(self) -> int:
        return sum(len(lot) for lot in self._lots)


def _kind(attended: bool, hint: bool) -> int:
    return _HINT if hint else _ATTENDED if attended else _BOTS


class _Lease:
    """One decision's claim on a slot, in the shape trio's thread helper expects."""

    __slots__ = ("kind", "slots")

    def __init__(self, slots: ThreadSlots, kind: int) -> None:
        self.slots = slots
        self.kind = kind

    # The trio limiter protocol hands over the borrower; these slots only count.
    async def acquire_on_behalf_of(self, borrower: object) -> None:  # noqa: ARG002
        await self.slots._acquire(self.kind)

    def release_on_behalf_of(self, borrower: object) -> None:  # noqa: ARG002
        self.slots._release(self.kind)
