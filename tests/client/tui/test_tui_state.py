"""The terminal client's state: what keys do and what server messages change (no I/O)."""

from __future__ import annotations

from typing import Any

from jackal.client.embedded import BETWEEN_DEALS_SECONDS
from jackal.client.tui import gathering
from jackal.client.tui.asking import ask_question, askable, move_ask, open_ask, reply_question
from jackal.client.tui.clock import between_deals_text, clock_left, clock_text
from jackal.client.tui.events import apply
from jackal.client.tui.lobby import JoinSeat
from jackal.client.tui.meaning import short_meaning
from jackal.client.tui.state import (
    Overlay,
    PlayAgain,
    TuiState,
    ordinal,
)
from jackal.game.cards import Card, parse_hand
from jackal.game.explain import AnswerMeaning, DiscardMeaning, PromiseMeaning
from jackal.game.seats import Seat, Team
from jackal.protocol import messages as m
from jackal.protocol import requests
from support.tui import HAND, lobby_state, seated


def type_text(state: TuiState, text: str) -> None:
    for char in text:
        state.composer.type_char(char)


def test_table_state_fills_the_mirror() -> None:
    state = seated()
    assert state.you is Seat.S and state.my_turn and state.table == "t1"
    assert state.mirror.scores == {Team.NS: 10, Team.EW: 20}
    assert state.mirror.play_order == (Seat.S, Seat.W, Seat.N, Seat.E)
    assert [str(c) for c in state.sorted_hand()][:3] == ["AD", "2S", "2C"]
    assert state.group_sizes()[12] == 3  # three queens
    assert state.seat_label(Seat.S) == "S me (you)" and state.seat_label(Seat.W) == "W botW"


def test_enter_plays_the_cursor_card_once() -> None:
    state = seated()
    state.composer.move_cursor(1)  # AD -> 2S
    state.composer.submit()
    assert list(state.outbox) == [requests.Play(card=Card.parse("2S"))]
    assert state.composer.awaiting_play == Card.parse("2S")
    state.composer.submit()  # a second Enter before the reply sends nothing more
    assert len(state.outbox) == 1 and "on its way" in state.notice.text
    apply(state, m.Played(seat=Seat.S, card=Card.parse("2S"), index=1))
    assert state.composer.awaiting_play is None
    assert Card.parse("2S") not in state.hand and state.rows[Seat.S] == [Card.parse("2S")]
    assert state.turn is Seat.W and not state.my_turn
    assert any("You played 2S" in line.text for line in state.log)


def test_typed_card_moves_the_cursor_and_plays() -> None:
    state = seated()
    type_text(state, "qh")
    assert state.sorted_hand()[state.composer.cursor] == Card.parse("QH")
    state.composer.submit()
    assert list(state.outbox) == [requests.Play(card=Card.parse("QH"))]
    assert state.composer.typed == ""


def test_ten_can_be_typed_as_10() -> None:
    state = seated()
    type_text(state, "10s")
    assert state.composer.typed == "10s"
    state.composer.submit()
    assert list(state.outbox) == [requests.Play(card=Card.parse("TS"))]


def test_characters_that_cannot_make_a_card_are_refused() -> None:
    state = seated()
    assert not state.composer.type_char("x")  # no rank starts with x
    assert state.composer.type_char("7")
    assert not state.composer.type_char("7")  # a suit must follow a rank
    assert state.composer.type_char("h")
    assert not state.composer.type_char("s")  # nothing follows the suit
    assert state.composer.typed == "7h"
    state.composer.backspace()
    assert state.composer.typed == "7"


def test_a_card_not_in_hand_is_explained_and_never_sent() -> None:
    state = seated()
    type_text(state, "4d")
    state.composer.submit()
    assert not state.outbox
    assert state.notice.text == "4D is not in your hand." and state.notice.style == "error"


def test_an_incomplete_card_is_explained_and_never_sent() -> None:
    state = seated()
    type_text(state, "q")
    state.composer.submit()
    assert not state.outbox and "'q' is not a card" in state.notice.text


