"""A table's turn clock, a part the table owns: when the person to play runs out of time,
the stop while that seat waits for the answer to its own question (at most the table's
limit a turn), the seconds it keeps over a pause, and the seat whose time ran out. No I/O:
the table says when a turn starts and ends."""

from __future__ import annotations

from typing import Protocol

from ..game.match import Match
from ..game.seats import Seat
from ..protocol.messages import Clock, TableStatus
from .disclosure import Disclosure
from .seating import Outbox, Seating, SeatSlot
from .table_options import TableOptions

__all__ = ["ClockedTable", "TurnClock"]


class PauseHold(Protocol):
    """What the clock reads of the table's pause (:class:`.pause.PauseVote`)."""

    paused: bool
    #: While paused: the seconds the turn's clock runs for once the pause ends.
    turn_left: float | None


class ClockedTable(Protocol):
    """What the clock reads of the table that owns it (and ``version``, which it bumps)."""

    status: TableStatus
    match: Match
    options: TableOptions
    now: float
    version: int
    seats: dict[Seat, SeatSlot]
    seating: Seating
    disclosure: Disclosure

    @property
    def pausing(self) -> PauseHold: ...


class TurnClock:
    """The clock of the current turn (one per table).

    The table passes itself to the calls that need it rather than being kept here (no
    reference cycle; see :class:`.disclosure.Disclosure`).
    """

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

    # ------------------------------------------------------------------ at the table

    def arm(self, table: ClockedTable, grace: float = 0.0) -> float | None:
        """Start the clock of the seat to play if it is a human's (and the table has
        one), with ``grace`` seconds more; returns the seconds it has."""
        self.clear()
        limit = table.options.turn_seconds
        deal = table.match.deal
        if not limit or table.status != "playing" or deal is None or deal.turn is None:
            return None
        if table.seats[deal.turn].bot_controlled:
            return None
        if table.pausing.paused:  # it runs, in full, once the pause ends
            self.budget = limit
            table.pausing.turn_left = limit + grace
        else:
            self.start(table.now, limit + grace, limit)
        return limit + grace

    def bot_plays(self, table: ClockedTable, seat: Seat) -> None:
        """``seat`` is now played by a bot: a clock running for it stops."""
        deal = table.match.deal
        if deal is not None and deal.turn is seat:
            self.clear()

    def stop_for_question(self, table: ClockedTable, seat: Seat) -> Outbox:
        """``seat`` asked a person a question on its own turn: its clock stops until the
        answer comes (or, at most, for the table's limit in all this turn)."""
        deal = table.match.deal
        if self.deadline is None or deal is None or deal.turn is not seat \
                or not table.disclosure.waiting(seat) or self.budget <= 0:
            return []
        left = self.stop(table.now)
        table.version += 1
        return table.seating.broadcast(Clock(seat=seat, seconds=left, stopped=True))

    def run_again(self, table: ClockedTable, *, force: bool = False) -> Outbox:
        """The stopped clock runs again once its seat waits for no answer (``force``: its
        time to wait this turn is used up)."""
        deal = table.match.deal
        if self.stopped is None or deal is None or deal.turn is None:
            return []
        if not force and table.disclosure.waiting(deal.turn):
            return []
        left = self.release(table.now)
        if table.pausing.paused:  # it runs on once the pause ends
            table.pausing.turn_left = left
        else:
            self.deadline = table.now + left
        table.version += 1
        return table.seating.broadcast(Clock(seat=deal.turn, seconds=left, stopped=False))

    def deadlines(self, *, paused: bool) -> list[float]:
        """When :meth:`tick` has something to do: the time is up, or a stop has lasted
        as long as this turn allows (not while the table is ``paused``)."""
        stop_ends = self.stop_ends()
        times = [] if self.deadline is None else [self.deadline]
        return times if stop_ends is None or paused else [*times, stop_ends]

    def tick(self, table: ClockedTable, now: float) -> Outbox:
        """Act on the deadlines that have passed: a stop's time ran out (the clock runs
        again), or the seat to play ran out of time (it is ``due``)."""
        out: Outbox = []
        stop_ends = self.stop_ends()
        if stop_ends is not None and not table.pausing.paused and now >= stop_ends:
            out = self.run_again(table, force=True)  # waited as long as it may this turn
        deal = table.match.deal
        if self.deadline is not None and now >= self.deadline \
                and table.status == "playing" and deal is not None and deal.turn is not None:
            # Time is up: the substitute plays this one card (the table's bot_turn); the
            # seat stays the player's, and their next turn has its own clock.
            self.deadline = None
            self.due = deal.turn
            table.version += 1
        return out

    def turn_left(self, table: ClockedTable) -> float | None:
        """Seconds left on the current turn's clock (None without one); while it is
        stopped (a pause, or its seat waits for an answer), what it will have when it
        runs again."""
        if table.pausing.paused and self.stopped is None:
            return table.pausing.turn_left
        return self.left(table.now)
