"""The table's side of a LAN evening, without sockets: the per-play clock, who played a
card (records and ``played``), who plays a seat, and explanations under the card in
force when a card was played (server and client)."""

from __future__ import annotations

from jackal.client.mirror import TableMirror
from jackal.client.tui.meaning import explain_card
from jackal.game.explain import explain_play
from jackal.game.seats import SEATS, Seat
from jackal.protocol.messages import Played, TableState, Turn
from jackal.server import views
from jackal.server.snapshot import bot_turn, bot_view, shown_deal, table_snapshot
from jackal.server.table import DEAL_GRACE_SECONDS, Table
from support.peer import Peer
from support.tables import deliver_all, table_of_peers


def _turn_seat(table: Table) -> Seat:
    deal = table.match.deal
    assert deal is not None and deal.turn is not None
    return deal.turn


def _play_lowest(table: Table, peers: dict[Seat, Peer], now: float) -> None:
    seat = _turn_seat(table)
    deal = table.match.deal
    assert deal is not None
    deliver_all(table.play(peers[seat], min(deal.hand(seat)), now))


def test_a_turn_carries_its_clock_and_time_up_hands_one_card_to_the_substitute() -> None:
    table, peers, records = table_of_peers(turn_seconds=30.0)
    first = _turn_seat(table)
    turns = [m for m in peers[first].got if isinstance(m, Turn)]
    # A deal's first turn has a grace on top, while the new deal reaches the screens.
    limit = 30.0 + DEAL_GRACE_SECONDS
    assert turns[-1].seconds == limit and table.next_deadline() == limit
    state = views.table_state(table_snapshot(table), first)
    assert (state.turn_seconds, state.turn_left) == (30.0, limit)
    # Nothing happens before the deadline...
    deliver_all(table.tick(limit - 1))
    assert bot_turn(table) is None
    # ...and at it, the substitute must play this one card for the seat.
    deliver_all(table.tick(limit))
    assert bot_turn(table) is first
    view = bot_view(table, first)
    deliver_all(table.bot_play(first, min(view.hand), limit + 1))
    played = [m for m in peers[first.partner].got if isinstance(m, Played)][-1]
    assert (played.seat, played.by) == (first, "clock")
    assert records[-1].by == "clock"
    # The seat is still the player's; the next seat has a fresh clock of its own.
    slot = table.seats[first]
    assert slot.kind == "human" and not slot.takeover and slot.peer is peers[first]
    assert bot_turn(table) is None and table.next_deadline() == limit + 31
    # A play in time stops the clock and is the player's own.
    _play_lowest(table, peers, limit + 10)
    assert records[-1].by == "player"
    assert table.next_deadline() == limit + 40


def test_no_clock_unless_the_table_has_one() -> None:
    table, peers, _ = table_of_peers()
    first = _turn_seat(table)
    assert [m for m in peers[first].got if isinstance(m, Turn)][-1].seconds is None
    assert table.next_deadline() is None
    deliver_all(table.tick(10_000.0))
    assert bot_turn(table) is None


def test_the_substitute_of_a_player_who_is_away_is_shown_and_gives_the_seat_back() -> None:
    table, peers, records = table_of_peers(hold_seconds=5.0, takeover_strategy="expert",
                                   turn_seconds=30.0)
    away = _turn_seat(table)
    deliver_all(table.disconnect(peers[away], now=1.0))
    deliver_all(table.tick(6.0))
    assert bot_turn(table) is away
    # A substitute has no clock; everyone sees who plays the seat once its turn ends
    # (a seat's presence is told at its turn boundaries, times it does not choose).
    assert table.clock.deadline is None
    deliver_all(table.bot_play(away, min(bot_view(table, away).hand), 7.0))
    info = {i.seat: i for i in views.table_state(table_snapshot(table), None).seats}
    assert info[away].substitute == "expert" and info[away].kind == "human"
    assert records[-1].by == "substitute"
    assert [m for m in peers[away.partner].got if isinstance(m, Played)][-1].by == \
        "substitute"
    # The player comes back: the seat is theirs again, nobody substitutes; the others
    # are told when its turn comes.
    deliver_all(table.reclaim(peers[away], away, now=8.0))
    assert views.table_state(table_snapshot(table), away).seats[
        SEATS.index(away)].substitute is None
    while _turn_seat(table) is not away:
        _play_lowest(table, peers, 9.0)
    info = {i.seat: i for i in views.table_state(table_snapshot(table), None).seats}
    assert info[away].substitute is None and info[away].connected


