"""Exact inference over partner's hand, per rank, and sampling from it: partner's hand is
summarised by its count of each rank, every statement and discard is a factor on one
count, so a dynamic programme over ranks gives the exact posterior and samples from it
(:func:`partner_belief`, :class:`Belief`), vectorised with numpy."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from ..game.conventions import ConventionCard
from ..game.seats import Seat
from .base import View
from .counts import rank_counts
from .signals import statements

__all__ = ["Belief", "Trust", "partner_belief"]

Float = npt.NDArray[np.float64]
Int = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Trust:
    """How far a reader believes partner's statements."""

    #: Tuned in the arena with the expert on both sides of the partnership (see
    #: docs/CONVENTIONS.md); a Bayesian reader would set them to the odds of the
    #: sender playing that card when the statement is false rather than true.
    false_weight: float = 0.04
    ambiguous_weight: float = 0.1
    #: Factor on partner still holding a card of the rank it has just thrown (1.0:
    #: discards say nothing about the rest of the hand).
    discard_weight: float = 1.0


@dataclass
class Belief:
    """The posterior over partner's per-rank counts."""

    size: int
    #: factor[r, k]: prior times likelihood of partner holding k cards of rank r.
    factor: Float
    #: tail[r, t]: total weight of ranks r..13 holding t cards between them.
    tail: Float

    def sample(self, rng: np.random.Generator, count: int) -> Int:
        """``count`` draws of partner's counts, shape [count, 14] (column 0 unused)."""
        out = np.zeros((count, 14), dtype=np.int64)
        left = np.full(count, self.size, dtype=np.int64)
        # cumulative[r - 1, left, k]: the running sum over k of the weight of taking k of
        # rank r with ``left`` cards still to place, factor[r, k] * tail[r + 1, left - k];
        # one table for every rank and every ``left`` at once, then one lookup per rank
        rest = np.arange(self.size + 1)[:, None] - np.arange(5)[None, :]
        ahead = self.tail[2:15][:, np.clip(rest, 0, self.size)]
        weights = np.where(rest >= 0, self.factor[1:14][:, None, :] * ahead, 0.0)
        cumulative = np.cumsum(weights, axis=2)
        # one uniform per sample and rank, drawn at once: the same stream, rank by rank
        uniform = rng.random((13, count))
        for rank in range(1, 14):
            running = cumulative[rank - 1][left]
            draw = uniform[rank - 1] * running[:, -1]
            chosen = (running <= draw[:, None]).sum(axis=1)
            chosen = np.minimum(chosen, 4)
            out[:, rank] = chosen
            left = left - chosen
        return out


def _tail(factor: Float, size: int) -> Float:
    tail = np.zeros((15, size + 1))
    tail[14, 0] = 1.0
    for rank in range(13, 0, -1):
        for k in range(5):
            weight = factor[rank, k]
            if weight == 0:
                continue
            tail[rank, k:] += tail[rank + 1, :size + 1 - k] * weight
    return tail


def unseen_counts(view: View) -> list[int]:
    """Per rank, the cards not in our hand and not yet played by anybody."""
    counts = rank_counts(view.hand)
    played = rank_counts(card for _, card in view.history)
    return [0, *(4 - counts[rank] - played[rank] for rank in range(1, 14))]


def partner_belief(view: View, convention: ConventionCard, trust: Trust,
                   partner: Seat | None = None) -> Belief:
    """The posterior over ``partner``'s (default: our partner's) current rank counts.

    What one player knows about partner's current hand: it is a subset, of known size,
    of the cards nobody has shown (not in our hand, not played by anyone). Suits never
    matter for scoring, so the hand is summarised by how many cards of each rank partner
    holds, ``k[1..13]``. With no other information every subset is equally likely, so
    the prior weight of a count vector is the product over ranks of C(unseen_r, k_r).

    Every signal under a convention card is a statement about one rank (see
    :mod:`signals`), so its likelihood is a factor on one ``k_r`` and the posterior stays
    a product over ranks under a single constraint, sum(k) = partner's hand size. A
    dynamic programme over ranks gives the normalising table exactly and draws samples
    rank by rank from the true posterior, vectorised with numpy.

    Statements are not trusted blindly: a statement found false costs a factor
    ``false_weight`` (partners sometimes lie when the honest card is too expensive),
    and one made with a card that may mean "nothing" costs only ``ambiguous_weight``.

    Partner's discards say something too, without any agreement: a player throws the
    cards it needs least, so after throwing a card it seldom holds another of that rank
    (it would rather have thrown a lone card than broken a pair). Each card partner
    played is therefore a factor ``discard_weight`` on partner still holding its rank
    right after the play; that too is a factor on one ``k_r``.
    """
    who = partner or view.partner
    unseen = unseen_counts(view)
    size = 13 - sum(1 for seat, _ in view.history if seat is who)
    factor = np.zeros((14, 5))
    for rank in range(1, 14):
        for k in range(min(unseen[rank], 4) + 1):
            factor[rank, k] = comb(unseen[rank], k)
    history = view.history
    ks = np.arange(5)
    for said in statements(convention, history, who):
        if said.nothing:
            continue
        then = ks + said.thrown_since(history)
        ok = then == 0 if said.exactly_none else then >= said.at_least
        miss = trust.ambiguous_weight if said.ambiguous else trust.false_weight
        factor[said.rank] *= np.where(ok, 1.0, miss)
    if trust.discard_weight != 1.0:
        thrown = [card % 13 + 1 for seat, card in history if seat is who]
        for time, rank in enumerate(thrown):
            later = thrown[time + 1:].count(rank)
            factor[rank] *= np.where(ks + later >= 1, trust.discard_weight, 1.0)
    return Belief(size=size, factor=factor, tail=_tail(factor, size))
