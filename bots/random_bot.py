"""The ``random`` strategy: any card its card allows, uniformly, from a seeded generator.

The generator is seeded by whoever builds the strategy (the factory's ``seed``); a
server seeds it from an unpredictable source, the arena from the run's seed.
"""

from __future__ import annotations

import random

from ..game.cards import Card
from .base import View
from .faithful import allowed_cards


class RandomStrategy:
    """Plays a uniformly random card among those its partnership's card allows."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Card:
        return self._rng.choice(allowed_cards(view))
