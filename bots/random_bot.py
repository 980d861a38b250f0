"""The ``random`` strategy: any card, uniformly, from a seeded generator."""

from __future__ import annotations

import random

from ..game.cards import Card
from .base import View


class RandomStrategy:
    """Plays a uniformly random card from its hand."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Card:
        return self._rng.choice(view.hand)
