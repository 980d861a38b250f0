"""Convention cards as data.

A partnership's agreements are a :class:`ConventionCard`: a name, a description,
free-text notes, the low/high boundary, and one :data:`Rule` for each of a player's
eight plays. Rules come from a small declarative vocabulary:

- :class:`Promise` -- "this card promises at least ``count`` cards (default 2, a pair)
  of the rank ``offset`` away from the card played"; when the player has nothing
  suitable to promise they play a card from ``fallback`` ("high" or "low") instead,
  so such a card may also mean "nothing to promise".
- :class:`Answer` -- "this card answers partner's play ``play``: a low card means I hold
  a card of the rank partner promised, a high card means I hold none".
- :class:`NoMeaning` -- a plain discard.

Every signal is thus a statement about how many cards of one rank its player holds,
which is what lets bots reason about them exactly.

(Loading, validation and explanations are added by the conventions issue.)
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["Answer", "ConventionCard", "NoMeaning", "Promise", "Rule"]


class _RuleBase(msgspec.Struct, tag_field="kind", frozen=True, forbid_unknown_fields=True):
    """Rules are tagged by a ``kind`` field ("promise", "answer", "none")."""


class Promise(_RuleBase, tag="promise", frozen=True):
    """Promise ``count`` or more cards of rank (card played + ``offset``)."""

    offset: int
    count: int = 2
    fallback: Literal["high", "low"] = "high"


class Answer(_RuleBase, tag="answer", frozen=True):
    """Answer partner's play number ``play`` (1..8): low = I hold that rank, high = none."""

    play: int


class NoMeaning(_RuleBase, tag="none", frozen=True):
    """A discard that says nothing."""


Rule = Promise | Answer | NoMeaning


class ConventionCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A partnership's declared agreements, one rule per play number 1..8."""

    name: str
    plays: tuple[Rule, ...]
    description: str = ""
    notes: str = ""
    #: Ranks up to and including this are "low"; above it, "high". Beginner: 7.
    low_max: int = 7

    def rule(self, play: int) -> Rule:
        """The rule for play number ``play`` (1..8)."""
        return self.plays[play - 1]

    def is_low(self, rank: int) -> bool:
        return rank <= self.low_max
