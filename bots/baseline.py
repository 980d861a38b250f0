"""The ``baseline`` strategy (:class:`BaselineStrategy`): plays the yardstick's no-signal
baseline at the table, keeping what :func:`yardstick.baseline_keep` keeps and throwing the
rest, highest first, among the honest cards."""

from __future__ import annotations

from ..game.cards import Card
from .base import View
from .faithful import allowed_cards
from .yardstick import baseline_keep

__all__ = ["BaselineStrategy"]


class BaselineStrategy:
    """Keeps its own groups, then its lowest singles; ignores partner entirely.

    It keeps exactly what :func:`yardstick.baseline_keep` keeps from its dealt hand and
    throws the rest, highest first. With no card (as the yardstick assumes) a pair of
    these scores the arena's baseline penalty on every deal, which is how the tests check
    that the yardstick and the game agree; under a card that gives plays a meaning it
    chooses only among the honest cards, so it stays faithful.
    """

    name = "baseline"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # no randomness; kept for a uniform constructor

    def choose(self, view: View) -> Card:
        dealt = [*view.hand, *view.row(view.seat)]
        keep = set(baseline_keep(dealt))
        allowed = allowed_cards(view)  # honest cards only, under a card that says something
        spare = [card for card in allowed if card not in keep] or list(allowed)
        return max(spare, key=lambda card: (card % 13, card))
