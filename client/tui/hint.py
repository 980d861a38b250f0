"""Hints in ``jackal play``: when one may be asked for (:func:`why_no_hint`, in the player's
words; the server stays the judge) and how it is put on screen. The client keeps the last
answer for our seat, so the key pressed again on the same turn shows it without asking."""

from __future__ import annotations

from ...game.explain import ordinal
from ...protocol import messages as m
from ..mirror import TableMirror

__all__ = ["HINT_KEY", "hint_is_current", "notice_text", "why_no_hint"]

#: The key that asks for a hint: ``x`` cannot start a typed card (see tui/keys.py).
HINT_KEY = "x"


def why_no_hint(mirror: TableMirror) -> str | None:
    """Why we cannot ask for a hint now, or None if we can."""
    if mirror.you is None:
        return "Spectators get no hints: hints are for the player on turn."
    if not mirror.hints:
        return "This table does not allow hints (its creator decides; the built-in game does)."
    if mirror.status != "playing":
        return "Hints are for a deal being played."
    if not mirror.my_turn:
        return "Hints are for your own turn."
    return None


def hint_is_current(hint: m.HintReply | None, mirror: TableMirror) -> bool:
    """``hint`` is for the turn we are on now (so it can be shown again without asking)."""
    known = mirror.seat_knowledge
    return (hint is not None and known is not None and mirror.my_turn
            and hint.deal == known.deal_number and hint.play == known.play_number)


def notice_text(notice: m.HintTaken, mine: bool, label: str) -> str:
    """The log line for a ``hint_taken``: ours, or another seat's (``label``)."""
    card = f"{ordinal(notice.play)} card"
    if mine:
        return f"You took a hint for your {card} (everyone at the table is told)."
    return f"{label} took a hint for their {card}: the expert's suggestion, seen by them alone."
