"""Per-rank counting and the exact keep searches (suits never matter for scoring):
:func:`best_own_keep`, the five cards one player keeps on their own, and
:func:`optimum_pair`, the lowest team penalty two partners reach seeing each other's
hands, by a dynamic programme over ranks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..game.cards import Card
from ..game.deal import KEEP
from ..game.scoring import group_penalty

__all__ = [
    "COST",
    "best_own_keep",
    "cards_for_keep",
    "optimum_pair",
    "optimum_pair_keep",
    "rank_counts",
]

#: COST[rank][count] for count 0..10 (a team can hold at most 4, but sums of
#: hypothetical counts are looked up too: up to five kept cards plus a promise of
#: four, or two partners' five each).
COST: tuple[tuple[int, ...], ...] = tuple(
    tuple(group_penalty(rank, min(count, 4)) if rank else 0 for count in range(11))
    for rank in range(14)
)

_INF = float("inf")


def rank_counts(cards: Iterable[Card]) -> list[int]:
    """How many cards of each rank (index 1..13) ``cards`` hold."""
    counts = [0] * 14
    for card in cards:
        counts[card % 13 + 1] += 1
    return counts


def best_own_keep(counts: Sequence[int], cost: Sequence[Sequence[float]],
                  keep: int = KEEP) -> tuple[float, list[int]]:
    """Choose how many of each rank to keep (``keep`` in all) minimising ``cost``.

    ``cost[rank][x]`` is the cost of keeping ``x`` cards of ``rank``. Returns the
    total and the per-rank keep counts. Exact DP over ranks; ties go to the choice
    found first (fewer cards of lower ranks), so the result is deterministic.
    """
    # best[k] = (total, choices) having kept k cards among the ranks seen so far.
    best: list[tuple[float, tuple[int, ...]] | None] = [None] * (keep + 1)
    best[0] = (0.0, ())
    for rank in range(1, 14):
        new: list[tuple[float, tuple[int, ...]] | None] = [None] * (keep + 1)
        have = counts[rank]
        row = cost[rank]
        for kept, entry in enumerate(best):
            if entry is None:
                continue
            total, choice = entry
            for x in range(min(have, keep - kept) + 1):
                value = total + row[x]
                slot = new[kept + x]
                if slot is None or value < slot[0]:
                    new[kept + x] = (value, (*choice, x))
        best = new
    final = best[keep]
    if final is None:
        raise ValueError(f"cannot keep {keep} cards from {sum(counts)}")
    return final[0], [0, *final[1]]


def cards_for_keep(hand: Sequence[Card], keep_counts: Sequence[int]) -> list[Card]:
    """Concrete cards of ``hand`` matching per-rank ``keep_counts`` (lowest cards first)."""
    left = list(keep_counts)
    chosen = []
    for card in sorted(hand):
        rank = card % 13 + 1
        if left[rank] > 0:
            left[rank] -= 1
            chosen.append(card)
    return chosen


def optimum_pair(first: Sequence[int], second: Sequence[int], keep: int = KEEP) -> int:
    """Lowest team penalty when two partners with these rank counts each keep ``keep``.

    Each partner's choice of five is free, so this is the full-information optimum of the
    deal for that team (:func:`optimum_pair_keep` without the keep).

    Suits never matter for scoring, so every search here works on per-rank counts
    (index 1..13, index 0 unused). Two searches:

    - ``best_own_keep``: the five cards one player would keep on their own, given a cost
      per (rank, count kept) table (the greedy player uses plain penalties);
    - ``optimum_pair``: the lowest team penalty two partners can reach when each sees
      the other's whole hand -- a dynamic programme over ranks whose state is how many
      cards each partner has kept so far (6 x 6 states), exact and under a millisecond;
      ``optimum_pair_keep`` also says which cards of each rank they keep.
    """
    return optimum_pair_keep(first, second, keep)[0]


def optimum_pair_keep(first: Sequence[int], second: Sequence[int], keep: int = KEEP
                      ) -> tuple[int, list[int], list[int]]:
    """:func:`optimum_pair` and how it is reached: the penalty and each partner's per-rank
    keep counts (index 1..13).

    Exact: DP over ranks on (kept by first, kept by second), remembering how each state
    was best reached. Ties go to the choice found first (fewer cards of lower ranks), so
    the keep is deterministic.
    """
    size = keep + 1
    inf = 1 << 30
    table = [inf] * (size * size)
    table[0] = 0
    # steps[rank - 1][state] = (previous state, x, y): how ``state`` was best reached.
    steps: list[list[tuple[int, int, int]]] = []
    for rank in range(1, 14):
        a = min(first[rank], keep)
        b = min(second[rank], keep)
        row = COST[rank]
        new = [inf] * (size * size)
        came = [(0, 0, 0)] * (size * size)
        for i in range(size):
            for j in range(size):
                base = table[i * size + j]
                if base == inf:
                    continue
                for x in range(min(a, keep - i) + 1):
                    at = (i + x) * size + j
                    for y in range(min(b, keep - j) + 1):
                        value = base + row[x + y]
                        if value < new[at + y]:
                            new[at + y] = value
                            came[at + y] = (i * size + j, x, y)
        table = new
        steps.append(came)
    state = keep * size + keep
    penalty = table[state]
    keep_first, keep_second = [0] * 14, [0] * 14
    for rank in range(13, 0, -1):
        state, keep_first[rank], keep_second[rank] = steps[rank - 1][state]
    return penalty, keep_first, keep_second
