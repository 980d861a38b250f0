"""Every built-in strategy: legal cards only, deterministic per seed, registered by name."""

from __future__ import annotations

import pytest
from jackal.arena.run import ArenaConfig, play_deal
from jackal.bots import STRATEGIES, View, make_strategy
from jackal.bots.greedy import GreedyStrategy, greedy_keep
from jackal.game.deal import Deal
from jackal.game.seats import SEATS, Seat

DEALS = {"random": 40, "greedy": 40, "baseline": 40, "beginner": 40, "expert": 6}


def test_all_built_in_strategies_are_registered() -> None:
    assert {"random", "greedy", "baseline", "beginner", "expert"} <= set(STRATEGIES)


def test_a_seat_needing_a_bot_gets_a_faithful_strong_strategy_seeded_by_its_builder() -> None:
    from jackal.bots import make_strategy, substitute_strategy
    from jackal.game.conventions import BUILTIN_CARDS

    for card in (None, *BUILTIN_CARDS.values()):
        assert substitute_strategy(card) == "expert"
    # A server seeds a filler from ``secrets`` (128 bits); the same seed replays the
    # same choices, so the arena stays reproducible, and nothing else seeds it.
    big = (1 << 127) + 12345
    deal = Deal.from_seed(9, Seat.N)
    cards = {team: BUILTIN_CARDS["beginner"] for team in (Seat.N.team, Seat.E.team)}
    view = View(seat=deal.turn or Seat.E, hand=deal.hand(deal.turn or Seat.E), history=(),
                dealer=Seat.N, conventions=cards)
    name = substitute_strategy(BUILTIN_CARDS["beginner"])
    first, again = make_strategy(name, big), make_strategy(name, big)
    assert first.choose(view) == again.choose(view)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEALS))
def test_strategy_plays_only_cards_it_holds(name: str) -> None:
    # The arena itself refuses a card that is not in hand; here we also check the
    # strategy against itself on all four seats and under each built-in card.
    for conventions in ("none", "beginner", "advanced"):
        config = ArenaConfig(ns=name, ew=name, deals=DEALS[name] // 3 + 1, seed=11,
                             ns_conventions=conventions, ew_conventions="beginner")
        cards = config.cards()
        for index in range(config.deals):
            outcome = play_deal(config, cards, index)
            plays = outcome.record.plays
            assert len(plays) == 32
            for seat in SEATS:
                played = [card for who, card in plays if who is seat]
                kept = outcome.record.kept[seat]
                assert sorted(played + kept) == sorted(outcome.record.hands[seat])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEALS))
def test_strategy_is_deterministic_for_a_seed(name: str) -> None:
    config = ArenaConfig(ns=name, ew="random", deals=3, seed=5)
    cards = config.cards()
    first = [play_deal(config, cards, i).record.plays for i in range(3)]
    again = [play_deal(config, cards, i).record.plays for i in range(3)]
    assert first == again


def test_greedy_discards_exactly_what_it_does_not_keep() -> None:
    deal = Deal.from_seed(2024, Seat.W)
    players = {seat: make_strategy("greedy", 0) for seat in SEATS}
    while (seat := deal.turn) is not None:
        view = View(seat=seat, hand=deal.hand(seat), history=deal.history, dealer=deal.dealer)
        deal.play(players[seat].choose(view), seat)
    for seat in SEATS:
        assert list(deal.kept(seat)) == sorted(greedy_keep(deal.dealt_hand(seat)))


def test_greedy_keeps_a_triple_and_a_pair_when_it_has_them() -> None:
    from jackal.game.cards import parse_hand
    hand = tuple(parse_hand("9S 9H 9D 4C 4S KS QH JD TC 8S 6H 3D 2C"))
    keep = greedy_keep(hand)
    assert sorted(str(card) for card in keep) == sorted(["9S", "9H", "9D", "4C", "4S"])
    view = View(seat=Seat.N, hand=hand, history=(), dealer=Seat.W)
    assert str(GreedyStrategy().choose(view)) == "KS"  # the costliest card goes first


def test_accept_choice_names_a_card_of_the_hand_or_nothing() -> None:
    from jackal.bots.base import accept_choice
    from jackal.game.cards import parse_hand

    hand = tuple(parse_hand("7H TS AC"))
    assert accept_choice(hand[1], hand) is hand[1]
    assert accept_choice(int(hand[0]), hand) is hand[0]
    assert accept_choice("ts", hand) is hand[1]
    for wrong in ("7D", "zz", None, True, 3.0, 99):
        assert accept_choice(wrong, hand) is None
