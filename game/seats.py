"""Seats, partnerships and turn order.

Seats are N, E, S, W clockwise; N+S play against E+W. ``Seat`` is a ``str`` enum so
it goes on the wire as "N" with no conversion, and ``seat.ordinal`` (0..3) is what the
engine's hot paths use.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import MalformedInput

__all__ = ["SEATS", "TEAMS", "Seat", "Team"]


class Team(StrEnum):
    """A partnership: "NS" or "EW"."""

    NS = "NS"
    EW = "EW"

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (Seat.N, Seat.S) if self is Team.NS else (Seat.E, Seat.W)

    @property
    def other(self) -> Team:
        return Team.EW if self is Team.NS else Team.NS

    def __str__(self) -> str:
        return self.value


class Seat(StrEnum):
    """One of the four places at the table."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @property
    def ordinal(self) -> int:
        """0 for N, 1 for E, 2 for S, 3 for W (clockwise)."""
        return _INDEX[self]

    @property
    def next(self) -> Seat:
        """The seat clockwise after this one."""
        return SEATS[(_INDEX[self] + 1) % 4]

    @property
    def partner(self) -> Seat:
        return SEATS[(_INDEX[self] + 2) % 4]

    def clockwise_from(self) -> tuple[Seat, Seat, Seat, Seat]:
        """The four seats clockwise, starting with this one: the order of play of a deal
        this seat leads."""
        return _CLOCKWISE[self]

    @property
    def team(self) -> Team:
        return TEAMS[_INDEX[self] % 2]

    @classmethod
    def parse(cls, text: str) -> Seat:
        """Read "N", "e", ...; raise :class:`MalformedInput` quoting anything else."""
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise MalformedInput(f"{text!r} is not a seat (expected N, E, S or W)") from None

    def __str__(self) -> str:
        return self.value


SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
TEAMS: tuple[Team, Team] = (Team.NS, Team.EW)
_INDEX = {seat: i for i, seat in enumerate(SEATS)}
#: Each seat's :meth:`Seat.clockwise_from`, worked out once: turn order is on hot paths.
_CLOCKWISE: dict[Seat, tuple[Seat, Seat, Seat, Seat]] = {
    seat: (seat, SEATS[(i + 1) % 4], SEATS[(i + 2) % 4], SEATS[(i + 3) % 4])
    for i, seat in enumerate(SEATS)}
