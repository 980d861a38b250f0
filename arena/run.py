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
from typing import Any

from ..bots.yardstick import EfficiencySums
from ..game.conventions import ConventionCard
from ..game.honesty import Tally
from .deal import ARENA_STREAM, ArenaConfig, DealOutcome, arena_deal_seed, play_deal

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
    """One side's figures over a run."""

    strategy: str
    conventions: str
    deals: int
    mean_penalty: float
    victory_points_per_deal: float
    wins: int
    ties: int
    win_rate: float
    win_rate_ci95: tuple[float, float]
    baseline_penalty: float
    optimum_penalty: float
    efficiency: float | None
    efficiency_ci95: tuple[float, float] | None = None
    #: The side's signals over the run: meaningful plays and avoidable false ones, per kind.
    signals: Tally = field(default_factory=Tally.empty)

    def as_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "conventions": self.conventions,
            "deals": self.deals,
            "mean_penalty": round(self.mean_penalty, 3),
            "victory_points_per_deal": round(self.victory_points_per_deal, 3),
            "wins": self.wins,
            "ties": self.ties,
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(x, 4) for x in self.win_rate_ci95],
            "baseline_penalty": round(self.baseline_penalty, 3),
            "optimum_penalty": round(self.optimum_penalty, 3),
            "information_efficiency": (None if self.efficiency is None
                                       else round(self.efficiency, 4)),
            "information_efficiency_ci95": (None if self.efficiency_ci95 is None
                                            else [round(x, 4) for x in self.efficiency_ci95]),
            "signals": {kind: {"plays": self.signals.plays[kind],
                               "avoidable_false": self.signals.avoidable[kind]}
                        for kind in self.signals.plays},
        }


def summarise(config: ArenaConfig, outcomes: Iterable[DealOutcome],
              cards: tuple[ConventionCard, ConventionCard] | None = None
              ) -> tuple[SideSummary, SideSummary]:
    """Per-side figures (side 0 = the ``ns`` strategy) over ``outcomes``.

    One pass that keeps only sums, so ``outcomes`` can be a stream of any length.
    """
    names = cards or config.cards()
    n = 0
    sums = [[0] * 4, [0] * 4]  # per side: penalty, wins, ties, points
    yardsticks = (EfficiencySums(), EfficiencySums())
    references = [[0, 0], [0, 0]]  # per side: baseline, optimum
    signals = (Tally.empty(), Tally.empty())
    for o in outcomes:
        n += 1
        for k, side in enumerate(sums):
            side[0] += o.penalty[k]
            side[1] += o.penalty[k] < o.penalty[1 - k]
            side[2] += o.penalty[k] == o.penalty[1 - k]
            side[3] += o.points[k]
            yardsticks[k].add(o.penalty[k], o.baseline[k], o.optimum[k])
            references[k][0] += o.baseline[k]
            references[k][1] += o.optimum[k]
            signals[k].add(o.signals[k])
    sides = []
    for k, strategy in enumerate((config.ns, config.ew)):
        penalty, wins, ties, points = sums[k]
        eff = yardsticks[k].result()
        sides.append(SideSummary(
            strategy=strategy, conventions=names[k].name, deals=n,
            mean_penalty=penalty / n if n else 0.0,
            victory_points_per_deal=points / n if n else 0.0,
            wins=wins, ties=ties, win_rate=wins / n if n else 0.0,
            win_rate_ci95=wilson_interval(wins, n),
            baseline_penalty=references[k][0] / n if n else 0.0,
            optimum_penalty=references[k][1] / n if n else 0.0,
            efficiency=None if eff is None else eff.value,
            efficiency_ci95=None if eff is None else (eff.low, eff.high),
            signals=signals[k],
        ))
    return sides[0], sides[1]


def collect(config: ArenaConfig, jobs: int = 1,
            progress: Callable[[DealOutcome], None] | None = None) -> list[DealOutcome]:
    """Run the arena to the end, calling ``progress`` after each deal."""
    outcomes = []
    for outcome in run_arena(config, jobs):
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes
