"""TableMirror: the client's copy of a table, checked against the real game engine.

A seeded deal is played with the engine; the messages a seat would receive are built
from it and fed to the mirror, whose rows, hand, turn and rebuilt history must match the
engine's at every step.
"""

from __future__ import annotations

import random

import pytest
from jackal.client.mirror import TableMirror
from jackal.game.deal import Deal
from jackal.game.seats import SEATS, Seat, Team
from jackal.protocol.messages import (
    ChatLine,
    ChatMessage,
    DealEnded,
    DealStarted,
    DealSummary,
    MatchEnded,
    OpenQuestion,
    PauseState,
    Played,
    PlayerGone,
    PlayerJoined,
    SeatInfo,
    TableState,
    Turn,
)
from msgspec.structs import replace


def _state(deal: Deal | None, you: Seat | None, number: int = 1) -> TableState:
    seats = [SeatInfo(seat=s, name=f"p{s}", kind="human", connected=True, ready=True)
             for s in SEATS]
    rows = {s: list(deal.row(s) if deal else ()) for s in SEATS}
    hand = None
    if deal is not None and you is not None:
        hand = list(deal.hand(you))
    return TableState(
        table="t1", name="test", target=100, status="playing" if deal else "waiting",
        seats=seats, conventions={}, scores={Team.NS: 10, Team.EW: 20},
        deal=number if deal else 0, dealer=deal.dealer if deal else None,
        first=deal.first if deal else None,
        turn=deal.turn if deal else None, rows=rows, you=you, hand=hand)


def test_mirror_follows_a_whole_deal_from_events() -> None:
    rng = random.Random(7)
    for seed in range(5):
        deal = Deal.from_seed(seed, SEATS[seed % 4])
        you = SEATS[(seed + 1) % 4]
        mirror = TableMirror()
        mirror.apply(_state(None, you))
        assert mirror.you is you and mirror.status == "waiting" and mirror.history() == ()
        first = deal.turn
        assert first is not None
        mirror.apply(DealStarted(deal=1, dealer=deal.dealer, first=first,
                                 hand=list(deal.hand(you))))
        mirror.apply(Turn(seat=first))
        while not deal.is_over:
            seat = deal.turn
            assert seat is not None
            assert mirror.turn is seat and mirror.my_turn == (seat is you)
            assert mirror.history() == tuple(deal.history)
            assert sorted(mirror.hand) == sorted(deal.hand(you))
            if seat is you:
                view = mirror.view()
                assert view.seat is you and view.history == tuple(deal.history)
                assert view.play_number == len(deal.row(you)) + 1
            card = rng.choice(list(deal.hand(seat)))
            index = deal.play(card, seat)
            assert mirror.apply(Played(seat=seat, card=(card), index=index))
            # A duplicate of the same play (e.g. our own reply plus a snapshot) is ignored.
            assert not mirror.apply(Played(seat=seat, card=(card), index=index))
            if deal.turn is not None:
                mirror.apply(Turn(seat=deal.turn))
        assert mirror.plays_made == 32 and mirror.turn is None
        assert {s: tuple(mirror.rows[s]) for s in SEATS} == {s: deal.row(s) for s in SEATS}
        assert sorted(mirror.hand) == sorted(deal.hand(you)) and len(mirror.hand) == 5


def test_snapshot_mid_deal_rebuilds_history() -> None:
    deal = Deal.from_seed(42, Seat.W)
    rng = random.Random(1)
    for _ in range(13):  # stop mid-round so rows have different lengths
        seat = deal.turn
        assert seat is not None
        deal.play(rng.choice(list(deal.hand(seat))), seat)
    mirror = TableMirror()
    mirror.apply(_state(deal, Seat.E, number=3))
    assert mirror.history() == tuple(deal.history)
    assert mirror.first is Seat.N and mirror.turn is deal.turn
    assert mirror.hand == list(deal.hand(Seat.E)) and mirror.deal == 3
    assert mirror.scores == {Team.NS: 10, Team.EW: 20}


def test_seat_events_deal_end_and_match_end() -> None:
    mirror = TableMirror()
    mirror.apply(_state(None, Seat.S))
    mirror.apply(PlayerGone(seat=Seat.N, seconds=120.0))
    assert not mirror.seats[Seat.N].connected and mirror.seats[Seat.N].hold_seconds == 120.0
    mirror.apply(PlayerJoined(seat=Seat.N, name="robo", kind="bot"))
    assert mirror.seats[Seat.N].name == "robo" and mirror.seats[Seat.N].kind == "bot"
    ended = DealEnded(deal=1, hands={}, penalty={Team.NS: 50, Team.EW: 80}, winner=Team.NS,
                      points=50, victory_points=50, scores={Team.NS: 50, Team.EW: 0},
                      breakdown={})
    assert mirror.seats[Seat.S].ready and mirror.seats[Seat.N].ready
    mirror.apply(ended)
    assert mirror.status == "between_deals" and mirror.last_deal is ended
    # Humans must say ready again for the next deal; bots stay ready.
    assert not mirror.seats[Seat.S].ready and mirror.seats[Seat.N].ready
    assert mirror.scores == {Team.NS: 50, Team.EW: 0}
    mirror.apply(MatchEnded(winner=Team.NS, scores={Team.NS: 120, Team.EW: 0}))
    # str(): mypy would still narrow the status to the value asserted before apply().
    assert mirror.winner is Team.NS and str(mirror.status) == "over"
    assert mirror.scores[Team.NS] == 120