def test_out_of_turn_play_is_explained_and_never_sent() -> None:
    # S led (E dealt), so W is next: the turn follows from the dealer and the rows.
    state = seated(rows={"S": ["4C"], "W": [], "N": [], "E": []}, turn=Seat.W)
    state.composer.submit()
    state.composer.click_card(3)
    assert not state.outbox
    assert "W botW's turn" in state.notice.text
    assert state.composer.cursor == 3  # the click still moved the cursor


def test_mouse_click_plays_on_your_turn() -> None:
    state = seated()
    state.composer.click_card(2)
    assert list(state.outbox) == [requests.Play(card=(state.sorted_hand()[2]))]


def test_cursor_wraps_and_stays_in_range_as_the_hand_shrinks() -> None:
    state = seated()
    state.composer.move_cursor(-1)
    assert state.composer.cursor == 12
    state.composer.submit()
    apply(state, m.Played(seat=Seat.S, card=(state.sorted_hand()[12]), index=1))
    assert state.composer.cursor == 11


def test_server_error_reenables_play_and_is_shown() -> None:
    state = seated()
    state.composer.submit()
    state.on_error("not_your_turn", "it is W's turn")
    assert state.composer.awaiting_play is None
    assert "it is W's turn" in state.notice.text and state.notice.style == "error"


def test_history_and_explanations_use_the_public_rows() -> None:
    rows = {"S": ["2S"], "W": ["9H"], "N": ["5D"], "E": ["KH"]}
    state = seated(rows=rows)
    assert [(str(s), str(c)) for s, c in state.mirror.history()] == [
        ("S", "2S"), ("W", "9H"), ("N", "5D"), ("E", "KH")]
    explained = state.explain(Seat.W, 1)
    assert explained is not None
    text, data = explained
    assert isinstance(data, PromiseMeaning) and data.kind == "promise" and data.rank == 8
    assert "8" in text
    assert short_meaning(data) == "8s?"
    assert state.explain(Seat.W, 2) is None  # not played yet


def _promise(**said: Any) -> PromiseMeaning:
    return PromiseMeaning(play=1, card=Card.parse("5S"), low=True, **said)


def _answer(**said: Any) -> AnswerMeaning:
    return AnswerMeaning(play=2, card=Card.parse("5S"), to_play=1, **said)


def test_short_meanings() -> None:
    assert short_meaning(_promise(may_be_fallback=False, kind="promise", rank=4, count=2)) == "4s"
    assert short_meaning(_promise(may_be_fallback=True, kind="promise", rank=12,
                                  count=3)) == "Qx3?"
    assert short_meaning(_answer(low=True, kind="answer", rank=7, holds=True)) == "+7"
    assert short_meaning(_answer(low=False, kind="answer", rank=13, holds=False)) == "-K"
    assert short_meaning(_promise(may_be_fallback=False, kind="none", reason="edge")) == "-"
    assert short_meaning(_answer(low=True, kind="none", reason="nothing to answer")) == "-"
    assert short_meaning(DiscardMeaning(play=3, card=Card.parse("5S"), low=True, kind="none",
                                        reason="a free discard")) == "."
    assert [ordinal(n) for n in (1, 2, 3, 4, 8)] == ["1st", "2nd", "3rd", "4th", "8th"]


def test_ask_about_an_opponent_card() -> None:
    rows = {"S": ["2S", "QH"], "W": ["9H", "4C"], "N": ["5D", "3D"], "E": ["KH"]}
    state = seated(rows=rows, turn=Seat.E)
    open_ask(state)
    assert state.panels.overlay is Overlay.ASK
    assert state.panels.ask_target == (Seat.W, 2)  # the newest opponent card first
    move_ask(state, -1)
    assert state.panels.ask_target == (Seat.E, 1)  # Left goes back in time
    move_ask(state, 1)
    move_ask(state, -1)
    assert askable(state) == [(Seat.W, 2), (Seat.E, 1), (Seat.W, 1)]  # newest first
    ask_question(state)
    assert state.prompt is not None
    state.prompt_submit()  # empty: refused, prompt stays
    assert state.prompt is not None and "Type a question" in state.prompt.hint
    for char in "why?":
        state.prompt_char(char)
    state.prompt_submit()
    assert state.prompt is None and state.panels.overlay is Overlay.NONE
    assert list(state.outbox) == [requests.Ask(seat=Seat.E, index=1, text="why?")]


