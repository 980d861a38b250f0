"""game.advice: the words behind a suggested card, for the seat that holds the hand."""

from __future__ import annotations

import random

import pytest
from jackal.game.advice import advise
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.deal import Deal
from jackal.game.explain import AnswerMeaning, DiscardMeaning, PromiseMeaning, explain_play
from jackal.game.honesty import verdict
from jackal.game.knowledge import SeatKnowledge
from jackal.game.seats import Seat, Team

BEGINNER = builtin_card("beginner")
CARDS = {Team.NS: BEGINNER, Team.EW: BEGINNER}


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(word) for word in text.split())


def south(hand: str, history: tuple[tuple[Seat, Card], ...] = ()) -> SeatKnowledge:
    """South's picture with E dealing, so S plays first in each round."""
    return SeatKnowledge(seat=Seat.S, hand=cards(hand), dealer=Seat.E, history=history,
                         conventions=CARDS)


PAIRS = "4S 4H 5D 6H 3C 9C 9D KS JD QH AC 2C 7S"


def test_without_a_declared_card_the_meaning_says_so() -> None:
    known = SeatKnowledge(seat=Seat.S, hand=cards(PAIRS), dealer=Seat.E, history=(),
                          conventions={Team.EW: BEGINNER})
    advice = advise(known, Card.parse("5D"))
    assert advice.text.endswith("(Your side has declared no convention card.)")
    assert advice.meaning == DiscardMeaning(play=1, card=Card.parse("5D"), low=False,
                                            kind="none", reason="no card declared")


def test_an_honest_promise_says_what_it_keeps() -> None:
    advice = advise(south(PAIRS), Card.parse("5D"))
    assert advice.honest and advice.play == 1
    assert isinstance(advice.meaning, PromiseMeaning)
    assert advice.meaning.kind == "promise" and advice.meaning.rank == 4
    assert advice.text.startswith("The expert bot would play 5D, your 1st card of 8.")
    assert "promises a pair of 4s" in advice.text
    assert "That is true: you keep 4S 4H." in advice.text
    assert "It gives up a single 5; you keep a pair of 4s and a pair of 9s." in advice.text
    assert "Partner has not signalled anything yet." in advice.text


def test_a_false_promise_is_called_false() -> None:
    # 6H promises a pair of 5s; South holds one 5, and 5D would have told the truth.
    advice = advise(south(PAIRS), Card.parse("6H"))
    assert not advice.honest
    assert "This is not true of your hand" in advice.text
    broken = advise(south(PAIRS), Card.parse("4S"))
    assert "It breaks your pair of 4s" in broken.text


def test_nothing_to_promise_makes_a_spare_high_card_honest() -> None:
    advice = advise(south("2S 4H 6D 8C TS QH KD 3C 5H 7D 9C JS AH"), Card.parse("JS"))
    assert advice.honest
    assert "no new pair to show" in advice.text and "you hold no pair after it" in advice.text


ROUNDS = (  # three rounds, S W N E each; N's first card 9H promises a pair of 8s
    (Seat.S, "2D"), (Seat.W, "3D"), (Seat.N, "9H"), (Seat.E, "4D"),
    (Seat.S, "6D"), (Seat.W, "7D"), (Seat.N, "TD"), (Seat.E, "JC"),
    (Seat.S, "KC"), (Seat.W, "QC"), (Seat.N, "TH"), (Seat.E, "JH"),
)
HISTORY = tuple((seat, Card.parse(text)) for seat, text in ROUNDS)


def test_answers_say_whether_partners_rank_is_still_held() -> None:
    holding = south("8C 5S 5H 6S 6C AS AD 3S KS KH", HISTORY)
    low = advise(holding, Card.parse("5S"))
    assert low.honest and isinstance(low.meaning, AnswerMeaning)
    assert low.meaning.kind == "answer" and low.meaning.rank == 8
    assert "That is true: you still hold 8C." in low.text
    assert "Partner has said: 1st card 9H: promises a pair of 8s" in low.text
    assert not advise(holding, Card.parse("KS")).honest
    empty = south("5S 5H 6S 6C AS AD 3S KS KH 2S", HISTORY)
    high = advise(empty, Card.parse("KS"))
    assert high.honest and "That is true: you hold no 8." in high.text


def test_the_card_must_be_in_the_hand() -> None:
    with pytest.raises(ValueError, match="not in S's hand"):
        advise(south(PAIRS), Card.parse("TH"))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_play_of_a_deal_can_be_advised(seed: int) -> None:
    """Any card at any point of a deal: the card's own explanation, and honesty as the
    judge sees it."""
    deal = Deal.from_seed(seed, Seat.W)
    pick = random.Random(seed)
    while not deal.is_over:
        seat = deal.turn
        assert seat is not None
        known = SeatKnowledge.from_deal(deal, seat, conventions=CARDS)
        card = pick.choice(known.hand)
        advice = advise(known, card, "random")
        meaning = explain_play(BEGINNER, (*known.history, (seat, card)), seat,
                               known.play_number)
        assert advice.meaning == meaning.data and meaning.text in advice.text
        assert advice.text.startswith(f"The random bot would play {card}")
        judged = verdict(BEGINNER, known.hand, known.history, seat)
        assert advice.honest == (not judged.meaningful or not judged.is_false(card))
        deal.play(card)


def test_a_card_with_a_tolerance_says_it_once_not_after_every_partner_card() -> None:
    advanced = builtin_card("advanced")
    assert advanced.tolerance.promise.one_in  # the built-in card declares one
    deal = Deal.from_seed(9, Seat.N)
    for _ in range(24):  # six rounds: partner has signalled by then
        deal.play(deal.hand(deal.turn or Seat.N)[0])
    seat = deal.turn
    assert seat is not None
    known = SeatKnowledge.from_deal(deal, seat, conventions={Team.NS: advanced,
                                                             Team.EW: advanced})
    text = advise(known, known.hand[0]).text
    said = text[text.index("Partner has said:"):]
    assert said.count("may deviate") == 0 and said.count(";") >= 2
    assert said.endswith("so these are strong hints, not proof.")
