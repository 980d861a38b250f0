"""Server-side bots: strategies that play seats without a connection.

A strategy is plain synchronous code (``jackal.bots``), possibly slow, so each
decision runs in a worker thread (``trio.to_thread.run_sync``) behind a shared
:class:`trio.CapacityLimiter`, never on the event loop. A decision that takes longer
than ``think_seconds``, raises, or returns a card not in the hand is replaced by a
legal fallback (the lowest card in the hand) and the strategy object is rebuilt, so an
abandoned thread never shares state with the next decision.
"""

from __future__ import annotations

import logging

import trio

from ..bots.base import Strategy, View, accept_choice
from ..bots.registry import make_strategy
from ..game.cards import Card
from ..game.seats import Seat

__all__ = ["BotPool"]

log = logging.getLogger("jackal.server")


class BotPool:
    """The strategy objects of every bot seat, and the threads they think in."""

    def __init__(self, threads: int, think_seconds: float) -> None:
        self.limiter = trio.CapacityLimiter(max(1, threads))
        self.think_seconds = think_seconds
        self._strategies: dict[tuple[str, Seat, str], Strategy] = {}
        self._seeds = 0

    def strategy(self, table_id: str, seat: Seat, name: str) -> Strategy:
        key = (table_id, seat, name)
        strategy = self._strategies.get(key)
        if strategy is None:
            self._seeds += 1
            strategy = make_strategy(name, self._seeds)
            self._strategies[key] = strategy
        return strategy

    def forget(self, table_id: str) -> None:
        """Drop the strategies of a table that is gone."""
        for key in [key for key in self._strategies if key[0] == table_id]:
            del self._strategies[key]

    async def choose(self, table_id: str, seat: Seat, name: str, view: View) -> Card:
        """The bot's card for ``view``; a legal fallback if it is slow or wrong."""
        strategy = self.strategy(table_id, seat, name)
        answer: object = None
        with trio.move_on_after(self.think_seconds):
            try:
                answer = await trio.to_thread.run_sync(strategy.choose, view,
                                                       limiter=self.limiter,
                                                       abandon_on_cancel=True)
            except Exception:  # a broken strategy must not break the table
                log.exception("bot %s at %s %s failed", name, table_id, seat)
        card = accept_choice(answer, view.hand)
        if card is None:
            if answer is not None:
                log.warning("bot %s at %s %s chose %s, not in its hand", name, table_id, seat,
                            answer)
            self._strategies.pop((table_id, seat, name), None)
            return min(view.hand)
        return card
