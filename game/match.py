"""A match: deals one after another until a team reaches the target.

Everything random in a match comes from its one seed: the first dealer and every
deal's shuffle (deal ``n`` is shuffled with ``derive_seed(seed, 1, n)``), so a
match seed plus the sequence of plays reproduces the whole match.
"""

from __future__ import annotations

from .deal import Deal
from .errors import ErrorCode, IllegalAction, MalformedInput
from .rng import derive_seed
from .scoring import DealResult
from .seats import SEATS, Seat, Team

__all__ = ["DEFAULT_TARGET", "Match", "deal_seed", "first_dealer"]

DEFAULT_TARGET = 300


def first_dealer(match_seed: int) -> Seat:
    """The dealer of deal 1, chosen by the match seed."""
    return SEATS[derive_seed(match_seed, 0) % 4]


def deal_seed(match_seed: int, number: int) -> int:
    """The shuffle seed of deal ``number`` (1-based) of a match."""
    return derive_seed(match_seed, 1, number)


class Match:
    """Running scores over a series of deals; the deal passes clockwise."""

    def __init__(self, seed: int, target: int = DEFAULT_TARGET) -> None:
        if target <= 0:
            raise MalformedInput(f"the target must be a positive number of points, not {target}")
        self.seed = seed
        self.target = target
        self.scores: dict[Team, int] = {Team.NS: 0, Team.EW: 0}
        self.results: list[DealResult] = []
        self.deal: Deal | None = None
        self._next_dealer = first_dealer(seed)

    @property
    def deal_number(self) -> int:
        """Number of the current (or last) deal; 0 before the first."""
        return len(self.results) + (1 if self.deal is not None else 0)

    @property
    def next_dealer(self) -> Seat:
        return self._next_dealer

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def winner(self) -> Team | None:
        """The team that reached the target first (only one team scores per deal)."""
        for team, score in self.scores.items():
            if score >= self.target:
                return team
        return None

    def start_deal(self) -> Deal:
        """Shuffle and deal the next deal."""
        if self.is_over:
            raise IllegalAction(ErrorCode.NO_DEAL, "the match is over")
        if self.deal is not None:
            raise IllegalAction(ErrorCode.NO_DEAL, "a deal is already in progress")
        number = len(self.results) + 1
        self.deal = Deal.from_seed(deal_seed(self.seed, number), self._next_dealer)
        return self.deal

    def finish_deal(self) -> DealResult:
        """Score the current deal (which must be over) and add it to the match."""
        if self.deal is None:
            raise IllegalAction(ErrorCode.NO_DEAL, "no deal is in progress")
        result = self.deal.result()
        if result.winner is not None:
            self.scores[result.winner] += result.points
        self.results.append(result)
        self._next_dealer = self.deal.dealer.next
        self.deal = None
        return result
