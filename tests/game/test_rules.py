"""The rules of play (game/rules.py) in process: turn order, legal plays and the refusal
with its code, and that the engine (Deal) and every picture of a deal (TableKnowledge,
SeatKnowledge) give the same answer to the same play because they ask the same rules."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jackal.game.cards import DECK, Card
from jackal.game.deal import Deal
from jackal.game.errors import ErrorCode, IllegalAction
from jackal.game.knowledge import SeatKnowledge, TableKnowledge
from jackal.game.rules import (
    PLAYS_PER_DEAL,
    legal_plays,
    play_order,
    play_refusal,
    plays_before,
    seat_to_move,
)
from jackal.game.seats import SEATS, Seat

C = {str(card): card for card in DECK}


@pytest.mark.parametrize(("dealer", "order"), [
    (Seat.N, "ESWN"), (Seat.E, "SWNE"), (Seat.S, "WNES"), (Seat.W, "NESW")])
def test_the_seat_after_the_dealer_leads_then_clockwise(dealer: Seat, order: str) -> None:
    assert "".join(seat.value for seat in play_order(dealer)) == order
    moves = [seat_to_move(dealer, n) for n in range(PLAYS_PER_DEAL)]
    assert "".join(seat.value for seat in moves if seat is not None) == order * 8
    assert seat_to_move(dealer, PLAYS_PER_DEAL) is None
    assert seat_to_move(dealer, PLAYS_PER_DEAL + 5) is None


@pytest.mark.parametrize("dealer", SEATS)
def test_plays_before_is_the_seats_place_in_the_round(dealer: Seat) -> None:
    for seat in SEATS:
        first = plays_before(dealer, seat)
        assert seat_to_move(dealer, first) is seat
        assert all(seat_to_move(dealer, n) is seat for n in range(first, PLAYS_PER_DEAL, 4))


def test_only_the_seat_to_move_has_legal_plays() -> None:
    hand = (C["2S"], C["KH"])
    assert legal_plays(Seat.E, Seat.E, hand) == hand
    assert legal_plays(Seat.E, Seat.S, hand) == ()
    assert legal_plays(None, Seat.E, hand) == ()


def _code(problem: IllegalAction | None) -> ErrorCode | None:
    return None if problem is None else problem.code


def test_refusals_come_in_a_fixed_order_with_their_codes() -> None:
    card = C["7H"]
    played = ((Seat.E, card),)
    # Over beats everything; then whose turn; then a card known to be gone.
    over = play_refusal(None, Seat.S, card, hand=(), history=played)
    assert over is not None and over.code is ErrorCode.NO_DEAL and "over" in over.message
    wrong = play_refusal(Seat.S, Seat.W, card, hand=(), history=played)
    assert wrong is not None and wrong.code is ErrorCode.NOT_YOUR_TURN
    assert wrong.message == "it is S's turn, not W's"
    gone = play_refusal(Seat.S, Seat.S, card, hand=(), history=played)
    assert gone is not None and gone.code is ErrorCode.NOT_IN_HAND
    assert gone.message == "7H has already been played"
    unheld = play_refusal(Seat.S, Seat.S, C["8H"], hand=(card,))
    assert unheld is not None and unheld.message == "S does not hold 8H"
    assert _code(play_refusal(Seat.S, Seat.S, card, hand=(card,))) is None
    # Without a hand only the history can show a card is gone; None: whoever moves.
    assert _code(play_refusal(Seat.S, Seat.S, C["8H"], history=played)) is None
    assert _code(play_refusal(Seat.S, None, card, hand=(card,))) is None
    assert isinstance(unheld, ValueError)  # the game library's errors stay ValueErrors


def _pictures(deal: Deal) -> list[TableKnowledge]:
    public = TableKnowledge.of_deal(deal)
    return [public, *(SeatKnowledge.from_deal(deal, seat) for seat in SEATS)]


def _judge(deal: Deal, seat: Seat, card: Card) -> ErrorCode | None:
    try:
        deal.copy().play(card, seat)
    except IllegalAction as exc:
        return exc.code
    return None


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), dealer=st.sampled_from(SEATS),
       plays=st.integers(min_value=0, max_value=PLAYS_PER_DEAL),
       tries=st.randoms(use_true_random=False))
def test_the_engine_and_every_picture_judge_a_play_alike(
        seed: int, dealer: Seat, plays: int, tries: random.Random) -> None:
    """Each picture says no whenever the engine does, with the same code, unless the
    refusal rests on a hand the picture cannot see; the seat to move judges exactly as
    the engine does on its own cards."""
    deal = Deal.from_seed(seed, dealer)
    for _ in range(plays):
        deal.play(tries.choice(deal.legal_plays()))
    pictures = _pictures(deal)
    for _ in range(12):
        seat, card = tries.choice(SEATS), tries.choice(DECK)
        engine = _judge(deal, seat, card)
        for picture in pictures:
            seen = _code(picture.check_play(seat, card))
            sees_hand = isinstance(picture, SeatKnowledge) and picture.seat is seat
            if seen is not None or sees_hand:
                assert seen is engine, (picture, seat, card)
            else:
                assert engine in (None, ErrorCode.NOT_IN_HAND)
            assert picture.turn is deal.turn
        mover = SeatKnowledge.from_deal(deal, seat)
        assert mover.legal_plays() == (deal.legal_plays() if deal.turn is seat else ())
