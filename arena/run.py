"""The arena: strategies play seeded deals against each other in-process.

:func:`run_arena` plays a run (over worker processes with ``jobs``) and :func:`summarise`
gives each side's figures (docs/BOTS.md, "Measuring: the arena"). One deal is
:mod:`.deal`, shared with the Dask runner :mod:`.cluster`; its names are re-exported here.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult

from ..bots.yardstick import EfficiencySums
from ..game.conventions import ConventionCard
from ..game.honesty import Tally
from .deal import ARENA_STREAM, ArenaConfig, DealOutcome, arena_deal_seed, play_deal
from .reports import SideReport, SignalCount, rounded

__all__ = [
    "ARENA_STREAM",
    "ArenaConfig",
    "DealOutcome",
    "SideSummary",
    "arena_deal_seed",
    "collect",
    "play_deal",
    "run_arena",
    "summarise",
    "wilson_interval",
]


#: Batches queued per worker process beyond the one it plays: enough that no worker
#: waits for the next, few enough that finished results cannot pile up (see run_arena).
AHEAD_PER_WORKER = 3


def _jobs_of(config: ArenaConfig) -> Iterator[tuple[int, bool]]:
    """Every (deal, swapped) of the run in order, made as they are asked for."""
    swaps = (False, True) if config.duplicate else (False,)
    return ((index, swapped) for index in range(config.deals) for swapped in swaps)


def _batches(work: Iterator[tuple[int, bool]], size: int) -> Iterator[list[tuple[int, bool]]]:
    while batch := list(itertools.islice(work, size)):
        yield batch


# Worker-process state: set once per process by the pool initializer.
_WORKER: tuple[ArenaConfig, tuple[ConventionCard, ConventionCard]] | None = None


def _init_worker(config: ArenaConfig, cards: tuple[ConventionCard, ConventionCard]) -> None:
    global _WORKER
    _WORKER = (config, cards)


def _work(batch: list[tuple[int, bool]]) -> list[DealOutcome]:
    assert _WORKER is not None, "worker not initialised"
    return [play_deal(_WORKER[0], _WORKER[1], *job) for job in batch]


def run_arena(config: ArenaConfig, jobs: int = 1) -> Generator[DealOutcome, None, None]:
    """Play every deal of ``config``; yields outcomes in deal order.

    With ``duplicate`` every deal is played a second time with the two strategies
    swapping seats. ``jobs`` > 1 spreads deals over that many worker processes (stdlib
    multiprocessing); results are identical to a single-process run, since each deal is
    seeded from the run seed and its number alone (:func:`play_deal`).

    Memory stays flat however many deals the run has: the deals are made as they are
    handed out, and at most ``AHEAD_PER_WORKER + 1`` batches per worker are handed out
    and not yet taken by the caller. (``Pool.imap`` has no such bound: its result
    thread keeps every finished result until the caller takes it, so a caller slower
    than the workers, e.g. one that writes records or draws a progress bar while cheap
    strategies play, held an ever longer backlog.)
    """
    cards = config.cards()
    total = config.deals * (2 if config.duplicate else 1)
    if jobs <= 1 or total < 2:
        for index, swapped in _jobs_of(config):
            yield play_deal(config, cards, index, swapped)
        return
    size = max(1, min(16, total // (jobs * 8)))
    with multiprocessing.get_context().Pool(jobs, initializer=_init_worker,
                                            initargs=(config, cards)) as pool:
        pending: deque[AsyncResult[list[DealOutcome]]] = deque()
        for batch in _batches(_jobs_of(config), size):
            pending.append(pool.apply_async(_work, (batch,)))
            if len(pending) > jobs * AHEAD_PER_WORKER:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


def wilson_interval(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion of ``wins`` out of ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class SideSummary:
    """One side's figures over a run, kept as running sums so that a run of any length
    is summed in one pass (:meth:`add`); the figures are worked out when read."""

    strategy: str
    conventions: str
    deals: int = 0
    penalty: int = 0
    wins: int = 0
    ties: int = 0
    points: int = 0
    #: The sums of the yardstick's references on the side's hands.
    baseline: int = 0
    optimum: int = 0
    yardstick: EfficiencySums = field(default_factory=EfficiencySums)
    #: The side's signals over the run: meaningful plays and avoidable false ones, per kind.
    signals: Tally = field(default_factory=Tally.empty)

    def add(self, outcome: DealOutcome, side: int) -> None:
        """Count ``outcome`` for side ``side`` (0 = the ``ns`` strategy)."""
        penalty, other = outcome.penalty[side], outcome.penalty[1 - side]
        self.deals += 1
        self.penalty += penalty
        self.wins += penalty < other
        self.ties += penalty == other
        self.points += outcome.points[side]
        self.baseline += outcome.baseline[side]
        self.optimum += outcome.optimum[side]
        self.yardstick.add(penalty, outcome.baseline[side], outcome.optimum[side])
        self.signals.add(outcome.signals[side])

    def _mean(self, total: int) -> float:
        return total / self.deals if self.deals else 0.0

    @property
    def mean_penalty(self) -> float:
        return self._mean(self.penalty)

    @property
    def victory_points_per_deal(self) -> float:
        return self._mean(self.points)

    @property
    def win_rate(self) -> float:
        return self._mean(self.wins)

    @property
    def win_rate_ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.deals)

    @property
    def baseline_penalty(self) -> float:
        return self._mean(self.baseline)

    @property
    def optimum_penalty(self) -> float:
        return self._mean(self.optimum)

    @property
    def efficiency(self) -> float | None:
        """The yardstick's information efficiency; None if there was nothing to gain."""
        eff = self.yardstick.result()
        return None if eff is None else eff.value

    @property
    def efficiency_ci95(self) -> tuple[float, float] | None:
        """Its 95% interval; None without it, and with one deal (an interval of one sample
        is unbounded, and JSON has no infinity)."""
        eff = self.yardstick.result()
        return None if eff is None or eff.deals < 2 else (eff.low, eff.high)

    def report(self) -> SideReport:
        """The figures as ``jackal arena --json`` prints them, rounded."""
        efficiency, interval = self.efficiency, self.efficiency_ci95
        return SideReport(
            strategy=self.strategy,
            conventions=self.conventions,
            deals=self.deals,
            mean_penalty=round(self.mean_penalty, 3),
            victory_points_per_deal=round(self.victory_points_per_deal, 3),
            wins=self.wins,
            ties=self.ties,
            win_rate=round(self.win_rate, 4),
            win_rate_ci95=rounded(self.win_rate_ci95),
            baseline_penalty=round(self.baseline_penalty, 3),
            optimum_penalty=round(self.optimum_penalty, 3),
            information_efficiency=None if efficiency is None else round(efficiency, 4),
            information_efficiency_ci95=None if interval is None else rounded(interval),
            signals={kind: SignalCount(plays=self.signals.plays[kind],
                                       avoidable_false=self.signals.avoidable[kind])
                     for kind in self.signals.plays},
        )


def summarise(config: ArenaConfig, outcomes: Iterable[DealOutcome],
              cards: tuple[ConventionCard, ConventionCard] | None = None
              ) -> tuple[SideSummary, SideSummary]:
    """Per-side figures (side 0 = the ``ns`` strategy) over ``outcomes``.

    One pass that keeps only sums, so ``outcomes`` can be a stream of any length.
    """
    names = cards or config.cards()
    sides = (SideSummary(config.ns, names[0].name), SideSummary(config.ew, names[1].name))
    for outcome in outcomes:
        for k, side in enumerate(sides):
            side.add(outcome, k)
    return sides


def collect(config: ArenaConfig, jobs: int = 1,
            progress: Callable[[DealOutcome], None] | None = None) -> list[DealOutcome]:
    """Run the arena to the end, calling ``progress`` after each deal."""
    outcomes = []
    for outcome in run_arena(config, jobs):
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes
