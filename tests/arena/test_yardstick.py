"""The yardstick: the no-signal baseline keep and the efficiency with its interval."""

from __future__ import annotations

import random
import statistics

import pytest
from jackal.bots.counts import optimum_pair, rank_counts
from jackal.bots.yardstick import (
    baseline_keep,
    baseline_penalty,
    best_keep,
    efficiency,
    information_cost,
    optimum_penalty,
)
from jackal.game.cards import parse_hand
from jackal.game.deal import Deal, deal_hands
from jackal.game.scoring import team_penalty
from jackal.game.seats import Seat
from support.yardstick import brute_force_best


def kept(hand: str) -> list[str]:
    return sorted(str(card) for card in baseline_keep(parse_hand(hand)))


def test_baseline_keeps_larger_groups_first_then_lower_ranks() -> None:
    # Triple of 9s before the pairs; of the pairs, 3s before kings.
    assert kept("9S 9H 9D KS KH 3S 3H AS 2S 4S 5S 6S 7S") == sorted(
        ["9S", "9H", "9D", "3S", "3H"])


def test_baseline_keeps_whole_groups_and_fills_with_lowest_singles() -> None:
    # Four jacks fill four places; no pair fits whole, so the fifth is the lowest single.
    assert kept("JS JH JD JC 4S 4H QS QH AS 2H 6D 8C TC") == sorted(
        ["JS", "JH", "JD", "JC", "AS"])
    # Three pairs: the two lower ones, then the ace, not a card of the third pair.
    assert kept("2D 2H 5D 5S TC TS 4D 6D 7D 8S JC QD AS") == sorted(
        ["2D", "2H", "5D", "5S", "AS"])
    # No singles at all: four 3s, four 9s, three kings, two 6s. The 3s go first (larger
    # groups first, then the lower rank); nothing else fits whole and there is no single,
    # so the lowest other card fills the fifth place.
    assert kept("3S 3H 3D 3C 9S 9H 9D 9C KS KH KD 6S 6H") == sorted(
        ["3S", "3H", "3D", "3C", "6S"])
    # One pair only: the three lowest singles fill up (ace, 2, 3), not the pair's rank.
    assert kept("KS KH AS 2H 3D 5C 6S 7H 8D 9C TS JH QD") == sorted(
        ["KS", "KH", "AS", "2H", "3D"])


def test_baseline_and_optimum_on_a_real_deal() -> None:
    deal = Deal.from_seed(5, Seat.N)
    north, south = deal.dealt_hand(Seat.N), deal.dealt_hand(Seat.S)
    expected = team_penalty([*baseline_keep(north), *baseline_keep(south)])
    assert baseline_penalty(north, south) == expected
    assert optimum_penalty(north, south) == optimum_pair(rank_counts(north), rank_counts(south))
    assert optimum_penalty(north, south) <= baseline_penalty(north, south)


def test_efficiency_is_a_ratio_of_means() -> None:
    penalty, baseline, optimum = [50, 80, 60], [70, 90, 60], [30, 50, 60]
    result = efficiency(penalty, baseline, optimum)
    assert result is not None
    # (mean gained) / (mean gap) = ((20 + 10 + 0) / 3) / ((40 + 40 + 0) / 3)
    assert result.value == pytest.approx(30 / 80)
    assert result.low < result.value < result.high
    assert efficiency([1], [5], [5]) is None  # no gap to close: undefined
    assert efficiency([], [], []) is None


def test_efficiency_interval_covers_like_a_95_percent_interval() -> None:
    # Synthetic deals with a known true ratio: the interval should cover it about 95% of
    # the time over repeated samples, and its width should match the spread of estimates.
    rng = random.Random(3)
    truth = 0.55
    covered, estimates = 0, []
    for _ in range(300):
        gaps = [rng.randint(0, 80) for _ in range(200)]
        gained = [round(truth * g + rng.gauss(0, 15)) for g in gaps]
        result = efficiency([100 - a for a in gained], [100] * 200, [100 - g for g in gaps])
        assert result is not None
        estimates.append(result.value)
        covered += result.low <= truth <= result.high
    assert 0.9 <= covered / 300 <= 0.99
    assert result is not None
    assert statistics.stdev(estimates) == pytest.approx(result.half_width / 1.96, rel=0.25)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2024, 99991])
def test_best_keep_matches_a_brute_force_over_every_keep(seed: int) -> None:
    hands = deal_hands(seed)
    for first, second in ((hands[0], hands[2]), (hands[1], hands[3])):
        best = best_keep(first, second)
        assert best.penalty == brute_force_best(first, second)
        # The cards it names are five of each hand and score what it says.
        assert len(best.first) == len(best.second) == 5
        assert set(best.first) <= set(first) and set(best.second) <= set(second)
        assert team_penalty(best.first + best.second) == best.penalty
        assert information_cost(best.penalty + 17, best.penalty) == 17
