"""A table's pause, a part the table owns: who asked and who agreed. Agreed, it stops the
turn clock and the between-deal countdown (the clock keeps their seconds); any person
seated ends it. Every vote takes effect at the next whole GRID_SECONDS of the table's
clock, so when a seat votes carries nothing. The rules are docs/PROTOCOL.md's (``pause``,
``resume``). Pure: no I/O."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

from ..game.seats import SEATS, Seat
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import MessageId, PauseInfo, PauseState, TableStatus
from .seating import Outbox, Peer
from .turn_clock import TurnClock

__all__ = ["GRID_SECONDS", "MAX_REQUESTS", "PauseVote"]

#: Pauses one seat may ask for in a match.
MAX_REQUESTS = 3

#: Votes (asking, agreeing, withdrawing, resuming, a voter going away) take effect, and
#: are told, at the next whole multiple of this many seconds of the table's clock.
GRID_SECONDS = 2.0

Vote = Literal["ask", "agree", "end", "went"]


class PauseVote:
    """The request and the agreement. Its methods are given what they need of the table
    (its clocks, which a pause stops and starts) and return what they decided: the
    messages, and whether the clocks stopped or went on.
    """

    def __init__(self) -> None:
        self.asked_by: Seat | None = None
        self.agreed: set[Seat] = set()
        self.paused = False
        #: Requests each seat has made this match.
        self.requests: dict[Seat, int] = {}
        #: Votes cast since the last grid time, in order, with who to answer.
        self.pending: list[tuple[Vote, Seat, Peer | None, MessageId | None]] = []
        #: When they take effect (None: no vote waits).
        self.due_at: float | None = None

    def _queue(self, now: float, vote: Vote, seat: Seat, peer: Peer | None = None,
               req_id: MessageId | None = None) -> None:
        if self.due_at is None:
            self.due_at = (math.floor(now / GRID_SECONDS) + 1) * GRID_SECONDS
        self.pending.append((vote, seat, peer, req_id))

    def _asked(self) -> bool:
        """A pause is asked for, or a request for one waits for the grid."""
        return self.active or any(vote == "ask" for vote, *_ in self.pending)

    def tick(self, now: float, clock: TurnClock, present: set[Seat], audience: Iterable[Peer]
             ) -> tuple[Outbox, bool]:
        """Apply the votes that wait, once their grid time has come (``present``: the
        persons seated and connected; ``audience``: everyone at the table)."""
        if self.due_at is None or now < self.due_at:
            return [], False
        votes, self.pending, self.due_at = self.pending, [], None
        out: Outbox = []
        moved = False
        readers = list(audience)
        for vote, seat, peer, req_id in votes:
            if vote in ("ask", "agree") and not self.paused:
                if not self.active:
                    self.ask(seat)
                else:
                    self.agreed.add(seat)
                moved |= self._settle(present, clock, now)
            elif vote == "end" and self.active:
                moved |= self._lift(clock, now)
            elif vote == "went" and self.active and not self.paused:
                self.agreed.discard(seat)
                if not self.agreed:
                    self.clear()
                else:
                    moved |= self._settle(present, clock, now)
            out += self._news(readers, seat, peer, req_id)
        return out, moved

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
        """No pause asked for or in force."""
        self.asked_by = None
        self.agreed = set()
        self.paused = False

    def info(self) -> PauseInfo | None:
        """Where the pause stands, for ``table_state`` (None: nothing asked)."""
        if self.asked_by is None:
            return None
        return PauseInfo(paused=self.paused, asked_by=self.asked_by,
                         agreed=[seat for seat in SEATS if seat in self.agreed])

    # ------------------------------------------------------------------ at the table

    def request(self, seat: Seat, status: TableStatus, turn: Seat | None, now: float,
                peer: Peer, req_id: MessageId | None) -> None:
        """``seat`` (at ``peer``) asks for a pause, or agrees to the one asked for; it is
        ``turn``'s turn in a deal being played, if any."""
        if status not in ("playing", "between_deals"):
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                "a pause is for a match in progress (no clock runs now)")
        if self.paused:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "the table is paused already")
        if not self._asked():
            # Not a channel between partners: on partner's turn a request could say
            # "think twice", and a seat asking again and again could count out a signal.
            if status == "playing" and turn is not None and turn is not seat:
                raise ProtocolError(ErrorCode.NOT_YOUR_TURN,
                                    "during a deal you may ask for a pause on your own "
                                    "turn only (or agree to one asked for)")
            if self.requests.get(seat, 0) >= MAX_REQUESTS:
                raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                    f"each seat asks for at most {MAX_REQUESTS} pauses "
                                    f"a match")
            self._queue(now, "ask", seat, peer, req_id)
        else:
            self._queue(now, "agree", seat, peer, req_id)

    def end(self, seat: Seat, now: float, peer: Peer, req_id: MessageId | None) -> None:
        """``seat`` (at ``peer``) ends the pause, or withdraws the request for one (the
        table then starts the next deal if it was only waiting for the pause)."""
        if not self._asked():
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "no pause is asked for")
        self._queue(now, "end", seat, peer, req_id)

    def seat_went(self, seat: Seat, now: float, clock: TurnClock, *, all_bots: bool,
                  audience: Iterable[Peer]) -> tuple[Outbox, bool]:
        """The person at ``seat`` went away (a drop, a leave): their agreement goes, and
        the others may now all have agreed (``all_bots``: a bot plays every seat now).
        The caller then starts the next deal if the pause ended between deals."""
        if self.paused and all_bots:
            # Everyone left for good (a bot plays each seat, which nobody can take):
            # nobody could resume, and spectators would watch a table stopped for ever.
            moved = self._lift(clock, now)
            return self._news(list(audience), seat), moved
        if self._asked() and not self.paused:
            self._queue(now, "went", seat)
        return [], False

    def _lift(self, clock: TurnClock, now: float) -> bool:
        """No pause any more: the clocks go on with the seconds they had left (True if
        they were stopped)."""
        was_paused = self.paused
        self.clear()
        if was_paused:
            clock.go_on(now)
        return was_paused

    def freeze(self, clock: TurnClock, now: float) -> bool:
        """The server stops the table itself (its record waits for the disk): no card,
        no deal, the clocks stopped as for an agreed pause. False if a pause is in force
        already (it stays as it is)."""
        if self.paused:
            return False
        self.paused = True
        clock.hold(now)
        return True

    def thaw(self, clock: TurnClock, now: float) -> bool:
        """The server lets a table it froze go on (a pause the players agreed meanwhile
        could not be asked for: a frozen table counts as paused). True if the clocks go
        on."""
        if not self.paused or self.active:
            return False
        self._lift(clock, now)
        return True

    def _settle(self, present: set[Seat], clock: TurnClock, now: float) -> bool:
        """Pause the table once every person ``present`` agreed: the clocks stop where
        they are (True if they did)."""
        if not self.everyone_agreed(present):
            return False
        self.paused = True
        clock.hold(now)
        return True

    def _news(self, readers: list[Peer], seat: Seat, peer: Peer | None = None,
              req_id: MessageId | None = None) -> Outbox:
        """``pause_state`` to everyone here (``peer``'s copy is its reply)."""
        info = self.info()
        news = PauseState(seat=seat, paused=info.paused if info else False,
                          asked_by=info.asked_by if info else None,
                          agreed=info.agreed if info else [])
        own = PauseState(id=req_id, seat=seat, paused=news.paused, asked_by=news.asked_by,
                         agreed=news.agreed)
        return [(each, own if each is peer else news) for each in readers]
