"""Explanations of played cards, and the constraints bots read from them."""

from __future__ import annotations

import re
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jackal.game import Card, Deal, IllegalAction, MalformedInput, Seat, parse_hand
from jackal.game.conventions import (
    Answer,
    ConventionCard,
    NoMeaning,
    Promise,
    builtin_card,
)
from jackal.game.explain import (
    Constraint,
    answer_rank,
    describe_card,
    describe_rule,
    explain_play,
    is_fallback_side,
    ordinal,
    promise_of,
    public_constraints,
    rank_word,
    signal_constraints,
)
from jackal.game.seats import SEATS, Team
from jackal.protocol.codec import encode
from support import ROOT

BEGINNER = builtin_card("beginner")
N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W

# A full deal's rows under the beginner card, N playing first (so the round order is
# N E S W). Chosen so every play number and every edge case appears:
#   N: 8H may be "no pair"; QD kings or no pair; 2S aces; then answers to S.
#   E: AS and AH promise nothing (no rank below A); KS nothing (no rank above K).
#   S: 5H a firm promise of 4s; 3C answers 8H low; 6C answers QD low; JD answers 2S high.
#   W: 2C promises aces; 7H answers E's AS (no meaning); 5S answers KS; 6D answers AH.
ROWS = {
    N: "8H QD 2S 3D KD 4S 7C JC",
    E: "AS KS AH 4C 9D TD 8C 8S",
    S: "5H 3S 9C 3C 6C JD QC QS",
    W: "2C 7D KC 7H 5S 6D 2D 2H",
}


def interleave(rows: dict[Seat, str], first: Seat = N) -> list[tuple[Seat, Card]]:
    """The history of plays that produces ``rows`` when ``first`` leads each round."""
    parsed = {seat: parse_hand(rows.get(seat, "")) for seat in SEATS}
    order = [first, first.next, first.next.next, first.next.next.next]
    longest = max(len(row) for row in parsed.values())
    return [(seat, parsed[seat][i]) for i in range(longest) for seat in order
            if i < len(parsed[seat])]


HISTORY = interleave(ROWS)


def text(seat: Seat, index: int, card: ConventionCard = BEGINNER) -> str:
    return explain_play(card, HISTORY, seat, index).text


def data(seat: Seat, index: int, card: ConventionCard = BEGINNER) -> dict[str, object]:
    """The meaning as the wire carries it (``explanation.meaning``)."""
    wire: dict[str, object] = msgspec.json.decode(encode(explain_play(card, HISTORY, seat,
                                                                       index).data))
    return wire


def test_the_test_deal_is_a_real_deal() -> None:
    # All 32 cards differ, and replaying them through the engine gives the same history.
    cards = [card for _, card in HISTORY]
    assert len(cards) == 32 == len(set(cards))
    rest = [c for c in map(Card, range(52)) if c not in cards]
    hands = [list(parse_hand(ROWS[seat])) + rest[i * 5:(i + 1) * 5] for i, seat in
             enumerate(SEATS)]
    deal = Deal(hands, dealer=W)
    for seat, card in HISTORY:
        deal.play(card, seat)
    assert list(deal.history) == HISTORY
    assert explain_play(BEGINNER, deal.history, S, 4).text == text(S, 4)


# ----------------------------------------------------------------------------- plays 1-3


def test_first_card_high_promises_pair_below_or_no_pair() -> None:
    assert text(N, 1) == "1st card 8H: promises a pair of 7s, or no pair (an unneeded high card)"
    assert data(N, 1) == {"kind": "promise", "rule": "promise", "play": 1, "card": "8H",
                          "low": False, "rank": 7, "count": 2, "may_be_fallback": True,
                          "deviates_one_in": 0}


def test_first_card_low_is_a_firm_promise() -> None:
    assert text(S, 1) == "1st card 5H: promises a pair of 4s"
    assert data(S, 1)["may_be_fallback"] is False
    assert text(W, 1) == "1st card 2C: promises a pair of aces"
    assert data(W, 1)["rank"] == 1


