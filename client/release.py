"""When a hosted program's card may leave: on a fixed schedule counted from its turn, so the
time its partner sees the card says nothing about when the program answered (the server's
bot floor, ``server/bots.py``, does the same for server-side bots). Used by the exec host
when ``jackal tournament`` hosts ``exec:`` programs (docs/BOTS.md, the tournament's
"Timing")."""

from __future__ import annotations

import logging
import math

import trio

__all__ = ["ReleaseClock", "release_steps"]

log = logging.getLogger("jackal.bot")


def release_steps(elapsed: float, floor: float) -> int:
    """How many whole floors a move that took ``elapsed`` seconds waits for: one for any
    move within the floor, else the next power of two (0 when there is no floor).

    Doubling, not the next whole floor, because a copy that answers late on purpose could
    otherwise choose among move-limit/floor steps (50 at the defaults, 5.6 bits a move);
    doubling leaves it about log2 of log2 of that (7 steps, 2.8 bits) at a cost in time
    that shows, and costs an honest slow program at most twice its own time."""
    if floor <= 0:
        return 0
    steps = max(1.0, elapsed / floor)
    return int(2 ** math.ceil(math.log2(steps) - 1e-9))


class ReleaseClock:
    """Holds each card of one seat back to a whole number of ``floor`` seconds after its
    turn reached the host. A move slower than one floor leaves at a later step and is
    counted (:attr:`late`); its time then shows only the power of two of floors it took
    (:func:`release_steps`)."""

    def __init__(self, floor: float, where: str = "") -> None:
        self.floor = floor
        self.where = where
        #: Moves that took longer than one floor.
        self.late = 0

    async def hold(self, started: float) -> None:
        """Sleep until the card of the turn that reached the host at ``started`` (trio's
        clock) may leave."""
        if self.floor <= 0:
            return
        steps = release_steps(trio.current_time() - started, self.floor)
        if steps > 1:
            self.late += 1
            if self.late == 1:
                log.warning("%sa move took longer than the %gs floor: it leaves %d floors "
                            "after its turn (raise --bot-floor if the program is this slow "
                            "on purpose)", self.where, self.floor, steps)
        await trio.sleep_until(started + steps * self.floor)
