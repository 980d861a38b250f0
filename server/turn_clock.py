"""A table's turn clock: when the person to play runs out of time, the stop while that
seat waits for the answer to its own question (at most the table's limit a turn), and the
seat whose time ran out. Plain state, no I/O: the table says when it starts and ends."""

from __future__ import annotations

from ..game.seats import Seat

__all__ = ["TurnClock"]


class TurnClock:
    """The clock of the current turn (one per table)."""

    __slots__ = ("budget", "deadline", "due", "stopped")

    def __init__(self) -> None:
        #: When the human seat to play runs out of time (None: no clock running).
        self.deadline: float | None = None
        #: The seat whose clock ran out: the substitute plays this one card for it.
        self.due: Seat | None = None
        #: Stopped while its seat waits for an answer to a question it asked on this
        #: turn: (seconds it has left, when it stopped).
        self.stopped: tuple[float, float] | None = None
        #: How long the clock may still stop this turn (the table's limit, once per turn
        #: in all), so a question nobody answers cannot stall the table.
        self.budget = 0.0

    def clear(self) -> None:
        """No clock runs (a new turn, or a bot plays the seat now)."""
        self.deadline = self.due = self.stopped = None

    def start(self, now: float, seconds: float, limit: float) -> None:
        """Run for ``seconds`` from ``now``; this turn may stop for ``limit`` in all."""
        self.budget = limit
        self.deadline = now + seconds

    def stop(self, now: float) -> float:
        """Stop the running clock; returns the seconds it has left."""
        assert self.deadline is not None
        left = max(0.0, self.deadline - now)
        self.stopped = (left, now)
        self.deadline = None
        return left

    def release(self, now: float) -> float:
        """End the stop (the time it took comes off the budget); returns the seconds the
        clock has left. The caller runs it again (or keeps them over a pause)."""
        assert self.stopped is not None
        left, since = self.stopped
        self.stopped = None
        self.budget = max(0.0, self.budget - (now - since))
        return left

    def stop_ends(self) -> float | None:
        """When a stop has lasted as long as this turn allows (None: not stopped)."""
        return None if self.stopped is None else self.stopped[1] + self.budget

    def running_left(self, now: float) -> float | None:
        """Seconds left while it runs (None when it does not)."""
        return None if self.deadline is None else max(0.0, self.deadline - now)

    def left(self, now: float) -> float | None:
        """Seconds left, running or stopped (None without a clock)."""
        return self.stopped[0] if self.stopped is not None else self.running_left(now)