def test_ace_as_first_or_third_card_promises_nothing() -> None:
    assert text(E, 1) == "1st card AS: promises nothing (no rank below A)"
    assert data(E, 1) == {"kind": "none", "rule": "promise", "play": 1, "card": "AS",
                          "low": True, "may_be_fallback": False, "reason": "no rank below A"}
    assert text(E, 3) == "3rd card AH: promises nothing (no rank below A)"


def test_second_card_promises_pair_above() -> None:
    assert text(N, 2) == "2nd card QD: promises a pair of kings, or no pair (an unneeded high card)"
    assert text(S, 2) == "2nd card 3S: promises a pair of 4s"
    assert text(W, 2) == "2nd card 7D: promises a pair of 8s"  # 7 is low: firm


def test_king_as_second_card_promises_nothing() -> None:
    assert text(E, 2) == "2nd card KS: promises nothing (no rank above K); an unneeded high card"
    assert data(E, 2)["kind"] == "none"


def test_third_card() -> None:
    assert text(N, 3) == "3rd card 2S: promises a pair of aces"
    assert text(S, 3) == "3rd card 9C: promises a pair of 8s, or no pair (an unneeded high card)"
    assert text(W, 3) == ("3rd card KC: promises a pair of queens, or no pair "
                          "(an unneeded high card)")


# ----------------------------------------------------------------------------- plays 4-6


def test_fourth_card_low_answers_a_possible_no_pair_high_card() -> None:
    # S's 4th card 3C replies to N's 1st card 8H: "7s, or no pair".
    assert text(S, 4) == ("4th card 3C (low): holds a card of partner's promised rank, 7 "
                          "(answering partner's 1st card 8H, which may also have meant no pair)")
    assert data(S, 4) == {"kind": "answer", "rule": "answer", "play": 4, "card": "3C",
                          "low": True, "to_play": 1, "partner_card": "8H", "rank": 7,
                          "holds": True, "partner_may_be_fallback": True,
                          "deviates_one_in": 0}


def test_fourth_card_answers_firm_promises() -> None:
    assert text(N, 4) == ("4th card 3D (low): holds a card of partner's promised rank, 4 "
                          "(answering partner's 1st card 5H)")
    assert text(E, 4) == ("4th card 4C (low): holds a card of partner's promised rank, ace "
                          "(answering partner's 1st card 2C)")


def test_answer_to_a_promise_of_nothing_means_nothing() -> None:
    assert text(W, 4) == ("4th card 7H: no meaning (it answers partner's 1st card AS, "
                          "which promised nothing)")
    assert data(W, 4)["kind"] == "none"
    assert text(W, 5) == ("5th card 5S: no meaning (it answers partner's 2nd card KS, "
                          "which promised nothing)")
    assert text(W, 6).startswith("6th card 6D: no meaning (it answers partner's 3rd card AH")


def test_fifth_card() -> None:
    assert text(N, 5) == ("5th card KD (high): holds no card of partner's promised rank, 4 "
                          "(answering partner's 2nd card 3S)")
    assert data(N, 5)["holds"] is False
    # A reply to partner's queen, which promised kings or no pair.
    assert text(S, 5) == ("5th card 6C (low): holds a card of partner's promised rank, king "
                          "(answering partner's 2nd card QD, which may also have meant no pair)")
    assert text(E, 5) == ("5th card 9D (high): holds no card of partner's promised rank, 8 "
                          "(answering partner's 2nd card 7D)")


def test_sixth_card() -> None:
    assert text(N, 6) == ("6th card 4S (low): holds a card of partner's promised rank, 8 "
                          "(answering partner's 3rd card 9C, which may also have meant no pair)")
    assert text(E, 6) == ("6th card TD (high): holds no card of partner's promised rank, "
                          "queen (answering partner's 3rd card KC, which may also have meant "
                          "no pair)")
    assert text(S, 6) == ("6th card JD (high): holds no card of partner's promised rank, ace "
                          "(answering partner's 3rd card 2S)")


# ----------------------------------------------------------------------------- plays 7-8


