"""Decision-time benchmark for a bot strategy (default: the expert).

Plays seeded arena deals with the strategy on one side (greedy opponents by
default) and times every ``choose`` call the strategy makes. Prints one JSON object
with the median, mean, 95th percentile and worst time per card in milliseconds.

    python bench/bots.py [--strategy expert] [--against greedy] [--deals 100] [--seed 1]

The strategy uses its default convention card (``advanced`` for the expert), as in
``jackal arena``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time

from jackal.bots import View, make_strategy
from jackal.bots.arena import arena_deal_seed
from jackal.bots.cards import default_conventions
from jackal.game.conventions import resolve_card
from jackal.game.deal import Deal
from jackal.game.rng import derive_seed
from jackal.game.seats import SEATS, Team


def time_decisions(strategy: str, against: str, deals: int, seed: int) -> list[float]:
    """Seconds taken by each of ``strategy``'s decisions over ``deals`` deals (side NS)."""
    cards = {Team.NS: resolve_card(default_conventions(strategy)),
             Team.EW: resolve_card(default_conventions(against))}
    times: list[float] = []
    for index in range(deals):
        deal = Deal.from_seed(arena_deal_seed(seed, index), SEATS[index % 4])
        players = {seat: make_strategy(strategy if seat.team is Team.NS else against,
                                       derive_seed(seed, index, seat.ordinal, 0))
                   for seat in SEATS}
        while (seat := deal.turn) is not None:
            view = View(seat=seat, hand=deal.hand(seat), history=deal.history,
                        dealer=deal.dealer, conventions=cards, deal_number=index + 1)
            started = time.perf_counter()
            card = players[seat].choose(view)
            if seat.team is Team.NS:
                times.append(time.perf_counter() - started)
            deal.play(card, seat)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="expert")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    times = sorted(time_decisions(args.strategy, args.against, args.deals, args.seed))
    ms = [t * 1000 for t in times]
    print(json.dumps({
        "strategy": args.strategy,
        "against": args.against,
        "deals": args.deals,
        "seed": args.seed,
        "decisions": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3),
        "worst_ms": round(ms[-1], 3),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
