"""Asking about an opponent's card in ``jackal play``: choosing the card, the question to its
player, and answering the questions put to us."""

from __future__ import annotations

from ...game.explain import ordinal
from ...game.seats import Seat
from ...protocol import requests
from .state import Overlay, TuiState

__all__ = ["ask_question", "askable", "move_ask", "open_ask", "reply_question"]


def askable(state: TuiState) -> list[tuple[Seat, int]]:
    """The cards one may ask about: every played card of the opponents (all seats when
    spectating), newest first."""
    mine = None if state.you is None else state.you.team
    return [(seat, index) for seat, index in reversed(state.mirror.places())
            if seat.team is not mine]


def open_ask(state: TuiState) -> None:
    """e: pick an opponent's card and see what it means (then maybe ask)."""
    cards = askable(state)
    if not cards:
        state.say("No opponent card has been played yet.", "error")
        return
    state.panels.ask_target = cards[0]
    state.panels.overlay = Overlay.ASK


def move_ask(state: TuiState, step: int) -> None:
    """Move the ask selection to the previous/next askable card."""
    cards = askable(state)
    if not cards:
        return
    current = cards.index(state.panels.ask_target) if state.panels.ask_target in cards else 0
    state.panels.ask_target = cards[(current - step) % len(cards)]


def ask_question(state: TuiState) -> None:
    """Enter in the ask panel: type a free-text question to the card's player."""
    if state.panels.ask_target is None:
        return
    seat, index = state.panels.ask_target
    if state.you is None:
        state.say("Spectators cannot ask questions: only the players at the table can.",
                 "error")
        return
    if state.mirror.seats[seat].kind == "empty":
        state.say("Nobody sits there to answer.", "error")
        return

    def send(text: str) -> str | None:
        if not text.strip():
            return "Type a question first (Esc to cancel)."
        state.send(requests.Ask(seat=seat, index=index, text=text.strip()))
        state.panels.close()
        state.say(f"Question sent to {seat}; the answer will appear here and in the log.")
        return None

    state.open_prompt(f"Ask {seat} about their {ordinal(index)} card: ", send,
                     max_len=1000)


def reply_question(state: TuiState) -> None:
    """r: answer the oldest question the opponents asked you."""
    if not state.questions_to_me:
        state.say("Nobody has asked you anything.", "error")
        return
    question = state.questions_to_me[0]

    def send(text: str) -> str | None:
        if not text.strip():
            return "Type an answer first (Esc to cancel)."
        state.send(requests.AnswerQuestion(question=question.question, text=text.strip()))
        state.questions_to_me.remove(question)
        state.add_log(f"You answered {question.asker or '?'}: {text.strip()}")
        state.say("Answer sent.")
        return None

    asked = question.text if len(question.text) <= 60 else question.text[:57] + "..."
    # What it asks for, first: a long question wrapped to a bare ":" at the line's start.
    state.open_prompt(f"Your answer to {question.asker or '?'}'s question \"{asked}\": ",
                      send, max_len=1000)
