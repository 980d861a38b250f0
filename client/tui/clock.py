"""What the terminal client says of time: the turn's clock and its warning, and the
countdown to the next deal (their fields are :class:`~.parts.ClockView`'s)."""

from __future__ import annotations

import math
import time

from ...game.seats import SEATS
from .state import TuiState

__all__ = ["between_deals_text", "clock_left", "clock_text", "clock_warning"]


#: A longer wait between deals is a table waiting for its players (the built-in game's
#: is a day), not a countdown to show.
LONGEST_COUNTDOWN = 3600


def between_deals_text(state: TuiState) -> str:
    """Between deals: "Next deal in 23s. Ready: N S. Waiting for: E." (who is ready
    from the mirror's seats; the countdown from the server's ``next_deal_in``)."""
    seats = state.mirror.seats
    humans = [s for s in SEATS if seats[s].kind == "human"]
    ready = [s.value for s in humans if seats[s].ready]
    waiting = [s.value for s in humans if not seats[s].ready]
    parts = []
    next_deal_at = state.clock.next_deal_at
    if next_deal_at is not None:
        left = max(0, math.ceil(next_deal_at - time.monotonic()))
        if left <= LONGEST_COUNTDOWN:
            parts.append(f"Next deal in {left}s")
    if ready:
        parts.append(f"ready: {' '.join(ready)}")
    if waiting:
        parts.append(f"waiting for: {' '.join(waiting)}")
    text = "; ".join(parts)
    return text[:1].upper() + text[1:]  # it starts a sentence with or without a countdown


def clock_left(state: TuiState) -> float | None:
    """Seconds left on the turn's clock (None when no clock runs); while the table
    is paused, what it had when it stopped."""
    if state.table_status != "playing":
        return None
    return state.clock.left(paused=state.mirror.paused)


def clock_warning(state: TuiState) -> bool:
    """Our own time is nearly up: a third of the limit or 10 seconds, whichever is
    less. The first time it is, the bell rings (if on)."""
    left = clock_left(state)
    running = state.clock.running
    if left is None or running is None or running[0] is not state.you or not state.my_turn:
        return False
    if left > min(10.0, (state.clock.limit or left) / 3):
        return False
    if state.clock.first_warning():
        state.bell.ring()
    return True


def clock_text(state: TuiState) -> str:
    """"12s left" on a clocked turn; the warning when our own time is nearly up."""
    stopped = state.clock.stopped
    if stopped is not None and state.table_status == "playing":
        return f"clock stopped at {math.ceil(stopped[1])}s: waiting for an answer"
    left = clock_left(state)
    if left is None:
        return ""
    if clock_warning(state):
        return (f"Hurry: {math.ceil(left)}s left, then a substitute plays this card "
                "for you.")
    return f"{math.ceil(left)}s left"