@pytest.mark.parametrize("seat", SEATS)
def test_seventh_and_eighth_cards_mean_nothing(seat: Seat) -> None:
    row = parse_hand(ROWS[seat])
    assert text(seat, 7) == f"7th card {row[6]}: no meaning (a free discard)"
    assert text(seat, 8) == f"8th card {row[7]}: no meaning (a free discard)"
    assert data(seat, 8)["kind"] == "none"


def test_none_card_explains_everything_as_a_discard() -> None:
    none = builtin_card("none")
    for seat in SEATS:
        for index in range(1, 9):
            assert data(seat, index, none)["kind"] == "none"
            assert text(seat, index, none).endswith("no meaning (a free discard)")


def test_meanings_are_json_and_name_the_card() -> None:
    for seat in SEATS:
        for index in range(1, 9):
            meaning = explain_play(BEGINNER, HISTORY, seat, index)
            assert (meaning.seat, meaning.index) == (seat, index)
            assert meaning.card == parse_hand(ROWS[seat])[index - 1]
            # On the wire (the codec writes cards as text) with the play's rule first.
            wire = msgspec.json.decode(encode(meaning.data))
            assert next(iter(wire)) == "rule" and wire["card"] == str(meaning.card)
            assert wire["kind"] == meaning.data.kind in ("promise", "answer", "none")


def test_unmade_and_impossible_plays_are_refused() -> None:
    early = HISTORY[:5]  # N and E have made one play; S and W too; N its second
    with pytest.raises(IllegalAction) as caught:
        explain_play(BEGINNER, early, E, 2)
    assert caught.value.code == "bad_card"
    assert "has not made a 2nd play" in str(caught.value)
    with pytest.raises(MalformedInput):
        explain_play(BEGINNER, HISTORY, N, 9)
    with pytest.raises(MalformedInput):
        explain_play(BEGINNER, HISTORY, N, 0)


# ----------------------------------------------------------------------------- custom cards

ODD = ConventionCard(
    name="odd", low_max=5,
    plays=(Promise(offset=2, count=1, fallback="low"), Promise(offset=-3, count=3),
           Answer(play=1), Answer(play=2), Promise(offset=0), NoMeaning(), NoMeaning(),
           Promise(offset=1, count=4)),
)


def test_custom_card_explanations() -> None:
    # N: 8H (high, firm under fallback "low") promises at least one 10.
    assert text(N, 1, ODD) == "1st card 8H: promises at least one 10"
    # S: 5H is low (low_max 5) and the fallback is low: ambiguous.
    assert text(S, 1, ODD) == ("1st card 5H: promises at least one 7, or nothing to promise "
                               "(an unneeded low card)")
    assert text(E, 2, ODD) == ("2nd card KS: promises three or more 10s, or nothing to "
                               "promise (an unneeded high card)")
    assert text(N, 2, ODD) == ("2nd card QD: promises three or more 9s, or nothing to promise "
                               "(an unneeded high card)")
    assert text(S, 2, ODD) == "2nd card 3S: promises nothing (no rank 3 below 3)"
    # S's 3rd card 9C (high under low_max 5) answers N's 1st card 8H (10s).
    assert text(S, 3, ODD) == ("3rd card 9C (high): holds no card of partner's promised rank, "
                               "10 (answering partner's 1st card 8H)")
    assert text(N, 3, ODD) == ("3rd card 2S (low): holds a card of partner's promised rank, 7 "
                               "(answering partner's 1st card 5H, which may also have meant "
                               "nothing to promise)")
    assert text(N, 5, ODD) == ("5th card KD: promises a pair of kings, or no pair "
                               "(an unneeded high card)")
    assert text(E, 8, ODD) == ("8th card 8S: promises all four 9s, or nothing to promise "
                               "(an unneeded high card)")


