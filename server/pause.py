"""A table's pause, a part the table owns: who asked, who agreed, and the seconds the
turn clock and the between-deal countdown had left when everyone agreed. Any person
seated ends it, and the clocks go on from there. Every vote takes effect at the next
whole GRID_SECONDS of the table's clock, so when a seat votes carries nothing. The rules
are docs/PROTOCOL.md's (``pause``, ``resume``). Pure: no I/O."""

from __future__ import annotations

import math
from typing import Literal, Protocol

from ..game.match import Match
from ..game.seats import SEATS, Seat
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import MessageId, PauseInfo, PauseState, TableStatus
from .seating import Outbox, Peer, Seating, SeatSlot
from .turn_clock import TurnClock

__all__ = ["GRID_SECONDS", "MAX_REQUESTS", "PauseVote", "PausingTable"]

#: Pauses one seat may ask for in a match.
MAX_REQUESTS = 3

#: Votes (asking, agreeing, withdrawing, resuming, a voter going away) take effect, and
#: are told, at the next whole multiple of this many seconds of the table's clock.
GRID_SECONDS = 2.0

Vote = Literal["ask", "agree", "end", "went"]


class PausingTable(Protocol):
    """What the pause reads of the table that owns it (and the clocks it stops)."""

    status: TableStatus
    match: Match
    now: float
    #: Bumped when the clocks stop or go on: a bot's decision made meanwhile is stale.
    version: int
    between_deadline: float | None
    clock: TurnClock
    seating: Seating
    seats: dict[Seat, SeatSlot]


