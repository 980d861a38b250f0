"""A tiny, fully specified random number generator for reproducible deals: SplitMix64,
because ``random.Random.shuffle`` may change between Python versions, while "the same seed
gives the same deal on every machine" is a promise records, arena runs and bug reports
rely on."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

__all__ = ["SplitMix64", "derive_seed"]

_MASK = (1 << 64) - 1
T = TypeVar("T")


class SplitMix64:
    """SplitMix64 (Steele, Lea and Flood, 2014) over arbitrary-size integer seeds."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (rejection sampling, no modulo bias)."""
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next64()
            if x <= limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place.

        The generator is inlined and each index is drawn by multiply-shift
        (``x * n >> 64``, Lemire's method without its rare rejection step): the bias
        is below 2**-58 for a 52-card deck and shuffling stays fast enough for the
        arena and the engine benchmark. The output is part of the seed contract, so
        this must never change.
        """
        state = self._state
        for i in range(len(items) - 1, 0, -1):
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            j = ((z ^ (z >> 31)) * (i + 1)) >> 64
            items[i], items[j] = items[j], items[i]
        self._state = state


def derive_seed(seed: int, *path: int) -> int:
    """A 64-bit seed for a sub-stream (e.g. deal ``n`` of a match), stable forever."""
    state = seed & _MASK
    for part in path:
        state = SplitMix64(state ^ ((part * 0xD1B54A32D192ED03) & _MASK)).next64()
    return state
