"""Server-side bots: :class:`BotPool`, the strategies that play seats without a connection,
each deciding in a worker thread and its card held back to a fixed time so that its
think time does not show its hand (docs/PROTOCOL.md, "Bot timing")."""

from __future__ import annotations

import functools
import logging
import math
import secrets
from collections.abc import Callable
from typing import cast

import trio

from ..bots.base import Strategy, View
from ..bots.host import Decision, decide, timed_out
from ..bots.registry import make_strategy
from ..game.cards import Card
from ..game.seats import Seat
from .net.threadslots import ThreadSlots, run_behind_moves

__all__ = ["BotPool"]

log = logging.getLogger("jackal.server")


class BotPool:
    """The strategy objects of every bot seat, and the threads they think in.

    Each strategy object gets a 128-bit seed from :mod:`secrets`, never a counter or the
    table's seed, so an opponent cannot replay a bot's choices to learn its hand. A
    decision runs in a worker thread behind the shared :class:`ThreadSlots` (people's
    tables first), never on the event loop. One slower than ``think_seconds``, one that
    raises or one that names a card not in the hand is replaced by the legal fallback of
    ``jackal.bots.host`` (the hand's first card), and the strategy object is rebuilt, so
    an abandoned thread never shares state with the next decision. A strategy that fails
    is logged once per table and seat. Its card is held back to a fixed time (see
    :meth:`think`), since how long a decision takes depends on the hand.
    """

    def __init__(self, threads: int, think_seconds: float, floor_seconds: float = 0.0) -> None:
        self.slots = ThreadSlots(threads)
        self.think_seconds = think_seconds
        #: Every decision is released on a multiple of this (see :meth:`think`).
        self.floor_seconds = floor_seconds
        #: Decisions that took longer than one floor (their time shows a little).
        self.over_floor = 0
        self._strategies: dict[tuple[str, Seat, str], Strategy] = {}
        #: Bots whose failure was logged already (table, seat, strategy).
        self._failed: set[tuple[str, Seat, str]] = set()

    def strategy(self, table_id: str, seat: Seat, name: str) -> Strategy:
        key = (table_id, seat, name)
        strategy = self._strategies.get(key)
        if strategy is None:
            strategy = make_strategy(name, secrets.randbits(128))
            self._strategies[key] = strategy
        return strategy

    def forget(self, table_id: str) -> None:
        """Drop the strategies of a table that is gone."""
        for key in [key for key in self._strategies if key[0] == table_id]:
            del self._strategies[key]
        self._failed = {key for key in self._failed if key[0] != table_id}

    def _first_failure(self, key: tuple[str, Seat, str]) -> bool:
        if key in self._failed:
            return False
        self._failed.add(key)
        return True

    async def think(self, strategy: Strategy, view: View, *, attended: bool,
                    at_least: float = 0.0, hint: bool = False) -> Decision:
        """``strategy``'s decision on ``view`` in a worker thread behind the shared slots,
        or the host's fallback (with its ``problem``) when it takes over ``think_seconds``.
        A ``hint`` waits behind the moves of tables where people play
        (:mod:`.net.threadslots`).

        Returns no sooner than ``at_least`` seconds after the call, and only once a whole
        number of ``floor_seconds`` has passed since the call: one floor for every
        decision that fits in it, the wait for a free thread included (all of them, with
        the floor above the slowest decision measured), so when the answer leaves says
        nothing about the hand. A decision slower than the floor (a server loaded past
        what it can think through) leaves at the next multiple: it shows only that it
        was slow, in whole floors, and ``think_seconds`` bounds it.
        """
        started = trio.current_time()
        decision = timed_out(view, self.think_seconds)
        # trio documents that any object with acquire/release_on_behalf_of will do.
        limiter = cast(trio.CapacityLimiter, self.slots.lease(attended, hint))
        work: Callable[[Strategy, View], Decision] = decide
        if hint:
            work = functools.partial(run_behind_moves, self.slots.no_moves, decide)
        with trio.move_on_after(self.think_seconds):
            decision = await trio.to_thread.run_sync(work, strategy, view, limiter=limiter,
                                                     abandon_on_cancel=True)
        elapsed = trio.current_time() - started
        await trio.sleep_until(started + max(at_least, self._floored(elapsed)))
        return decision

    def _floored(self, elapsed: float) -> float:
        """``elapsed`` rounded up to a whole number of floors (at least one)."""
        floor = self.floor_seconds
        if floor <= 0:
            return elapsed
        steps = max(1, math.ceil(elapsed / floor))
        if steps > 1:
            self.over_floor += 1
            if self.over_floor == 1 or self.over_floor % 1000 == 0:
                log.warning("a bot decision took %.3fs, longer than the %gs floor (%d so "
                            "far): raise --bot-floor if this is common", elapsed, floor,
                            self.over_floor)
        return steps * floor

    async def choose(self, table_id: str, seat: Seat, name: str, view: View, *,
                     attended: bool = False, at_least: float = 0.0) -> Card:
        """The bot's card for ``view``; the host's legal fallback if it is slow or wrong.

        ``attended``: a person plays at this table, so the decision goes before those of
        tables where bots play alone (see :mod:`.net.threadslots`). ``at_least``: the
        soonest the card may leave (the table's pause), as in :meth:`think`.
        """
        key = (table_id, seat, name)
        decision = await self.think(self.strategy(table_id, seat, name), view,
                                    attended=attended, at_least=at_least)
        if decision.problem is not None:
            if self._first_failure(key):
                if decision.error is not None:
                    log.error("bot %s at %s %s failed (logged once; it plays the first card "
                              "of its hand whenever it fails)", name, table_id, seat,
                              exc_info=decision.error)
                else:
                    log.warning("bot %s at %s %s %s (logged once)", name, table_id, seat,
                                decision.problem)
            # Rebuilt, so an abandoned thread never shares state with the next decision.
            self._strategies.pop(key, None)
        return decision.card

