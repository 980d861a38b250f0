"""Scoring, checked against examples worked out by hand."""

from __future__ import annotations

import pytest
from jackal.game import (
    MAX_PENALTY,
    Seat,
    Team,
    compare_teams,
    parse_hand,
    score_deal,
    score_team,
    team_penalty,
    victory_points,
)
from jackal.game.scoring import group_penalty, rank_counts_penalty, score_hands


def penalty(text: str) -> int:
    """Penalty of a hand written as text, checked to agree between both scorers."""
    cards = parse_hand(text)
    full = score_team(cards).penalty
    assert team_penalty(cards) == full
    return full


class TestGroups:
    def test_pair_costs_25_for_the_pair(self) -> None:
        # 7 pair 25; 9 pair 25; three trips 0; total 50 (not 100: the pair is not per card).
        assert penalty("7S 7H 9D 9C AS AH AD KS KH KD") == 50

    def test_pair_of_kings_costs_the_same_as_pair_of_aces(self) -> None:
        assert group_penalty(13, 2) == group_penalty(1, 2) == 25

    def test_trips_and_quads_cost_nothing(self) -> None:
        assert penalty("AS AH AD 5S 5H 5D 5C KS KH KD") == 0  # trips, quads, trips
        assert penalty("2S 2H 2D 2C 3S 3H 3D 3C 4S 4H") == 25  # two quads and a pair

    def test_single_costs_20_plus_value(self) -> None:
        # Ace single: 21. King single: 33. Ten single (written "10"): 30.
        # Two quads cost 0, so the ace (21) and the seven (27) are the whole penalty.
        assert penalty("AS 5S 5H 5D 5C 6S 6H 6D 6C 7S") == 21 + 27
        assert group_penalty(1, 1) == 21
        assert group_penalty(10, 1) == 30
        assert group_penalty(11, 1) == 31
        assert group_penalty(12, 1) == 32
        assert group_penalty(13, 1) == 33
        # Two quads + AS + KS: 21 + 33.
        assert penalty("AS KS 5S 5H 5D 5C 6S 6H 6D 6C") == 54
        # Two quads + 10 of clubs + jack: 30 + 31.
        assert penalty("10C JD 5S 5H 5D 5C 6S 6H 6D 6C") == 61

    def test_mixed_hand(self) -> None:
        # Q trips 0, 7 pair 25, singles 2 6 8 9 J = 22+26+28+29+31 = 136; total 161.
        assert penalty("6S 9H QH 7D QC JS 8D QD 2C 7C") == 161

    def test_worst_hand_is_ten_singles_four_to_king(self) -> None:
        assert MAX_PENALTY == 285
        assert penalty("4S 5S 6S 7S 8S 9S TS JS QS KS") == 285
        # Any other ten singles cost less: A..T singles = 200 + 55.
        assert penalty("AS 2S 3S 4S 5S 6S 7S 8S 9S TS") == 255

    def test_breakdown(self) -> None:
        score = score_team(parse_hand("KD 7C AS 7D AH KH AD 9S KC 2H"))
        assert score.penalty == 25 + 20 + 9 + 20 + 2
        rows = [(g.rank, " ".join(str(c) for c in g.cards), g.count, g.points)
                for g in score.groups]
        assert rows == [
            (1, "AS AH AD", 3, 0),
            (2, "2H", 1, 22),
            (7, "7D 7C", 2, 25),
            (9, "9S", 1, 29),
            (13, "KH KD KC", 3, 0),
        ]

    def test_rank_counts_penalty(self) -> None:
        counts = [0] * 14
        counts[1], counts[4], counts[13] = 2, 1, 3
        assert rank_counts_penalty(counts) == 25 + 24 + 0


class TestDealOutcome:
    def test_lower_penalty_wins_20_plus_difference(self) -> None:
        # The README example: 50 against 270 -> A wins 20 + 220 = 240.
        result = score_hands(parse_hand("AS AH AD 7C 7D 9H 9S KC KD KH"),
                             parse_hand("2C 3C 4C 5C 6C 8C 9C TC JC QC"))
        assert (result.scores[0].penalty, result.scores[1].penalty) == (50, 270)
        assert result.winner is Team.NS
        assert result.points == 240
        assert result.penalty(Team.EW) == 270

    def test_ew_can_win(self) -> None:
        assert compare_teams(161, 154) == (Team.EW, 27)

    def test_zero_penalty_bonus(self) -> None:
        # Winner at 0 against 50: 20 + 50 + 30 = 100.
        assert victory_points(0, 50) == 100
        result = score_hands(parse_hand("AS AH AD 5S 5H 5D 5C KS KH KD"),
                             parse_hand("7S 7H 9D 9C 2S 2H 2D QS QH QD"))
        assert result.winner is Team.NS and result.points == 100

    def test_no_bonus_above_zero(self) -> None:
        assert victory_points(1, 50) == 69  # 20 + 49

    def test_tie_scores_nothing(self) -> None:
        assert compare_teams(75, 75) == (None, 0)
        assert compare_teams(0, 0) == (None, 0)
        result = score_hands(parse_hand("AS AH 7S 7H 9S 9H 2S 2H 2D 2C"),
                             parse_hand("AD AC 7D 7C 9D 9C 3S 3H 3D 3C"))
        assert result.winner is None and result.points == 0
        assert result.scores[0].penalty == result.scores[1].penalty == 75

    def test_score_deal_joins_partners(self) -> None:
        kept = {
            Seat.N: parse_hand("AS AH AD 7C 7D"), Seat.S: parse_hand("9H 9S KC KD KH"),
            Seat.E: parse_hand("2C 3C 4C 5C 6C"), Seat.W: parse_hand("8C 9C TC JC QC"),
        }
        result = score_deal(kept)
        assert result.winner is Team.NS and result.points == 240

    @pytest.mark.parametrize(("ns", "ew"), [(0, 285), (25, 26), (100, 99)])
    def test_compare_is_symmetric(self, ns: int, ew: int) -> None:
        winner, points = compare_teams(ns, ew)
        other, same = compare_teams(ew, ns)
        assert points == same and winner is not None and other is winner.other
