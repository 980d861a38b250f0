"""What the server's messages do to the terminal client's state: the log lines, the
notice, the clock and the bell, beside what the mirror already holds of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ...game.explain import ordinal
from ...game.seats import Seat, Team
from ...protocol import messages as m
from ..chat_log import line_of
from ..handlers import Handlers
from ..mirror import Change
from . import gathering
from .hint import notice_text
from .state import Mode, Overlay, TuiState, article, deal_result_text

__all__ = ["NOTHING", "SCREEN_HANDLERS", "apply", "on_message"]

#: What a message that never reaches the mirror (a reply) changes there.
NOTHING: Final = Change(False)

def apply(state: TuiState, msg: m.ServerMessage) -> None:
    """Feed one server message to the mirror, then show it (when this state feeds
    the mirror itself: watching a table)."""
    on_message(state, msg, state.mirror.apply(msg))


def on_message(state: TuiState, msg: m.ServerMessage, changed: Change = NOTHING) -> None:
    """Show one server message the mirror has already taken in (``changed``: what it
    changed there), or a reply that never reaches it: the log, the message line, the
    clock, the bell (by :data:`SCREEN_HANDLERS`)."""
    handler = SCREEN_HANDLERS.get(msg)
    if handler is not None:
        handler(state, msg, changed)


def _on_table_state(state: TuiState, msg: m.TableState, changed: Change) -> None:
    _log_chat(state, changed.chat)
    state.composer.forget_play()
    if state.mode is not Mode.TABLE or state.notice.style == "info":
        state.say("")  # "Joining...", "Taking back...": done now
    state.mode = Mode.TABLE
    state.composer.clamp_cursor()
    turn, left = msg.turn, msg.turn_left
    _set_clock(state, turn, left, msg.turn_seconds)
    if msg.clock_stopped and turn is not None and left is not None:
        state.clock.stop(Seat(turn), left)
    state.clock.next_deal_in(state.mirror.next_deal_in)
    _apply_snapshot(state, msg)
    gathering.check_ready_kept(state)


def _on_deal_started(state: TuiState, msg: m.DealStarted, _changed: Change) -> None:
    state.composer.forget_play()
    state.composer.cursor = 0
    state.say("")  # whatever it said ("Joining...", "Ready...") is over
    if state.panels.overlay is Overlay.ASK:
        state.panels.close()
    state.add_log(f"Deal {msg.deal}: {msg.dealer} deals, {msg.first} plays first.", "good")


def _on_turn(state: TuiState, msg: m.Turn, _changed: Change) -> None:
    _set_clock(state, msg.seat, msg.seconds, state.clock.limit or msg.seconds)


def _on_your_turn(state: TuiState, _msg: m.YourTurn, _changed: Change) -> None:
    # The server's word that we are to play (after ``turn``, and after a snapshot or a
    # resumed record when it is our turn): the prompt and the bell hang on it.
    _your_turn(state)


def _on_clock(state: TuiState, msg: m.Clock, _changed: Change) -> None:
    if msg.stopped:
        state.clock.stop(msg.seat, msg.seconds)
        return
    _set_clock(state, msg.seat, msg.seconds, state.clock.limit)
    if state.my_turn:
        _your_turn(state)  # the clock runs again (a pause ended): say whose turn it is


def _on_played(state: TuiState, msg: m.Played, changed: Change) -> None:
    if changed:
        _log_played(state, msg)


def _on_match_ended(state: TuiState, msg: m.MatchEnded, _changed: Change) -> None:
    winner, scores = msg.winner, msg.scores
    side = "Your side" if state.you is not None and state.you.team is winner \
        else f"Team {winner}"
    state.add_log(f"Match over: {side} wins, {scores.get(Team.NS, 0)}-"
                  f"{scores.get(Team.EW, 0)} (NS-EW).", "good")
    state.say(f"Match over. {state.after_match_keys}, Ctrl-Q: quit.")


def _on_rematch_started(state: TuiState, _msg: m.RematchStarted, _changed: Change) -> None:
    state.add_log("Rematch: a new match at this table.", "good")
    state.rematch_target = None
    state.say("")


def _on_player_gone(state: TuiState, msg: m.PlayerGone, _changed: Change) -> None:
    # The server cannot tell a quit from a dropped line: say only what is known.
    state.add_log(f"{state.seat_label(msg.seat)} is away (quit, or the connection "
                  f"dropped); the seat is held {msg.seconds:.0f} s.", "warn")


def _on_hint_taken(state: TuiState, msg: m.HintTaken, _changed: Change) -> None:
    mine = msg.seat is state.you
    state.add_log(notice_text(msg, mine, state.seat_label(msg.seat)), "" if mine else "warn")


def _on_question_asked(state: TuiState, msg: m.QuestionAsked, _changed: Change) -> None:
    # Only from an older server: this one tells partner's questions at the end.
    about = f" about their {ordinal(msg.index)} card" if msg.index else ""
    state.add_log(f"Partner ({msg.asker}) asked {state.seat_label(msg.seat)}{about}.")


def _on_answer(state: TuiState, msg: m.AnswerMessage, _changed: Change) -> None:
    state.add_log(f"{state.seat_label(msg.seat)} answers: {msg.text}", "answer")
    state.say(f"{msg.seat} answered: {msg.text}")


def _on_table_created(state: TuiState, msg: m.TableCreated, _changed: Change) -> None:
    state.add_log(f"Created table {msg.name} ({msg.table}).", "good")
    state.lobby.created(msg)


def _on_chat(state: TuiState, msg: m.ChatMessage, changed: Change) -> None:
    # The table's lines come through the mirror (which keeps them); the lobby's do not.
    _log_chat(state, (line_of(msg),) if msg.channel == "lobby" else changed.chat)


def _on_deal_ended(state: TuiState, msg: m.DealEnded, _changed: Change) -> None:
    _apply_deal_ended(state, msg)


def _on_rematch_wanted(state: TuiState, msg: m.RematchWanted, _changed: Change) -> None:
    gathering.rematch_wanted(state, msg)


def _on_player_joined(state: TuiState, msg: m.PlayerJoined, _changed: Change) -> None:
    state.add_log(f"{msg.name} sits at {msg.seat}.")


def _on_player_left(state: TuiState, msg: m.PlayerLeft, _changed: Change) -> None:
    state.add_log(f"{msg.seat} left the table.")


def _on_player_back(state: TuiState, msg: m.PlayerBack, _changed: Change) -> None:
    state.add_log(f"{state.seat_label(msg.seat)} is back.")


def _on_bot_takeover(state: TuiState, msg: m.BotTakeover, _changed: Change) -> None:
    state.add_log(f"{article(msg.strategy).capitalize()} {msg.strategy} bot plays "
                  f"{msg.seat} until its player returns.", "warn")


def _on_conventions(state: TuiState, msg: m.ConventionsChanged, _changed: Change) -> None:
    state.add_log(f"{msg.team} play the '{msg.card.name}' convention card (c shows it).",
                  "warn")


def _on_hint(state: TuiState, msg: m.HintReply, _changed: Change) -> None:
    state.take_hint(msg)


def _on_explanation(state: TuiState, msg: m.Explanation, _changed: Change) -> None:
    state.add_log(f"{msg.seat}'s {ordinal(msg.index)} card {msg.card}: {msg.text}")


def _on_question(state: TuiState, msg: m.Question, _changed: Change) -> None:
    _apply_question(state, msg)


def _on_tables(state: TuiState, msg: m.Tables, _changed: Change) -> None:
    state.lobby.set_tables(msg.tables, msg.total)


def _on_pause(state: TuiState, msg: m.PauseState, _changed: Change) -> None:
    _apply_pause(state, msg)


def _on_shutdown(state: TuiState, msg: m.ServerShutdown, _changed: Change) -> None:
    state.add_log(f"Server: {msg.reason}", "warn")


def _on_error(state: TuiState, msg: m.Error, _changed: Change) -> None:
    state.on_error(msg.code, msg.message)


def _set_clock(state: TuiState, seat: str | None, seconds: float | None,
               limit: float | None) -> None:
    # A snapshot of a paused table gives what the clock had when it stopped.
    state.clock.set(None if seat is None else Seat(seat), seconds, limit,
                    paused=state.mirror.paused)


def _apply_snapshot(state: TuiState, snapshot: m.TableState) -> None:
    """A snapshot: the questions still waiting for our answer, and, when we took a
    seat back or came to watch, where the match stands (the log of a client that
    never left has the deals too)."""
    you = state.you
    announce = you is None or state.taking_back
    state.taking_back = False
    if announce and not any(line.text.startswith("Deal ") for line in state.log):
        for done in state.mirror.deals:  # what the log said of them, as it was
            state.add_log(deal_result_text(done.deal, done.winner, done.penalty,
                                          done.victory_points), "good")
    if you is not None:
        kept = {q.question for q in state.questions_to_me}
        state.questions_to_me = [
            m.Question(question=q.question, seat=q.seat, text=q.text or "",
                       asker=q.asker, index=q.index)
            for q in state.mirror.questions if q.seat is you]
        for q in state.questions_to_me:
            if q.question not in kept:
                about = f" about your {ordinal(q.index)} card" if q.index else ""
                state.add_log(f"{q.asker} asks you{about}: {q.text}  (r to reply)",
                             "answer")
                state.say(f"{q.asker} asks you a question: press r to reply.")
    if announce and you is not None:
        # Back mid-deal (a restarted client): this deal's answers, as they came.
        for qa in snapshot.answered or ():
            about = f" about {'your' if qa.seat is you else 'their'} {ordinal(qa.index)} " \
                    f"card" if qa.index else ""
            if qa.asker is you:
                state.add_log(f"You asked {qa.seat}{about}: {qa.text} - {qa.answer}", "answer")
            else:
                state.add_log(f"{qa.asker} asked you{about}: {qa.text} - you said: "
                              f"{qa.answer}")
        if snapshot.questions_left is not None:
            state.add_log(f"You may ask {snapshot.questions_left} more question(s) this "
                          f"deal.")
    if announce:
        where = standing(state)
        state.add_log((f"You took your seat back at {you}: {where}." if you is not None
                      else f"Watching table {snapshot.name}: {where}."), "good")


def _apply_pause(state: TuiState, msg: m.PauseState) -> None:
    """Someone asked for, agreed to or ended a pause (the mirror holds where it
    stands): stop or restart our picture of the clock, and say it."""
    who = state.who(msg.seat)
    if msg.paused:
        state.clock.freeze()
        # Not "{who} agreed": a pause also begins when the last one to agree leaves.
        # Only the players resume: a spectator is not offered the key.
        seated = state.you is not None
        state.add_log(f"The table is paused (asked by {msg.asked_by}): clocks stopped"
                     + ("; p resumes." if seated else "."), "warn")
        state.say("Paused. Press p to resume." if seated else "Paused by the players.")
    elif msg.asked_by is None:
        state.clock.thaw()
        # A request also lapses when everyone who agreed to it has gone.
        state.add_log(f"{who} resumed: the pause is over."
                     if state.mirror.seats[msg.seat].connected
                     else "The pause is over.", "good")
        state.say("")
    elif msg.seat is msg.asked_by and msg.agreed == [msg.seat]:
        mine = msg.seat is state.you
        state.add_log(f"{who} asked for a pause" + ("." if mine or state.you is None
                                                  else " (p agrees)."), "warn")
    else:
        state.add_log(f"{who} agreed to the pause.")


def _log_chat(state: TuiState, lines: tuple[m.ChatLine, ...]) -> None:
    for line in lines:
        seat = f" ({line.seat})" if line.seat is not None else ""
        room = {"lobby": "lobby", "spectators": "spectators"}.get(line.channel)
        where = f"[{room}] " if room else ""
        state.add_log(f"{where}{line.name}{seat}: {line.text}", "chat")


def _log_played(state: TuiState, msg: m.Played) -> None:
    seat = msg.seat
    if msg.by is not None and seat is state.you:
        why = "your time ran out" if msg.by == "clock" else "you were away"
        state.substitute_note = f"the substitute played {msg.card} for you: {why}"
        state.add_log(f"The substitute played {msg.card} for you ({why}).", "warn")
        state.say(state.substitute_note[0].upper() + state.substitute_note[1:] + "; the seat "
                 "is still yours.", "error")
    elif seat is state.you:
        state.substitute_note = ""
    if seat is state.you:
        state.composer.awaiting_play = None
        state.composer.clamp_cursor()
        if state.notice.style != "error":
            state.say("")
    extra = ""
    if state.you is None or seat.team is not state.you.team:
        meaning = state.explain(seat, msg.index)
        # The explanation starts "3rd card 7H: ..." which the log line already says.
        extra = ": " + meaning[0].split(": ", 1)[-1] if meaning else ""
    if msg.by is not None and seat is not state.you:
        # Everyone is told, so nobody takes a bot's card for the player's signal.
        extra += (" ~ by the clock: time ran out" if msg.by == "clock"
                  else " ~ by the substitute: the player is away")
    state.add_log(f"{state.who(seat)} played {msg.card} ({ordinal(msg.index)}){extra}",
                  "warn" if msg.by is not None and seat is not state.you else "")


def _your_turn(state: TuiState) -> None:
    """It became our turn: say so, and ring once per turn (if the bell is on)."""
    if state.substitute_note:  # keep telling what happened while we were not playing
        state.say(f"Your turn ({state.substitute_note}).", "error")
    else:
        state.say("Your turn: pick a card (arrows + Enter, or type it).")
    state.bell.ring_for_turn((state.mirror.deal, state.mirror.plays_made))


def _apply_deal_ended(state: TuiState, msg: m.DealEnded) -> None:
    state.composer.clamp_cursor()
    state.clock.next_deal_in(msg.next_deal_in)
    state.add_log(deal_result_text(msg.deal, msg.winner, msg.penalty,
                                  msg.victory_points), "good")
    for q in msg.questions or ():
        if q.asker is state.you:
            continue  # we saw our own, and their answers, as they came
        about = f" about their {ordinal(q.index)} card" if q.index else ""
        answer = q.answer if q.answer is not None else "(no answer)"
        state.add_log(f"{state.seat_label(q.asker)} asked {state.seat_label(q.seat)}{about}: "
                      f"{q.text} - {answer}")
    if state.you is not None:
        state.say("Deal over. Press n when ready for the next deal.")


def _apply_question(state: TuiState, msg: m.Question) -> None:
    about = f" about their {ordinal(msg.index)} card" if msg.index else ""
    if msg.id is not None or (state.you is not None and msg.asker is state.you):
        # The receipt of our own question.
        state.add_log(f"You asked {msg.seat}{about}: {msg.text}")
        return
    state.questions_to_me.append(msg)
    asker = msg.asker or "?"
    about = f" about your {ordinal(msg.index)} card" if msg.index else ""
    state.add_log(f"{asker} asks you{about}: {msg.text}  (r to reply)", "answer")
    state.say(f"{asker} asks you a question: press r to reply.")


def standing(state: TuiState) -> str:
    """Where the match stands, in words: "deal 3, W to play; NS 120 - EW 80 (target
    300)"."""
    mirror = state.mirror
    scores = (f"NS {mirror.scores.get(Team.NS, 0)} - EW {mirror.scores.get(Team.EW, 0)} "
              f"(target {mirror.target})")
    status = mirror.status
    if status == "waiting":
        return f"the match has not started; {scores}"
    if status == "over":
        return f"the match is over; {scores}"
    if status == "between_deals":
        return f"deal {mirror.deal} is over; {scores}"
    turn = mirror.turn
    who = "" if turn is None else (", your turn" if turn is state.you
                                   else f", {turn} to play")
    return f"deal {mirror.deal}, play {mirror.plays_made + 1} of 32{who}; {scores}"