def test_ask_with_nothing_played_says_so() -> None:
    state = seated()
    open_ask(state)
    assert state.panels.overlay is Overlay.NONE and "No opponent card" in state.notice.text


def test_questions_to_me_are_answered_with_r() -> None:
    state = seated(rows={"S": ["2S"], "W": [], "N": [], "E": []}, turn=Seat.W)
    apply(state, m.Question(question="q7", seat=Seat.S, text="what is 2S?", asker=Seat.E, index=1))
    assert "press r" in state.notice.text
    reply_question(state)
    assert state.prompt is not None and "what is 2S?" in state.prompt.label
    for char in "aces":
        state.prompt_char(char)
    state.prompt_submit()
    assert list(state.outbox) == [requests.AnswerQuestion(question="q7", text="aces")]
    assert not state.questions_to_me
    reply_question(state)
    assert "Nobody has asked" in state.notice.text


def test_own_question_receipt_and_answer_are_logged() -> None:
    state = seated()
    apply(state, m.Question(id=3, question="q1", seat=Seat.W, text="meaning?", asker=Seat.S))
    apply(state, m.AnswerMessage(question="q1", question_text="meaning?", seat=Seat.W,
                                 text="no pair"))
    assert not state.questions_to_me
    assert "W answered: no pair" in state.notice.text
    assert any("You asked W" in line.text for line in state.log)


def test_deal_end_then_ready_then_match_end_then_play_again() -> None:
    state = seated()
    hands = {Seat.N: parse_hand("AS AC 3S 4S 6S"), Seat.E: [],
             Seat.S: parse_hand("QS QH QD KC 2C"), Seat.W: []}
    breakdown = {Team.NS: [m.GroupInfo(rank="A", cards=parse_hand("AS AC"), count=2, points=25,
                                 penalty=25)],
                 Team.EW: []}
    apply(state, m.DealEnded(deal=1, hands=hands, penalty={Team.NS: 80, Team.EW: 90},
                             winner=Team.NS, points=30, victory_points=30,
                             scores={Team.NS: 40, Team.EW: 20},
                             breakdown=breakdown))
    assert state.table_status == "between_deals"
    assert sorted(state.hand) == sorted(hands[Seat.S])
    assert state.mirror.scores[Team.NS] == 40
    state.ready()
    assert list(state.outbox) == [requests.Ready()]
    apply(state, m.MatchEnded(winner=Team.NS, scores={Team.NS: 340, Team.EW: 20}))
    assert state.mirror.winner is Team.NS and "play again" in state.notice.text
    state.ready()
    assert isinstance(state.outbox[-1], PlayAgain)


def test_quit_asks_first_during_a_match_only() -> None:
    state = seated()
    state.request_quit()
    assert state.panels.overlay is Overlay.QUIT and not state.quit_requested
    state.panels.close()
    state.request_quit()
    state.confirm_quit()
    assert state.quit_requested
    idle = TuiState()
    idle.request_quit()
    assert idle.quit_requested


def test_lost_seat_quits_without_asking() -> None:
    state = seated()
    state.set_status("lost", "server gone")
    state.request_quit()
    assert state.quit_requested
    assert any("Disconnected" in line.text for line in state.log)


def submit(state: TuiState, text: str) -> None:
    for char in text:
        state.prompt_char(char)
    state.prompt_submit()


def test_lobby_join_asks_for_a_free_seat() -> None:
    state = lobby_state()
    state.lobby.join()
    submit(state, "N")  # taken
    assert state.prompt is not None and "N is taken" in state.prompt.hint
    state.prompt_backspace()
    submit(state, "s")
    assert list(state.outbox) == [JoinSeat("t1", Seat.S)]


