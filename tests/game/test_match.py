"""A match: dealer rotation, running scores, the target and the winner."""

from __future__ import annotations

import pytest
from jackal.game import (
    DEFAULT_TARGET,
    SEATS,
    Deal,
    DealResult,
    IllegalAction,
    MalformedInput,
    Match,
    Seat,
    Team,
    deal_hands,
    deal_seed,
    first_dealer,
)

# GOLDEN: first dealers of match seeds 0..7, and the first deal of match seed 7.
GOLDEN_FIRST_DEALERS = "WESESSNW"
GOLDEN_MATCH_7_NORTH = "2S 9S JS KS 4H 9H JH 5D 8D AC 3C 5C 8C"


def finish(match: Match, pick: int = 0) -> DealResult:
    """Start the next deal, play it out choosing legal card ``pick`` (mod size), score it."""
    deal = match.start_deal()
    while (seat := deal.turn) is not None:
        legal = deal.legal_plays()
        deal.play(legal[pick % len(legal)], seat)
    return match.finish_deal()


def test_golden_first_dealer_and_deal() -> None:
    assert "".join(str(first_dealer(seed)) for seed in range(8)) == GOLDEN_FIRST_DEALERS
    match = Match(7)
    deal = match.start_deal()
    assert deal.dealer is Seat.W
    assert " ".join(str(card) for card in deal.hand(Seat.N)) == GOLDEN_MATCH_7_NORTH
    assert deal.seed == deal_seed(7, 1)


def test_first_dealer_uses_every_seat() -> None:
    assert {first_dealer(seed) for seed in range(40)} == set(SEATS)


def test_dealer_passes_clockwise() -> None:
    match = Match(3, target=10_000)
    dealers = []
    for _ in range(6):
        dealers.append(match.next_dealer)
        finish(match)
    start = SEATS.index(dealers[0])
    assert dealers == [SEATS[(start + i) % 4] for i in range(6)]


def test_each_deal_has_its_own_shuffle() -> None:
    match = Match(3, target=10_000)
    finish(match)
    second = match.start_deal()
    assert [second.hand(seat) for seat in SEATS] == list(deal_hands(deal_seed(3, 2)))
    assert deal_hands(deal_seed(3, 1)) != deal_hands(deal_seed(3, 2))
    assert len({deal_seed(3, n) for n in range(1, 20)}) == 19


def test_running_scores_and_deal_numbers() -> None:
    match = Match(11, target=10_000)
    assert match.deal_number == 0 and match.deal is None
    totals = {Team.NS: 0, Team.EW: 0}
    for number in range(1, 5):
        deal = match.start_deal()
        assert match.deal is deal and match.deal_number == number
        while (seat := deal.turn) is not None:
            deal.play(deal.legal_plays()[number], seat)
        result = match.finish_deal()
        if result.winner is not None:
            totals[result.winner] += result.points
        assert match.scores == totals
        assert match.deal_number == number and match.deal is None
    assert len(match.results) == 4


def test_match_ends_on_reaching_target() -> None:
    match = Match(5, target=DEFAULT_TARGET)
    assert DEFAULT_TARGET == 300
    while not match.is_over:
        before = dict(match.scores)
        assert max(before.values()) < match.target
        finish(match, pick=2)
        assert len(match.results) < 100  # bounded: every decisive deal scores >= 21
    winner = match.winner
    assert winner is not None
    assert match.scores[winner] >= match.target
    assert match.scores[winner.other] < match.target
    # The deal that ended it was won by the match winner.
    assert match.results[-1].winner is winner
    with pytest.raises(IllegalAction) as info:
        match.start_deal()
    assert info.value.code == "no_deal"


def test_small_target_ends_after_first_decisive_deal() -> None:
    match = Match(5, target=1)
    while not match.is_over:
        result = finish(match)
    assert result.winner is match.winner
    assert all(r.winner is None for r in match.results[:-1])


def test_match_is_reproducible_from_its_seed() -> None:
    def transcript(seed: int) -> list[tuple[str, ...]]:
        match = Match(seed, target=200)
        out = []
        while not match.is_over:
            deal = match.start_deal()
            while (seat := deal.turn) is not None:
                legal = deal.legal_plays()
                deal.play(legal[len(deal.history) % len(legal)], seat)
            out.append((str(deal.dealer), *(str(c) for _, c in deal.history)))
            match.finish_deal()
        out.append((str(match.winner), str(match.scores)))
        return out

    assert transcript(99) == transcript(99)
    assert transcript(99) != transcript(100)


def test_misuse() -> None:
    with pytest.raises(MalformedInput):
        Match(1, target=0)
    match = Match(1)
    with pytest.raises(IllegalAction) as info:
        match.finish_deal()
    assert info.value.code == "no_deal"
    deal: Deal = match.start_deal()
    with pytest.raises(IllegalAction):
        match.start_deal()  # one deal at a time
    with pytest.raises(IllegalAction):
        match.finish_deal()  # not over yet
    assert match.deal is deal
