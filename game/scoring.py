"""Scoring a deal: a team's ten kept cards rank by rank, and the deal's result (the table
of penalties is in docs/BOTS.md, "What a bot decides"). ``team_penalty`` is the lean
version for hot loops (bots, arena); ``score_team`` gives the same number with a per-rank
breakdown a UI can show."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from .cards import Card
from .seats import Seat, Team

__all__ = [
    "MAX_PENALTY",
    "PAIR_PENALTY",
    "DealResult",
    "RankGroup",
    "TeamScore",
    "compare_teams",
    "group_penalty",
    "rank_counts_penalty",
    "score_deal",
    "score_hands",
    "score_team",
    "team_penalty",
    "victory_points",
]

PAIR_PENALTY = 25
SINGLE_BASE = 20
ZERO_BONUS = 30
WIN_BASE = 20
#: Ten singles: ranks 4..K, the worst possible ten-card hand.
MAX_PENALTY = sum(SINGLE_BASE + rank for rank in range(4, 14))


def group_penalty(rank: int, count: int) -> int:
    """What ``count`` cards of ``rank`` in a team's hand cost."""
    if count == 1:
        return SINGLE_BASE + rank
    if count == 2:
        return PAIR_PENALTY
    return 0


# _COST[rank][count], precomputed so the hot loop is two indexings per rank.
_COST = tuple(tuple(group_penalty(rank, count) for count in range(5)) for rank in range(14))


def rank_counts_penalty(counts: Sequence[int]) -> int:
    """Penalty from per-rank counts (index = rank 1..13; index 0 ignored)."""
    cost = _COST
    return sum(cost[rank][counts[rank]] for rank in range(1, 14))


def team_penalty(cards: Iterable[Card]) -> int:
    """The penalty of a team's kept cards, without a breakdown."""
    counts = [0] * 14
    for card in cards:
        counts[card % 13 + 1] += 1
    cost = _COST
    return sum(cost[rank][counts[rank]] for rank in range(1, 14))


# gc=False: these hold only ints and tuples of cards, so they can never be part of a
# reference cycle, and skipping GC tracking makes building a breakdown cheaper.
class RankGroup(msgspec.Struct, frozen=True, gc=False):
    """The cards of one rank in a team's hand and what they cost."""

    rank: int
    cards: tuple[Card, ...]
    points: int

    @property
    def count(self) -> int:
        return len(self.cards)


class TeamScore(msgspec.Struct, frozen=True, gc=False):
    """A team's ten cards scored: the groups by rank (ascending) and the total."""

    penalty: int
    groups: tuple[RankGroup, ...]


class DealResult(msgspec.Struct, frozen=True, gc=False):
    """The outcome of one deal."""

    scores: tuple[TeamScore, TeamScore]  # NS, EW
    winner: Team | None
    points: int

    def penalty(self, team: Team) -> int:
        return self.scores[0 if team is Team.NS else 1].penalty


def score_team(cards: Iterable[Card]) -> TeamScore:
    """Score a team's kept cards with the per-rank breakdown."""
    by_rank: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], []]
    # Sorting once up front leaves every group in suit order without sorting each.
    for card in sorted(cards):
        by_rank[card % 13 + 1].append(card)
    cost = _COST
    groups: list[RankGroup] = []
    total = 0
    for rank in range(1, 14):
        held = by_rank[rank]
        if held:
            points = cost[rank][len(held)]
            total += points
            groups.append(RankGroup(rank, tuple(held), points))
    return TeamScore(total, tuple(groups))


def victory_points(winner_penalty: int, loser_penalty: int) -> int:
    """Victory points for the winner of a deal (0 if the penalties are equal)."""
    if winner_penalty == loser_penalty:
        return 0
    bonus = ZERO_BONUS if winner_penalty == 0 else 0
    return WIN_BASE + (loser_penalty - winner_penalty) + bonus


def compare_teams(ns: int, ew: int) -> tuple[Team | None, int]:
    """The winner (None on a tie) and their victory points, from the two penalties."""
    if ns < ew:
        return Team.NS, victory_points(ns, ew)
    if ew < ns:
        return Team.EW, victory_points(ew, ns)
    return None, 0


def score_hands(ns_cards: Iterable[Card], ew_cards: Iterable[Card]) -> DealResult:
    """Score a deal from the two teams' combined kept cards (NS first, then EW)."""
    ns = score_team(ns_cards)
    ew = score_team(ew_cards)
    winner, points = compare_teams(ns.penalty, ew.penalty)
    return DealResult((ns, ew), winner, points)


def score_deal(kept: Mapping[Seat, Iterable[Card]]) -> DealResult:
    """Score a finished deal from each seat's kept cards."""
    return score_hands([*kept[Seat.N], *kept[Seat.S]], [*kept[Seat.E], *kept[Seat.W]])

