"""What a strategy sees and what it must do: any object with ``choose(view) -> Card``
(:class:`Strategy`), given a read-only :class:`View` from its own seat and returning a card
of its hand. No network, no clock: the same code runs in the arena, in a server-side seat
and behind ``jackal bot``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..game.cards import Card, parse_card
from ..game.errors import MalformedInput
from ..game.knowledge import SeatKnowledge

__all__ = ["Strategy", "StrategyFactory", "View", "accept_choice"]


#: What a strategy sees when it is its seat's turn: the seat's own picture of the table
#: (its hand, the public rows via ``history``, ``dealer``, ``conventions``, ``scores``,
#: ``target``, ``deal_number``; derived ``partner``, ``row()``, ``rows``, ``play_number``,
#: ``our_card``, ``turn``, ``legal_plays()``). The same value the server's per-seat views
#: build and the client's mirror keeps, so a strategy reads it the same everywhere.
View = SeatKnowledge


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
