"""The one picture of a table that a seat may know, and hosting a strategy on it."""

from __future__ import annotations

import random

import pytest
from jackal.bots.base import View
from jackal.bots.cards import BEGINNER
from jackal.bots.host import Decision, answer_question, decide, fallback_card, timed_out
from jackal.game.cards import Card
from jackal.game.deal import Deal
from jackal.game.errors import ErrorCode, IllegalAction
from jackal.game.knowledge import SeatKnowledge, TableKnowledge
from jackal.game.seats import SEATS, Seat


def test_knowledge_follows_the_engine_through_a_whole_deal() -> None:
    """Applying each play to every seat's picture and a spectator's keeps them equal to
    what the real deal says, and each play reports where the card went and who is next."""
    rng = random.Random(3)
    deal = Deal.from_seed(11, Seat.E)
    seats = {seat: SeatKnowledge.from_deal(deal, seat) for seat in SEATS}
    public = seats[Seat.N].public()
    assert View is SeatKnowledge and public.turn is Seat.S is deal.turn
    assert public.newest is None and public.play_order == (Seat.S, Seat.W, Seat.N, Seat.E)
    while (mover := deal.turn) is not None:
        assert seats[mover].legal_plays() == deal.legal_plays()
        assert all(not seats[s].legal_plays() for s in SEATS if s is not mover)
        card = rng.choice(deal.legal_plays())
        index = deal.play(card, mover)
        for seat in SEATS:
            seats[seat], change = seats[seat].apply_play(mover, card)
            assert (change.seat, change.card, change.index, change.turn) == (
                mover, card, index, deal.turn)
            assert seats[seat].hand == deal.hand(seat)
        public, _ = public.apply_play(mover, card)
        assert public.history == deal.history and public.turn is deal.turn
        # Where each card lies: the engine's rows, in the order played, newest last.
        assert [deal.row(seat)[index - 1] for seat, index in public.places()] == \
            [played for _, played in deal.history]
        assert public.newest == public.places()[-1] == (mover, index)
        assert public.play_order[len(public.history) % 4] is (deal.turn or public.first)
        assert public.rows == {s: deal.row(s) for s in SEATS}
    assert public.is_over and seats[Seat.W].play_number == 9


@pytest.mark.parametrize(("seat", "card", "code"), [
    (Seat.N, "first card of E", "not_your_turn"),
    (Seat.E, "first card of N", "not_in_hand"),
])
def test_illegal_plays_get_the_engines_codes(seat: Seat, card: str, code: str) -> None:
    deal = Deal.from_seed(5, Seat.N)  # E leads
    holder = Seat.E if "E" in card else Seat.N
    chosen = deal.hand(holder)[0]
    known = SeatKnowledge.from_deal(deal, Seat.E)
    with pytest.raises(IllegalAction) as refused:
        deal.copy().play(chosen, seat)
    problem = known.check_play(seat, chosen)
    assert problem is not None and problem.code == refused.value.code == code
    with pytest.raises(IllegalAction):
        known.apply_play(seat, chosen)


def test_a_card_already_played_is_refused_even_to_a_spectator() -> None:
    deal = Deal.from_seed(5, Seat.N)
    first = deal.hand(Seat.E)[0]
    deal.play(first)
    public = TableKnowledge(dealer=Seat.N, history=deal.history)
    problem = public.check_play(Seat.S, first)
    assert problem is not None and problem.code == "not_in_hand"
    finished = TableKnowledge(dealer=Seat.N, history=((Seat.E, first),) * 32)
    assert finished.turn is None
    problem = finished.check_play(Seat.E, first)
    assert problem is not None and problem.code is ErrorCode.NO_DEAL


class _Raises:
    def choose(self, _view: View) -> Card:
        raise RuntimeError("boom")


class _Wrong:
    def choose(self, view: View) -> Card:
        return Card.parse("AS") if Card.parse("AS") not in view.hand else Card.parse("KD")


class _Fine:
    def choose(self, view: View) -> Card:
        return max(view.hand)


def test_host_falls_back_to_the_lowest_legal_card_the_same_way_for_any_failure() -> None:
    deal = Deal.from_seed(8, Seat.W)  # N leads
    view = SeatKnowledge.from_deal(deal, Seat.N)
    lowest = min(deal.hand(Seat.N))
    assert fallback_card(view) == lowest
    raised, wrong, slow = decide(_Raises(), view), decide(_Wrong(), view), timed_out(view, 2)
    assert [d.card for d in (raised, wrong, slow)] == [lowest] * 3
    assert raised.problem is not None and "boom" in raised.problem
    assert wrong.problem is not None and "not in the hand" in wrong.problem
    assert slow.problem == "did not answer within 2 s"
    assert decide(_Fine(), view) == Decision(max(deal.hand(Seat.N)))


def test_bot_answers_come_from_the_declared_card_only() -> None:
    deal = Deal.from_seed(8, Seat.W)
    for _ in range(4):
        deal.play(deal.legal_plays()[0])
    history = deal.history
    assert "beginner" in answer_question(BEGINNER, Seat.N, history, None)
    first = answer_question(BEGINNER, Seat.N, history, 1)
    assert first.startswith(f"(bot) {deal.row(Seat.N)[0]}")
    assert answer_question(BEGINNER, Seat.N, history, 2) == \
        "(bot) N has played 1 card(s), not 2"
    assert "no declared" in answer_question(None, Seat.N, history, 1)
    # The answer never depends on the hand: the same history gives the same text.
    assert first == answer_question(BEGINNER, Seat.N, tuple(history), 1)
