"""``jackal demo``: one seeded deal played out by random players, printed in full, to show
the engine at work without a terminal UI or a server. The same seed prints the same deal
on every machine."""

from __future__ import annotations

import argparse

from ..bots.base import View
from ..bots.registry import make_strategy
from ..game.cards import format_cards
from ..game.deal import Deal
from ..game.match import deal_seed, first_dealer
from ..game.rng import derive_seed
from ..game.seats import SEATS, Team
from .score import format_team, format_verdict

__all__ = ["add_arguments", "play_demo", "run"]

DEFAULT_SEED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal demo``."""
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"seed for the dealer, the shuffle and the players "
                             f"(default {DEFAULT_SEED})")


def run(args: argparse.Namespace) -> int:
    """Play and print the demo deal."""
    print("\n".join(play_demo(args.seed)))
    return 0


def play_demo(seed: int) -> list[str]:
    """Play the demo deal for ``seed`` and return the lines to print.

    It shows the engine at work without a terminal UI or a server: the hands dealt,
    every play round by round, the four public rows, then both teams' kept cards scored
    rank by rank with the winner and the victory points. The same seed always prints
    the same deal, on every machine.
    """
    # The deal is the first deal of the match with this seed, so `jackal demo --seed S`
    # shows exactly what a match seeded S would deal first.
    dealer = first_dealer(seed)
    deal = Deal.from_seed(deal_seed(seed, 1), dealer)
    players = {seat: make_strategy("random", derive_seed(seed, 2, seat.ordinal))
               for seat in SEATS}

    lines = [f"Jackal demo, seed {seed}: four random players.",
             f"Dealer {dealer}; {deal.first} plays first. N and S play against E and W.",
             "", "Hands dealt:"]
    lines += [f"  {seat}: {format_cards(deal.dealt_hand(seat))}" for seat in SEATS]
    lines += ["", "Play by play (each player's n-th card goes to place n of their row):"]

    plays: list[str] = []
    while (seat := deal.turn) is not None:
        view = View.from_deal(deal, seat)
        card = players[seat].choose(view)
        place = deal.play(card, seat)
        plays.append(f"{seat} {card}")
        if len(plays) == len(SEATS):  # everyone has played card number `place`
            lines.append(f"  round {place}:  " + "   ".join(plays))
            plays = []

    lines += ["", "Rows (public, in play order):"]
    lines += [f"  {seat}: {format_cards(deal.row(seat))}" for seat in SEATS]

    result = deal.result()
    for team, score in zip((Team.NS, Team.EW), result.scores, strict=True):
        north_or_east, partner = team.seats
        kept = [*deal.kept(north_or_east), *deal.kept(partner)]
        lines.append("")
        lines += format_team(f"{team} keep", kept, score)
    lines += ["", format_verdict(result.scores[0].penalty, result.scores[1].penalty,
                                 (str(Team.NS), str(Team.EW)))]
    return lines
