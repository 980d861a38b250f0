"""Cards and their notation, seats and partnerships."""

from __future__ import annotations

import pytest
from jackal.game import (
    DECK,
    SEATS,
    Card,
    IllegalAction,
    MalformedInput,
    Seat,
    Team,
    format_cards,
    parse_card,
    parse_hand,
    rank_name,
)


class TestParsing:
    @pytest.mark.parametrize(
        ("text", "canonical", "rank", "suit"),
        [
            ("7H", "7H", 7, "H"),
            ("th", "TH", 10, "H"),
            ("10s", "TS", 10, "S"),
            ("10S", "TS", 10, "S"),
            ("Q♠", "QS", 12, "S"),
            ("a♥", "AH", 1, "H"),
            ("K♦", "KD", 13, "D"),
            ("2♣", "2C", 2, "C"),
            ("jc", "JC", 11, "C"),
            ("  9d ", "9D", 9, "D"),
            ("AS", "AS", 1, "S"),
        ],
    )
    def test_accepted_spellings(self, text: str, canonical: str, rank: int, suit: str) -> None:
        card = parse_card(text)
        assert str(card) == canonical
        assert card.rank == rank
        assert card.suit == suit
        assert Card.parse(text) == card

    @pytest.mark.parametrize("text", ["", "7", "H", "1H", "11S", "7X", "ZZ", "7HH", "0S", "T"])
    def test_malformed_card_quotes_the_text(self, text: str) -> None:
        with pytest.raises(MalformedInput) as info:
            parse_card(text)
        assert repr(text) in str(info.value)
        assert not isinstance(info.value, IllegalAction)

    def test_malformed_is_a_value_error(self) -> None:
        with pytest.raises(ValueError, match="'XX' is not a card"):
            parse_card("XX")

    def test_every_card_round_trips(self) -> None:
        assert len(DECK) == 52
        assert len({str(card) for card in DECK}) == 52
        for card in DECK:
            assert parse_card(str(card)) is card
            assert parse_card(str(card).lower()) is card
            assert eval(repr(card), {"Card": Card}) == card

    def test_value_is_rank(self) -> None:
        assert [parse_card(f"{r}S").value for r in "A23456789TJQK"] == list(range(1, 14))

    def test_of(self) -> None:
        assert Card.of(10, "D") == parse_card("TD")
        assert Card.of(1, "C") == parse_card("AC")
        for rank, suit in [(0, "S"), (14, "S"), (5, "X"), (5, "SH")]:
            with pytest.raises(MalformedInput):
                Card.of(rank, suit)

    def test_rank_names(self) -> None:
        assert "".join(rank_name(rank) for rank in range(1, 14)) == "A23456789TJQK"


class TestHands:
    def test_space_separated(self) -> None:
        assert format_cards(parse_hand("AS AH  ad 7C")) == "AS AH AD 7C"

    def test_comma_separated(self) -> None:
        assert format_cards(parse_hand("AS,AH, 10d ,7♣")) == "AS AH TD 7C"

    def test_keeps_order_and_duplicates(self) -> None:
        # Duplicates are the caller's business (jackal score rejects them itself).
        assert parse_hand("KC 2D KC") == [parse_card("KC"), parse_card("2D"), parse_card("KC")]

    def test_empty(self) -> None:
        assert parse_hand("  ") == []

    def test_bad_card_in_hand_is_quoted(self) -> None:
        with pytest.raises(MalformedInput, match="'7Q'"):
            parse_hand("AS 7Q KD")


class TestSeats:
    def test_clockwise_order(self) -> None:
        assert [str(seat) for seat in SEATS] == ["N", "E", "S", "W"]
        assert [seat.next for seat in SEATS] == [Seat.E, Seat.S, Seat.W, Seat.N]
        assert [seat.ordinal for seat in SEATS] == [0, 1, 2, 3]
        assert Seat.S.clockwise_from() == (Seat.S, Seat.W, Seat.N, Seat.E)
        for seat in SEATS:  # each seat, then each next one
            order = seat.clockwise_from()
            assert order[0] is seat and [s.next for s in order] == [*order[1:], seat]

    def test_partnerships(self) -> None:
        assert Seat.N.partner is Seat.S and Seat.E.partner is Seat.W
        assert Seat.N.team is Team.NS and Seat.S.team is Team.NS
        assert Seat.E.team is Team.EW and Seat.W.team is Team.EW
        assert Team.NS.seats == (Seat.N, Seat.S) and Team.EW.seats == (Seat.E, Seat.W)
        assert Team.NS.other is Team.EW and Team.EW.other is Team.NS

    def test_neighbours_are_opponents(self) -> None:
        for seat in SEATS:
            assert seat.next.team is not seat.team

    def test_parse(self) -> None:
        assert Seat.parse(" w ") is Seat.W
        with pytest.raises(MalformedInput, match="'X'"):
            Seat.parse("X")
