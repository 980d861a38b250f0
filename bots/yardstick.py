"""The one yardstick for bots: information efficiency against a fixed baseline.

Per deal and partnership, the no-signal baseline and the full-information optimum come
from the dealt hands alone; a side's efficiency is the share of the gap between them
that it closes, its information cost its penalty over the optimum (docs/BOTS.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..game.cards import Card
from ..game.deal import KEEP
from ..game.scoring import team_penalty
from .counts import cards_for_keep, optimum_pair, optimum_pair_keep, rank_counts

__all__ = ["BestKeep", "Efficiency", "EfficiencySums", "baseline_keep", "baseline_penalty",
           "best_keep", "efficiency", "information_cost", "optimum_penalty"]

#: z for a two-sided 95% interval.
Z95 = 1.959964


def baseline_keep(dealt: Sequence[Card]) -> list[Card]:
    """The five cards the no-signal baseline keeps from a dealt hand: what a partner
    keeps with no signals at all, by a fixed rule.

    Its own groups of two or more cards of a rank, whole, larger groups first and then
    lower ranks, passing over a group that no longer fits whole; then singles from the
    lowest rank up; then (only if the singles run out) the lowest remaining cards. Suits
    break ties by card order, so it is deterministic.
    """
    by_rank: dict[int, list[Card]] = {}
    for card in sorted(dealt):
        by_rank.setdefault(card % 13 + 1, []).append(card)
    groups = sorted((cards for cards in by_rank.values() if len(cards) >= 2),
                    key=lambda cards: (-len(cards), cards[0] % 13))
    singles = sorted((cards[0] for cards in by_rank.values() if len(cards) == 1),
                     key=lambda card: (card % 13, card))
    kept: list[Card] = []
    for cards in groups:
        if len(kept) + len(cards) <= KEEP:
            kept += cards
    kept += singles[:KEEP - len(kept)]
    if len(kept) < KEEP:
        rest = sorted((card for card in dealt if card not in kept),
                      key=lambda card: (card % 13, card))
        kept += rest[:KEEP - len(kept)]
    return kept


def baseline_penalty(first: Sequence[Card], second: Sequence[Card]) -> int:
    """The partnership's penalty when both partners keep by :func:`baseline_keep`."""
    return team_penalty([*baseline_keep(first), *baseline_keep(second)])


def optimum_penalty(first: Sequence[Card], second: Sequence[Card]) -> int:
    """The partnership's full-information optimum on these dealt hands: the lowest
    penalty the two could reach if each saw the other's hand."""
    return optimum_pair(rank_counts(first), rank_counts(second))


@dataclass(frozen=True, slots=True)
class BestKeep:
    """The full-information optimum of one partnership on a deal, with the cards kept."""

    #: The five cards each partner keeps, in card order (first and second as given).
    first: tuple[Card, ...]
    second: tuple[Card, ...]
    penalty: int


def best_keep(first: Sequence[Card], second: Sequence[Card]) -> BestKeep:
    """The keep of two partners who each see the other's dealt hand: five cards each with
    the lowest team penalty (the same number as :func:`optimum_penalty`).

    Deterministic (:func:`counts.optimum_pair_keep`; of a rank, the lowest suits).
    """
    penalty, keep_first, keep_second = optimum_pair_keep(rank_counts(first),
                                                         rank_counts(second))
    return BestKeep(tuple(cards_for_keep(first, keep_first)),
                    tuple(cards_for_keep(second, keep_second)), penalty)


def information_cost(penalty: int, best: int) -> int:
    """What missing information cost a side on a deal: its penalty over the optimum
    (:func:`best_keep`'s, the one the deal summary shows)."""
    return penalty - best


@dataclass(frozen=True)
class Efficiency:
    """Information efficiency over a run, with its 95% interval."""

    value: float
    low: float
    high: float
    deals: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@dataclass
class EfficiencySums:
    """Running sums for :func:`efficiency`, so a run of any length is summed in one pass.

    With a_i = baseline_i - penalty_i (what the side gained) and b_i = baseline_i -
    optimum_i (what there was to gain), it keeps n, sums of a, b, a*a, b*b and a*b.
    """

    n: int = 0
    a: int = 0
    b: int = 0
    aa: int = 0
    bb: int = 0
    ab: int = 0

    def add(self, penalty: int, baseline: int, optimum: int) -> None:
        a, b = baseline - penalty, baseline - optimum
        self.n += 1
        self.a += a
        self.b += b
        self.aa += a * a
        self.bb += b * b
        self.ab += a * b

    def merge(self, other: EfficiencySums) -> None:
        """Add ``other``'s deals to these (two runs taken as one)."""
        self.n += other.n
        self.a += other.a
        self.b += other.b
        self.aa += other.aa
        self.bb += other.bb
        self.ab += other.ab

    def result(self) -> Efficiency | None:
        """R = mean(a) / mean(b), with the delta method's 95% interval: the standard
        error is sd(a - R b) / (mean(b) sqrt(n)). None if there was nothing to gain."""
        n = self.n
        if n == 0 or self.b <= 0:
            return None
        ratio = self.a / self.b
        if n < 2:
            return Efficiency(ratio, -math.inf, math.inf, n)
        # The residuals a - R b sum to zero by the choice of R, so their variance is
        # their sum of squares over n - 1.
        squares = self.aa - 2 * ratio * self.ab + ratio * ratio * self.bb
        variance = max(squares, 0.0) / (n - 1)
        half = Z95 * math.sqrt(variance / n) / (self.b / n)
        return Efficiency(ratio, ratio - half, ratio + half, n)


def efficiency(penalty: Sequence[int], baseline: Sequence[int],
               optimum: Sequence[int]) -> Efficiency | None:
    """Ratio-of-means efficiency of one side over deals, or None if it is undefined
    (no deals, or no gap between baseline and optimum to close).

    (mean baseline - mean penalty) / (mean baseline - mean optimum): the share of the gap
    between playing blind and playing with full information that the side closes, 0 for
    the baseline and 1 for the optimum. A ratio of means, because a per-deal ratio would
    divide by zero on every deal where the baseline is already optimal.
    """
    if not len(penalty) == len(baseline) == len(optimum):
        raise ValueError("one penalty, baseline and optimum per deal")
    sums = EfficiencySums()
    for p, b, o in zip(penalty, baseline, optimum, strict=True):
        sums.add(p, b, o)
    return sums.result()
