"""Keeping to the partnership's card: every built-in strategy chooses among the cards
:func:`allowed_cards` gives (the honest ones when any exists, else the whole hand); one
that may deviate (the expert, under a card with a tolerance) keeps within
:func:`tolerance_now`."""

from __future__ import annotations

from ..game.cards import Card
from ..game.conventions import Tolerance
from ..game.honesty import Verdict, verdict
from .base import View
from .cards import NONE

__all__ = ["allowed_cards", "tolerance_now", "verdict_for"]


def verdict_for(view: View) -> Verdict:
    """The honest cards of ``view.hand`` for this play under our partnership's card."""
    return verdict(view.our_card or NONE, view.hand, view.history, view.seat)


def tolerance_now(view: View, found: Verdict) -> Tolerance | None:
    """The declared tolerance for this play's kind of rule (None if the play says nothing)."""
    if not found.meaningful:
        return None
    card = view.our_card or NONE
    return card.tolerance.promise if found.kind == "promise" else card.tolerance.answer


def allowed_cards(view: View) -> tuple[Card, ...]:
    """The cards a strategy with no licence to deviate may play now."""
    return verdict_for(view).allowed
