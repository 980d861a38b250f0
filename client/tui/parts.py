"""Parts of the terminal client's state, each owning its fields: :class:`ClockView` (the
turn's clock and the countdown to the next deal), :class:`Bell` (once per turn),
:class:`LinkView` (the connection's status and next attempt), :class:`Notice` (the
message line) and :class:`Panels` (what is drawn over the screen)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import Enum

from ...game.seats import Seat
from ...protocol.text import escape_text

__all__ = ["Bell", "ClockView", "LinkView", "Notice", "Overlay", "Panels"]


@dataclass
class ClockView:
    """The turn's clock, when the table has one, and the wait before the next deal."""

    #: The running clock: the seat and when its time runs out (``time.monotonic()``).
    running: tuple[Seat, float] | None = None
    #: The table's per-play limit in seconds, when it has a clock.
    limit: float | None = None
    #: The clock is stopped (its player waits for an answer): the seat and the seconds
    #: it will have when it runs again.
    stopped: tuple[Seat, float] | None = None
    #: While the table is paused: what the running clock had left when it stopped.
    frozen: float | None = None
    #: Between deals: when the next deal starts (``time.monotonic()``), if the server said.
    next_deal_at: float | None = None
    #: The running clock the hurry warning was given for (once per turn).
    warned_for: tuple[Seat, float] | None = None

    def set(self, seat: Seat | None, seconds: float | None, limit: float | None, *,
            paused: bool = False) -> None:
        """``seat`` has ``seconds`` left (None: no clock runs); ``limit`` per play. On a
        paused table the seconds are what the clock had when it stopped."""
        self.running = None if seat is None or seconds is None \
            else (seat, time.monotonic() + seconds)
        self.limit = limit
        self.stopped = None
        self.frozen = seconds if paused else None

    def stop(self, seat: Seat, seconds: float) -> None:
        """The clock stands at ``seconds`` for ``seat`` until told to run again."""
        self.running, self.stopped = None, (seat, seconds)

    def freeze(self) -> None:
        """The table is paused: keep what the running clock has left."""
        if self.running is not None and self.frozen is None:
            self.frozen = max(0.0, self.running[1] - time.monotonic())

    def thaw(self) -> None:
        """The pause is over: the clock runs on from what it had."""
        if self.running is not None and self.frozen is not None:
            self.running = (self.running[0], time.monotonic() + self.frozen)
        self.frozen = None

    def next_deal_in(self, seconds: float | None) -> None:
        self.next_deal_at = None if seconds is None else time.monotonic() + seconds

    def left(self, *, paused: bool) -> float | None:
        """Seconds left on the running clock (None when none runs); while ``paused``, what
        it had when it stopped."""
        if self.running is None:
            return None
        if paused and self.frozen is not None:
            return self.frozen
        return max(0.0, self.running[1] - time.monotonic())

    def first_warning(self) -> bool:
        """True the first time it is asked for the running clock (the hurry bell)."""
        if self.warned_for == self.running:
            return False
        self.warned_for = self.running
        return True


@dataclass
class Bell:
    """The terminal bell: rung when it becomes our turn and when our time is nearly up."""

    #: Ring at all (``--no-bell`` turns it off).
    enabled: bool = True
    #: A ring is due; the application rings it when it next draws (:meth:`take`).
    due: bool = False
    #: The turn (deal, plays made) it last rang for.
    rung_for: tuple[int, int] | None = None

    def ring(self) -> None:
        self.due = self.enabled

    def ring_for_turn(self, turn: tuple[int, int]) -> None:
        """Ring once for ``turn``, however often it is announced."""
        if self.enabled and turn != self.rung_for:
            self.rung_for = turn
            self.due = True

    def take(self) -> bool:
        """Whether a ring is due, clearing it."""
        due, self.due = self.due, False
        return due


#: The log line a change of the connection's status adds.
_STATUS_LOG = {"connected": "Connected.", "reconnecting": "Connection lost: reconnecting...",
               "unreachable": "Not connected, trying again:", "lost": "Disconnected.",
               "closed": "Closed."}


@dataclass
class LinkView:
    """The connection as the header shows it."""

    #: "connecting", "connected", "reconnecting", "unreachable", "lost", "closed".
    status: str = "connecting"
    #: While reconnecting: when the next attempt comes (``time.monotonic()``).
    retry_at: float | None = None

    def set(self, status: str, detail: str = "", retry_in: float | None = None) -> str:
        """Take the network task's news; the log line it is worth ("" if the status is
        the same)."""
        self.retry_at = None if retry_in is None else time.monotonic() + retry_in
        line = ""
        if status != self.status:
            line = _STATUS_LOG.get(status, status) + (f" {detail}" if detail else "")
        self.status = status
        return line

    def retry_text(self) -> str:
        """"next try in 3s" while a reconnection attempt is scheduled, else "trying"."""
        if self.retry_at is None:
            return "trying"
        left = self.retry_at - time.monotonic()
        return f"next try in {math.ceil(left)}s" if left > 0.05 else "trying"


@dataclass
class Notice:
    """The message line, where choices are explained: its text and style."""

    text: str = ""
    #: "info", "error" ... a class name for the layout.
    style: str = "info"

    def say(self, text: str, style: str = "info") -> None:
        """Show ``text`` (escaped, as log lines are)."""
        self.text, self.style = escape_text(text), style


class Overlay(Enum):
    """A panel drawn over the screen, which takes the keys while it is up."""

    NONE = "none"
    HELP = "help"
    CONVENTIONS = "conventions"
    LOG = "log"
    ASK = "ask"
    QUIT = "quit"
    HISTORY = "history"
    HINT = "hint"


@dataclass
class Panels:
    """The panel over the screen, how far it is scrolled, and the card being asked about."""

    overlay: Overlay = Overlay.NONE
    #: Lines scrolled down (drawing keeps it within the panel).
    scroll: int = 0
    #: The card being asked about: (seat, index 1..8).
    ask_target: tuple[Seat, int] | None = None

    def open(self, overlay: Overlay) -> None:
        """Open ``overlay`` at its top."""
        self.overlay, self.scroll = overlay, 0

    def show(self, overlay: Overlay) -> None:
        """Open a panel (toggle it off if it is already open)."""
        self.open(Overlay.NONE if self.overlay is overlay else overlay)

    def close(self) -> None:
        self.overlay = Overlay.NONE