def test_promise_of_and_answer_rank() -> None:
    assert [promise_of(BEGINNER, r, 1) for r in (1, 2, 8, 13)] == [None, 1, 7, 12]
    assert [promise_of(BEGINNER, r, 2) for r in (1, 12, 13)] == [2, 13, None]
    assert promise_of(BEGINNER, 8, 4) is None and promise_of(BEGINNER, 8, 7) is None
    assert is_fallback_side(BEGINNER, 1, 8) and not is_fallback_side(BEGINNER, 1, 7)
    assert not is_fallback_side(BEGINNER, 4, 13)
    # Before S's 4th play: what must S answer about? N's 1st card 8H named 7s.
    before = HISTORY[:14]
    assert answer_rank(BEGINNER, before, S, 4) == 7
    assert answer_rank(BEGINNER, before, W, 4) is None  # partner's AS named nothing
    assert answer_rank(BEGINNER, before, S, 1) is None  # not an answer
    assert answer_rank(BEGINNER, HISTORY[:1], S, 5) is None  # partner has not played it


def test_constraints() -> None:
    assert signal_constraints(BEGINNER, HISTORY, N, 1) == Constraint(N, 1, 7, 2, 4, True)
    assert signal_constraints(BEGINNER, HISTORY, S, 1) == Constraint(S, 1, 4, 2, 4, False)
    assert signal_constraints(BEGINNER, HISTORY, E, 1) is None
    assert signal_constraints(BEGINNER, HISTORY, E, 2) is None
    assert signal_constraints(BEGINNER, HISTORY, S, 4) == Constraint(S, 4, 7, 1, 4)
    assert signal_constraints(BEGINNER, HISTORY, N, 5) == Constraint(N, 5, 4, 0, 0)
    assert signal_constraints(BEGINNER, HISTORY, W, 4) is None
    assert signal_constraints(BEGINNER, HISTORY, N, 7) is None
    everything = public_constraints({Team.NS: BEGINNER, Team.EW: BEGINNER}, HISTORY)
    expected: list[Constraint] = []  # in play order
    counts: Counter[Seat] = Counter()
    for seat, _ in HISTORY:
        counts[seat] += 1
        found = signal_constraints(BEGINNER, HISTORY, seat, counts[seat])
        if found is not None:
            expected.append(found)
    assert everything == expected and len(everything) == 18
    only_ns = public_constraints({Team.NS: BEGINNER}, HISTORY)
    assert only_ns == [c for c in everything if c.seat.team is Team.NS]


# ----------------------------------------------------------------------------- properties


def _honest_choice(card: ConventionCard, deal: Deal, seat: Seat, index: int) -> Card | None:
    """A play that follows ``card`` truthfully, or None if the hand allows none."""
    hand = deal.hand(seat)
    rule = card.rule(index)

    def held_after(play: Card, rank: int) -> int:
        return sum(1 for c in hand if c.rank == rank and c != play)

    if isinstance(rule, Promise):
        for play in hand:
            target = promise_of(card, play.rank, index)
            if target is not None and held_after(play, target) >= rule.count:
                return play
        side = [c for c in hand if is_fallback_side(card, index, c.rank)]
        return side[0] if side else None
    if isinstance(rule, Answer):
        target = answer_rank(card, deal.history, seat, index)
        if target is None:
            return hand[0]
        wanted = [c for c in hand if card.is_low(c.rank) == (held_after(c, target) > 0)]
        return wanted[0] if wanted else None
    return hand[-1]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(SEATS))
def test_constraints_hold_for_honest_players(seed: int, dealer: Seat) -> None:
    deal = Deal.from_seed(seed, dealer)
    after: dict[tuple[Seat, int], tuple[Card, ...]] = {}
    honest: set[tuple[Seat, int]] = set()
    while not deal.is_over:
        seat = deal.turn
        assert seat is not None
        index = len(deal.row(seat)) + 1
        choice = _honest_choice(BEGINNER, deal, seat, index)
        if choice is None:
            choice = deal.hand(seat)[0]
        else:
            honest.add((seat, index))
        deal.play(choice, seat)
        after[seat, index] = deal.hand(seat)
    checked = 0
    for c in public_constraints({Team.NS: BEGINNER, Team.EW: BEGINNER}, deal.history):
        if (c.seat, c.index) not in honest:
            continue
        held = sum(1 for card in after[c.seat, c.index] if card.rank == c.rank)
        fulfilled = c.at_least <= held <= c.at_most
        assert fulfilled or c.may_be_fallback, (c, held)
        checked += 1
    assert checked > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_explanations_use_only_what_was_public_at_the_time(seed: int) -> None:
    # A play's meaning is fixed once it is made: later plays never change it.
    deal = Deal.from_seed(seed, Seat.E)
    at_the_time = {}
    while not deal.is_over:
        seat = deal.turn
        assert seat is not None
        index = deal.play(deal.legal_plays()[seed % len(deal.legal_plays())], seat)
        at_the_time[seat, index] = explain_play(BEGINNER, deal.history, seat, index)
    for (seat, index), meaning in at_the_time.items():
        assert explain_play(BEGINNER, deal.history, seat, index) == meaning