def test_a_return_from_the_substitute_restarts_only_the_returners_own_clock() -> None:
    table, peers, _ = table_of_peers(hold_seconds=5.0, takeover_strategy="expert",
                                     turn_seconds=30.0)
    first = _turn_seat(table)
    _play_lowest(table, peers, 1.0)  # the next seat's clock runs from 1.0
    on_turn = _turn_seat(table)
    away = on_turn.next  # waits for its turn while a substitute plays it
    deliver_all(table.disconnect(peers[away], now=2.0))
    deliver_all(table.tick(7.0))
    assert table.seats[away].takeover and table.next_deadline() == 31.0
    # Back while another seat is to play: that seat's clock runs on as it was (a
    # return is no reason to give anyone else time).
    deliver_all(table.reclaim(peers[away], away, now=20.0))
    assert not table.seats[away].takeover
    assert table.next_deadline() == 31.0
    # Back on its own turn from the substitute: a full clock of its own.
    assert first is not away
    deliver_all(table.disconnect(peers[away], now=21.0))
    deliver_all(table.tick(27.0))
    _play_lowest(table, peers, 28.0)
    assert _turn_seat(table) is away and bot_turn(table) is away
    deliver_all(table.reclaim(peers[away], away, now=29.0))
    assert table.next_deadline() == 29.0 + 30.0


def test_cards_are_explained_under_the_card_they_were_played_under() -> None:
    table, peers, _ = table_of_peers()
    mirror = TableMirror()
    watcher = Peer("watcher")
    deliver_all(table.spectate(watcher))
    # Play a whole deal (32 cards), then NS declare another card for the next deal.
    for number in range(32):
        _play_lowest(table, peers, float(number))
    assert table.status == "between_deals"
    n_first = table.disclosure.explain(shown_deal(table), table.deal_conventions, Seat.N, 1)
    deliver_all(table.set_conventions(peers[Seat.N], "none"))
    assert table.conventions[Seat.N.team].name == "none"
    again = table.disclosure.explain(shown_deal(table), table.deal_conventions, Seat.N, 1)
    assert again == n_first  # the server: as it was played
    deal = table.last_deal
    assert deal is not None  # (and the new card would have read it otherwise)
    assert explain_play(table.conventions[Seat.N.team], deal.history, Seat.N, 1).text \
        != n_first[1]
    # The client, from the events and from a fresh snapshot, says the same.
    for msg in watcher.got:
        mirror.apply(msg)
    expected = (n_first[1], n_first[2])
    assert explain_card(mirror, Seat.N, 1) == expected
    fresh = TableMirror()
    snapshot = views.table_state(table_snapshot(table), None)
    assert isinstance(snapshot, TableState) and snapshot.deal_conventions is not None
    fresh.apply(snapshot)
    assert explain_card(fresh, Seat.N, 1) == expected


def test_a_question_stops_the_askers_clock_for_the_tables_limit_at_most() -> None:
    table, peers, _ = table_of_peers(turn_seconds=30.0)
    first = _turn_seat(table)
    limit = 30.0 + DEAL_GRACE_SECONDS
    # Asked 5 s into the turn: the clock stops with what it had left.
    deliver_all(table.ask(peers[first], first.next, "why?", None, now=5.0))
    left = table.clock.turn_left(table.now, paused=table.pausing.paused)
    assert left == limit - 5 and table.clock.deadline is None
    # Nobody answers: after the table's limit (30 s) of waiting it runs on by itself...
    assert table.next_deadline() == 35.0
    deliver_all(table.tick(35.0))
    assert table.clock.deadline == 35.0 + limit - 5
    # ...and a second question on the same turn stops it no more.
    deliver_all(table.ask(peers[first], first.next.next.next, "and you?", None, now=36.0))
    assert table.clock.deadline == 35.0 + limit - 5


def test_an_answer_during_a_pause_lets_the_clock_run_on_after_the_pause() -> None:
    table, peers, _ = table_of_peers(turn_seconds=30.0)
    first = _turn_seat(table)
    limit = 30.0 + DEAL_GRACE_SECONDS
    deliver_all(table.ask(peers[first], first.next, "why?", None, now=2.0))
    qid = next(iter(table.disclosure.questions))
    # The mover asks for a pause, everyone else agrees.
    for seat in (first, *(seat for seat in SEATS if seat is not first)):
        deliver_all(table.pause(peers[seat], now=3.0))
    deliver_all(table.tick(4.0))  # the votes take effect at the next whole 2 s
    assert table.pausing.paused and table.next_deadline() is None
    deliver_all(table.tick(1000.0))  # a long break: nothing runs out
    deliver_all(table.answer(peers[first.next], qid, "because", now=1001.0))
    left = table.clock.turn_left(table.now, paused=table.pausing.paused)
    assert table.clock.deadline is None and left == limit - 2
    deliver_all(table.end_pause(peers[first], now=1002.0))
    deliver_all(table.tick(1004.0))
    assert table.clock.deadline == 1004.0 + limit - 2
