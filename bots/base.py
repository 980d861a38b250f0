"""What a strategy sees and what it must do.

A strategy is any object with ``choose(view) -> Card``. It gets a read-only
:class:`View` of the table from its own seat (its hand, the four public rows, both
partnerships' convention cards, the scores) and returns one card from its hand. No
network, no clock: the same code runs in the arena, in a server-side seat filler and
behind ``jackal bot``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..game.cards import Card, parse_card
from ..game.conventions import ConventionCard
from ..game.errors import MalformedInput
from ..game.seats import SEATS, Seat, Team

__all__ = ["Strategy", "StrategyFactory", "View", "accept_choice"]


@dataclass(frozen=True, slots=True)
class View:
    """The table as one seat sees it when it is that seat's turn to play."""

    seat: Seat
    hand: tuple[Card, ...]
    #: Every play of this deal so far, in order, as (seat, card).
    history: tuple[tuple[Seat, Card], ...]
    dealer: Seat
    conventions: Mapping[Team, ConventionCard] = field(default_factory=dict)
    scores: Mapping[Team, int] = field(default_factory=dict)
    target: int = 300
    deal_number: int = 1

    @property
    def partner(self) -> Seat:
        return self.seat.partner

    def row(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` has played this deal, in order."""
        return tuple(card for who, card in self.history if who is seat)

    @property
    def rows(self) -> dict[Seat, tuple[Card, ...]]:
        return {seat: self.row(seat) for seat in SEATS}

    @property
    def play_number(self) -> int:
        """Which of this seat's eight plays is being chosen (1..8)."""
        return sum(1 for who, _ in self.history if who is self.seat) + 1

    @property
    def our_card(self) -> ConventionCard | None:
        return self.conventions.get(self.seat.team)


@runtime_checkable
class Strategy(Protocol):
    """Anything that picks a card. ``choose`` must return a card from ``view.hand``."""

    def choose(self, view: View) -> Card: ...


#: Builds a strategy; ``seed`` makes any randomness in it reproducible.
StrategyFactory = Callable[[int], Strategy]


def accept_choice(choice: object, hand: tuple[Card, ...]) -> Card | None:
    """The card of ``hand`` that a strategy's answer names, or None if it names none.

    Every place that runs strategies (the arena, server-side bots, ``jackal bot``)
    checks answers the same way: a :class:`Card` (or its int) or card text ("7H") that
    is in the hand. A caller that gets None plays a legal fallback instead.
    """
    if isinstance(choice, str):
        try:
            choice = parse_card(choice)
        except MalformedInput:
            return None
    if isinstance(choice, bool) or not isinstance(choice, int) or choice not in hand:
        return None
    return hand[hand.index(choice)]
