"""A table while its people gather: before the first deal (nobody is ready by sitting
down) and after a match (the rematch). What the table waits for (an empty seat, a player
gone, someone who has not said ready or asked), what n, b, o and g do then, and the line
that tells a player whose ready the server lost to press n again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ...game.conventions import BUILTIN_CARDS
from ...game.seats import SEATS, Seat
from ...protocol import messages as m
from ...protocol import requests
from ..mirror import TableMirror

__all__ = ["ask_rematch", "bots_only", "check_ready_kept", "rematch_options",
           "rematch_wanted", "said_ready", "waiting_line"]


class TuiState(Protocol):
    """What this module reads and calls of the client's state (:mod:`.state` imports
    this module, so it names no class of that one)."""

    mirror: TableMirror
    can_rematch: bool
    rematch_target: int | None
    ready_for: int | None

    @property
    def you(self) -> Seat | None: ...

    @property
    def after_match_keys(self) -> str: ...

    def say(self, text: str, style: str = "info") -> None: ...

    def send(self, msg: Any) -> None: ...

    def add_log(self, text: str, style: str = "") -> None: ...

    def seat_label(self, seat: Seat) -> str: ...

    def open_prompt(self, label: str, on_submit: Callable[[str], str | None], *,
                    max_len: int = 200) -> None: ...


def bots_only(seats: Mapping[Seat, str], you: Seat | None) -> bool:
    """Every seat but ``you`` holds a server-side bot (``seats``: each seat's kind, as
    the snapshot that came with our seat had them): nobody to greet, so sitting down may
    count as ready at once."""
    return you is not None and all(seats.get(s) == "bot" for s in SEATS if s is not you)


def _missing(state: TuiState) -> tuple[list[str], list[str], list[str]]:
    """The seats that are empty, the persons gone (seated, not connected), and the
    others here who have not said ready (after a match: not asked for the rematch)."""
    seats, you = state.mirror.seats, state.you
    empty = [s.value for s in SEATS if seats[s].kind == "empty"]
    gone = [s.value for s in SEATS if seats[s].kind == "human" and not seats[s].connected]
    slow = [s.value for s in SEATS if seats[s].kind == "human" and seats[s].connected
            and not seats[s].ready and s is not you]
    return empty, gone, slow


def _waits(state: TuiState, empty_key: str) -> str:
    """"S left (b: bot); N gone; waiting for W, you (n)": what the table waits for."""
    empty, gone, slow = _missing(state)
    you = state.you
    parts = []
    if empty:
        parts.append(f"{' '.join(empty)} {empty_key}")
    if gone:
        parts.append(f"{' '.join(gone)} gone")
    if you is not None and not state.mirror.seats[you].ready:
        slow.append("you (n)")
    if slow:
        parts.append("waiting for " + ", ".join(slow))
    return "; ".join(parts)


def waiting_line(state: TuiState) -> str:
    """The turn line before the first deal and after the match."""
    mirror = state.mirror
    if mirror.status == "waiting":
        waits = _waits(state, "free (b: bot)" if state.you is not None else "free")
        return f" Before the first deal: {waits or 'starting'}."
    winner = mirror.winner.value if mirror.winner else "?"
    if state.you is None or not state.can_rematch:
        return f" Match over: {winner} win. {state.after_match_keys}, Ctrl-Q: quit."
    target = state.rematch_target or mirror.target
    # The winner is in the log and the summary: this line says what the rematch needs.
    return f" Rematch to {target}: {_waits(state, 'left (b: bot)') or 'starting'}."


def said_ready(state: TuiState) -> None:
    """n before the first deal or between deals: ready (remembered for this deal)."""
    state.send(requests.Ready())
    state.ready_for = state.mirror.deal
    state.say("Ready; waiting for the others (the deal starts when all have said it).")


def ask_rematch(state: TuiState, target: int | None = None) -> None:
    """n after the match: ask for the rematch (again, with ``target``: new terms)."""
    you = state.you
    assert you is not None
    info = state.mirror.seats.get(you)
    if info is None or not info.ready or target is not None:
        state.send(requests.Rematch(target=target))
    empty, gone, slow = _missing(state)
    needs = [f"{' '.join(empty)} left (b: bot)" if empty else "",
             f"{' '.join(gone)} gone" if gone else "",
             f"waiting for {' '.join(slow)}" if slow else ""]
    said = "; ".join(n for n in needs if n) or "waiting for the server"
    # The key bar lists o (target, card) and g (lobby): the line keeps to what is new.
    state.say(f"Rematch asked for: {said}.")


def rematch_options(state: TuiState) -> None:
    """o after the match: another target and/or our side's card for the rematch; the
    others must then ask again (the server withdraws their asks on a new target)."""
    you = state.you
    if you is None or state.mirror.status != "over" or not state.can_rematch:
        state.say("o changes the rematch's target and your side's card, after a match.",
                  "error")
        return
    mirror = state.mirror
    card = mirror.conventions.get(you.team)
    now = f"{state.rematch_target or mirror.target}, {card.name if card else '?'}"
    cards = "/".join(sorted(BUILTIN_CARDS))

    def submit(text: str) -> str | None:
        target: int | None = None
        name: str | None = None
        for word in text.lower().split():
            if word.isdigit() and 1 <= int(word) <= 1_000_000:
                target = int(word)
            elif word in BUILTIN_CARDS:
                name = word
            else:
                return f"'{word[:20]}' is neither a target (1-1000000) nor a card ({cards})."
        if target is None and name is None:
            return f"Type a target, a card ({cards}), or both: '500 advanced'."
        if name is not None:
            state.send(requests.Conventions(card=name))
        ask_rematch(state, target)
        return None

    state.open_prompt(f"Rematch (now {now}): target and/or card: ", submit, max_len=40)


def rematch_wanted(state: TuiState, msg: m.RematchWanted) -> None:
    """Someone asked for the rematch; a new target means we must ask again."""
    who = "You" if msg.seat is state.you else state.seat_label(msg.seat)
    new = msg.target is not None and msg.target != (state.rematch_target
                                                    or state.mirror.target)
    if msg.target is not None:
        state.rematch_target = msg.target
    target = msg.target or state.mirror.target
    points = f"{target} point{'' if target == 1 else 's'}"
    state.add_log(f"{who} asked for a rematch to {points}.", "warn" if new else "info")
    if new and msg.seat is not state.you and state.you is not None:
        state.say(f"{msg.seat} asks a rematch to {points}: n agrees, g: lobby.")


def check_ready_kept(state: TuiState) -> None:
    """After a snapshot (a reconnect, a restart): if we said ready for this deal and the
    server no longer has it, say so plainly; nothing starts until we press n again."""
    you, mirror = state.you, state.mirror
    if you is None or mirror.status not in ("waiting", "between_deals"):
        state.ready_for = None
        return
    if state.ready_for == mirror.deal and not mirror.seats[you].ready:
        state.ready_for = None
        state.add_log("Your ready was lost (the server restarted?): press n again.", "warn")
        state.say("Your ready was lost: press n again when you are ready.", "error")
