"""A table's pause: who asked, who agreed, and the clocks it froze.

Any person seated may ask for a pause while the match is on; once every person seated
and connected has agreed (the asker included), the table is paused: the turn clock and
the between-deal countdown stop where they were, and server-side bots wait. Any of them
ends it (``resume``), which also withdraws a request not yet agreed to; the clocks then
go on with the seconds they had left.

A pause is not a channel between partners: a request carries no text, during a deal a
seat may ask only on its own turn (asking on partner's turn could say "think twice"),
and each seat asks at most :data:`MAX_REQUESTS` times a match. Pure: no I/O.
"""

from __future__ import annotations

from ..game.seats import SEATS, Seat
from ..protocol.messages import PauseInfo

__all__ = ["MAX_REQUESTS", "PauseVote"]

#: Pauses one seat may ask for in a match.
MAX_REQUESTS = 3


class PauseVote:
    """The request, the agreement, and (while paused) the seconds each clock had left."""

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