def test_lobby_create_table_and_add_bot() -> None:
    state = lobby_state()
    state.lobby.create()
    submit(state, "friday")
    submit(state, "zero")  # not a number: refused
    assert state.prompt is not None and "positive" in state.prompt.hint
    state.prompt.text = ""
    submit(state, "150")
    submit(state, "")
    submit(state, "none")
    submit(state, "maybe")  # not y or n: refused
    assert state.prompt is not None and "y or n" in state.prompt.hint
    state.prompt.text = ""
    submit(state, "Y")
    submit(state, "1")  # a clock under 5 s: refused
    assert state.prompt is not None and "at least 5" in state.prompt.hint
    state.prompt.text = ""
    submit(state, "45")
    submit(state, "")  # not private: no question about spectators
    assert list(state.outbox) == [
        requests.CreateTable(name="friday", target=150, conventions_ns="beginner",
                      conventions_ew="none", hints=True, turn_seconds=45.0),
        requests.ListTables()]
    state.outbox.clear()
    # A private table, spectators allowed.
    state.lobby.create()
    for answer in ("", "", "", "", "", "0", "y", "y"):
        submit(state, answer)
    assert list(state.outbox)[:1] == [requests.CreateTable(
        turn_seconds=0.0, conventions_ns="beginner", conventions_ew="beginner", private=True,
        allow_spectators=True)]
    state.outbox.clear()
    state.lobby.move(1)
    state.lobby.add_bot()
    submit(state, "E random")
    assert state.outbox[0] == requests.AddBot(table="t2", seat=Seat.E, strategy="random")
    # A seat alone leaves the choice to the server: the bot that fits that side's card.
    state.outbox.clear()
    state.lobby.add_bot()
    submit(state, "W")
    assert state.outbox[0] == requests.AddBot(table="t2", seat=Seat.W, strategy=None)


def test_hand_parsing_helper_agrees() -> None:
    # The seated() fixture's hand really is thirteen different cards.
    assert len(set(parse_hand(HAND))) == 13


def test_bots_can_be_added_before_the_first_deal_and_after_the_match() -> None:
    state = seated(status="waiting", turn=Seat.S)
    state.mirror.seats[Seat.E].kind = "empty"
    state.mirror.seats[Seat.E].name = None
    state.table_add_bot()
    assert state.prompt is not None and "free: E" in state.prompt.label
    submit(state, "e greedy")
    request = requests.AddBot(table="t1", seat=Seat.E, strategy="greedy")
    assert list(state.outbox) == [request]
    # The server answers ok and tells everyone at the table, the requester included.
    apply(state, m.PlayerJoined(seat=Seat.E, name="greedy bot", kind="bot"))
    assert state.mirror.seats[Seat.E].kind == "bot"
    assert state.seat_label(Seat.E) == "E greedy bot"
    playing = seated()
    playing.table_add_bot()
    assert playing.prompt is None and "only before the first deal" in playing.notice.text
    over = seated(status="over")
    over.can_rematch = True
    apply(over, m.PlayerLeft(seat=Seat.N))
    over.table_add_bot()
    assert over.prompt is not None and "free: N" in over.prompt.label


def test_after_the_match_the_line_says_who_left_who_is_gone_and_who_must_ask() -> None:
    state = seated(status="over")
    state.can_rematch = True
    apply(state, m.PlayerJoined(seat=Seat.E, name="eve", kind="human"))
    apply(state, m.PlayerLeft(seat=Seat.N))
    apply(state, m.PlayerJoined(seat=Seat.W, name="walt", kind="human"))
    apply(state, m.PlayerGone(seat=Seat.W, seconds=30))
    line = gathering.waiting_line(state)
    # S (ours) asked at the end; E sat down since and has not.
    assert line == " Rematch to 300: N left (b: bot); W gone; waiting for E."
    assert "waiting for N" not in line and len(line) <= 66
    # A new target from E: we must ask again; o proposes ours (and our side's card).
    apply(state, m.RematchWanted(seat=Seat.E, target=500))
    assert "rematch to 500 points: n agrees" in state.notice.text
    state.mirror.seats[Seat.S].ready = False
    assert "waiting for E, you (n)" not in gathering.waiting_line(state)
    assert gathering.waiting_line(state).startswith(" Rematch to 500:")
    state.outbox.clear()
    gathering.rematch_options(state)
    submit(state, "7 advanced")
    assert list(state.outbox) == [requests.Conventions(card="advanced"),
                                  requests.Rematch(target=7)]


