"""The lobby as ``jackal play`` draws it: the server's tables, two lines each."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ...game.seats import SEATS
from ...protocol.messages import TableInfo
from ...protocol.text import display_width, escape_text, fit_width
from .fit import drawn, padded, screen_width
from .state import TuiState

__all__ = ["render_lobby"]

#: The start of a lobby entry's second line.
_SEATS_LABEL = "   "


def render_lobby(state: TuiState) -> StyleAndTextTuples:
    """The list of tables with their seats; the selected one in reverse video."""
    if not state.lobby.tables:
        if state.link.status != "connected":  # no list came: say why, not that it is empty
            why = {"lost": "Not connected", "unreachable": "The server cannot be reached",
                   "reconnecting": "Connection lost"}.get(state.link.status, "Connecting")
            return [("", f"\n {why}: no list of tables yet.\n")]
        return [("", "\n No tables yet: press c to create one, g to refresh.\n")]
    # Two lines a table, each fitted to the screen, so no name or flag runs off its edge:
    # the table and its settings, then the seats (with room for names).
    width = max(screen_width() - 1, 40)
    out: StyleAndTextTuples = [("class:title", fit_width(
        f" {'table':<10} {'name':<20} {'target':>6}  {'status':<13} settings", width)
        + "\n" + fit_width(f"{_SEATS_LABEL}N / E / S / W", width) + "\n")]
    for i, info in enumerate(state.lobby.tables):
        flags = [f"CLOCK {info.turn_seconds:g}s"] if info.turn_seconds else []
        flags += [flag for flag, on in (("HINTS", info.hints), ("PRIVATE", info.private),
                                        ("SEEDED", info.seeded)) if on]
        if info.spectators:
            flags.append(f"{info.spectators} watching")
        head = (f" {padded(info.table, 10)} {padded(info.name, 20)} {info.target:>6}  "
                f"{info.status[:13]:<13}")
        settings = " ".join(flags)
        if display_width(f"{head} {settings}") <= width:
            head = f"{head} {settings}".rstrip()
        else:  # on a line of their own rather than cut off
            head += "\n" + fit_width(_SEATS_LABEL + settings, width)
        seats = " / ".join(_lobby_seats(info, width - len(_SEATS_LABEL)))
        entry = head + "\n" + fit_width(_SEATS_LABEL + seats, width)
        out.append(("class:cursor" if i == state.lobby.cursor else "", entry))
        out.append(("", "\n"))
    selected = state.lobby.selected_table()
    if selected is not None:
        out += _lobby_selected(state, selected)
    return out


def _lobby_selected(state: TuiState, info: TableInfo) -> StyleAndTextTuples:
    """Under the list: who made the selected table, whether it is private, and the
    codes to pass on when it is our own private table."""
    about = [f"by {info.creator}" if info.creator else "creator unknown"]
    if info.private:
        about.append("PRIVATE: seats by invitation code")
    if not info.allow_spectators:
        about.append("no spectators")
    out: StyleAndTextTuples = [("", f"\n {drawn(info.name, 32)} ({drawn(info.table, 64)}): "
                                    f"{', '.join(about)}\n")]
    codes = state.lobby.invitation_lines(info.table)
    if codes:
        out.append(("class:title", " Invitation codes to pass on (each opens one seat):\n"))
        out += [("", f"   {line}\n") for line in codes]
    return out


def _lobby_seats(info: TableInfo, room: int) -> list[str]:
    """The four seats of a lobby entry in ``room`` columns (with " / " between them):
    each whole when they fit, else the longest cut first, so short names leave their
    room to long ones. A server-side bot is marked (a person's name may not look like a
    bot's, so the mark is the server's word)."""
    shown = []
    for seat in SEATS:
        name = escape_text(info.seats.get(seat) or "-")
        shown.append(f"[bot] {name.removesuffix(' bot')}" if info.kinds.get(seat) == "bot"
                     else name)
    room -= 3 * len(" / ")
    cap = max(display_width(text) for text in shown)
    while cap > 4 and sum(min(display_width(text), cap) for text in shown) > room:
        cap -= 1
    return [fit_width(text, cap) for text in shown]

