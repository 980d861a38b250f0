"""The expert: exact inference, honest answers, and that it beats greedy."""

from __future__ import annotations

import itertools
from math import comb, prod

import numpy as np
import pytest
from jackal.arena.run import ArenaConfig, collect, summarise
from jackal.bots import View
from jackal.bots.cards import BEGINNER
from jackal.bots.expert import ExpertParams, ExpertStrategy
from jackal.bots.inference import Trust, partner_belief, unseen_counts
from jackal.game.conventions import builtin_card
from jackal.game.seats import Seat
from support.views import view_for

# Late in a deal: partner (S) holds 6 unknown cards. Its 1st and 3rd cards (aces)
# promised nothing, its 2nd card 6C promised 7s, and its high 4th, 5th and 6th cards
# answered "none" to our promises of queens (KS), fives (4D) and tens (JS).
LATE = view_for("7D AS AH 2C 2D 3S",
                {Seat.N: "KS 4D JS TS 9S 8S 4C", Seat.E: "2H 3H 4H 5H 6H 7H 8H",
                 Seat.S: "AC 6C AD 9C 8C TC KC", Seat.W: "9H TH JH QH KH 3C 5C"})


def exact_posterior(view: View, trust: Trust) -> dict[tuple[int, ...], float]:
    """Brute force over partner's count vectors (independent of the DP code)."""
    unseen = unseen_counts(view)
    ranks = range(1, 14)
    weights: dict[tuple[int, ...], float] = {}
    for counts in itertools.product(*(range(min(unseen[r], 4) + 1) for r in ranks)):
        if sum(counts) != 6:
            continue
        weight = float(prod(comb(unseen[r], counts[r - 1]) for r in ranks))
        if counts[6] < 2:  # the promise of 7s (index 6 = rank 7) would be false
            weight *= trust.false_weight
        for rank in (5, 10, 12):  # the "none" answers about 5s, tens and queens
            if counts[rank - 1] != 0:
                weight *= trust.false_weight
        # Every card partner threw: another of its rank held right after the throw
        # (counting the ones thrown since) costs the discard factor.
        thrown = [card.rank for card in view.row(view.partner)]
        for time, rank in enumerate(thrown):
            if counts[rank - 1] + thrown[time + 1:].count(rank) >= 1:
                weight *= trust.discard_weight
        weights[counts] = weight
    total = sum(weights.values())
    return {counts: weight / total for counts, weight in weights.items()}


@pytest.mark.parametrize("trust", [Trust(), Trust(discard_weight=0.5)])
def test_posterior_samples_match_brute_force(trust: Trust) -> None:
    belief = partner_belief(LATE, BEGINNER, trust)
    assert belief.size == 6
    exact = exact_posterior(LATE, trust)
    p_sevens = sum(p for counts, p in exact.items() if counts[6] >= 2)
    p_fives = sum(p for counts, p in exact.items() if counts[4] >= 1)
    samples = belief.sample(np.random.default_rng(1), 6000)
    assert (samples[:, 1:].sum(axis=1) == 6).all()
    unseen = unseen_counts(LATE)
    assert (samples[:, 1:] <= np.array(unseen[1:])).all()
    assert abs((samples[:, 7] >= 2).mean() - p_sevens) < 0.03
    assert abs((samples[:, 5] >= 1).mean() - p_fives) < 0.03
    assert p_sevens > 0.5 > p_fives  # the statements moved the belief


def test_a_discard_makes_its_rank_less_likely() -> None:
    # Partner threw 8C, 9C and KC (among others): with the discard factor, partner is
    # less likely to hold another of those ranks, and more likely to hold a rank it
    # never threw (a 4), since its hand size is fixed.
    plain, reading = (partner_belief(LATE, BEGINNER, Trust(discard_weight=w)) for w in (1.0, 0.5))
    rng = np.random.default_rng(2)
    before, after = plain.sample(rng, 4000), reading.sample(rng, 4000)
    for rank in (8, 9, 13):
        assert (after[:, rank] >= 1).mean() < (before[:, rank] >= 1).mean() - 0.03
    assert (after[:, 4] >= 1).mean() > (before[:, 4] >= 1).mean()


def test_expert_answers_honestly_when_it_is_cheap() -> None:
    # 4th play answers partner's 8H (7s): holding a 7 and spare low cards, a low card is
    # the honest answer, and it costs nothing.
    rows = {Seat.N: "KS QS JS", Seat.E: "2H 3H 4H", Seat.S: "8H 9C TC", Seat.W: "5H 6H 7H"}
    view = view_for("7D TS 9S 2C 3C 4C 5C 8D 9D TD", rows)
    card = ExpertStrategy(0).choose(view)
    assert card in view.hand and card.rank <= 7 and card.rank != 7


def test_expert_keeps_partners_promised_rank() -> None:
    # Same spot as the beginner test: the 7 makes a likely triple with partner's pair.
    view = LATE
    assert str(ExpertStrategy(3).choose(view)) == "3S"


@pytest.mark.slow
def test_expert_beats_greedy_over_a_seeded_sample() -> None:
    # Measured on 2,000 deals: about 35 points of mean penalty better than greedy and
    # 30 better than the baseline. On these 24 deals we ask for a third of that, far
    # inside the seeded sample's margin.
    config = ArenaConfig(ns="expert", ew="greedy", deals=24, seed=77)
    expert, greedy = summarise(config, collect(config))
    assert expert.mean_penalty < greedy.mean_penalty - 10
    assert expert.mean_penalty < expert.baseline_penalty - 10
    assert expert.efficiency is not None and expert.efficiency > 0.2
    assert expert.wins > greedy.wins


def test_samples_where_partner_hid_a_showable_pair_weigh_less() -> None:
    # Partner's 1st card was an ace: under the beginner card it promises nothing.
    view = view_for("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                    {Seat.N: "AS", Seat.E: "AH", Seat.S: "AC", Seat.W: "AD"})
    expert = ExpertStrategy(0)
    could_show = [0, 0, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 0]  # 5s and a 6 to show them with
    no_pairs = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    no_signal = [0, 0, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]  # 2s, but no 3 to show them
    samples = np.array([could_show, no_pairs, no_signal], dtype=np.int64)
    weights = expert.unshown_weights(view, BEGINNER, samples)
    assert weights[0] == expert.params.unshown_weight < 1.0
    assert weights[1] == 1.0
    assert weights[2] == 1.0


def test_trust_follows_the_cards_tolerance() -> None:
    # Under a card that declares a tolerance, firm statements are doubted more and a
    # fallback-class promise believed more; under one that declares none, neither.
    params = ExpertParams()
    advanced, beginner = builtin_card("advanced"), builtin_card("beginner")
    assert advanced.tolerance.promise.one_in and not beginner.tolerance.promise.one_in
    tolerant, strict = params.trust_for(advanced), params.trust_for(beginner)
    assert tolerant.false_weight > strict.false_weight == params.trust.false_weight
    assert tolerant.ambiguous_weight == params.tolerant_ambiguous_weight
    assert strict.ambiguous_weight == params.trust.ambiguous_weight
    assert tolerant.ambiguous_weight < strict.ambiguous_weight
