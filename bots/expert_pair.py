"""What the expert pair loses on a deal: the same hands played again by expert bots.

:func:`expert_pair_cost` plays a finished deal's four dealt hands through once more with
``expert`` at every seat, under the cards the partnerships declared, and gives each
side's information cost there, which the deal summary sets beside the table's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.rng import derive_seed
from ..game.seats import SEATS, TEAMS, Seat, Team
from .play import play_through
from .registry import make_strategy
from .yardstick import information_cost, optimum_penalty

__all__ = ["EXPERT_PAIR_STREAM", "expert_pair_cost"]

#: Sub-stream of ``derive_seed`` for the expert bots' own randomness.
EXPERT_PAIR_STREAM = 0xE9A1


def expert_pair_cost(dealt: Mapping[Seat, Sequence[Card]], dealer: Seat,
                     conventions: Mapping[Team, ConventionCard], seed: int,
                     deal_number: int = 1) -> dict[Team, int]:
    """Each partnership's information cost when expert bots play these dealt hands,
    deterministic for a given ``seed``.

    All four seats are expert bots, not the pair's two alone: once the pair plays other
    cards the real opponents' later plays no longer answer anything, and a person's
    strategy cannot be run again.
    """
    deal = Deal([dealt[seat] for seat in SEATS], dealer)
    players = {seat: make_strategy("expert", derive_seed(seed, EXPERT_PAIR_STREAM, seat.ordinal))
               for seat in SEATS}
    play_through(deal, players, conventions, deal_number)
    result = deal.result()
    out: dict[Team, int] = {}
    for team in TEAMS:
        first, second = team.seats
        out[team] = information_cost(result.penalty(team),
                                     optimum_penalty(dealt[first], dealt[second]))
    return out
