"""The hidden-card checker of tests/support/leaks.py catches what it should."""

from __future__ import annotations

from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.seats import Seat
from support.client import Msg
from support.leaks import cards_in, check_no_leaks


def test_cards_in_finds_nested_cards() -> None:
    msg = {"type": "x", "rows": {"N": ["7H", "TS"]}, "hand": ["AC"], "text": "7H is nice"}
    assert cards_in(msg) == {"7H", "TS", "AC"}
    assert cards_in(msg, skip_keys=("hand",)) == {"7H", "TS"}


def test_leak_checker_catches_a_foreign_card() -> None:
    deal = Deal.from_seed(deal_seed(5, 1), Seat.N)
    foreign = str(deal.dealt_hand(Seat.E)[0])
    mine = [str(c) for c in deal.dealt_hand(Seat.N)]
    log: list[Msg] = [
        {"type": "deal_started", "deal": 1, "dealer": "N", "first": "E", "hand": mine},
        {"type": "turn", "seat": "E", "hint": foreign},
    ]
    try:
        check_no_leaks(log, "N", 5)
    except AssertionError:
        return
    raise AssertionError("the checker missed a leaked card")
