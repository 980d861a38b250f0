"""The ``greedy`` strategy (:class:`GreedyStrategy`): ignores partner, keeps the five of its
dealt cards that cost least on their own (:func:`greedy_keep`) and throws the rest, most
expensive first, among the cards its partnership's card allows."""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import Card
from ..game.deal import KEEP
from .base import View
from .counts import COST, best_own_keep, cards_for_keep, rank_counts
from .faithful import allowed_cards

__all__ = ["GreedyStrategy", "greedy_keep"]

# Own penalty of keeping x cards of a rank, plus a tiny tie-break towards low ranks.
_OWN_COST: tuple[tuple[float, ...], ...] = tuple(
    tuple(COST[rank][x] + 1e-3 * rank * x for x in range(KEEP + 1)) for rank in range(14)
)


def greedy_keep(cards: Sequence[Card]) -> list[Card]:
    """The five cards a greedy player keeps from ``cards`` (its dealt hand)."""
    _, keep = best_own_keep(rank_counts(cards), _OWN_COST)
    return cards_for_keep(cards, keep)


class GreedyStrategy:
    """Keeps the cheapest five of its dealt hand; discards the rest, highest first.

    At the start it picks the five of its 13 dealt cards with the lowest penalty on their
    own (a triple and a pair cost nothing; otherwise pairs and low singles), and then
    discards everything else, most expensive first, among the cards its partnership's
    card allows (it never gives a false signal when an honest card is in hand). Ties
    between equally cheap fives go to the lower ranks, which cost less if partner cannot
    match them. With no card the choice depends on the dealt hand only (``greedy_keep``).
    """

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # no randomness; kept for a uniform constructor

    def choose(self, view: View) -> Card:
        dealt = [*view.hand, *view.row(view.seat)]
        keep = set(greedy_keep(dealt))
        # Under a card, only honest cards (when there are any): greedy never lies.
        allowed = allowed_cards(view)
        spare = [card for card in allowed if card not in keep]
        if not spare:  # a card we meant to keep, or someone else played this seat before
            spare = list(allowed)
        return max(spare, key=lambda card: (card % 13, card))
