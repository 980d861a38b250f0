"""Every strategy handles every valid card, and keeps to it (issue 12 item 12, issue 13).

Cards are generated (any offsets, counts 1..4, either fallback, any boundary, any
tolerance), both partnerships play one, and every built-in strategy plays whole
deals under it: no exception, a legal card every time, and no more avoidable false
signals than the card declares.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.bots import STRATEGIES, View, make_strategy
from jackal.game.conventions import ConventionCard
from jackal.game.deal import Deal
from jackal.game.honesty import audit
from jackal.game.seats import SEATS, Team
from support.cards import valid_cards

pytestmark = pytest.mark.slow


def play_through(strategy: str, ours: ConventionCard, theirs: ConventionCard,
                 seed: int) -> None:
    deal = Deal.from_seed(seed, SEATS[seed % 4])
    cards = {Team.NS: ours, Team.EW: theirs}
    players = {seat: make_strategy(strategy, seed * 4 + seat.ordinal) for seat in SEATS}
    while (seat := deal.turn) is not None:
        view = View(seat=seat, hand=deal.hand(seat), history=deal.history,
                    dealer=deal.dealer, conventions=cards)
        card = players[seat].choose(view)
        assert card in view.hand
        deal.play(card, seat)
    tallies = audit({seat: deal.dealt_hand(seat) for seat in SEATS}, deal.history, cards)
    for team, card_of in cards.items():
        for kind in ("promise", "answer"):
            if getattr(card_of.tolerance, kind).rate == 0:
                # No tolerance: a false card only when no honest card was in hand.
                assert tallies[team].avoidable[kind] == 0, (strategy, team, kind)


_CHEAP = sorted(name for name in STRATEGIES if name != "expert")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ours=valid_cards(), theirs=valid_cards(), seed=st.integers(0, 2**32),
       strategy=st.sampled_from(_CHEAP))
def test_cheap_strategies_play_any_card(ours: ConventionCard, theirs: ConventionCard,
                                        seed: int, strategy: str) -> None:
    play_through(strategy, ours, theirs, seed)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ours=valid_cards(), theirs=valid_cards(), seed=st.integers(0, 2**32))
def test_expert_plays_any_card(ours: ConventionCard, theirs: ConventionCard,
                               seed: int) -> None:
    play_through("expert", ours, theirs, seed)
