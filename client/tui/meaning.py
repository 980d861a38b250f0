"""What a played card means, for the screen of ``jackal play``.

:func:`explain_card` explains one card of a seat's row under its partnership's declared
convention card (game.explain reads only the plays up to and including it); :func:`short_meaning`
turns such an explanation into the few characters printed under the rows.
"""

from __future__ import annotations

from ...game.cards import rank_name
from ...game.explain import AnswerMeaning, Meaning, PromiseMeaning, explain_play
from ...game.seats import Seat
from ..mirror import TableMirror

__all__ = ["explain_card", "short_meaning"]


def explain_card(mirror: TableMirror, seat: Seat, index: int) -> tuple[str, Meaning] | None:
    """The meaning of ``seat``'s ``index``-th card under its partnership's declared card,
    as (text, data); None when there is no card there or no explanation available."""
    row = mirror.rows[seat]
    # The card in force when it was played (a new one declared between deals applies to
    # the next deal only).
    card = mirror.played_under.get(seat.team) or mirror.conventions.get(seat.team)
    if card is None or not 1 <= index <= len(row):
        return None
    try:
        meaning = explain_play(card, mirror.history(), seat, index)
    except Exception:  # a malformed custom card must never take the screen down
        return None
    return meaning.text, meaning.data


def short_meaning(meaning: Meaning) -> str:
    """A few characters for a card's meaning under the rows: "7s?" promises a pair of 7s
    (or nothing: a fallback card), "+7"/"-7" holds / holds no 7, "." no meaning, "-" a
    promise of nothing (edge rank)."""
    match meaning:
        case PromiseMeaning(kind="promise", rank=int(rank), count=count):
            text = rank_name(rank) + ("s" if count == 2 else f"x{count}")
            return text + ("?" if meaning.may_be_fallback else "")
        case AnswerMeaning(kind="answer", rank=int(rank), holds=holds):
            return ("+" if holds else "-") + rank_name(rank)
        case PromiseMeaning() | AnswerMeaning():
            # A signal rule that names no rank here (an ace promising the rank below it)
            # is worth telling apart from a free discard.
            return "-"
    return "."
