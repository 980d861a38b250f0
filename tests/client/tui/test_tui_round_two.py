"""Issue 32's screen items, drawn in-process at the two supported sizes (80x24, the
smallest 66x23): the clock's cards marked for everyone, the log panel's scrolling,
panels that cover the screen under them, messages wrapped by word, and the
create-table dialog."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest
from jackal.client.tui.events import apply
from jackal.client.tui.state import Mode, Overlay, TuiState
from jackal.game.cards import Card
from jackal.game.seats import Seat
from jackal.protocol import messages as m
from jackal.protocol import requests
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput
from support.tui import drive, lobby_state, seated

SIZES = [(24, 80), (23, 66)]
PGUP, PGDN, HOME, END = "\x1b[5~", "\x1b[6~", "\x1b[H", "\x1b[F"


def keys(*typed: str) -> Callable[[PipeInput, Application[int]], object]:
    async def steps(pipe: PipeInput, _app: Application[int]) -> None:
        for key in typed:
            pipe.send_text(key)
            await asyncio.sleep(0.02)
    return steps


@pytest.mark.parametrize(("rows", "columns"), SIZES)
def test_a_card_the_clock_played_for_partner_is_marked_in_the_row_and_the_log(
        rows: int, columns: int) -> None:
    """The server tells everyone ``by``; the partner's and opponents' screens showed the
    card as a plain play, as if it were the player's signal."""
    state = seated(rows={"S": ["2S"], "W": ["9H"]}, turn="N")
    apply(state, m.Played(seat=Seat.N, card=Card.parse("5D"), index=1, by="clock"))
    apply(state, m.Played(seat=Seat.E, card=Card.parse("KH"), index=1, by="substitute"))
    apply(state, m.Played(seat=Seat.S, card=Card.parse("2C"), index=2))
    shown = drive(state, lambda _pipe, _app: None, rows=rows, columns=columns)
    lines = shown.splitlines()
    assert any(line.startswith("  N botN") and "5D~" in line for line in lines), shown
    assert any(line.startswith("  E botE") and "KH~" in line for line in lines), shown
    assert "2S   2C*" in shown  # the player's own cards carry no mark
    words = " ".join(shown.split())  # the log wraps by word at 66 columns
    assert "N botN played 5D (1st) ~ by the clock: time ran out" in words
    assert re.search(r"E botE played KH \(1st\)[^~]*~ by the substitute: the player is "
                     r"away", words), words
    assert all(len(line) <= columns for line in lines)
    # A snapshot of the same deal (a reconnect) keeps the marks; a new deal clears them.
    assert set(state.mirror.played_by) == {(Seat.N, 1), (Seat.E, 1)}
    apply(state, m.DealStarted(deal=2, dealer=Seat.S, first=Seat.W, hand=[]))
    assert state.mirror.played_by == {}


def _long_log() -> TuiState:
    state = seated(rows={"S": ["2S"], "W": ["9H"]}, turn="N")
    for number in range(1, 61):
        more = " is a long one, to wrap by word at the panel's right border" \
            if number % 7 == 0 else ""
        state.add_log(f"line {number:02d}{more}")
    return state


def _panel(shown: str) -> list[str]:
    """The lines inside the panel's frame."""
    lines = shown.splitlines()
    top = next(k for k, line in enumerate(lines) if "Event log" in line)
    bottom = next(k for k, line in enumerate(lines) if line.startswith("└"))
    return [line.strip("│ ") for line in lines[top + 1:bottom]]


@pytest.mark.parametrize(("rows", "columns"), SIZES)
def test_the_log_opens_at_its_newest_line_and_scrolls_without_closing(
        rows: int, columns: int) -> None:
    """It opened at old lines, scrolled past its end into a blank panel, and End and PgDn
    closed it."""
    height = rows - 5
    opened = _panel(drive(_long_log(), keys("l"), rows=rows, columns=columns))
    assert len(opened) == height and opened[-1] == "line 60", opened
    for typed in ([END], [PGDN] * 3, ["\x1b[B"] * 5, [PGUP, END]):
        state = _long_log()
        shown = drive(state, keys("l", *typed), rows=rows, columns=columns)
        assert state.panels.overlay is Overlay.LOG, typed
        assert _panel(shown) == opened, typed  # still the last page, never blank
    state = _long_log()
    page_up = _panel(drive(state, keys("l", PGUP), rows=rows, columns=columns))
    assert state.panels.overlay is Overlay.LOG and "line 60" not in page_up and page_up[-1]
    top = _panel(drive(_long_log(), keys("l", PGUP, HOME), rows=rows, columns=columns))
    assert top[0] == "line 01"
    # The panel spans the screen: nothing of the screen under it shows beside it.
    drawn = drive(_long_log(), keys("l"), rows=rows, columns=columns).splitlines()
    framed = drawn[2:-1]
    assert all(line.startswith(("┌", "│", "└")) for line in framed), framed


def _whole_words(shown: str, sentence: str) -> bool:
    """Every word of ``sentence`` is on the screen in one piece, in order."""
    tokens = shown.split()
    at = 0
    for word in sentence.split():
        while at < len(tokens) and tokens[at] != word:
            at += 1
        if at == len(tokens):
            return False
    return True


@pytest.mark.parametrize(("rows", "columns"), SIZES)
def test_messages_and_the_clock_warning_wrap_by_word(rows: int, columns: int) -> None:
    """They were cut at the edge ("Chat o", "then a substitute plays this ca")."""
    state = seated()
    state.clock.set(Seat.S, 6.5, 30.0)
    shown = drive(state, keys("m"), rows=rows, columns=columns)
    lines = shown.splitlines()
    assert len(lines) == rows and all(len(line) <= columns for line in lines)
    assert _whole_words(shown, "No chat during a deal: partners talk only through their "
                               "cards. Chat opens again when the deal ends.")
    assert _whole_words(shown, "Your turn: your 1st card of 8. Hurry:")
    assert _whole_words(shown, "left, then a substitute plays this card for you.")
    assert lines[-1].rstrip().endswith("? keys  ^Q quit")
    # The lobby's messages wrap the same way.
    lobby = TuiState(mode=Mode.LOBBY)
    lobby.say("The table you chose is private: ask its creator for the invitation code of "
              "a seat, then press Enter on it and type the code (spaces are fine).")
    shown = drive(lobby, lambda _pipe, _app: None, rows=rows, columns=columns)
    assert _whole_words(shown, lobby.notice.text)
    assert all(len(line) <= columns for line in shown.splitlines())


@pytest.mark.parametrize(("rows", "columns"), SIZES)
def test_the_header_shows_the_clock_and_offers_hints_to_players_only(
        rows: int, columns: int) -> None:
    state = seated(hints=True)
    state.clock.limit = 45.0
    header = drive(state, lambda _pipe, _app: None, rows=rows, columns=columns).splitlines()[1]
    assert "CLOCK 45s" in header and "HINTS (x)" in header, header
    state.mirror.you = None  # a spectator cannot take a hint: none is offered
    header = drive(state, lambda _pipe, _app: None, rows=rows, columns=columns).splitlines()[1]
    assert "CLOCK 45s" in header and "HINTS" not in header, header


def test_a_card_typed_while_paused_is_not_sent() -> None:
    """The server refused it; the client now says the table is paused and sends nothing."""
    state = seated()
    sent = state.outbox
    apply(state, m.PauseState(seat=Seat.S, paused=True, asked_by=Seat.S,
                              agreed=[Seat.S, Seat.N]))
    state.composer.play(Card.parse("QS"))
    assert not sent and "paused" in state.notice.text, state.notice.text
    apply(state, m.PauseState(seat=Seat.S, paused=False))
    state.composer.play(Card.parse("QS"))
    assert [type(msg).__name__ for msg in sent] == ["Play"]


@pytest.mark.parametrize(("rows", "columns"), SIZES)
def test_the_create_dialog_checks_as_typed_lists_cards_and_keeps_answers_when_refused(
        rows: int, columns: int) -> None:
    """It took a card name that does not exist, and only the server's refusal after the
    last prompt told, losing every answer."""
    state = lobby_state()
    sent = state.outbox  # what the network task would send

    def screen(*typed: str) -> str:
        shown = drive(state, keys(*typed), rows=rows, columns=columns)
        assert all(len(line) <= columns for line in shown.splitlines())
        return " ".join(shown.split())

    shown = screen("c", "Friday\r", "\r")
    assert "NS convention card (advanced, beginner, none; Enter = beginner):" in shown
    shown = screen("begx")  # checked at each key, before Enter
    assert "No card is called 'begx': advanced, beginner, none." in shown
    assert state.prompt is not None and "begx" in state.prompt.text
    shown = screen("\x7f")  # Backspace: "beg" may still become "beginner"
    assert "No card is called" not in shown
    screen("inner\r", "\r", "\r", "3")
    assert state.prompt is not None and state.prompt.hint == ""  # "3" may become "30"
    screen("\r")
    assert state.prompt is not None and "at least 5" in state.prompt.hint
    screen("\x7f", "45\r", "\r")
    assert state.prompt is None and sent, sent
    created = next(iter(sent))
    assert isinstance(created, requests.CreateTable)
    assert (created.name, created.conventions_ns, created.turn_seconds) == (
        "Friday", "beginner", 45.0)
    # The server refuses one answer: the dialog opens at it, the rest still there.
    sent.clear()
    apply(state, m.Error(code="bad_conventions",
                         message="field 'conventions_ew': no card 'beginner' here"))
    shown = screen()
    assert state.prompt is not None and state.prompt.label.startswith("EW convention card")
    assert "Server: field 'conventions_ew'" in shown
    screen("none\r", "\r", "\r", "\r")
    again = next(iter(sent))
    assert isinstance(again, requests.CreateTable)
    assert (again.name, again.conventions_ns, again.conventions_ew, again.turn_seconds) == (
        "Friday", "beginner", "none", 45.0)
