"""Worker-thread slots for server-side bots and hints, handed out so no table starves another.

A free slot goes to a bot's move at a table where a person plays, then to a hint, then to
a move at a table of bots alone; and a hint's thread gives way to people's moves
(:func:`run_behind_moves`), since threads share one interpreter lock.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

import trio

__all__ = ["MOST_GIVEN_WAY", "ThreadSlots", "run_behind_moves"]

T = TypeVar("T")

#: The classes, first served first.
_ATTENDED, _HINT, _BOTS = 0, 1, 2


class ThreadSlots:
    """``total`` slots; attended tables' moves first, then hints, then the others.

    With a plain FIFO limiter, a human's table whose bot must move waits behind every
    decision queued before it: with hundreds of bots-only tables, or a flood of hints,
    that is seconds. Here a free slot goes, in this order, to a bot move at a table where
    a person is playing (*attended*), then to a hint (a person waits for it too, but it is
    extra help, and each connection's hints are rate-limited), then to a move at a table
    of bots alone. Within each class the order is first come, first served, and as every
    table has at most one decision pending at a time, that is round robin over the tables.

    A hint starts only while no attended move runs, and never takes the last of several
    slots (:attr:`hint_cap`). A free slot is not enough, though: see :func:`run_behind_moves`.
    """

    def __init__(self, total: int) -> None:
        self.total = max(1, total)
        self.free = self.total
        #: Most hints running at once: all slots but one (one if there is only one).
        self.hint_cap = max(1, self.total - 1)
        self.hints_running = 0
        self.attended_running = 0
        #: Set while no attended move runs: what a hint's thread waits for.
        self.no_moves = threading.Event()
        self.no_moves.set()
        self._lots = tuple(trio.lowlevel.ParkingLot() for _ in range(3))

    def lease(self, attended: bool, hint: bool = False) -> _Lease:
        """A claim on a slot with trio's limiter interface (``acquire_on_behalf_of`` /
        ``release_on_behalf_of``), passed straight to ``trio.to_thread.run_sync(...,
        limiter=...)``: the slot stays taken until its thread really finishes, even a
        thread abandoned after its time ran out."""
        return _Lease(self, _kind(attended, hint))

    async def acquire(self, attended: bool, hint: bool = False) -> None:
        await self._acquire(_kind(attended, hint))

    def release(self, attended: bool, hint: bool = False) -> None:
        self._release(_kind(attended, hint))

    async def _acquire(self, kind: int) -> None:
        # Free, and nobody who may start is waiting in this class or one served before.
        if self.free > 0 and self._may_start(kind) and not any(
                self._lots[earlier] and self._may_start(earlier)
                for earlier in range(kind + 1)):
            self.free -= 1
            self._started(kind)
            await trio.lowlevel.checkpoint()
            return
        # Woken only by _release(), which hands its slot straight to the woken task.
        await self._lots[kind].park()

    def _may_start(self, kind: int) -> bool:
        return kind != _HINT or (self.hints_running < self.hint_cap
                                 and self.attended_running == 0)

    def _started(self, kind: int) -> None:
        self.hints_running += kind == _HINT
        if kind == _ATTENDED:
            self.attended_running += 1
            self.no_moves.clear()

    def _release(self, kind: int) -> None:
        self.hints_running -= kind == _HINT
        if kind == _ATTENDED:
            self.attended_running -= 1
            if self.attended_running == 0:
                self.no_moves.set()
        self.free += 1
        # The end of an attended move can let more than one waiting hint start.
        while self.free > 0:
            waiting = next((waiting for waiting, lot in enumerate(self._lots)
                            if lot and self._may_start(waiting)), None)
            if waiting is None:
                return
            self._lots[waiting].unpark(count=1)
            self.free -= 1
            self._started(waiting)

    @property
    def waiting(self) -> int:
        return sum(len(lot) for lot in self._lots)


#: The longest a thread under :func:`run_behind_moves` gives way to moves, in all.
MOST_GIVEN_WAY = 0.5


def run_behind_moves(no_moves: threading.Event, work: Callable[..., T], *args: Any,
                     most: float = MOST_GIVEN_WAY) -> T:
    """``work(*args)`` in this (worker) thread, stopping at each Python function call until
    ``no_moves`` is set: the thread gives the interpreter lock to attended moves, for
    ``most`` seconds in all, then runs as any thread does (a server always busy with
    people's moves must still answer hints, within ``think_seconds``).

    Why: decisions are pure Python, so two running at once share one interpreter lock and
    each takes about twice as long. A hint that started first would still share it with a
    move that comes while it runs, so a hint thread runs under this and stops at its next
    Python call while an attended move runs (:attr:`ThreadSlots.no_moves`). A flood of
    hints then slows people's tables by little more than the event loop's own work for it
    (tests/server/test_hardening_hints.py measures it). The expert pair's play-through of
    a finished deal does not run here at all, but in worker processes
    (:mod:`jackal.server.expert_pool`), so it shares no interpreter lock with the server.

    A trace function is the one hook Python offers into another thread's running code;
    ``sys.settrace`` sets it for this thread alone, and it asks for no line events, so it
    costs a check per call."""
    left = most

    def on_call(frame: FrameType, event: str, arg: object) -> None:  # noqa: ARG001
        nonlocal left
        if not no_moves.is_set():
            started = time.monotonic()
            no_moves.wait(left if left < math.inf else None)  # wait() refuses inf
            left -= time.monotonic() - started
            if left <= 0:
                sys.settrace(None)  # given way long enough

    sys.settrace(on_call)
    try:
        return work(*args)
    finally:
        sys.settrace(None)


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