def test_a_ready_the_server_lost_is_told_plainly() -> None:
    state = seated(status="between_deals")
    state.mirror.seats[Seat.S].ready = False
    state.ready()
    assert list(state.outbox) == [requests.Ready()] and state.ready_for == 1
    # A snapshot after a restart has us not ready for that same deal.
    apply(state, m.TableState(
        table="t1", name="test", target=300, status="between_deals",
        seats=[m.SeatInfo(seat=Seat(s), name="me" if s == "S" else f"bot{s}",
                          kind="human" if s == "S" else "bot", connected=True,
                          ready=s != "S") for s in "NESW"],
        conventions={}, scores={Team.NS: 10, Team.EW: 20}, deal=1, dealer=Seat.E,
        first=Seat.S, turn=None, rows={}, you=Seat.S))
    assert "press n again" in state.notice.text
    assert any("Your ready was lost" in line.text for line in state.log)


def test_questions_answers_and_errors_from_a_server_show_escaped() -> None:
    """An old or hostile server's text reaches the log and the message line escaped."""
    state = seated()
    hostile = "\x1b]0;pwned\x07\x1b[2J evil\u202egnp\u200b\x9b"
    apply(state, m.Question(question="q7", seat=Seat.S, text=hostile, asker=Seat.E))
    apply(state, m.Question(id=3, question="q1", seat=Seat.W, text="meaning?", asker=Seat.S))
    apply(state, m.AnswerMessage(question="q1", question_text="meaning?", seat=Seat.W,
                                 text=hostile))
    state.on_error("internal", hostile)
    shown = [line.text for line in state.log] + [state.notice.text]
    assert any("\\x1b]0;pwned\\x07\\x1b[2J evil\\u202egnp\\u200b\\x9b" in text
               for text in shown), shown
    assert not [text for text in shown if any(ch in text for ch in "\x1b\x07\x9b\u202e\u200b")]


def test_chat_is_refused_by_the_client_during_a_deal_and_sent_between_deals() -> None:
    state = seated()
    state.open_chat()
    assert "No chat during a deal" in state.notice.text and state.prompt is None
    assert not state.outbox
    state = seated(status="between_deals")
    state.open_chat()
    assert state.prompt is not None and "the table" in state.prompt.label
    for char in "gg":
        state.prompt_char(char)
    state.prompt_submit()
    assert list(state.outbox) == [requests.Chat(text="gg")]
    # The line comes back from the server: in the log, once, from the mirror's chat.
    apply(state, m.ChatMessage(channel="table", name="me", text="gg", seat=Seat.S))
    assert [line.text for line in state.log if "gg" in line.text] == ["me (S): gg"]


def test_a_pause_freezes_the_clock_shown_and_resume_lets_it_run() -> None:
    state = seated()
    apply(state, m.Turn(seat=Seat.S, seconds=30.0))
    state.toggle_pause()
    assert list(state.outbox) == [requests.Pause()]
    apply(state, m.PauseState(seat=Seat.S, paused=False, asked_by=Seat.S, agreed=[Seat.S]))
    apply(state, m.PauseState(seat=Seat.N, paused=True, asked_by=Seat.S,
                              agreed=[Seat.N, Seat.S]))
    frozen = clock_left(state)
    assert frozen is not None and state.mirror.paused
    running = state.clock.running
    assert running is not None
    state.clock.running = (running[0], running[1] - 100.0)  # time passes meanwhile
    assert clock_left(state) == frozen
    state.outbox.clear()
    state.toggle_pause()
    assert list(state.outbox) == [requests.Resume()]
    apply(state, m.PauseState(seat=Seat.S, paused=False))
    left = clock_left(state)
    assert left is not None and frozen - 1 < left <= frozen
    assert any("paused" in line.text for line in state.log)