class PauseVote:
    """The request, the agreement, and (while paused) the seconds each clock had left.

    The table passes itself to each call rather than being kept here (no reference
    cycle; see :class:`.disclosure.Disclosure`).
    """

    def __init__(self) -> None:
        self.asked_by: Seat | None = None
        self.agreed: set[Seat] = set()
        self.paused = False
        #: Requests each seat has made this match.
        self.requests: dict[Seat, int] = {}
        #: While paused: what was left of the turn's clock and of the between-deal
        #: countdown (None: that clock was not running).
        self.turn_left: float | None = None
        self.between_left: float | None = None
        #: Votes cast since the last grid time, in order, with who to answer.
        self.pending: list[tuple[Vote, Seat, Peer | None, MessageId | None]] = []
        #: When they take effect (None: no vote waits).
        self.due_at: float | None = None

    def _queue(self, now: float, vote: Vote, seat: Seat, peer: Peer | None = None,
               req_id: MessageId | None = None) -> Outbox:
        if self.due_at is None:
            self.due_at = (math.floor(now / GRID_SECONDS) + 1) * GRID_SECONDS
        self.pending.append((vote, seat, peer, req_id))
        return []

    def _asked(self) -> bool:
        """A pause is asked for, or a request for one waits for the grid."""
        return self.active or any(vote == "ask" for vote, *_ in self.pending)

    def tick(self, table: PausingTable, now: float) -> Outbox:
        """Apply the votes that wait, once their grid time has come."""
        if self.due_at is None or now < self.due_at:
            return []
        votes, self.pending, self.due_at = self.pending, [], None
        out: Outbox = []
        for vote, seat, peer, req_id in votes:
            if vote in ("ask", "agree") and not self.paused:
                if not self.active:
                    self.ask(seat)
                else:
                    self.agreed.add(seat)
                self._settle(table)
            elif vote == "end" and self.active:
                self._lift(table)
            elif vote == "went" and self.active and not self.paused:
                self.agreed.discard(seat)
                if not self.agreed:
                    self.clear()
                else:
                    self._settle(table)
            out += self._news(table, seat, peer, req_id)
        return out

    @property
    def active(self) -> bool:
        """A pause is asked for or in force."""
        return self.asked_by is not None

    def ask(self, seat: Seat) -> None:
        self.asked_by = seat
        self.agreed = {seat}
        self.requests[seat] = self.requests.get(seat, 0) + 1

    def everyone_agreed(self, present: set[Seat]) -> bool:
        """Every seat in ``present`` (the persons seated and connected) agreed."""
        return self.active and not self.paused and present <= self.agreed

    def clear(self) -> None:
        """No pause asked for or in force (the clocks' seconds are the table's to take)."""
        self.asked_by = None
        self.agreed = set()
        self.paused = False
        self.turn_left = self.between_left = None

    def info(self) -> PauseInfo | None:
        """Where the pause stands, for ``table_state`` (None: nothing asked)."""
        if self.asked_by is None:
            return None
        return PauseInfo(paused=self.paused, asked_by=self.asked_by,
                         agreed=[seat for seat in SEATS if seat in self.agreed])

    # ------------------------------------------------------------------ at the table

    def request(self, table: PausingTable, peer: Peer, req_id: MessageId | None) -> Outbox:
        """``peer`` asks for a pause, or agrees to the one asked for."""
        seat = table.seating.require_seat(peer).seat
        if table.status not in ("playing", "between_deals"):
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                "a pause is for a match in progress (no clock runs now)")
        if self.paused:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "the table is paused already")
        if not self._asked():
            # Not a channel between partners: on partner's turn a request could say
            # "think twice", and a seat asking again and again could count out a signal.
            deal = table.match.deal
            if table.status == "playing" and deal is not None and deal.turn is not seat:
                raise ProtocolError(ErrorCode.NOT_YOUR_TURN,
                                    "during a deal you may ask for a pause on your own "
                                    "turn only (or agree to one asked for)")
            if self.requests.get(seat, 0) >= MAX_REQUESTS:
                raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                    f"each seat asks for at most {MAX_REQUESTS} pauses "
                                    f"a match")
            return self._queue(table.now, "ask", seat, peer, req_id)
        return self._queue(table.now, "agree", seat, peer, req_id)

    def end(self, table: PausingTable, peer: Peer, req_id: MessageId | None) -> Outbox:
        """``peer`` ends the pause, or withdraws the request for one (the table then
        starts the next deal if it was only waiting for the pause)."""
        seat = table.seating.require_seat(peer).seat
        if not self._asked():
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "no pause is asked for")
        return self._queue(table.now, "end", seat, peer, req_id)

    def seat_went(self, table: PausingTable, seat: Seat) -> Outbox:
        """The person at ``seat`` went away (a drop, a leave): their agreement goes, and
        the others may now all have agreed. The caller then starts the next deal if the
        pause ended between deals."""
        if self.paused and all(slot.kind == "bot" for slot in table.seats.values()):
            # Everyone left for good (a bot plays each seat, which nobody can take):
            # nobody could resume, and spectators would watch a table stopped for ever.
            self._lift(table)
            return self._news(table, seat)
        if not self._asked() or self.paused:
            return []
        return self._queue(table.now, "went", seat)

    def _lift(self, table: PausingTable) -> None:
        """No pause any more: the clocks go on with the seconds they had left."""
        if self.paused:
            table.clock.deadline = _after(table.now, self.turn_left)
            table.between_deadline = _after(table.now, self.between_left)
            table.version += 1
        self.clear()

    def freeze(self, table: PausingTable) -> bool:
        """The server stops the table itself (its record waits for the disk): no card,
        no deal, the clocks stopped as for an agreed pause. False if a pause is in force
        already (it stays as it is)."""
        if self.paused:
            return False
        self._stop_clocks(table)
        return True

    def thaw(self, table: PausingTable) -> None:
        """The server lets a table it froze go on (a pause the players agreed meanwhile
        could not be asked for: a frozen table counts as paused)."""
        if self.paused and not self.active:
            self._lift(table)

    def _settle(self, table: PausingTable) -> None:
        """Pause the table once every person here agreed: the clocks stop where they are."""
        if not self.everyone_agreed(table.seating.present()):
            return
        self._stop_clocks(table)

    def _stop_clocks(self, table: PausingTable) -> None:
        self.paused = True
        self.turn_left = table.clock.running_left(table.now)
        self.between_left = None if table.between_deadline is None else max(
            0.0, table.between_deadline - table.now)
        table.clock.deadline = table.between_deadline = None
        table.version += 1  # a bot thinking now plays after the pause, not during it

    def _news(self, table: PausingTable, seat: Seat, peer: Peer | None = None,
              req_id: MessageId | None = None) -> Outbox:
        """``pause_state`` to everyone here (``peer``'s copy is its reply)."""
        info = self.info()
        news = PauseState(seat=seat, paused=info.paused if info else False,
                          asked_by=info.asked_by if info else None,
                          agreed=info.agreed if info else [])
        own = PauseState(id=req_id, seat=seat, paused=news.paused, asked_by=news.asked_by,
                         agreed=news.agreed)
        return [(each, own if each is peer else news) for each, _ in table.seating.audience()]


def _after(now: float, left: float | None) -> float | None:
    """The deadline of a clock that had ``left`` seconds when it was frozen."""
    return None if left is None else now + left
