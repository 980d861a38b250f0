"""Playing one deal to its end with a strategy at every seat, in-process.

The one deal-play loop, for the arena's deals, the expert pair and bench/bots.py. It
lives with the strategies, not in the arena, because the server reaches it too (through
the expert pair) and must not import the arena.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.seats import Seat, Team
from .base import Strategy, View, accept_choice

__all__ = ["play_through"]


def play_through(deal: Deal, players: Mapping[Seat, Strategy],
                 team_cards: Mapping[Team, ConventionCard], deal_number: int) -> None:
    """Play ``deal`` to its end, each seat's card chosen by ``players[seat]``.

    Raises RuntimeError when a strategy names a card it does not hold: a measurement
    must not hide a broken strategy behind a fallback.
    """
    while (seat := deal.turn) is not None:
        view = View.from_deal(deal, seat, conventions=team_cards, deal_number=deal_number)
        answer = players[seat].choose(view)
        card = accept_choice(answer, view.hand)
        if card is None:
            raise RuntimeError(f"strategy {type(players[seat]).__name__} at {seat} "
                               f"returned {answer!r}, not in its hand")
        deal.play(card, seat)
