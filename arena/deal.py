"""One arena deal: a run's configuration, how deal ``i`` is seeded and dealt, and its outcome.

:func:`play_deal` is what every arena runner calls (:mod:`.run` in one process or over
several, :mod:`.cluster` on Dask); it lives apart from both so that neither imports the
other, and it seeds each deal from the run seed and the deal's number alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..bots.cards import default_conventions
from ..bots.play import play_through
from ..bots.registry import make_strategy
from ..bots.yardstick import baseline_penalty, optimum_penalty
from ..game.conventions import ConventionCard, resolve_card
from ..game.deal import Deal
from ..game.honesty import Tally, audit
from ..game.rng import derive_seed
from ..game.seats import SEATS, TEAMS, Team
from .reports import DealRecord

__all__ = ["ARENA_STREAM", "ArenaConfig", "DealOutcome", "arena_deal_seed", "play_deal"]

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
    """One played deal, from the point of view of the two configured sides: each pair's
    ``[k]`` is side k's (0 = the ``--ns`` strategy), whichever team it sat as."""

    index: int
    swapped: bool
    penalty: tuple[int, int]
    #: The no-signal baseline's penalty on the same hands (see :mod:`jackal.bots.yardstick`).
    baseline: tuple[int, int]
    optimum: tuple[int, int]
    points: tuple[int, int]
    #: The deal as ``--records`` writes it, by team and seat.
    record: DealRecord
    #: Each side's signals in this deal, audited against its dealt hands.
    signals: tuple[Tally, Tally] = field(default_factory=lambda: (Tally.empty(), Tally.empty()))


def arena_deal_seed(seed: int, index: int) -> int:
    """The shuffle seed of deal ``index`` of an arena run with ``seed``."""
    return derive_seed(seed, ARENA_STREAM, index)


def play_deal(config: ArenaConfig, cards: tuple[ConventionCard, ConventionCard],
              index: int, swapped: bool = False) -> DealOutcome:
    """Play deal ``index`` (sides swapped if asked) and score it for both sides.

    The deal is shuffled from :func:`arena_deal_seed` and dealt by ``SEATS[index % 4]``;
    every seat gets a fresh strategy seeded from the run seed, the deal number, the seat
    and the swap, so a run is reproducible and does not depend on where its deals are
    played. For each side the outcome also carries the yardstick's two references on the
    same hands (:mod:`jackal.bots.yardstick`: the no-signal baseline and the
    full-information optimum) and an audit of the side's signals against its dealt hands
    (:func:`jackal.game.honesty.audit`: avoidable false signals, per kind).
    """
    shuffle = arena_deal_seed(config.seed, index)
    dealer = SEATS[index % 4]
    deal = Deal.from_seed(shuffle, dealer)
    specs = (config.ew, config.ns) if swapped else (config.ns, config.ew)
    team_cards = {Team.NS: cards[1] if swapped else cards[0],
                  Team.EW: cards[0] if swapped else cards[1]}
    players = {seat: make_strategy(specs[seat.ordinal % 2],
                                   derive_seed(config.seed, index, seat.ordinal, int(swapped)))
               for seat in SEATS}
    play_through(deal, players, team_cards, index + 1)
    result = deal.result()
    by_team: dict[Team, tuple[int, int, int, int]] = {}
    for team in (Team.NS, Team.EW):
        first, second = team.seats
        dealt = deal.dealt_hand(first), deal.dealt_hand(second)
        won = result.points if result.winner is team else 0
        by_team[team] = (
            result.penalty(team),
            baseline_penalty(*dealt),
            optimum_penalty(*dealt),
            won,
        )
    order = (Team.EW, Team.NS) if swapped else (Team.NS, Team.EW)
    pick = [by_team[team] for team in order]
    tallies = audit({seat: deal.dealt_hand(seat) for seat in SEATS}, deal.history, team_cards)
    record = DealRecord(
        deal=index,
        swapped=swapped,
        seed=shuffle,
        dealer=dealer,
        strategies={Team.NS: specs[0], Team.EW: specs[1]},
        conventions={team: team_cards[team].name for team in TEAMS},
        hands={seat: list(deal.dealt_hand(seat)) for seat in SEATS},
        plays=list(deal.history),
        kept={seat: list(deal.kept(seat)) for seat in SEATS},
        penalties={team: result.penalty(team) for team in TEAMS},
        winner=result.winner,
        points=result.points,
        false_signals={team: tallies[team].avoidable for team in TEAMS},
    )
    return DealOutcome(
        index=index, swapped=swapped,
        penalty=(pick[0][0], pick[1][0]), baseline=(pick[0][1], pick[1][1]),
        optimum=(pick[0][2], pick[1][2]), points=(pick[0][3], pick[1][3]), record=record,
        signals=(tallies[order[0]], tallies[order[1]]),
    )
