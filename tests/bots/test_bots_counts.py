"""The exact keep searches against brute force."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from jackal.bots.counts import COST, best_own_keep, optimum_pair, rank_counts
from jackal.bots.search import keep_values
from jackal.game.cards import Card
from jackal.game.deal import Deal
from jackal.game.scoring import team_penalty
from jackal.game.seats import Seat


def _keep_choices(counts: list[int], keep: int = 5) -> list[tuple[int, ...]]:
    """Every way of keeping ``keep`` cards, as per-rank counts (brute force)."""
    ranges = [range(min(counts[rank], keep) + 1) for rank in range(1, 14)]
    return [choice for choice in itertools.product(*ranges) if sum(choice) == keep]


def _brute_optimum(first: list[int], second: list[int]) -> int:
    best = 1 << 30
    seconds = _keep_choices(second)
    for x in _keep_choices(first):
        for y in seconds:
            best = min(best, sum(COST[rank][x[rank - 1] + y[rank - 1]] for rank in range(1, 14)))
    return best


@pytest.mark.slow
def test_optimum_pair_matches_brute_force() -> None:
    for seed in range(4):
        deal = Deal.from_seed(seed)
        north, south = (rank_counts(deal.dealt_hand(seat)) for seat in (Seat.N, Seat.S))
        assert optimum_pair(north, south) == _brute_optimum(north, south)


def test_optimum_pair_of_two_matching_hands_is_zero() -> None:
    # Each partner holds 13 cards; two quads and a triple between them cost nothing.
    first = [0, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    second = [0, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]
    assert optimum_pair(first, second) == 0


def test_best_own_keep_matches_brute_force_over_cards() -> None:
    rng = random.Random(7)
    plain = [[float(COST[rank][x]) for x in range(6)] for rank in range(14)]
    for _ in range(20):
        hand = [Card(i) for i in rng.sample(range(52), 13)]
        best = min(team_penalty(combo) for combo in itertools.combinations(hand, 5))
        total, keep = best_own_keep(rank_counts(hand), plain)
        assert total == best
        assert sum(keep) == 5


def test_vectorised_keep_values_equal_the_exact_optimum() -> None:
    mine = []
    partners = []
    for seed in range(10, 16):
        deal = Deal.from_seed(seed)
        mine.append(rank_counts(deal.dealt_hand(Seat.E)))
        partners.append(rank_counts(deal.dealt_hand(Seat.W)))
    values = keep_values(np.array(mine), np.array(partners))
    for i, first in enumerate(mine):
        for j, second in enumerate(partners):
            assert values[i, j] == optimum_pair(first, second)


def test_keep_values_of_candidate_discards_equal_the_exact_optimum() -> None:
    # The expert's rows: a hand less one card of each rank it holds, so the search shares
    # its prefix and suffix tables; every value must still be the pair's exact optimum.
    rng = random.Random(5)
    for seed in range(20, 26):
        deal = Deal.from_seed(seed)
        hand = list(deal.dealt_hand(Seat.N))[:rng.randint(6, 13)]
        counts = rank_counts(hand)
        ranks = [rank for rank in range(1, 14) if counts[rank]]
        mine = np.tile(np.array(counts), (len(ranks), 1))
        for row, rank in enumerate(ranks):
            mine[row, rank] -= 1
        partners = [rank_counts(list(deal.dealt_hand(seat))[:rng.randint(5, 13)])
                    for seat in (Seat.S, Seat.E, Seat.W)]
        values = keep_values(mine, np.array(partners))
        for i, row in enumerate(mine):
            for j, second in enumerate(partners):
                assert values[i, j] == optimum_pair(list(row), second)
