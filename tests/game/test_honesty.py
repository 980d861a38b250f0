"""Honest and false signals, declared tolerances, and bots that keep to their card."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from jackal.arena.run import ArenaConfig, collect, summarise
from jackal.bots import STRATEGIES
from jackal.game import Card, Seat, parse_hand
from jackal.game.conventions import (
    BUILTIN_CARDS,
    Answer,
    CardError,
    ConventionCard,
    Promise,
    Tolerance,
    Tolerances,
    builtin_card,
    card_from_json,
    card_from_toml,
    card_to_json,
    card_to_toml,
)
from jackal.game.explain import AnswerMeaning, PromiseMeaning, describe_card, explain_play
from jackal.game.honesty import audit, verdict
from jackal.game.seats import Team

BEGINNER = builtin_card("beginner")
N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W


def cards(text: str) -> set[Card]:
    return set(parse_hand(text))


def plays(*made: tuple[Seat, str | Card]) -> list[tuple[Seat, Card]]:
    return [(seat, card if isinstance(card, Card) else parse_hand(card)[0])
            for seat, card in made]


def with_tolerance(card: ConventionCard, promise: int = 0, answer: int = 0,
                   when: str = "the honest card costs too much") -> ConventionCard:
    return ConventionCard(name=card.name, plays=card.plays, description=card.description,
                          notes=card.notes, low_max=card.low_max,
                          tolerance=Tolerances(promise=Tolerance(promise, when),
                                               answer=Tolerance(answer, when)))


# ----------------------------------------------------------------------------- verdicts


def test_with_a_pair_to_show_only_true_promises_are_honest() -> None:
    # Play 1 (offset -1): 7S 7H with an 8 to show them; 5S 5H with a 6.
    hand = parse_hand("7S 7H 8D 5S 5H 6C 2C 3D 9C JC QD KS TH")
    found = verdict(BEGINNER, hand, [], N)
    assert found.kind == "promise"
    assert found.honest == cards("8D 6C")
    # KS ("a pair of queens, or no pair") is false: N has a new pair to show.
    ks = parse_hand("KS")[0]
    assert found.is_false(ks) and found.avoidable(ks)
    assert set(found.allowed) == cards("8D 6C")


def test_with_nothing_new_to_show_every_no_pair_card_is_honest() -> None:
    # No pairs: high cards truly say "no pair", and so does the ace (it names no rank);
    # the other low cards are firm promises of pairs N does not hold.
    hand = parse_hand("AS 2H 3D 4C 5S 6H 7D 8C 9S TH JD QC KS")
    found = verdict(BEGINNER, hand, [], N)
    assert found.honest == cards("AS 8C 9S TH JD QC KS")
    assert found.avoidable(parse_hand("4C")[0])


def test_a_pair_already_shown_need_not_be_shown_again() -> None:
    # N showed its 7s with 8D as play 1; at play 3 (offset -1 again) 7S 7H and 8H are
    # still there, but 7s are old news, so "no pair" (a high card) is honest too.
    hand = parse_hand("7S 7H 8H 2C 3D 9C JC QD KS TH 4D")
    made = plays((N, "8D"), (E, "2S"), (S, "3S"), (W, "4S"),
                 (N, "AH"), (E, "5C"), (S, "6C"), (W, "6D"))
    found = verdict(BEGINNER, hand, made, N)
    assert found.kind == "promise"
    assert cards("8H 9C JC QD KS TH") <= found.honest
    assert not found.honest & cards("2C 3D 4D")  # low: firm promises of 2s... that N lacks


def test_answers_low_when_holding_high_when_not() -> None:
    # Play 4 answers partner S's play 1, 8H: a promise of 7s.
    made = plays((N, "KS"), (E, "2S"), (S, "8H"), (W, "3S"),
                 (N, "QS"), (E, "4S"), (S, "9H"), (W, "5S"),
                 (N, "JS"), (E, "6S"), (S, "TH"), (W, "7S"))
    holding = parse_hand("7D 2C 3C 9D TD")
    found = verdict(BEGINNER, holding, made, N)
    assert found.kind == "answer"
    assert found.honest == cards("2C 3C")  # not 7D: the last 7 would make the answer false
    lacking = parse_hand("2C 3C 9D TD 4D")
    assert verdict(BEGINNER, lacking, made, N).honest == cards("9D TD")
    # Only the last 7 and high cards: nothing honest, so any card is allowed.
    stuck = parse_hand("7D 9D TD")
    found = verdict(BEGINNER, stuck, made, N)
    assert found.honest == set() and set(found.allowed) == set(stuck)
    assert not found.avoidable(parse_hand("9D")[0])


def test_free_discards_are_always_honest() -> None:
    made = plays(*[(seat, card) for seat, card in zip(
        [N, E, S, W] * 6, parse_hand("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H 4H 5H "
                                     "6H 7H 8H 9H TH JH QH"), strict=True)])
    found = verdict(BEGINNER, parse_hand("AC 2C 3C 4C 5C 6C 7C"), made, N)
    assert found.kind == "none" and found.honest == cards("AC 2C 3C 4C 5C 6C 7C")


# ----------------------------------------------------------------------------- tolerance


def test_tolerance_round_trips_and_is_validated() -> None:
    card = with_tolerance(builtin_card("advanced"), promise=20, answer=0)
    assert card_from_toml(card_to_toml(card)) == card
    assert card_from_json(card_to_json(card)) == card
    assert "[tolerance]" in card_to_toml(card)
    assert "[tolerance]" not in card_to_toml(BEGINNER)  # none declared: nothing written
    with pytest.raises(CardError) as bad:
        with_tolerance(BEGINNER, promise=1)  # every play: the statement would mean nothing
    assert bad.value.field == "tolerance.promise.one_in"
    with pytest.raises(CardError) as bad:
        with_tolerance(BEGINNER, answer=-3)
    assert bad.value.field == "tolerance.answer.one_in"
    with pytest.raises(CardError) as bad:
        card_from_json(card_to_json(BEGINNER)[:-1] + ', "tolerance": {"promise": {"one_in": 0.5}}}')
    assert bad.value.field.startswith("tolerance.promise.one_in")
    with pytest.raises(CardError) as bad:
        with_tolerance(BEGINNER, promise=10, when="two\nlines")
    assert bad.value.field == "tolerance.promise.when"
    text = card_to_toml(BEGINNER) + '\n[tolerance]\npromise = { one_in = 10, often = 1 }\n'
    with pytest.raises(CardError, match=r"tolerance\.promise\.often"):
        card_from_toml(text)


def test_explanations_and_the_card_in_words_state_the_tolerance() -> None:
    card = with_tolerance(BEGINNER, promise=20)
    made = plays((N, "8H"), (E, "2S"), (S, "3C"), (W, "4S"))
    meaning = explain_play(card, made, N, 1)
    assert meaning.text == ("1st card 8H: promises a pair of 7s, or no pair (an unneeded "
                            "high card); may deviate when the honest card costs too much "
                            "(about 1 in 20)")
    assert isinstance(meaning.data, PromiseMeaning) and meaning.data.deviates_one_in == 20
    # Answers declare no tolerance here: their explanation says nothing more.
    made += plays((N, "9C"), (E, "5S"), (S, "6S"), (W, "7S"),
                  (N, "TC"), (E, "8S"), (S, "9S"), (W, "TS"),
                  (N, "JC"), (E, "JS"), (S, "2C"), (W, "QS"))
    answer = explain_play(card, made, S, 4)
    assert "deviate" not in answer.text and isinstance(answer.data, AnswerMeaning)
    assert answer.data.deviates_one_in == 0
    words = " ".join(describe_card(card).split())  # unwrapped
    assert "- Promises: may deviate when the honest card costs too much (about 1 in 20); " \
           "never more than 1 in 20 of them." in words
    assert "- Answers: kept honest; a false one only when no honest card is in hand." in words


@pytest.mark.subprocess
def test_conventions_show_prints_the_tolerance() -> None:
    done = subprocess.run([sys.executable, "-m", "jackal.cli.main", "conventions", "show",
                           "advanced"], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert "False signals:" in done.stdout
    card = builtin_card("advanced")
    for kind, word in (("promise", "Promises"), ("answer", "Answers")):
        allowed = getattr(card.tolerance, kind)
        line = next(line for line in done.stdout.splitlines() if line.startswith(f"- {word}"))
        assert (allowed.words() in line) if allowed.one_in else ("kept honest" in line)


# ----------------------------------------------------------------------------- the bots

def most_allowed(plays: int, rate: float) -> int:
    """The most deviations consistent with a declared ``rate`` over ``plays`` plays: the
    99.9th percentile of Binomial(plays, rate). 0 for no tolerance, so that is exact."""
    if rate <= 0:
        return 0
    total = 0.0
    for k in range(plays + 1):
        total += math.comb(plays, k) * rate**k * (1 - rate) ** (plays - k)
        if total >= 0.999:
            return k
    return plays


#: Deals per strategy and card: the expert thinks for real, so fewer of its deals (the
#: arena reports the same count over thousands: see docs/BOTS.md).
DEALS = {"expert": 2}


@pytest.mark.slow
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_no_strategy_deviates_more_than_its_card_allows(strategy: str) -> None:
    """Count avoidable false signals, per kind, for every strategy under every built-in."""
    for name, card in BUILTIN_CARDS.items():
        if not any(isinstance(rule, Promise | Answer) for rule in card.plays):
            continue  # a card with no statements ("none"): nothing can be false
        config = ArenaConfig(ns=strategy, ew=strategy, deals=DEALS.get(strategy, 25),
                             seed=31, ns_conventions=name, ew_conventions=name)
        outcomes = collect(config)
        for side in summarise(config, outcomes):
            for kind in ("promise", "answer"):
                made, false = side.signals.plays[kind], side.signals.avoidable[kind]
                rate = getattr(card.tolerance, kind).rate
                # No tolerance: none at all. A tolerance: no more than the declared share
                # allows (over a few deals, as far as chance can tell; the arena's
                # 2,000-deal counts are in docs/CONVENTIONS.md).
                assert false <= most_allowed(made, rate), (strategy, name, kind, false, made)
        # The arena's count is the audit's: re-audit the records' hands and plays.
        record = outcomes[0].record
        tallies = audit(record.hands, record.plays, {Team.NS: card, Team.EW: card})
        assert record.false_signals == {team: tally.avoidable
                                           for team, tally in tallies.items()}
