"""The table screen fixes from the newcomer test, on the TUI state and its rendering,
fed with real server messages (a real Table, no sockets)."""

from __future__ import annotations

from typing import Any

from jackal.client.tui.events import apply
from jackal.client.tui.fit import log_text
from jackal.client.tui.layout import render_footer, render_rows
from jackal.client.tui.overlays import render_overlay
from jackal.client.tui.state import Overlay, PlayAgain, TuiState
from jackal.game.seats import SEATS, Seat, Team
from jackal.protocol import messages as m
from jackal.protocol import requests
from jackal.server.table import Table
from support.peer import Peer
from support.tables import deliver_all, table_of_peers


def _text(fragments: Any) -> str:
    return "".join(fragment[1] for fragment in fragments)


def _state_at(peer: Peer, **options: Any) -> TuiState:
    """A TuiState that has seen everything ``peer`` got so far."""
    state = TuiState(**options)
    for msg in peer.got:
        apply(state, msg)
    return state


def _my_turn_state(**options: Any) -> tuple[TuiState, Table, dict[Seat, Peer]]:
    table, peers, _ = table_of_peers()
    deal = table.match.deal
    assert deal is not None and deal.turn is not None
    return _state_at(peers[deal.turn], **options), table, peers


def test_enter_after_a_refused_key_plays_nothing() -> None:
    state, _, _ = _my_turn_state()
    assert state.my_turn
    state.composer.reject_char("z")  # what the key binding does with a key that is no card
    state.composer.submit()
    assert not state.outbox and "Nothing played" in state.notice.text
    state.composer.submit()  # the refusal is spent: now Enter plays the card under the cursor
    assert isinstance(state.outbox[-1], requests.Play)


def test_confirm_asks_before_a_card_is_sent() -> None:
    state, _, _ = _my_turn_state(confirm=True)
    state.composer.submit()
    assert not state.outbox and state.notice.text.startswith("Play ")
    state.composer.clear_input()  # Esc: choose again
    state.composer.submit()
    assert not state.outbox
    state.composer.submit()
    assert isinstance(state.outbox[-1], requests.Play)


def test_a_created_table_is_selected_once_listed() -> None:
    state = TuiState(on_server=True)
    info = [m.TableInfo(table=t, name=t, target=300, status="waiting",
                        seats=dict.fromkeys(SEATS),
                        kinds=dict.fromkeys(SEATS, "empty"), spectators=0)
            for t in ("t1", "t2", "t3")]
    state.lobby.set_tables(info[:2])
    apply(state, m.TableCreated(table="t3", name="t3"))
    assert "Enter joins it" in state.notice.text
    apply(state, m.Tables(tables=info))
    selected = state.lobby.selected_table()
    assert selected is not None and selected.table == "t3"


def test_the_message_line_does_not_keep_stale_text() -> None:
    _, peers, _ = table_of_peers()
    state = TuiState(on_server=True)
    state.say("Joining duel...")
    apply(state, m.TableState(table="t1", name="duel", target=1, status="waiting", seats=[],
                              conventions={}, scores={}, deal=0, dealer=None, first=None, turn=None,
                              rows={}))
    assert state.notice.text == ""
    state.say("Ready; waiting for the others.")
    for msg in peers[Seat.N].got:
        if isinstance(msg, m.DealStarted):
            apply(state, msg)
    assert "waiting for the others" not in state.notice.text


def test_after_a_server_match_n_goes_back_to_the_lobby_and_says_so() -> None:
    state = TuiState(on_server=True)
    state.mirror.you, state.mirror.status, state.mirror.table = Seat.N, "over", "t1"
    state.ready()
    assert isinstance(state.outbox[-1], PlayAgain) and state.notice.text == "Back to the lobby..."
    solo = TuiState()
    solo.mirror.you, solo.mirror.status, solo.mirror.table = Seat.N, "over", "t1"
    solo.ready()
    assert solo.notice.text == "Setting up a new match..."


def test_help_explains_the_codes_under_the_cards_and_quit_fits_the_game() -> None:
    state, _, _ = _my_turn_state()
    state.panels.show(Overlay.HELP)
    text = _text(render_overlay(state))
    for code in ("7s?", "+7 / -7", "a free discard", "newest card"):
        assert code in text
    state.panels.overlay = Overlay.QUIT
    assert "held" not in _text(render_overlay(state))  # the built-in game holds nothing
    state.on_server = True
    assert "held" in _text(render_overlay(state))


def test_symbols_reach_the_log_and_panels_wrap_by_word() -> None:
    assert log_text("You played 7H (1st); TS next", symbols=True) == \
        "You played 7♥ (1st); T♠ next"
    assert log_text("You played 7H", symbols=False) == "You played 7H"
    state = TuiState()
    state.add_log("A very long line " + "with many words " * 12 + "unbroken")
    state.panels.show(Overlay.LOG)
    lines = _text(render_overlay(state)).splitlines()
    assert len(lines) > 1 and all(len(line) <= 77 for line in lines)  # 80 - frame - 1
    assert all(not line.endswith("wi") for line in lines)  # no word cut in two
    assert "unbroken" in lines[-1]


def test_the_footer_shows_the_keys_that_apply_now() -> None:
    table, peers, _ = table_of_peers()
    playing = _state_at(peers[Seat.N])
    waiting = TuiState()
    waiting.mirror.you, waiting.mirror.status, waiting.mirror.table = Seat.N, "waiting", "t"
    assert "b bot" in _text(render_footer(waiting))
    assert "b bot" not in _text(render_footer(playing))
    watcher = Peer("watcher")
    deliver_all(table.spectate(watcher))
    watching = _state_at(watcher)
    footer = _text(render_footer(watching))
    assert "n lobby" in footer and "play" not in footer


def test_the_newest_card_is_marked_and_deals_are_kept_in_the_history() -> None:
    table, peers, _ = table_of_peers()
    deal = table.match.deal
    assert deal is not None
    for _ in range(3):
        seat = deal.turn
        assert seat is not None
        deliver_all(table.play(peers[seat], min(deal.hand(seat)), 1.0))
    state = _state_at(peers[Seat.N])
    last_seat, last_card = deal.history[-1]
    rows = _text(render_rows(state)).splitlines()
    marked = [line for line in rows if "*" in line]
    assert len(marked) == 1 and f"{last_card}*" in marked[0]
    assert marked[0].lstrip("> ").startswith(last_seat.value)
    # A whole deal later, the history panel lists it with penalties and points.
    while table.status == "playing":
        seat = deal.turn
        assert seat is not None
        deliver_all(table.play(peers[seat], min(deal.hand(seat)), 2.0))
    state = _state_at(peers[Seat.N])
    state.panels.show(Overlay.HISTORY)
    text = _text(render_overlay(state))
    ended = next(msg for msg in peers[Seat.N].got if isinstance(msg, m.DealEnded))
    assert f"{ended.penalty[Team.NS]}-{ended.penalty[Team.EW]}" in text
    assert str(ended.points) in text