#: What each server message does to the screen (a test checks every type is here). The
#: ignored ones show nothing: the connection's own (welcome, ping, pong), replies whose
#: sender shows them (``ok``, ``hello_ok``, ``joined``, ``help``), and what the screen
#: draws from the mirror alone (``player_ready``, ``expert_cost``).
SCREEN_HANDLERS: Handlers[Callable[[TuiState, Any, Change], None]] = Handlers({
    m.TableState: _on_table_state,
    m.DealStarted: _on_deal_started,
    m.Turn: _on_turn,
    m.YourTurn: _on_your_turn,
    m.Clock: _on_clock,
    m.Played: _on_played,
    m.DealEnded: _on_deal_ended,
    m.MatchEnded: _on_match_ended,
    m.RematchWanted: _on_rematch_wanted,
    m.RematchStarted: _on_rematch_started,
    m.PlayerJoined: _on_player_joined,
    m.PlayerLeft: _on_player_left,
    m.PlayerGone: _on_player_gone,
    m.PlayerBack: _on_player_back,
    m.BotTakeover: _on_bot_takeover,
    m.ConventionsChanged: _on_conventions,
    m.HintReply: _on_hint,
    m.HintTaken: _on_hint_taken,
    m.Explanation: _on_explanation,
    m.Question: _on_question,
    m.QuestionAsked: _on_question_asked,
    m.AnswerMessage: _on_answer,
    m.Tables: _on_tables,
    m.TableCreated: _on_table_created,
    m.ChatMessage: _on_chat,
    m.PauseState: _on_pause,
    m.ServerShutdown: _on_shutdown,
    m.Error: _on_error,
}, ignored=(
    m.Welcome, m.ServerPing, m.ServerPong, m.Ok, m.HelloOk, m.Joined, m.HelpReply,
    m.PlayerReady, m.ExpertCost,
))
