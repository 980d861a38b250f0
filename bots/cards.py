"""Convention cards as the bots use them.

Loading and validating cards belongs to :mod:`jackal.game.conventions`; this module
adds what strategies and the arena need on top: the built-in cards as constants, the
default card for each strategy, and the promised rank of a card under one rule.
"""

from __future__ import annotations

from ..game.conventions import ConventionCard, Promise, Rule, builtin_card, resolve_card

__all__ = [
    "BEGINNER",
    "NONE",
    "default_conventions",
    "promised_rank",
    "resolve_conventions",
]

BEGINNER = builtin_card("beginner")
NONE = builtin_card("none")

#: The card a strategy plays by default when nobody says otherwise.
_DEFAULT_CARD = {"expert": "advanced", "beginner": "beginner"}


def resolve_conventions(spec: str) -> ConventionCard:
    """A card by built-in name (``none``, ``beginner``, ``advanced``...) or file path."""
    return resolve_card(spec)


def default_conventions(strategy: str) -> str:
    """The card name a side playing ``strategy`` uses unless told otherwise."""
    return _DEFAULT_CARD.get(strategy, "none")


def promised_rank(rule: Rule, card_rank: int) -> int | None:
    """The rank a card of ``card_rank`` promises under ``rule``; None if it promises none.

    Offsets do not wrap: a rank that falls outside A..K promises nothing (so under
    the beginner card an ace as 1st card and a king as 2nd card say nothing).
    """
    if not isinstance(rule, Promise):
        return None
    rank = card_rank + rule.offset
    return rank if 1 <= rank <= 13 else None
