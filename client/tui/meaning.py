"""What a played card means, for the screen of ``jackal play``.

:func:`explain_card` explains one card of a seat's row under its partnership's declared
convention card (game.explain reads only the plays up to and including it); :func:`short_meaning`
turns such an explanation into the few characters printed under the rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...game.cards import rank_name
from ...game.explain import explain_play
from ...game.seats import Seat
from ..mirror import TableMirror

__all__ = ["explain_card", "short_meaning"]


def explain_card(mirror: TableMirror, seat: Seat,
                 index: int) -> tuple[str, dict[str, Any]] | None:
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
    return meaning.text, dict(meaning.data)


def _rank_text(rank: Any) -> str:
    return rank_name(rank) if isinstance(rank, int) and 1 <= rank <= 13 else str(rank)


def short_meaning(data: Mapping[str, Any]) -> str:
    """A few characters for a card's meaning under the rows: "7s?" promises a pair of 7s
    (or nothing: a fallback card), "+7"/"-7" holds / holds no 7, "." no meaning, "-" a
    promise of nothing (edge rank)."""
    kind = data.get("kind")
    if kind == "promise":
        rank = data.get("rank")
        if rank is None:
            return "-"
        count = data.get("count", 2)
        text = _rank_text(rank) + ("s" if count == 2 else f"x{count}")
        return text + ("?" if data.get("may_be_fallback") else "")
    if kind == "answer":
        rank = data.get("rank")
        holds = data.get("holds")
        if rank is None:
            return "+?" if holds else "-?"
        return ("+" if holds else "-") + _rank_text(rank)
    if kind in ("none", "no_meaning"):
        # A signal rule that names no rank here (an ace promising the rank below it)
        # is worth telling apart from a free discard.
        return "-" if data.get("rule") in ("promise", "answer") else "."
    return "" if kind is None else "?"
