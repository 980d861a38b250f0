"""Building strategy views from readable rows, shared by the bot tests."""

from __future__ import annotations

from jackal.bots import View
from jackal.bots.cards import BEGINNER
from jackal.game.cards import Card, parse_hand
from jackal.game.seats import SEATS, Seat, Team


def view_for(hand: str, rows: dict[Seat, str], seat: Seat = Seat.N,
             dealer: Seat = Seat.W) -> View:
    """A view for ``seat`` to move, the rows interleaved in turn order from dealer.next.

    Both partnerships use the beginner card; every card given must be distinct.
    """
    order = [SEATS[(dealer.ordinal + 1 + i) % 4] for i in range(4)]
    parsed = {who: parse_hand(rows.get(who, "")) for who in SEATS}
    history: list[tuple[Seat, Card]] = []
    for turn in range(8):
        for who in order:
            if turn < len(parsed[who]):
                history.append((who, parsed[who][turn]))
    all_cards = [card for _, card in history] + parse_hand(hand)
    assert len(set(all_cards)) == len(all_cards), "constructed cards must be distinct"
    return View(seat=seat, hand=tuple(parse_hand(hand)), history=tuple(history), dealer=dealer,
                conventions={Team.NS: BEGINNER, Team.EW: BEGINNER})
