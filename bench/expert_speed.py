"""How fast the ``expert`` bot decides (issue 31): decisions per CPU second.

Plays match deals of one seed with ``expert`` at all four seats under the beginner card,
as the deal summary's play-through does (:func:`jackal.bots.expert_pair.expert_pair_cost`),
and prints one JSON object on one line: the decisions made (a seat's last card is no
decision), the process CPU time, decisions per CPU second, CPU milliseconds per deal, and a
digest of every figure, which stays the same as long as the expert's decisions do.

    python bench/expert_speed.py --deals 20
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from jackal.bots.base import View
from jackal.bots.expert import ExpertStrategy
from jackal.bots.expert_pair import expert_pair_cost
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.deal import deal_hands
from jackal.game.match import deal_seed
from jackal.game.seats import SEATS, Team


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="deals to play (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    args = parser.parse_args(argv)
    card = builtin_card("beginner")
    cards = {Team.NS: card, Team.EW: card}
    decisions = 0
    choose = ExpertStrategy.choose

    def counted(self: ExpertStrategy, view: View) -> Card:
        nonlocal decisions
        decisions += len(view.hand) > 1
        return choose(self, view)

    ExpertStrategy.choose = counted  # type: ignore[method-assign]
    digest = hashlib.sha256()
    started = time.process_time()
    for number in range(1, args.deals + 1):
        hands = deal_hands(deal_seed(args.seed, number))
        cost = expert_pair_cost({seat: hands[seat.ordinal] for seat in SEATS},
                                SEATS[number % 4], cards, deal_seed(args.seed, number),
                                number)
        digest.update(json.dumps({str(team): cost[team] for team in cost}).encode())
    spent = time.process_time() - started
    print(json.dumps({
        "deals": args.deals, "decisions": decisions, "cpu_seconds": round(spent, 3),
        "decisions_per_second": round(decisions / spent, 1),
        "ms_per_deal": round(spent * 1000 / args.deals, 1),
        "digest": digest.hexdigest()[:16],
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
