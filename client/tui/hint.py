"""Hints in ``jackal play``: when one may be asked for, and how it is put on screen.

The server works hints out (``hint``; only where the table allows them) and tells
everyone at the table when a seat took one (``hint_taken``). The client keeps the last
answer for our seat, so pressing the key again on the same turn shows it again without
asking; :func:`why_no_hint` says, in the player's words, why a hint cannot be asked now
(the server would refuse it for the same reasons and stays the judge).
"""

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