def test_between_deals_the_line_counts_down_and_says_who_is_ready() -> None:
    state = seated()
    apply(state, m.DealEnded(deal=1, hands={}, penalty={Team.NS: 10, Team.EW: 20},
                             winner=Team.NS, points=10, victory_points=10,
                             scores={Team.NS: 20, Team.EW: 20}, breakdown={},
                             next_deal_in=30.0))
    text = between_deals_text(state)
    assert text.startswith("Next deal in ") and int(text.split()[3].rstrip("s;")) in (29, 30)
    assert "waiting for: S" in text and "ready:" not in text
    apply(state, m.PlayerReady(seat=Seat.S))
    assert "ready: S" in between_deals_text(state)
    assert state.mirror.last_deal is not None  # the summary stays up meanwhile


def test_a_wait_of_a_day_between_deals_shows_no_countdown() -> None:
    """The built-in game waits a day for its player: no "Next deal in 86399s"."""
    state = seated()
    apply(state, m.DealEnded(deal=1, hands={}, penalty={Team.NS: 10, Team.EW: 20},
                             winner=Team.NS, points=10, victory_points=10,
                             scores={Team.NS: 20, Team.EW: 20}, breakdown={},
                             next_deal_in=BETWEEN_DEALS_SECONDS))
    assert between_deals_text(state) == "Waiting for: S"


def test_a_stopped_clock_says_so_and_runs_on_when_told() -> None:
    state = seated(turn="W")
    apply(state, m.Turn(seat=Seat.W, seconds=30.0))
    apply(state, m.Clock(seat=Seat.W, seconds=21.4, stopped=True))
    assert clock_text(state) == "clock stopped at 22s: waiting for an answer"
    apply(state, m.Clock(seat=Seat.W, seconds=21.4, stopped=False))
    assert clock_text(state) in ("22s left", "21s left")


def test_a_seat_taken_back_logs_the_deals_the_question_and_where_the_match_stands() -> None:
    state = seated()
    state.taking_back = True
    ended = m.DealSummary(deal=1, dealer=Seat.W, penalty={Team.NS: 30, Team.EW: 10},
                          winner=Team.EW, victory_points=20, scores={Team.NS: 0, Team.EW: 20})
    asked = m.OpenQuestion(question="q3", seat=Seat.S, asker=Seat.E, text="why the 9?")
    snapshot = m.TableState(
        table="t1", name="test", target=300, status="playing", seats=[], conventions={},
        scores={Team.NS: 0, Team.EW: 20}, deal=2, dealer=Seat.N, first=Seat.E, turn=Seat.E,
        rows={}, you=Seat.S, hand=parse_hand(HAND), history=[ended], questions=[asked])
    state.log.clear()
    apply(state, snapshot)
    lines = [line.text for line in state.log]
    assert lines[0].startswith("Deal 1: EW win, penalties 30-10")
    assert "E asks you: why the 9?  (r to reply)" in lines
    assert lines[-1] == ("You took your seat back at S: deal 2, play 1 of 32, E to play; "
                         "NS 0 - EW 20 (target 300).")
    assert [q.question for q in state.questions_to_me] == ["q3"]
    apply(state, snapshot)  # a second snapshot (a sync) repeats nothing
    assert [line.text for line in state.log] == lines


def test_a_spectator_sees_meanings_but_is_not_offered_a_question() -> None:
    from jackal.client.tui.layout import render_footer
    from jackal.client.tui.overlays import render_overlay

    rows = {"S": ["2S"], "W": ["9H"]}
    state = seated(rows=rows, turn="N")
    state.mirror.you = None  # the same table, watched
    open_ask(state)
    assert state.panels.overlay is Overlay.ASK
    panel = "".join(text for _style, text, *_ in render_overlay(state))
    footer = "".join(text for _style, text, *_ in render_footer(state))
    assert "Under" in panel and "ask" not in panel.lower()
    assert "ask" not in footer.lower()
    ask_question(state)  # Enter anyway: told why, nothing sent
    assert state.prompt is None and "Spectators cannot ask" in state.notice.text
    assert not state.outbox
    seated_state = seated(rows=rows, turn="N")
    open_ask(seated_state)
    assert "Enter: ask W a question" in "".join(
        text for _style, text, *_ in render_overlay(seated_state))


