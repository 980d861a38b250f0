"""A table's clocks, a part the table owns: when the person to play runs out of time, the
stop while that seat waits for the answer to its own question (at most the table's limit
a turn), the seat whose time ran out, when the next deal starts, and the seconds both keep
over a pause. No I/O: the table says when a turn starts and ends."""

from __future__ import annotations

from ..game.seats import Seat
from ..protocol.messages import Clock

__all__ = ["TurnClock"]

class TurnClock:
    """The clock of the current turn and the countdown to the next deal (one per table),
    and what a pause keeps of both. Its methods are given the time and
    the facts of the table they need, and say what they did; the table tells everyone.
    """

    __slots__ = ("between_deadline", "between_left", "budget", "deadline", "due", "kept",
                 "stopped")

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
        #: While the table is paused: the seconds the clock runs for once the pause ends
        #: (None: no clock was running).
        self.kept: float | None = None
        #: Between deals: when the next deal starts (None: it waits for no time)...
        self.between_deadline: float | None = None
        #: ...and while paused, the seconds that countdown had left.
        self.between_left: float | None = None

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

    # ------------------------------------------------------------------ at the table

    def arm(self, now: float, limit: float | None, grace: float = 0.0, *,
            paused: bool) -> float | None:
        """A new turn: a clock of ``limit`` seconds (None: the seat to play has none)
        with ``grace`` seconds more; returns the seconds it has. While ``paused`` it runs,
        in full, once the pause ends."""
        self.clear()
        if not limit:
            return None
        if paused:
            self.budget = limit
            self.kept = limit + grace
        else:
            self.start(now, limit + grace, limit)
        return limit + grace

    def stop_for_question(self, now: float, seat: Seat, turn: Seat | None, *,
                          waiting: bool) -> Clock | None:
        """``seat`` asked a person a question (``waiting`` for the answer) on its own
        ``turn``: the clock stops until the answer comes (or, at most, for the table's
        limit in all this turn). Returns the news (None: it runs on)."""
        if self.deadline is None or turn is not seat or not waiting or self.budget <= 0:
            return None
        return Clock(seat=seat, seconds=self.stop(now), stopped=True)

    def run_again(self, now: float, turn: Seat | None, *, waiting: bool, paused: bool,
                  force: bool = False) -> Clock | None:
        """The stopped clock of ``turn`` runs again once that seat is not ``waiting`` for
        an answer (``force``: its time to wait this turn is used up); returns the news
        (None: nothing changed). While ``paused`` it runs on once the pause ends."""
        if self.stopped is None or turn is None or (waiting and not force):
            return None
        left = self.release(now)
        if paused:
            self.kept = left
        else:
            self.deadline = now + left
        return Clock(seat=turn, seconds=left, stopped=False)

    def played(self, *, deal_over: bool) -> None:
        """A card was played: a seat that was ``due`` is no more, and after the deal's
        last card no clock runs."""
        self.due = None
        if deal_over:
            self.deadline = None

    def hold(self, now: float) -> None:
        """A pause starts: the turn's clock and the between-deal countdown stop where they
        are, keeping the seconds they had left."""
        self.kept = self.running_left(now)
        self.between_left = self.next_deal_in(now, paused=False)
        self.deadline = self.between_deadline = None

    def go_on(self, now: float) -> None:
        """A pause ends: both go on with the seconds they kept."""
        self.deadline = None if self.kept is None else now + self.kept
        self.between_deadline = None if self.between_left is None \
            else now + self.between_left
        self.kept = self.between_left = None

    def next_deal_at(self, when: float | None) -> None:
        """The next deal starts at ``when`` (None: it waits for no time)."""
        self.between_deadline = when

    def next_deal_due(self, now: float) -> bool:
        """The countdown to the next deal ran out by ``now``."""
        return self.between_deadline is not None and now >= self.between_deadline

    def next_deal_in(self, now: float, *, paused: bool) -> float | None:
        """Seconds until the next deal starts (None: no countdown runs)."""
        if paused:
            return self.between_left
        return None if self.between_deadline is None else max(0.0, self.between_deadline - now)

    def deadlines(self, *, paused: bool) -> list[float]:
        """When :meth:`next_deal_due`, :meth:`stop_ended` or :meth:`expire` has something
        to do: the next deal is due, the time is up, or a stop has lasted as long as this
        turn allows (not while the table is ``paused``)."""
        stop_ends = self.stop_ends()
        times = [time for time in (self.between_deadline, self.deadline) if time is not None]
        return times if stop_ends is None or paused else [*times, stop_ends]

    def stop_ended(self, now: float, *, paused: bool) -> bool:
        """A stop has lasted as long as this turn allows: the clock must run again."""
        stop_ends = self.stop_ends()
        return stop_ends is not None and not paused and now >= stop_ends

    def expire(self, now: float, turn: Seat | None) -> bool:
        """The seat to play (``turn``, in a deal being played) ran out of time by ``now``:
        it is ``due`` (the substitute plays this one card for it; the seat stays the
        player's, and their next turn has its own clock). True if so."""
        if self.deadline is None or now < self.deadline or turn is None:
            return False
        self.deadline = None
        self.due = turn
        return True

    def turn_left(self, now: float, *, paused: bool) -> float | None:
        """Seconds left on the current turn's clock (None without one); while it is
        stopped (a pause, or its seat waits for an answer), what it will have when it
        runs again."""
        if paused and self.stopped is None:
            return self.kept
        return self.left(now)
