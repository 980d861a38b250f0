"""Convention cards as the bots use them.

Loading and validating cards belongs to :mod:`jackal.game.conventions`; this module
adds what strategies and the arena need on top: the built-in cards as constants and
the default card for each strategy.
"""

from __future__ import annotations

from ..game.conventions import builtin_card

__all__ = [
    "BEGINNER",
    "NONE",
    "default_conventions",
]

BEGINNER = builtin_card("beginner")
NONE = builtin_card("none")

#: The card a strategy plays by default when nobody says otherwise.
_DEFAULT_CARD = {"expert": "advanced", "beginner": "beginner"}


def default_conventions(strategy: str) -> str:
    """The card name a side playing ``strategy`` uses unless told otherwise."""
    return _DEFAULT_CARD.get(strategy, "none")