def test_away_and_substitute_wording() -> None:
    state = seated()
    apply(state, m.PlayerGone(seat=Seat.W, seconds=120.0))
    apply(state, m.BotTakeover(seat=Seat.W, strategy="expert"))
    apply(state, m.BotTakeover(seat=Seat.N, strategy="random"))
    lines = [entry.text for entry in state.log][-3:]
    assert lines[0] == "W botW is away (quit, or the connection dropped); the seat is held 120 s."
    assert lines[1:] == ["An expert bot plays W until its player returns.",
                         "A random bot plays N until its player returns."]


def test_after_the_match_n_is_offered_for_what_it_does() -> None:
    """A spectator on a server (or a player whose server has no rematch) goes to the lobby
    with n, so that is what the notice says; only the local game plays again."""
    for on_server, wanted in ((True, "n: lobby"), (False, "n: play again")):
        state = seated()
        state.on_server = on_server
        state.mirror.you = None  # watching, as a spectator does
        apply(state, m.MatchEnded(winner=Team.NS, scores={Team.NS: 340, Team.EW: 20}))
        assert wanted in state.notice.text, (on_server, state.notice.text)
    rematch = seated()
    rematch.on_server = rematch.can_rematch = True
    apply(rematch, m.MatchEnded(winner=Team.NS, scores={Team.NS: 340, Team.EW: 20}))
    assert "n: rematch, g: lobby" in rematch.notice.text


def test_the_deal_end_shows_the_questions_partner_asked_during_it() -> None:
    """During the deal partner's questions are not told (their timing would be a
    signal); ``deal_ended`` carries them all, and the log shows the others' ones."""
    state = seated()
    asked = [m.AnsweredInfo(question="q1", asker=Seat.N, seat=Seat.E, text="what is it?",
                            index=2, answer="a pair of 9s"),
             m.AnsweredInfo(question="q2", asker=Seat.S, seat=Seat.W, text="mine")]
    apply(state, m.DealEnded(deal=1, hands={}, penalty={Team.NS: 10, Team.EW: 20},
                             winner=Team.NS, points=10, victory_points=10,
                             scores={Team.NS: 20, Team.EW: 20}, breakdown={},
                             questions=asked))
    lines = [line.text for line in state.log]
    assert any("asked E" in line and "2nd card" in line and "what is it?" in line
               and "a pair of 9s" in line for line in lines), lines
    assert not any("mine" in line for line in lines)  # our own: seen as it came


def test_a_restarted_client_shows_this_deals_answers_again() -> None:
    """Issue 32 item 6: the snapshot carries this deal's answered questions (those we
    asked or were asked) and how many we may still ask; a seat taken back shows them."""
    state = seated()
    state.taking_back = True
    ours = m.AnsweredInfo(question="q1", asker=Seat.S, seat=Seat.W, text="why the 9?",
                          index=1, answer="no pair")
    theirs = m.AnsweredInfo(question="q2", asker=Seat.E, seat=Seat.S, text="and you?",
                            answer="nothing")
    snapshot = m.TableState(
        table="t1", name="test", target=300, status="playing", seats=[], conventions={},
        scores={Team.NS: 0, Team.EW: 0}, deal=1, dealer=Seat.N, first=Seat.E, turn=Seat.E,
        rows={}, you=Seat.S, hand=parse_hand(HAND), answered=[ours, theirs],
        questions_left=2)
    state.log.clear()
    apply(state, snapshot)
    lines = [line.text for line in state.log]
    assert "You asked W about their 1st card: why the 9? - no pair" in lines
    assert "E asked you: and you? - you said: nothing" in lines
    assert "You may ask 2 more question(s) this deal." in lines
