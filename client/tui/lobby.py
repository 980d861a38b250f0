"""The lobby screen of ``jackal play``: the server's tables and what one does with them
(:class:`LobbyState`: the list, the selection, join, watch, create, add a bot), and the
two intents the network task turns into several messages (:class:`JoinSeat`,
:class:`SpectateTable`). No I/O: what must go to the server is queued."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...game.conventions import BUILTIN_CARDS
from ...game.errors import MalformedInput
from ...game.seats import Seat
from ...protocol import messages as m
from ...protocol import requests

__all__ = ["JoinSeat", "LobbyState", "OpenPrompt", "SpectateTable", "free_seats"]


@dataclass(frozen=True)
class JoinSeat:
    """Intent: sit at ``seat`` (any free seat if None) of ``table`` and play from there;
    ``invite``: the seat's code at a private table."""

    table: str
    seat: Seat | None
    invite: str | None = None


@dataclass(frozen=True)
class SpectateTable:
    """Intent: watch ``table``."""

    table: str


#: What the lobby queues for the network task: a message, or one of the two intents above.
LobbyIntent = requests.ClientMessage | JoinSeat | SpectateTable


class OpenPrompt(Protocol):
    """Open a one-line text entry; ``on_submit`` gets the text and returns an error to
    show (the prompt stays open) or None (it closes)."""

    def __call__(self, label: str, on_submit: Callable[[str], str | None], *,
                 max_len: int = 200, text: str = "",
                 check: Callable[[str], str] | None = None, hint: str = "") -> None: ...


_YES_NO_STEPS = ("hints", "private", "spectators")
_CARDS = ", ".join(BUILTIN_CARDS)
_CREATE_STEPS = [
    ("name", "New table name (Enter = default): "),
    ("target", "Target in victory points (Enter = 300): "),
    ("ns", f"NS convention card ({_CARDS}; Enter = beginner): "),
    ("ew", f"EW convention card ({_CARDS}; Enter = beginner): "),
    ("hints", "Allow hints, y/n (Enter = the server's default): "),
    ("clock", "Clock, seconds per card, 5 or more (0 = none, Enter = the server's "
              "default): "),
    ("private", "Private, seats by invitation code only, y/n (Enter = no): "),
    ("spectators", "Allow spectators at the private table, y/n (Enter = no): ")]
#: The create_table field a server's refusal names, and the dialog's step that asks it.
_FIELD_STEP = {"name": "name", "target": "target", "conventions_ns": "ns",
               "conventions_ew": "ew", "hints": "hints", "turn_seconds": "clock",
               "private": "private", "allow_spectators": "spectators"}


def create_problem(key: str, text: str, *, partial: bool = False) -> str:
    """What is wrong with ``text`` as the answer to the create dialog's ``key`` ("" when
    nothing); ``partial``: it is still being typed, so a beginning of an answer is fine."""
    if not text:
        return ""
    if key == "target" and (not text.isdigit() or int(text) < 1):
        return "The target is a positive whole number."
    if key in ("ns", "ew"):
        name = text.lower()
        if name in BUILTIN_CARDS:
            return ""
        starting = [card for card in BUILTIN_CARDS if card.startswith(name)]
        if partial and starting:
            return ""
        return f"No card is called {text[:20]!r}: {_CARDS}."
    if key in _YES_NO_STEPS:
        words = ("y", "yes", "n", "no")
        if text.lower() in words or (partial and any(w.startswith(text.lower())
                                                     for w in words)):
            return ""
        return "Answer y or n (or Enter for the default)."
    if key == "clock":
        if partial and (text.replace(".", "", 1).isdigit()):
            return ""  # "1" may become "15"
        if _clock_value(text) is None:
            return "The clock is 0 (none) or a number of seconds, at least 5."
    return ""


def _yes(text: str) -> bool:
    return text.strip().lower() in ("y", "yes")


def _clock_value(text: str) -> float | None:
    """Seconds per card as typed: 0 (no clock) or at least 5 (the server's minimum);
    None when it is neither."""
    try:
        value = float(text)
    except ValueError:
        return None
    if value != value or value < 0 or 0 < value < 5 or value > 86400:  # NaN too
        return None
    return value


def free_seats(info: m.TableInfo) -> list[str]:
    """The names of the seats nobody holds at a listed table ("E", "S" ...)."""
    return [seat for seat, who in info.seats.items() if who is None]


