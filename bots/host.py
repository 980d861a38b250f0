"""Hosting a strategy at a seat, one rule everywhere (the server's seat fillers and ``jackal
bot``): :func:`decide` asks it, a strategy that raises, names a card it does not hold or
thinks too long is replaced by :func:`fallback_card` (its hand's first card), and
:func:`answer_question` says what its card means. No waiting here: the caller times it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.errors import JackalError
from ..game.explain import explain_play
from ..game.knowledge import SeatKnowledge
from ..game.seats import Seat
from .base import Strategy, accept_choice

__all__ = ["Decision", "answer_question", "decide", "fallback_card", "timed_out"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The card to play, and why the strategy's own answer was not used (None if it was)."""

    card: Card
    problem: str | None = None
    #: The exception the strategy raised, if it raised (for a traceback in the log).
    error: Exception | None = None


def fallback_card(view: SeatKnowledge) -> Card:
    """The card played for a strategy that failed: the first it may play in hand order.

    Hand order is the card order (suit S, H, D, C, then rank, ace low), the order
    ``deal_started`` and ``your_turn`` list a hand in, so ``4S`` comes before ``AH``: a card
    picked without looking at the game, not the lowest rank (docs/BOTS.md says so).
    """
    return min(view.legal_plays() or view.hand)


def decide(strategy: Strategy, view: SeatKnowledge) -> Decision:
    """Ask ``strategy`` for a card; a legal fallback if it raises or names no card it holds.

    Safe to run in a worker thread: it touches nothing but the strategy and the view.
    """
    try:
        answer: object = strategy.choose(view)
    except Exception as exc:  # a broken strategy must not stop a table
        return Decision(fallback_card(view), f"raised {type(exc).__name__}: {exc}", exc)
    card = accept_choice(answer, view.legal_plays() or view.hand)
    if card is None:
        return Decision(fallback_card(view), f"chose {answer!r}, which is not in the hand")
    return Decision(card)


def timed_out(view: SeatKnowledge, seconds: float) -> Decision:
    """The decision when the strategy did not answer within ``seconds``."""
    return Decision(fallback_card(view), f"did not answer within {seconds:g} s")


def answer_question(card: ConventionCard | None, seat: Seat,
                    history: Sequence[tuple[Seat, Card]], index: int | None) -> str:
    """What the bot at ``seat`` says when an opponent asks about its play ``index`` (or
    in general, with None), given the deal's public ``history``.

    The answer comes from the partnership's declared ``card`` only, exactly what the
    opponents could read themselves: a bot has no private agreements to disclose, and its
    hand is never consulted.
    """
    if card is None:
        return "(bot) we have no declared convention card"
    if index is None:
        summary = card.description or "see our convention card"
        return f"(bot) we play the {card.name!r} card: {summary}"
    played = sum(1 for who, _ in history if who is seat)
    if not 1 <= index <= played:
        return f"(bot) {seat} has played {played} card(s), not {index}"
    try:
        meaning = explain_play(card, history, seat, index)
    except JackalError as exc:  # a malformed custom card must not break the answer
        return f"(bot) {exc}"
    return f"(bot) {meaning.card}: {meaning.text}"
