"""The yardstick's best keep, worked out by brute force to check it."""

from __future__ import annotations

from itertools import combinations

from jackal.game.cards import Card


def brute_force_best(first: tuple[Card, ...], second: tuple[Card, ...]) -> int:
    """Every keep of five from each hand, paired with every keep of the other. Suits never
    score, so keeps with the same ranks are tried once (exact, and 1287**2 pairs fewer)."""
    def keeps(hand: tuple[Card, ...]) -> list[list[int]]:
        seen = {tuple(sorted(card % 13 for card in five)) for five in combinations(hand, 5)}
        return [list(ranks) for ranks in seen]
    best = 10**9
    for mine in keeps(first):
        for theirs in keeps(second):
            penalty = 0
            for rank in set(mine + theirs):
                count = (mine + theirs).count(rank)
                penalty += 20 + rank + 1 if count == 1 else 25 if count == 2 else 0
            best = min(best, penalty)
    return best
