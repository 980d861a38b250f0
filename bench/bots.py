"""Decision-time benchmark for a bot strategy (default: the expert), per convention card.

Plays seeded arena deals with the strategy on one side (greedy opponents by
default) under each card asked for, and times every ``choose`` call the strategy
makes. Prints one JSON object per card with the median, mean, 95th percentile and
worst time per decision in milliseconds, both wall-clock (``*_ms``) and the CPU time
this process spent on the decision (``cpu_*_ms``).

    python bench/bots.py [--strategy expert] [--cards advanced,beginner] [--against greedy]
                         [--deals 100] [--seed 1]

Wall-clock times rise when other work shares the CPU (the load average is printed);
the CPU times do not, so they are the bot's own cost when the machine is busy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

from jackal.arena.deal import arena_deal_seed
from jackal.bots import Strategy, View, make_strategy
from jackal.bots.cards import default_conventions
from jackal.bots.play import play_through
from jackal.game.cards import Card
from jackal.game.conventions import resolve_card
from jackal.game.deal import Deal
from jackal.game.rng import derive_seed
from jackal.game.seats import SEATS, Seat, Team


class _Timed:
    """A strategy whose every decision is timed, wall-clock and CPU."""

    def __init__(self, inner: Strategy, times: list[float], cpu: list[float]) -> None:
        self.inner, self.times, self.cpu = inner, times, cpu

    def choose(self, view: View) -> Card:
        started, started_cpu = time.perf_counter(), time.process_time()
        card = self.inner.choose(view)
        self.times.append(time.perf_counter() - started)
        self.cpu.append(time.process_time() - started_cpu)
        return card


def time_decisions(strategy: str, card: str, against: str, deals: int,
                   seed: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each of ``strategy``'s decisions over ``deals``
    deals (side NS), played as the arena plays them."""
    cards = {Team.NS: resolve_card(card), Team.EW: resolve_card(default_conventions(against))}
    times: list[float] = []
    cpu: list[float] = []
    for index in range(deals):
        deal = Deal.from_seed(arena_deal_seed(seed, index), SEATS[index % 4])
        players: dict[Seat, Strategy] = {
            seat: make_strategy(strategy if seat.team is Team.NS else against,
                                derive_seed(seed, index, seat.ordinal, 0))
            for seat in SEATS}
        for seat in Team.NS.seats:
            players[seat] = _Timed(players[seat], times, cpu)
        play_through(deal, players, cards, index + 1)
    return times, cpu


def _figures(prefix: str, seconds: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in seconds)
    return {
        f"{prefix}median_ms": round(statistics.median(ms), 3),
        f"{prefix}mean_ms": round(statistics.fmean(ms), 3),
        f"{prefix}p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3),
        f"{prefix}worst_ms": round(ms[-1], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="expert")
    parser.add_argument("--cards", default="advanced,beginner",
                        help="comma-separated convention cards (names or files)")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for card in args.cards.split(","):
        times, cpu = time_decisions(args.strategy, card, args.against, args.deals, args.seed)
        print(json.dumps({
            "strategy": args.strategy,
            "card": card,
            "against": args.against,
            "deals": args.deals,
            "seed": args.seed,
            "decisions": len(times),
            **_figures("", times),
            **_figures("cpu_", cpu),
            "load_average_1min": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "machine": platform.machine(),
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