# ----------------------------------------------------------------------------- whole cards


def test_describe_beginner() -> None:
    words = describe_card(BEGINNER)
    assert words.startswith("beginner: The classic system")
    assert "Low cards: A..7; high cards: 8..K." in words
    assert describe_rule(BEGINNER, 1).startswith(
        "promises a pair of the rank one below the card played (a 2 promises aces; an ace "
        "promises nothing).")
    assert "(a queen promises kings; a king promises nothing)" in describe_rule(BEGINNER, 2)
    assert "an unneeded high card (8..K)" in describe_rule(BEGINNER, 3)
    assert describe_rule(BEGINNER, 4).startswith("answers partner's play 1: a low card (A..7)")
    assert describe_rule(BEGINNER, 7) == "no meaning: a free discard."
    assert max(len(line) for line in words.splitlines()) <= 90  # rules wrap; notes as written
    flat = " ".join(words.split())
    for play in range(1, 9):
        assert f"Play {play}: {describe_rule(BEGINNER, play)}" in flat
    assert "Notes:\n  Low cards are A to 7" in words


def test_describe_custom_rules() -> None:
    assert describe_rule(ODD, 1).startswith(
        "promises at least one card of the rank 2 above the card played (a jack promises "
        "kings; Q..K promise nothing). With nothing suitable to promise, an unneeded low "
        "card (A..5)")
    assert "(a 4 promises aces; A..3 promise nothing)" in describe_rule(ODD, 2)
    assert describe_rule(ODD, 5).startswith(
        "promises a pair of the same rank as the card played (besides that card).")
    assert "all four cards" in describe_rule(ODD, 8)
    assert "Low cards: A..5; high cards: 6..K." in describe_card(ODD)
    assert "Notes" not in describe_card(ODD)


def test_rank_words() -> None:
    assert [rank_word(r) for r in (1, 7, 10, 11, 12, 13)] == [
        "ace", "7", "10", "jack", "queen", "king"]
    assert rank_word(1, plural=True) == "aces" and rank_word(10, plural=True) == "10s"


def test_the_explanations_shown_in_the_docs_are_the_real_ones() -> None:
    docs = (ROOT / "docs" / "CONVENTIONS.md").read_text()
    rows = re.findall(r"^\| (\d)\w\w card (\w\w)(?:, partner's (\d)\w\w was (\w\w))? \| (.*) \|$",
                      docs, re.MULTILINE)
    assert len(rows) >= 8
    for index, played, partner_index, partner_card, shown in rows:
        # S makes the play; partner N made the answered one. Other cards are fillers.
        used = {Card.parse(played)} | ({Card.parse(partner_card)} if partner_card else set())
        fillers = iter(c for c in map(Card, range(52)) if c not in used)
        mine = [next(fillers) for _ in range(int(index) - 1)] + [Card.parse(played)]
        partners = [next(fillers) for _ in range(int(index))]
        if partner_card:
            partners[int(partner_index) - 1] = Card.parse(partner_card)
        history = interleave({N: " ".join(map(str, partners)), S: " ".join(map(str, mine))})
        head = f"{ordinal(int(index))} card {played}"
        expected = f"{head} {shown}" if shown.startswith("(") else f"{head}: {shown}"
        assert explain_play(BEGINNER, history, S, int(index)).text == expected