@dataclass
class LobbyState:
    """The table list and the lobby's actions.

    :class:`LobbyState` holds the table list and the selection, and the lobby's actions
    (join, watch, create, add a bot, refresh). :class:`~jackal.client.tui.state.TuiState`
    owns one as ``state.lobby`` and hands it the three things it needs from the rest of the
    client at construction (``say``, ``send``, ``open_prompt``), so this module knows nothing
    of the TUI state and the key bindings and layout reach the lobby through its owner. Like
    the rest of the state, nothing here does I/O: what must go to the server is queued with
    ``send``, including the two intents defined here (:class:`JoinSeat`,
    :class:`SpectateTable`), which the network task turns into several messages.

    The add-bot prompt lives here too: the lobby uses it for the selected table, and the
    table screen for its own table while it waits for players.
    """

    #: Show a line on the message line, with a style ("info", "error" ...).
    say: Callable[[str, str], None]
    #: Queue a message or intent for the network task.
    send: Callable[[LobbyIntent], None]
    open_prompt: OpenPrompt
    tables: list[m.TableInfo] = field(default_factory=list)
    cursor: int = 0
    #: A table we just created: selected as soon as the list shows it ("Enter joins it").
    select_when_listed: str | None = None
    #: The create-table dialog's answers so far (kept if it is left with Esc), and those
    #: of the ``create_table`` awaiting the server's answer (back in the dialog if refused).
    create_answers: dict[str, str] = field(default_factory=dict)
    create_pending: dict[str, str] | None = None

    #: Tables on the server (the list holds the first page of them).
    tables_total: int = 0
    #: The invitation codes of the private tables we created, with each table's name, by
    #: table id: the server sends them once, so they are kept here to show and to use
    #: (and saved by the app, which puts them back here when it starts again).
    invitations: dict[str, tuple[str, dict[Seat, str]]] = field(default_factory=dict)

    def remember(self, table: str, name: str, codes: dict[Seat, str]) -> None:
        self.invitations[table] = (name, dict(codes))

    def codes_of(self, table: str) -> dict[Seat, str] | None:
        """Our codes for ``table``; None when we have none, or when the listed table of
        that id has another name (a server restarted without records reuses ids)."""
        kept = self.invitations.get(table)
        listed = next((info for info in self.tables if info.table == table), None)
        if kept is None or (listed is not None and listed.name != kept[0]):
            return None
        return kept[1]

    def created(self, msg: m.TableCreated) -> None:
        """Our ``create_table`` succeeded: select the table once listed, keep its codes."""
        self.select_when_listed = msg.table
        self.create_pending = None
        if msg.invitations:
            self.remember(msg.table, msg.name, dict(msg.invitations))
            self.say(f"Private table {msg.name} created: pass each seat's code on (shown "
                     f"under the list). Enter joins it.", "info")
        else:
            self.say(f"Table {msg.name} created: Enter joins it, b adds bots.", "info")

    def invitation_lines(self, table: str) -> list[str]:
        """The codes of ``table`` (ours) to pass on, two seats a line; none if not ours."""
        codes = self.codes_of(table)
        if not codes:
            return []
        pairs = [f"{seat} {codes[seat]}" for seat in Seat if seat in codes]
        return ["   ".join(pairs[i:i + 2]) for i in range(0, len(pairs), 2)]

    def set_tables(self, tables: Sequence[m.TableInfo], total: int | None = None) -> None:
        """A fresh table list from the server; the selection stays on the list (or moves
        to the table we just created)."""
        self.tables = list(tables)
        self.tables_total = max(total or 0, len(self.tables))
        self.cursor = min(self.cursor, max(len(self.tables) - 1, 0))
        ids = [info.table for info in self.tables]
        if self.select_when_listed in ids:
            self.cursor = ids.index(self.select_when_listed)
            self.select_when_listed = None

    def selected_table(self) -> m.TableInfo | None:
        if 0 <= self.cursor < len(self.tables):
            return self.tables[self.cursor]
        return None

    def _selected_or_say(self, missing: str = "No table selected.") -> m.TableInfo | None:
        """The selected table; with none, tell the player ``missing`` and return None."""
        info = self.selected_table()
        if info is None:
            self.say(missing, "error")
        return info

    def move(self, step: int) -> None:
        if self.tables:
            self.cursor = (self.cursor + step) % len(self.tables)

    def refresh(self) -> None:
        self.send(requests.ListTables())

    def join(self) -> None:
        """Enter in the lobby: ask which seat, then join the selected table."""
        info = self._selected_or_say("No table selected: press c to create one.")
        if info is None:
            return
        free = free_seats(info)
        codes = self.codes_of(info.table)
        if info.private and codes is None:
            self._join_invited(info)
            return

        def join(text: str) -> str | None:
            text = text.strip()
            try:
                seat = Seat.parse(text) if text else None
            except MalformedInput:
                return "Type N, E, S or W (or nothing for any free seat)."
            if seat is not None and seat.value not in free:
                return f"{seat} is taken; free: {' '.join(free) or 'none'}."
            invite = None
            if codes is not None:  # our own private table: our codes open its seats
                seat = seat or Seat(free[0] if free else "N")
                invite = codes.get(seat)
            self.send(JoinSeat(info.table, seat, invite))
            self.say(f"Joining {info.name}...", "info")
            return None

        self.open_prompt(f"Seat at {info.name} (free: {' '.join(free) or 'none'}; "
                         f"Enter = any): ", join, max_len=1)

    def _join_invited(self, info: m.TableInfo) -> None:
        """A private table someone else created: its seats open with their codes only."""

        def join(text: str) -> str | None:
            code = text.strip()
            if not code:
                return "Type the invitation code its creator gave you (Esc: back)."
            self.send(JoinSeat(info.table, None, code))
            self.say(f"Joining {info.name} with your invitation...", "info")
            return None

        self.open_prompt(f"{info.name} is private. Invitation code: ", join, max_len=64)

    def spectate(self) -> None:
        info = self._selected_or_say()
        if info is None:
            return
        if not info.allow_spectators:
            self.say(f"{info.name} allows no spectators.", "error")
            return
        self.send(SpectateTable(info.table))
        self.say(f"Watching {info.name}...", "info")

    def create(self, start: str = "name", why: str = "") -> None:
        """c in the lobby: name, target, the two convention cards, hints, the clock,
        privacy and (for a private table) spectators, one prompt each. Each answer is
        checked as it is typed and the choices are listed; the answers are kept, so after
        a server's refusal the dialog opens again at the answer it refused (``start``,
        with the server's words ``why``) and nothing typed is lost."""
        answers = self.create_answers
        keys = [key for key, _label in _CREATE_STEPS]

        def ask(step: int) -> None:
            key, label = _CREATE_STEPS[step]

            def take(text: str) -> str | None:
                text = text.strip()
                problem = create_problem(key, text)
                if problem:
                    return problem
                answers[key] = text
                # The spectators question is for a private table only.
                last = step + 1 == len(_CREATE_STEPS) or (key == "private" and not _yes(text))
                if not last:
                    ask(step + 1)
                    return None
                # Sent: the next dialog starts afresh, unless the server refuses this.
                sent = self.create_pending = dict(answers)
                answers.clear()
                self.send(requests.CreateTable(
                    name=sent.get("name") or None,
                    target=int(sent["target"]) if sent.get("target") else 300,
                    conventions_ns=(sent.get("ns") or "beginner").lower(),
                    conventions_ew=(sent.get("ew") or "beginner").lower(),
                    hints=None if not sent.get("hints") else _yes(sent["hints"]),
                    turn_seconds=_clock_value(sent["clock"]) if sent.get("clock") else None,
                    private=_yes(sent.get("private", "")),
                    allow_spectators=_yes(sent["spectators"])
                    if sent.get("spectators") and _yes(sent.get("private", "")) else None))
                self.send(requests.ListTables())
                return None

            self.open_prompt(label, take, max_len=64, text=answers.get(key, ""),
                             check=lambda typed: create_problem(key, typed.strip(), partial=True),
                             hint=why if key == start else "")

        ask(keys.index(start) if start in keys else 0)

    def create_refused(self, message: str) -> bool:
        """The server refused our ``create_table``: open the dialog again at the answer it
        names, every answer kept. False when no create was waiting for its answer."""
        if self.create_pending is None:
            return False
        self.create_answers.update(self.create_pending)
        self.create_pending = None
        named = re.search(r"field '(\w+)'", message)
        self.create(_FIELD_STEP.get(named.group(1), "name") if named else "name",
                    f"Server: {message}")
        return True

    def add_bot(self) -> None:
        """b in the lobby: put a server-side bot in a free seat of the selected table."""
        info = self._selected_or_say()
        if info is None:
            return
        self.bot_prompt(info.table, free_seats(info), refresh=True)

    def bot_prompt(self, table: str, free: list[str], *, refresh: bool) -> None:
        """Ask for "seat [strategy]" and add that bot to ``table``; ``refresh`` asks for
        the table list again afterwards (the lobby shows it)."""
        if not free:
            self.say("That table is full.", "error")
            return

        def add(text: str) -> str | None:
            parts = text.split()
            seat_text = parts[0] if parts else free[0]
            try:
                seat = Seat.parse(seat_text)
            except MalformedInput:
                return ("Type a seat (N E S W), then optionally a strategy: 'E random' "
                        "(without one the server picks the bot that fits that side's card).")
            if seat.value not in free:
                return f"{seat} is taken; free: {' '.join(free)}."
            # No strategy: the server's choice for that partnership's declared card.
            strategy = parts[1] if len(parts) > 1 else None
            # Our own private table: the seat's code lets us fill it from any connection.
            invite = (self.codes_of(table) or {}).get(seat)
            self.send(requests.AddBot(table=table, seat=seat, strategy=strategy, invite=invite))
            if refresh:
                self.send(requests.ListTables())
            return None

        self.open_prompt(f"Bot at (free: {' '.join(free)}) [seat strategy]: ", add,
                         max_len=64)
