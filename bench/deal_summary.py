"""What the deal summary costs, in CPU time per deal (issue 24).

Prints one JSON object with the process CPU time per deal of:

- ``best_keep_ms``: both partnerships' best keep with both hands known
  (:func:`jackal.bots.yardstick.best_keep`), which the server works out on its event loop
  when a deal ends (then kept for the match's snapshots);
- ``optimum_penalty_ms``: both partnerships' optimum penalty alone
  (:func:`~jackal.bots.yardstick.optimum_penalty`, what the arena's yardstick asks per
  deal: it now runs the same DP as the best keep);
- ``expert_pair_ms``: the expert pair's play-through of the same deal, expert bots at all
  four seats under the beginner card (:func:`jackal.bots.expert_pair.expert_pair_cost`),
  which the server runs in a worker thread at the lowest priority of its thread slots.

The deals are match deals of one seed, each timed alone; the medians are given beside
the means, as other work on the machine lands on single deals.

    python bench/deal_summary.py --deals 200 --expert-deals 40
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from jackal.bots.expert_pair import expert_pair_cost
from jackal.bots.yardstick import best_keep, optimum_penalty
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.deal import deal_hands
from jackal.game.match import deal_seed
from jackal.game.seats import SEATS, Team

Hands = tuple[tuple[Card, ...], ...]


def _per_deal(work: Callable[[int, Hands], object], deals: int, seed: int
              ) -> dict[str, float]:
    times = []
    for number in range(1, deals + 1):
        hands = deal_hands(deal_seed(seed, number))
        started = time.process_time()
        work(number, hands)
        times.append((time.process_time() - started) * 1000)
    return {"mean": round(statistics.fmean(times), 3),
            "median": round(statistics.median(times), 3), "deals": deals}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200,
                        help="deals for the best keep and the optimum (default 200)")
    parser.add_argument("--expert-deals", type=int, default=40,
                        help="deals for the expert play-through (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    args = parser.parse_args(argv)
    card = builtin_card("beginner")
    cards = {Team.NS: card, Team.EW: card}

    def both_best(_number: int, hands: Hands) -> object:
        return best_keep(hands[0], hands[2]), best_keep(hands[1], hands[3])

    def both_optimum(_number: int, hands: Hands) -> object:
        return optimum_penalty(hands[0], hands[2]), optimum_penalty(hands[1], hands[3])

    def expert(number: int, hands: Hands) -> object:
        dealt = {seat: hands[seat.ordinal] for seat in SEATS}
        return expert_pair_cost(dealt, SEATS[number % 4], cards,
                                deal_seed(args.seed, number), number)

    print(json.dumps({
        "best_keep_ms": _per_deal(both_best, args.deals, args.seed),
        "optimum_penalty_ms": _per_deal(both_optimum, args.deals, args.seed),
        "expert_pair_ms": _per_deal(expert, args.expert_deals, args.seed),
    }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
