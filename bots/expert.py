"""The ``expert`` strategy: exact inference, sampled search, honest-when-cheap signals.

Each decision:

1. **Read partner.** Partner's hand is summarised by its per-rank counts; the
   posterior over them (prior from the unseen cards, one likelihood factor per
   statement partner made under our declared card, false statements merely
   discounted) is exact (:mod:`inference`).
2. **Value every discard.** Draw partner hands from that posterior; for each distinct
   rank we could throw, solve the full-information keep of (our hand without it,
   partner's sampled hand) exactly, all at once (:mod:`search`). A discard's value is
   the mean penalty over the samples (common samples for every candidate).
3. **Speak.** Under our card some plays are statements. Honest statements earn a
   small bonus, false ones pay a price; the card chosen minimises value plus that
   price. So we tell the truth unless the honest card is too expensive, and the reader
   (partner, thinking the same way) discounts statements accordingly.

Deterministic for a given seed: the only randomness is the sampling generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..game.cards import Card
from ..game.conventions import Answer, ConventionCard, Promise
from .base import View
from .beginner import plan_costs, stated_counts
from .cards import NONE, promised_rank
from .counts import rank_counts
from .inference import Trust, partner_belief
from .search import keep_values, own_keeps, respond_values
from .signals import is_fallback, statements

__all__ = ["ExpertParams", "ExpertStrategy"]


@dataclass(frozen=True)
class ExpertParams:
    """Tuning of the expert (penalty points unless said otherwise)."""

    samples: int = 96
    #: Reward for an honest promise of a pair not promised before.
    promise_bonus: float = 6.0
    #: Share of that reward when the card may also read as "nothing".
    ambiguous_share: float = 0.5
    #: Price of a definite promise of a pair we do not hold.
    false_promise: float = 12.0
    #: Price of a fallback-class card that partner may read as a promise we cannot keep.
    ambiguous_false: float = 2.0
    #: Price of a false answer.
    false_answer: float = 8.0
    trust: Trust = field(default_factory=Trust)
    #: Weight of the "realistic partner" valuation: partner keeps its own best five
    #: given only what we have told it, and we answer that best. The rest of the
    #: weight goes to the full-information keep.
    realism: float = 0.0


class ExpertStrategy:
    """Bayesian reader and sampled-search chooser; see the module docstring."""

    name = "expert"

    def __init__(self, seed: int = 0, params: ExpertParams | None = None) -> None:
        self.params = params or ExpertParams()
        self._rng = np.random.default_rng(seed & 0xFFFFFFFFFFFFFFFF)

    def choose(self, view: View) -> Card:
        hand = view.hand
        if len(hand) == 1:
            return hand[0]
        convention = view.our_card or NONE
        values = self.discard_values(view, convention)
        extra = self.signal_prices(view, convention)
        return min(hand, key=lambda card: (round(values[card % 13 + 1] + extra.get(card, 0.0), 6),
                                           -(card % 13), -card))

    def discard_values(self, view: View, convention: ConventionCard) -> dict[int, float]:
        """Expected full-information team penalty after discarding one card of each rank."""
        belief = partner_belief(view, convention, self.params.trust)
        samples = belief.sample(self._rng, self.params.samples)
        counts = rank_counts(view.hand)
        ranks = [rank for rank in range(1, 14) if counts[rank]]
        mine = np.tile(np.array(counts, dtype=np.int64), (len(ranks), 1))
        for row, rank in enumerate(ranks):
            mine[row, rank] -= 1
        means = keep_values(mine, samples).mean(axis=1)
        if self.params.realism > 0:
            told = np.array(plan_costs(stated_counts(convention, view.history, view.seat)))
            theirs = own_keeps(samples, told)
            realistic = respond_values(mine, theirs).mean(axis=1)
            means = (1 - self.params.realism) * means + self.params.realism * realistic
        return {rank: float(means[row]) for row, rank in enumerate(ranks)}

    def signal_prices(self, view: View, convention: ConventionCard) -> dict[Card, float]:
        """What saying each card's meaning is worth (negative) or costs (positive)."""
        play = view.play_number
        if play > len(convention.plays):
            return {}
        rule = convention.rule(play)
        counts = rank_counts(view.hand)
        p = self.params
        prices: dict[Card, float] = {}
        if isinstance(rule, Promise):
            told = {said.rank for said in statements(convention, view.history, view.seat)
                    if not said.exactly_none and not said.nothing}
            for card in view.hand:
                rank = promised_rank(rule, card % 13 + 1)
                if rank is None:
                    continue
                fallback = is_fallback(convention, rule, card)
                held = counts[rank] - (1 if card % 13 + 1 == rank else 0)
                if held >= rule.count:
                    bonus = 0.0 if rank in told else p.promise_bonus
                    prices[card] = -bonus * (p.ambiguous_share if fallback else 1.0)
                else:
                    prices[card] = p.ambiguous_false if fallback else p.false_promise
        elif isinstance(rule, Answer):
            partner_row = view.row(view.partner)
            if rule.play > len(partner_row):
                return {}
            rank = promised_rank(convention.rule(rule.play),
                                 partner_row[rule.play - 1] % 13 + 1)
            if rank is None:
                return {}
            for card in view.hand:
                holds = counts[rank] - (1 if card % 13 + 1 == rank else 0) >= 1
                if convention.is_low(card % 13 + 1) != holds:
                    prices[card] = p.false_answer
        return prices
