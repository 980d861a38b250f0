"""The beginner strategy follows the beginner card exactly on constructed hands."""

from __future__ import annotations

from jackal.bots import View
from jackal.bots.beginner import BeginnerStrategy
from jackal.bots.greedy import GreedyStrategy
from jackal.game.cards import Card
from jackal.game.seats import Seat
from support.views import view_for


def choose(view: View) -> str:
    card = BeginnerStrategy().choose(view)
    assert card in view.hand
    return str(card)


def test_first_card_promises_the_pair_one_below() -> None:
    view = view_for("7S 7H 8C 2D 3C 4H 5S 9D JC QS KH 6D TC", {})
    assert choose(view) == "8C"  # an 8 promises a pair of 7s


def test_second_card_promises_the_pair_one_above() -> None:
    view = view_for("5S 5H 4C 2D 3C 9H JS QD KC 8D TH AS",
                    {Seat.N: "KH", Seat.E: "2H", Seat.S: "7C", Seat.W: "9S"})
    assert choose(view) == "4C"  # a 4 as 2nd card promises a pair of 5s


def test_third_card_promises_a_new_pair_one_below() -> None:
    # Two pairs (5s and Js); the 5s were promised with the 2nd card, so the 3rd card
    # shows the Js with a Q.
    view = view_for("5S 5H JS JH QD 2D 3C 9H KC 8D TH",
                    {Seat.N: "KH 4C", Seat.E: "2H 6S", Seat.S: "7C AH", Seat.W: "9S 8H"})
    assert choose(view) == "QD"


def test_without_a_pair_it_plays_an_unneeded_high_card() -> None:
    view = view_for("AS 2H 3D 4C 5S 6H 7D 8C 9S TH JD QC KS", {})
    card = choose(view)
    assert Card.parse(card).rank >= 8
    assert card == "KS"  # the costliest single it will not keep


def test_answer_low_when_holding_the_promised_rank() -> None:
    rows = {Seat.N: "KS QS JS", Seat.E: "2H 3H 4H", Seat.S: "8H 9C TC", Seat.W: "5H 6H 7H"}
    view = view_for("7D TS 9S 2C 3C 4C 5C 8D 9D TD", rows)
    card = Card.parse(choose(view))
    assert card.rank <= 7 and str(card) != "7D"  # low, and still holding the 7


def test_answer_high_when_not_holding_the_promised_rank() -> None:
    rows = {Seat.N: "KS QS JS", Seat.E: "2H 3H 4H", Seat.S: "8H 9C TC", Seat.W: "5H 6H 7H"}
    view = view_for("6D TS 9S 2C 3C 4C 5C 8D 9D TD", rows)
    assert Card.parse(choose(view)).rank >= 8


def test_answer_to_a_no_pair_high_card_still_refers_to_the_rank_below() -> None:
    # Partner's 1st card was a king: a pair of queens or nothing. Holding a queen: low.
    rows = {Seat.N: "AS 2S 3S", Seat.E: "2H 3H 4H", Seat.S: "KC 9C TC", Seat.W: "5H 6H 7H"}
    view = view_for("QD TS 9S 2C 3C 4C 5C 8D 9D TD", rows)
    assert Card.parse(choose(view)).rank <= 7
    without = view_for("JD TS 9S 2C 3C 4C 5C 8D 9D TD", rows)
    assert Card.parse(choose(without)).rank >= 8


def test_fifth_and_sixth_cards_answer_partners_second_and_third() -> None:
    # Partner's 2nd card 6C promised 7s (one above); we hold a 7: our 5th card is low.
    rows = {Seat.N: "KS QS JS TS", Seat.E: "2H 3H 4H 5H", Seat.S: "AC 6C 9C TC",
            Seat.W: "6H 7H 8H 9H"}
    view = view_for("7D 9S 2C 3C 4C 5C 8D 9D TD", rows)
    assert Card.parse(choose(view)).rank <= 7
    # Partner's 3rd card 9C promised 8s; we hold none: our 6th card is high.
    rows = {Seat.N: "KS QS JS TS 2C", Seat.E: "2H 3H 4H 5H TH", Seat.S: "AC 6C 9C TC JC",
            Seat.W: "6H 7H 8H 9H JH"}
    view = view_for("7D 9S 3C 4C 5C KD 9D TD", rows)
    assert Card.parse(choose(view)).rank >= 8
    # ... and holding an 8 it is low, but never the only 8.
    view = view_for("7D 9S 3C 4C 5C 8D 9D TD", rows)
    card = Card.parse(choose(view))
    assert card.rank <= 7


def test_reader_keeps_what_partners_promise_makes_valuable() -> None:
    # Partner's 2nd card 6C promised a pair of 7s (a low card: no doubt about it).
    # Last discard from 7D AS AH 2C 2D 3S: greedy throws the 7; the beginner keeps it
    # for a triple of 7s and throws the 3.
    rows = {Seat.N: "KS QS JS TS 9S 8S 4C", Seat.E: "2H 3H 4H 5H 6H 7H 8H",
            Seat.S: "KC 6C QC JC TC 9C 8C", Seat.W: "9H TH JH QH KH 3C 5C"}
    view = view_for("7D AS AH 2C 2D 3S", rows)
    assert choose(view) == "3S"
    assert str(GreedyStrategy().choose(view)) == "7D"