def test_view_needs_a_seat_and_a_deal() -> None:
    mirror = TableMirror()
    mirror.apply(_state(None, None))
    with pytest.raises(ValueError):
        mirror.view()  # a spectator has no seat to decide for


def test_the_match_so_far_is_kept_through_a_snapshot_of_the_same_match() -> None:
    """From a server whose snapshot has no ``history``, a reclaim's table_state keeps the
    deals scored so far; another table's starts a new history."""
    mirror = TableMirror()
    mirror.apply(_state(None, Seat.S))
    for number, dealer in ((1, Seat.N), (2, Seat.E)):
        mirror.apply(DealStarted(deal=number, dealer=dealer, first=dealer.next, hand=[]))
        mirror.apply(DealEnded(deal=number, hands={}, penalty={Team.NS: 10, Team.EW: 20},
                               winner=Team.NS, points=10, victory_points=10,
                               scores={Team.NS: 10 * number, Team.EW: 0}, breakdown={}))
    deal2 = DealSummary(deal=2, dealer=Seat.E, penalty={Team.NS: 10, Team.EW: 20},
                       winner=Team.NS, victory_points=10, scores={Team.NS: 20, Team.EW: 0})
    assert [d.deal for d in mirror.deals] == [1, 2] and mirror.deals[1] == deal2
    mirror.apply(DealEnded(deal=2, hands={}, penalty={Team.NS: 10, Team.EW: 20},
                           winner=Team.NS, points=10, victory_points=10,
                           scores={Team.NS: 20, Team.EW: 0}, breakdown={}))
    assert [d.deal for d in mirror.deals] == [1, 2]  # a deal is scored once
    deal = Deal.from_seed(1, Seat.S)
    mirror.apply(_state(deal, Seat.S, number=3))  # the same table, deal 3 under way
    assert [d.deal for d in mirror.deals] == [1, 2]
    other = _state(deal, Seat.S, number=3)
    other.table = "t2"
    mirror.apply(other)
    assert mirror.deals == []


def test_a_snapshot_with_the_match_so_far_is_the_mirrors_match_so_far() -> None:
    """A restarted client's first table_state: the deals, the last summary, the open
    questions and the countdown come from it alone."""
    mirror = TableMirror()
    history = [DealSummary(deal=1, dealer=Seat.W, penalty={Team.NS: 30, Team.EW: 10},
                          winner=Team.EW, victory_points=20, scores={Team.NS: 0, Team.EW: 20})]
    ended = DealEnded(deal=1, hands={}, penalty={Team.NS: 30, Team.EW: 10}, winner=Team.EW,
                      points=20, victory_points=20, scores={Team.NS: 0, Team.EW: 20},
                      breakdown={})
    asked = OpenQuestion(question="q4", seat=Seat.S, asker=Seat.E, text="why the 7?")
    state = _state(None, Seat.S)
    state.status, state.deal, state.dealer = "between_deals", 1, Seat.W
    state.history, state.last_deal, state.next_deal_in = history, ended, 12.5
    state.questions = [asked]
    mirror.apply(state)
    assert mirror.deals == history and mirror.last_deal == ended
    assert mirror.questions == [asked] and mirror.next_deal_in == 12.5
    mirror.apply(DealStarted(deal=2, dealer=Seat.N, first=Seat.E, hand=[]))
    assert mirror.last_deal is None and mirror.next_deal_in is None and mirror.deals == history


def test_chat_lines_and_the_pause_follow_events_and_snapshots() -> None:
    """A snapshot after a reconnect repeats lines the mirror has: only the new ones are
    reported (so a screen logs each line once); the pause follows pause_state."""
    mirror = TableMirror()
    said = [ChatLine(channel="table", name="pN", text=f"line {n}", seat=Seat.N)
            for n in range(4)]
    first = replace(_state(None, Seat.S), chat=said[:2])
    assert mirror.apply(first).chat == tuple(said[:2])
    change = mirror.apply(ChatMessage(channel="table", name="pN", text="line 2",
                                      seat=Seat.N))
    assert change.chat == (said[2],)
    again = replace(_state(None, Seat.S), chat=said)
    assert mirror.apply(again).chat == (said[3],)
    assert list(mirror.chat.lines) == said
    assert not mirror.apply(ChatMessage(channel="lobby", name="x", text="hi"))
    mirror.apply(PauseState(seat=Seat.N, paused=False, asked_by=Seat.N, agreed=[Seat.N]))
    assert mirror.pause is not None and not mirror.paused
    mirror.apply(PauseState(seat=Seat.S, paused=True, asked_by=Seat.N,
                            agreed=[Seat.N, Seat.S]))
    assert mirror.paused
    mirror.apply(PauseState(seat=Seat.S, paused=False))
    assert mirror.pause is None
    other = replace(_state(None, Seat.S), table="t2")
    assert mirror.apply(other).chat == () and not mirror.chat.lines
