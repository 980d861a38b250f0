"""The told-partner model: what partner believes, what it keeps, and what a statement is worth."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from jackal.bots.cards import BEGINNER
from jackal.bots.counts import COST, rank_counts
from jackal.bots.expert import ExpertParams, ExpertStrategy
from jackal.bots.response import partner_keeps, response_values, told_counts
from jackal.game.cards import parse_hand
from jackal.game.seats import Seat
from support.views import view_for


def test_told_counts_follow_our_statements() -> None:
    # N's plays under the beginner card: 8H promises 7s (a high card: may be "nothing"),
    # 4C promises 5s, 3D promises 2s (low: firm); 9C answers "none" to partner's KS
    # (queens); 5S answers "I hold one" to partner's 6D (7s) and throws one of the 5s.
    view = view_for("AC 2C 2H 5H 7C 9D TD JD",
                    {Seat.N: "8H 4C 3D 9C 5S", Seat.E: "2S 3S 4S 6S 7S",
                     Seat.S: "KS 6D 2D TS", Seat.W: "9H TH JH QH"})
    told = told_counts(BEGINNER, view.history, Seat.N, firm=0.9, ambiguous=0.5)
    assert np.allclose(told.sum(axis=1), 1.0)
    assert told[2, 2] == pytest.approx(0.9)   # the firm promise of 2s
    assert told[5, 1] == pytest.approx(0.9)   # 5s promised, one thrown since: one left
    assert told[12, 0] == 1.0                 # "none" of the queens
    # Two statements about 7s: the ambiguous pair (worth one card in expectation) is
    # stronger than the firm single, so it stands.
    assert told[7, 2] == pytest.approx(0.5) and told[7, 0] == pytest.approx(0.5)
    for rank in (1, 3, 4, 6, 8, 9, 10, 11, 13):
        assert told[rank, 0] == 1.0           # nothing said: partner expects nothing


def _expected(told: np.ndarray, rank: int, kept: int) -> float:
    return float(sum(told[rank, m] * COST[rank][kept + m] for m in range(5)))


def _keeps(counts: np.ndarray) -> list[tuple[int, ...]]:
    ranges = [range(min(int(counts[r]), 5) + 1) for r in range(1, 14)]
    return [keep for keep in itertools.product(*ranges) if sum(keep) == 5]


def test_partner_keep_and_our_reply_match_brute_force() -> None:
    rng = np.random.default_rng(5)
    deck = np.repeat(np.arange(1, 14), 4)
    for _ in range(6):
        cards = rng.permutation(deck)
        mine = np.bincount(cards[:7], minlength=14)[None, :].astype(np.int64)
        partner = np.bincount(cards[7:15], minlength=14)[None, :].astype(np.int64)
        told = rng.dirichlet(np.ones(5) * 0.3, size=14)[None, :, :]
        kept = partner_keeps(partner, told)[0, 0]
        assert kept.sum() == 5 and (kept <= partner[0]).all()
        options = _keeps(partner[0])
        best = min(sum(_expected(told[0], r, keep[r - 1]) for r in range(1, 14))
                   for keep in options)
        ours = sum(_expected(told[0], r, int(kept[r])) for r in range(1, 14))
        assert ours == pytest.approx(best)
        # Our reply: the best five of ours next to what partner keeps.
        reply = min(sum(COST[r][mine_keep[r - 1] + int(kept[r])] for r in range(1, 14))
                    for mine_keep in _keeps(mine[0]))
        assert response_values(mine, partner, told)[0, 0] == pytest.approx(reply)


# Our first play under the beginner card: an 8 promises 7s. We hold 7S 7H.
HAND = "7S 7H 8D KC 2C 3C 4D 5D 9S TS JS QH AH"
# Partner holds one card of every rank, a 7 among them.
PARTNER = "AC 2D 3D 4C 5C 6D 7C 8H 9H TH JH QD KD"


def _values(hand: str, response_weight: float) -> dict[int, float]:
    view = view_for(hand, {})
    samples = np.array([rank_counts(parse_hand(PARTNER))], dtype=np.int64)
    expert = ExpertStrategy(0, ExpertParams(response_weight=response_weight))
    return expert.discard_values(view, samples, np.ones(1), BEGINNER)


def test_a_promise_partner_can_join_earns_its_worth() -> None:
    told = _values(HAND, 1.0)
    # Throwing the 8 tells partner of our 7s; it keeps its 7 and the team holds three.
    assert told[8] < told[13] - 10
    # Seeing each other's hands, the promise would change nothing: both are junk.
    seen = _values(HAND, 0.0)
    assert seen[8] == pytest.approx(seen[13])


def test_a_false_promise_costs_what_partner_keeps_for_nothing() -> None:
    # The same 8, but we hold no 7: partner keeps its 7 on our word, for nothing.
    told = _values("6S 6H 8D KC 2C 3C 4D 5D 9S TS JS QH AH", 1.0)
    assert told[8] > told[13] + 10
