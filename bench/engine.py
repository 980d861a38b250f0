"""Engine benchmark: complete random deals per second through the public API.

Each deal is shuffled with ``Deal.from_seed``, played out with 32 validated plays
(``legal_plays`` then ``play(card, seat)``, so the turn and hand checks run every
time) and scored with ``result()``. The card choice is a cheap seeded pick from the
legal plays so the figure measures the engine, not a strategy.

Prints one JSON object, e.g. ``{"deals_per_s": 12345.6, ...}``.

    python bench/engine.py [--deals N] [--seed S] [--repeat R]

With ``--repeat`` the best of R runs is reported (less noise from other processes on
a shared machine); every run's figure is listed under ``"runs"``. ``cpu_deals_per_s``
divides by the process CPU time of that best run instead of the wall clock, which
shows how much of a low figure is only waiting for a busy CPU.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time

from jackal.game import Deal, Seat, Team

_DEALERS = (Seat.N, Seat.E, Seat.S, Seat.W)


def play_deals(count: int, seed: int) -> tuple[int, int]:
    """Play ``count`` random deals; return (plays made, a checksum of the results).

    The checksum (sum of victory points won by NS minus EW) keeps the work from being
    optimised away in spirit and lets two runs with one seed be compared.
    """
    pick = random.Random(seed).random
    plays = 0
    checksum = 0
    for n in range(count):
        deal = Deal.from_seed(seed + n, _DEALERS[n & 3])
        while (seat := deal.turn) is not None:
            legal = deal.legal_plays()
            deal.play(legal[int(pick() * len(legal))], seat)
            plays += 1
        result = deal.result()
        if result.winner is Team.NS:
            checksum += result.points
        elif result.winner is Team.EW:
            checksum -= result.points
    return plays, checksum


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000, help="deals per run (20000)")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed (1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported (3)")
    args = parser.parse_args(argv)
    if args.deals <= 0 or args.repeat <= 0:
        parser.error("--deals and --repeat must be positive")

    runs: list[float] = []
    best_seconds = best_cpu = float("inf")
    plays = checksum = 0
    for _ in range(args.repeat):
        start, cpu_start = time.perf_counter(), time.process_time()
        plays, checksum = play_deals(args.deals, args.seed)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        runs.append(round(args.deals / seconds, 1))
        if seconds < best_seconds:
            best_seconds, best_cpu = seconds, cpu

    report = {
        "deals_per_s": round(args.deals / best_seconds, 1),
        "plays_per_s": round(plays / best_seconds, 1),
        "deals": args.deals,
        "plays": plays,
        "seconds": round(best_seconds, 4),
        "cpu_deals_per_s": round(args.deals / max(best_cpu, 1e-9), 1),
        "runs": runs,
        "checksum": checksum,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
