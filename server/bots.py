"""Server-side bots: strategies that play seats without a connection.

Every bot's randomness is its own and unpredictable: each strategy object is built
with a 128-bit seed from :mod:`secrets` (the operating system's random source), never
from a counter or the table's seed, so an opponent cannot replay a bot's choices to
learn its hand. A strategy that fails is logged once per table and seat (with its
traceback), not once per move.

A strategy is plain synchronous code (``jackal.bots``), possibly slow, so each
decision runs in a worker thread (``trio.to_thread.run_sync``) behind the shared
:class:`ThreadSlots` (people's tables first), never on the event loop. A decision that
takes longer than ``think_seconds``, raises, or returns a card not in the hand is
replaced by the same legal fallback as everywhere (``jackal.bots.host``: the lowest card
it may play) and the strategy object is rebuilt, so an abandoned thread never shares
state with the next decision.
"""

from __future__ import annotations

import logging
import secrets
from typing import cast

import trio

from ..bots.base import Strategy, View
from ..bots.host import Decision, decide, timed_out
from ..bots.registry import make_strategy
from ..game.cards import Card
from ..game.seats import Seat
from .threadslots import ThreadSlots

__all__ = ["BotPool"]

log = logging.getLogger("jackal.server")


class BotPool:
    """The strategy objects of every bot seat, and the threads they think in."""

    def __init__(self, threads: int, think_seconds: float) -> None:
        self.slots = ThreadSlots(threads)
        self.think_seconds = think_seconds
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

    async def think(self, strategy: Strategy, view: View, *, attended: bool) -> Decision:
        """``strategy``'s decision on ``view`` in a worker thread behind the shared slots,
        or the host's fallback (with its ``problem``) when it takes over ``think_seconds``."""
        decision = timed_out(view, self.think_seconds)
        # trio documents that any object with acquire/release_on_behalf_of will do.
        limiter = cast(trio.CapacityLimiter, self.slots.lease(attended))
        with trio.move_on_after(self.think_seconds):
            decision = await trio.to_thread.run_sync(decide, strategy, view, limiter=limiter,
                                                     abandon_on_cancel=True)
        return decision

    async def choose(self, table_id: str, seat: Seat, name: str, view: View, *,
                     attended: bool = False) -> Card:
        """The bot's card for ``view``; the host's legal fallback if it is slow or wrong.

        ``attended``: a person plays at this table, so the decision goes before those of
        tables where bots play alone (see :mod:`.threadslots`).
        """
        key = (table_id, seat, name)
        decision = await self.think(self.strategy(table_id, seat, name), view,
                                    attended=attended)
        if decision.problem is not None:
            if self._first_failure(key):
                if decision.error is not None:
                    log.error("bot %s at %s %s failed (logged once; it plays the lowest card "
                              "whenever it fails)", name, table_id, seat,
                              exc_info=decision.error)
                else:
                    log.warning("bot %s at %s %s %s (logged once)", name, table_id, seat,
                                decision.problem)
            # Rebuilt, so an abandoned thread never shares state with the next decision.
            self._strategies.pop(key, None)
        return decision.card
