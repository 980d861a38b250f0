"""How much stronger one convention card is than another for the same strategy.

Reads two ``jackal arena --records`` files of the same run seed and deal count (the
same dealt hands; the side under test as ``--ns`` in both) and prints, as one JSON
object, each run's information efficiency and the paired difference between them
with its 95% interval. Pairing on the same hands removes the luck of the deal, so
the difference is measured far more precisely than either efficiency alone.

    jackal arena --ns expert --ew greedy --ns-conventions advanced --deals 2000 --seed 1 \\
        --jobs 2 --records advanced.jsonl
    jackal arena --ns expert --ew greedy --ns-conventions beginner --deals 2000 --seed 1 \\
        --jobs 2 --records beginner.jsonl
    python bench/card_difference.py advanced.jsonl beginner.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from jackal.bots.yardstick import Z95, EfficiencySums, baseline_penalty, optimum_penalty
from jackal.game.cards import parse_card


def read(path: Path) -> dict[tuple[int, bool], tuple[int, int, int]]:
    """(deal, swapped) -> (side's penalty, baseline, optimum) for the ``--ns`` side."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        hands = {seat: [parse_card(c) for c in cards] for seat, cards in record["hands"].items()}
        team, seats = ("EW", ("E", "W")) if record["swapped"] else ("NS", ("N", "S"))
        first, second = hands[seats[0]], hands[seats[1]]
        found[record["deal"], record["swapped"]] = (
            record["penalties"][team], baseline_penalty(first, second),
            optimum_penalty(first, second))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="records of the first card's run")
    parser.add_argument("second", type=Path, help="records of the second card's run")
    args = parser.parse_args(argv)
    first, second = read(args.first), read(args.second)
    common = sorted(first.keys() & second.keys())
    if not common or any(first[k][1:] != second[k][1:] for k in common):
        print("card_difference: the two runs must share deals (same --seed)", file=sys.stderr)
        return 2
    runs = [EfficiencySums(), EfficiencySums()]
    n = len(common)
    diffs, gaps = [], []
    for key in common:
        for sums, run in zip(runs, (first, second), strict=True):
            sums.add(*run[key])
        diffs.append(second[key][0] - first[key][0])  # points the first card saves
        gaps.append(first[key][1] - first[key][2])
    ratio = sum(diffs) / sum(gaps)
    residual = [d - ratio * g for d, g in zip(diffs, gaps, strict=True)]
    sd = math.sqrt(sum(r * r for r in residual) / (n - 1))
    half = Z95 * sd / math.sqrt(n) / (sum(gaps) / n)
    results = [sums.result() for sums in runs]
    print(json.dumps({
        "deals": n,
        "first": {"records": str(args.first),
                  "efficiency": None if results[0] is None else round(results[0].value, 4)},
        "second": {"records": str(args.second),
                   "efficiency": None if results[1] is None else round(results[1].value, 4)},
        "difference": round(ratio, 4),
        "difference_ci95": [round(ratio - half, 4), round(ratio + half, 4)],
        "penalty_saved_per_deal": round(sum(diffs) / n, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
