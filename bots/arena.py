"""The arena: strategies play seeded deals against each other in-process.

Each deal ``i`` of a run is shuffled from ``derive_seed(seed, ARENA_STREAM, i)`` and
dealt by ``SEATS[i % 4]``; every seat gets a fresh strategy seeded from the run seed,
the deal number and the seat, so a run is reproducible and does not depend on how
the deals are split over worker processes. With ``duplicate`` every deal is played
a second time with the two strategies swapping seats.

For each side and deal the arena also computes, on the same hands, what a greedy
pair would have scored (greedy ignores everything but its own dealt cards, so it is
computed directly) and the full-information optimum (``optimum_pair``); from those
comes the information efficiency (greedy - side) / (greedy - optimum), taken over
the sums so one deal where greedy is already optimal cannot divide by zero.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..game.conventions import ConventionCard, resolve_card
from ..game.deal import Deal
from ..game.rng import derive_seed
from ..game.scoring import team_penalty
from ..game.seats import SEATS, Team
from .base import View, accept_choice
from .cards import default_conventions
from .counts import optimum_pair, rank_counts
from .greedy import greedy_keep
from .registry import make_strategy

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

#: Sub-stream of ``derive_seed`` for arena deals (keeps them apart from match deals).
ARENA_STREAM = 0xA7E4A


@dataclass(frozen=True)
class ArenaConfig:
    """One arena run. ``ns``/``ew`` are strategy specs; conventions are card specs."""

    ns: str
    ew: str
    deals: int
    seed: int = 0
    duplicate: bool = False
    ns_conventions: str | None = None
    ew_conventions: str | None = None

    def cards(self) -> tuple[ConventionCard, ConventionCard]:
        """The two sides' cards: the flags, else the strategies' defaults."""
        return (resolve_card(self.ns_conventions or default_conventions(self.ns)),
                resolve_card(self.ew_conventions or default_conventions(self.ew)))


@dataclass
class DealOutcome:
    """One played deal, from the point of view of the two configured sides.

    ``side_team[k]`` is the team side k (0 = the ``--ns`` strategy) sat as.
    """

    index: int
    swapped: bool
    penalty: tuple[int, int]
    greedy: tuple[int, int]
    optimum: tuple[int, int]
    points: tuple[int, int]
    record: dict[str, Any] = field(default_factory=dict)


def arena_deal_seed(seed: int, index: int) -> int:
    """The shuffle seed of deal ``index`` of an arena run with ``seed``."""
    return derive_seed(seed, ARENA_STREAM, index)


def play_deal(config: ArenaConfig, cards: tuple[ConventionCard, ConventionCard],
              index: int, swapped: bool = False) -> DealOutcome:
    """Play deal ``index`` (sides swapped if asked) and score it for both sides."""
    shuffle = arena_deal_seed(config.seed, index)
    dealer = SEATS[index % 4]
    deal = Deal.from_seed(shuffle, dealer)
    specs = (config.ew, config.ns) if swapped else (config.ns, config.ew)
    team_cards = {Team.NS: cards[1] if swapped else cards[0],
                  Team.EW: cards[0] if swapped else cards[1]}
    players = {seat: make_strategy(specs[seat.ordinal % 2],
                                   derive_seed(config.seed, index, seat.ordinal, int(swapped)))
               for seat in SEATS}
    while (seat := deal.turn) is not None:
        view = View.from_deal(deal, seat, conventions=team_cards, deal_number=index + 1)
        answer = players[seat].choose(view)
        card = accept_choice(answer, view.hand)
        if card is None:  # a measurement must not hide a broken strategy behind a fallback
            raise RuntimeError(f"strategy {specs[seat.ordinal % 2]!r} at {seat} "
                               f"returned {answer!r}, not in its hand")
        deal.play(card, seat)
    result = deal.result()
    by_team: dict[Team, tuple[int, int, int, int]] = {}
    for team in (Team.NS, Team.EW):
        first, second = team.seats
        dealt = deal.dealt_hand(first), deal.dealt_hand(second)
        won = result.points if result.winner is team else 0
        by_team[team] = (
            result.penalty(team),
            team_penalty([*greedy_keep(dealt[0]), *greedy_keep(dealt[1])]),
            optimum_pair(rank_counts(dealt[0]), rank_counts(dealt[1])),
            won,
        )
    order = (Team.EW, Team.NS) if swapped else (Team.NS, Team.EW)
    pick = [by_team[team] for team in order]
    record = {
        "deal": index,
        "swapped": swapped,
        "seed": shuffle,
        "dealer": dealer.value,
        "strategies": {"NS": specs[0], "EW": specs[1]},
        "conventions": {"NS": team_cards[Team.NS].name, "EW": team_cards[Team.EW].name},
        "hands": {seat.value: [str(c) for c in deal.dealt_hand(seat)] for seat in SEATS},
        "plays": [[seat.value, str(card)] for seat, card in deal.history],
        "kept": {seat.value: [str(c) for c in deal.kept(seat)] for seat in SEATS},
        "penalties": {"NS": result.penalty(Team.NS), "EW": result.penalty(Team.EW)},
        "winner": result.winner.value if result.winner else None,
        "points": result.points,
    }
    return DealOutcome(
        index=index, swapped=swapped,
        penalty=(pick[0][0], pick[1][0]), greedy=(pick[0][1], pick[1][1]),
        optimum=(pick[0][2], pick[1][2]), points=(pick[0][3], pick[1][3]), record=record,
    )


def _jobs_of(config: ArenaConfig) -> list[tuple[int, bool]]:
    swaps = (False, True) if config.duplicate else (False,)
    return [(index, swapped) for index in range(config.deals) for swapped in swaps]


# Worker-process state: set once per process by the pool initializer.
_WORKER: tuple[ArenaConfig, tuple[ConventionCard, ConventionCard]] | None = None


def _init_worker(config: ArenaConfig, cards: tuple[ConventionCard, ConventionCard]) -> None:
    global _WORKER
    _WORKER = (config, cards)


def _work(job: tuple[int, bool]) -> DealOutcome:
    assert _WORKER is not None, "worker not initialised"
    return play_deal(_WORKER[0], _WORKER[1], *job)


def run_arena(config: ArenaConfig, jobs: int = 1,
              scheduler: str | None = None) -> Generator[DealOutcome, None, None]:
    """Play every deal of ``config``; yields outcomes in deal order.

    ``jobs`` > 1 spreads deals over that many worker processes (stdlib
    multiprocessing); results are identical to a single-process run. With a Dask
    ``scheduler`` (an address, or ``local`` for a LocalCluster of ``jobs`` workers)
    the deals run on that cluster instead and arrive in the order they finish.
    """
    if scheduler is not None:
        from .arena_cluster import run_on_cluster  # needs the optional cluster extra
        yield from run_on_cluster(config, scheduler, workers=jobs)
        return
    cards = config.cards()
    work = _jobs_of(config)
    if jobs <= 1 or len(work) < 2:
        for index, swapped in work:
            yield play_deal(config, cards, index, swapped)
        return
    with multiprocessing.get_context().Pool(jobs, initializer=_init_worker,
                                            initargs=(config, cards)) as pool:
        chunk = max(1, min(16, len(work) // (jobs * 8)))
        yield from pool.imap(_work, work, chunksize=chunk)


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
    greedy_penalty: float
    optimum_penalty: float
    efficiency: float | None

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
            "greedy_penalty": round(self.greedy_penalty, 3),
            "optimum_penalty": round(self.optimum_penalty, 3),
            "information_efficiency": (None if self.efficiency is None
                                       else round(self.efficiency, 4)),
        }


def summarise(config: ArenaConfig, outcomes: Iterable[DealOutcome],
              cards: tuple[ConventionCard, ConventionCard] | None = None
              ) -> tuple[SideSummary, SideSummary]:
    """Per-side figures (side 0 = the ``ns`` strategy) over ``outcomes``.

    One pass that keeps only sums, so ``outcomes`` can be a stream of any length.
    """
    names = cards or config.cards()
    n = 0
    sums = [[0] * 6, [0] * 6]  # per side: penalty, greedy, optimum, wins, ties, points
    for o in outcomes:
        n += 1
        for k, side in enumerate(sums):
            side[0] += o.penalty[k]
            side[1] += o.greedy[k]
            side[2] += o.optimum[k]
            side[3] += o.penalty[k] < o.penalty[1 - k]
            side[4] += o.penalty[k] == o.penalty[1 - k]
            side[5] += o.points[k]
    sides = []
    for k, strategy in enumerate((config.ns, config.ew)):
        penalty, greedy, optimum, wins, ties, points = sums[k]
        sides.append(SideSummary(
            strategy=strategy, conventions=names[k].name, deals=n,
            mean_penalty=penalty / n if n else 0.0,
            victory_points_per_deal=points / n if n else 0.0,
            wins=wins, ties=ties, win_rate=wins / n if n else 0.0,
            win_rate_ci95=wilson_interval(wins, n),
            greedy_penalty=greedy / n if n else 0.0,
            optimum_penalty=optimum / n if n else 0.0,
            efficiency=(greedy - penalty) / (greedy - optimum) if greedy != optimum else None,
        ))
    return sides[0], sides[1]


def collect(config: ArenaConfig, jobs: int = 1,
            progress: Callable[[DealOutcome], None] | None = None,
            scheduler: str | None = None) -> list[DealOutcome]:
    """Run the arena to the end, calling ``progress`` after each deal."""
    outcomes = []
    for outcome in run_arena(config, jobs, scheduler):
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes
