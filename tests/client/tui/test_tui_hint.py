"""The hint key of ``jackal play``: state and real key bindings, then the whole app.

The state tests feed server messages by hand; the last test plays the built-in game
(a real embedded server with bots) by keystrokes and gets a real hint from it.
"""

from __future__ import annotations

import asyncio

from jackal.client.embedded import EmbeddedGame
from jackal.client.tui.app import TuiApp
from jackal.client.tui.events import apply
from jackal.client.tui.layout import render_footer, render_header
from jackal.client.tui.lobby_screen import render_lobby
from jackal.client.tui.overlays import render_overlay
from jackal.client.tui.state import Mode, Overlay, TuiState
from jackal.client.tui.style import KEY_HELP
from jackal.game.cards import Card
from jackal.game.explain import PromiseMeaning
from jackal.game.seats import Seat
from jackal.protocol import messages as m
from jackal.protocol import requests
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput
from support.tui import (
    drawn,
    drive,
    lobby_state,
    my_turn,
    quick_game,
    quit_app,
    run_app,
    seated,
    spectate,
    text,
    until,
)

WHY = ("The expert bot would play 9C, your 1st card of 8. Under your 'beginner' card: 1st "
       "card 9C: promises a pair of 8s, or no pair (an unneeded high card). You have no new "
       "pair to show, so a card that promises nothing is the honest signal here. It gives up "
       "a single 9; you keep a pair of 2s and three queens. Partner has not signalled "
       "anything yet.")


def hint_reply(card: str = "9C", play: int = 1) -> m.HintReply:
    return m.HintReply(id=1, seat=Seat.S, deal=1, play=play, card=Card.parse(card),
                       strategy="expert", text=WHY, honest=True,
                       meaning=PromiseMeaning(play=play, card=Card.parse(card), low=False,
                                              may_be_fallback=True, kind="promise", rank=8,
                                              count=2))


def test_x_asks_once_per_turn_and_shows_the_card_and_the_words() -> None:
    state = seated(hints=True)
    shown = drive(state, lambda pipe, _app: pipe.send_text("x"))
    assert list(state.outbox) == [requests.Hint()]
    assert "everyone at the table will be told" in state.notice.text
    assert "HINTS" in shown
    apply(state, hint_reply())
    assert state.panels.overlay is Overlay.HINT
    assert state.sorted_hand()[state.composer.cursor] == Card.parse("9C")
    assert "9C" in state.notice.text
    panel = " ".join(text(render_overlay(state)).split())  # wherever the words wrap
    assert "The expert bot would play 9C" in panel and "honest signal here" in panel
    assert "three queens" in panel
    # Any key closes the panel; x again on the same turn shows it without asking.
    state.panels.close()
    state.ask_hint()
    assert state.panels.overlay is Overlay.HINT and len(state.outbox) == 1
    # The card is under the cursor: Enter plays it.
    state.panels.close()
    state.composer.submit()
    assert list(state.outbox)[-1] == requests.Play(card=Card.parse("9C"))


def test_hint_notices_are_logged_for_everyone() -> None:
    state = seated(hints=True)
    apply(state, m.HintTaken(seat=Seat.S, deal=1, play=1))
    apply(state, m.HintTaken(seat=Seat.W, deal=1, play=3))
    lines = [line.text for line in state.log]
    assert "You took a hint for your 1st card" in lines[-2]
    assert lines[-1].startswith("W botW took a hint for their 3rd card")


def test_no_hint_is_asked_where_it_cannot_be_given() -> None:
    off = seated()
    off.ask_hint()
    assert not off.outbox and "does not allow hints" in off.notice.text
    waiting = seated(hints=True, rows={"S": ["4C"], "W": [], "N": [], "E": []}, turn="W")
    waiting.ask_hint()
    assert not waiting.outbox and "your own turn" in waiting.notice.text
    watcher = TuiState()
    apply(watcher, m.TableState(table="t1", name="t", target=300, status="playing", seats=[],
                                conventions={}, scores={}, deal=1, dealer=Seat.E,
                                first=Seat.S, turn=Seat.S, rows={}, hints=True))
    watcher.ask_hint()
    assert not watcher.outbox and "Spectators" in watcher.notice.text
    # A hint from an earlier turn is not shown as this turn's: x asks again.
    state = seated(hints=True)
    state.hint = hint_reply(play=2)
    state.ask_hint()
    assert list(state.outbox) == [requests.Hint()] and state.hint is None


def test_x_cannot_start_a_card_and_typed_cards_still_work() -> None:
    state = seated(hints=True)

    def steps(pipe: PipeInput, _app: Application[int]) -> None:
        pipe.send_text("9c")
        pipe.send_text("\r")

    drive(state, steps)
    assert list(state.outbox) == [requests.Play(card=Card.parse("9C"))]


def test_the_screens_say_where_hints_are_allowed() -> None:
    state = seated(hints=True)
    assert "HINTS" in text(render_header(state)) and "x hint" in text(render_footer(state))
    assert "HINTS" not in text(render_header(seated()))
    assert any(key == "x" and "hint" in what for key, what in KEY_HELP["Table"])
    lobby = lobby_state()
    lobby.lobby.set_tables([m.TableInfo(table="t9", name="learners", target=300,
                                        seats={}, kinds={}, status="waiting", hints=True)], 1)
    assert lobby.mode is Mode.LOBBY and "HINTS" in text(render_lobby(lobby))


def test_the_built_in_game_allows_hints_in_every_match() -> None:
    game = EmbeddedGame()
    assert game.create_table().hints is True and game.create_table(3).hints is True


def test_your_own_seat_is_not_called_you_twice() -> None:
    assert seated(name="you").seat_label(Seat.S) == "S you"
    assert seated(name="ann").seat_label(Seat.S) == "S ann (you)"


def test_the_built_in_game_gives_a_hint_by_keystroke() -> None:
    """The embedded game allows hints: x shows the expert's card, Enter plays it."""

    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        assert app.port is not None and app.state.table is not None
        assert (await spectate(app.port, app.state.table))["hints"] is True
        pipe.send_text("x")
        await until(lambda: app.state.hint is not None, "the hint")
        hint = app.state.hint
        assert hint is not None
        screen = await drawn(app, "bot would play")
        assert str(hint.card) in screen and "Under your 'beginner' card" in screen
        await until(lambda: any("You took a hint" in line.text for line in app.state.log),
                    "the notice")
        assert app.state.sorted_hand()[app.state.composer.cursor] == hint.card
        pipe.send_text(" ")  # closes the panel
        await until(lambda: app.state.panels.overlay is Overlay.NONE, "the panel closed")
        await asyncio.sleep(0.05)
        pipe.send_text("\r")
        await until(lambda: app.state.rows[Seat.S][:1] == [hint.card], "the hinted play")
        await quit_app(app, pipe)

    assert run_app(quick_game(partner="expert"), scenario) == 0
