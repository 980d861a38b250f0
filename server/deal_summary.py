"""A table's deal summaries: each finished deal's best keeps and information cost, and the
expert pair's cost on the same hands, which a worker thread works out later
(:class:`DealSummaries`, :class:`ExpertJob`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..bots.expert_pair import expert_pair_cost
from ..bots.yardstick import BestKeep, best_keep, information_cost
from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.deal import deal_hands
from ..game.match import deal_seed
from ..game.scoring import DealResult
from ..game.seats import SEATS, TEAMS, Seat, Team
from ..protocol.messages import ExpertCost

__all__ = ["DealSummaries", "ExpertJob"]


@dataclass(frozen=True, slots=True)
class ExpertJob:
    """One deal to play through with the expert pair (see :mod:`jackal.bots.expert_pair`).

    Too slow for the event loop, so the hub's :class:`~jackal.server.expert_pool.ExpertPool`
    runs it in a worker process (it is pickled there). Everything in it is public once the
    deal is over.
    """

    match_seed: int
    deal: int
    dealer: Seat
    dealt: Mapping[Seat, tuple[Card, ...]]
    conventions: Mapping[Team, ConventionCard]

    def run(self) -> dict[Team, int]:
        """The expert pair's information cost per partnership (in a worker thread). The
        bots' randomness comes from the deal's own seed: the deal is over, so it hides
        nothing, and the figure is the same on every run."""
        return expert_pair_cost(self.dealt, self.dealer, self.conventions,
                                deal_seed(self.match_seed, self.deal), self.deal)


class DealSummaries:
    """What one table's match knows of its finished deals beyond the score. The best
    keeps are worked out on the event loop (under a millisecond a partnership) and kept
    by deal seed, so a long match's history is not worked out again for every snapshot."""

    __slots__ = ("_best", "due", "expert", "match_seed", "unavailable")

    def __init__(self, match_seed: int) -> None:
        self.match_seed = match_seed
        self._best: dict[int, dict[Team, BestKeep]] = {}
        #: The expert pair's information cost, by deal number, once worked out.
        self.expert: dict[int, dict[Team, int]] = {}
        #: Why the figure of a deal will not come (the server was busy), by deal number.
        self.unavailable: dict[int, str] = {}
        #: Play-throughs the hub has not started yet.
        self.due: list[ExpertJob] = []

    def best(self, number: int) -> dict[Team, BestKeep]:
        """Each partnership's best keep on deal ``number`` of the match."""
        found = self._best.get(number)
        if found is None:
            hands = dict(zip(SEATS, deal_hands(deal_seed(self.match_seed, number)),
                             strict=True))
            found = self._best[number] = {team: best_keep(hands[team.seats[0]],
                                                          hands[team.seats[1]])
                                          for team in TEAMS}
        return found

    def information_cost(self, number: int, result: DealResult) -> dict[Team, int]:
        best = self.best(number)
        return {team: information_cost(result.penalty(team), best[team].penalty)
                for team in TEAMS}

    def ask_expert(self, number: int, dealer: Seat,
                   conventions: Mapping[Team, ConventionCard]) -> None:
        """Queue deal ``number``'s play-through (the hub takes it from :attr:`due`)."""
        hands = deal_hands(deal_seed(self.match_seed, number))
        self.due.append(ExpertJob(self.match_seed, number, dealer,
                                  dict(zip(SEATS, hands, strict=True)), dict(conventions)))

    def take_due(self) -> list[ExpertJob]:
        due, self.due = self.due, []
        return due

    def expert_done(self, job: ExpertJob, cost: Mapping[Team, int] | None,
                    unavailable: str | None = None) -> ExpertCost | None:
        """Keep a finished play-through's figure (or, without one, why it is unavailable)
        and return the news of it; None when it belongs to another match (a rematch
        started meanwhile) and is dropped."""
        if job.match_seed != self.match_seed:
            return None
        if cost is None:
            self.unavailable[job.deal] = unavailable or "unavailable"
            return ExpertCost(deal=job.deal, unavailable=unavailable)
        self.expert[job.deal] = dict(cost)
        return ExpertCost(deal=job.deal, information_cost=dict(cost))
