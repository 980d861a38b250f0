"""The screens of ``jackal play``, drawn from a :class:`~jackal.client.tui.state.TuiState`.

Every ``render_*`` function is pure: it reads the state when prompt_toolkit draws and
returns formatted text, so tests can call them directly. :func:`build_layout` puts them in
windows. The table screen fits 80x24 (header 2 lines, the four rows 8, turn line 1, hand
2, message 1, footer 1; the log takes the rest and grows with the terminal).

Colour is a help, never the only signal: suits are always written as letters (or suit
symbols with ``symbols=True``), held groups are bracketed as well as highlighted, the
cursor is reverse video with a caret under it, and whose turn it is has a ``>`` marker.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from ...game.cards import rank_name
from ...game.explain import describe_card
from ...game.seats import SEATS, TEAMS, Team
from ...protocol.messages import TableInfo
from ...protocol.text import display_width, escape_text, fit_width
from .meaning import short_meaning
from .state import Mode, Overlay, TuiState, ordinal
from .summary import (
    SUIT_SYMBOLS,
    card_style,
    card_text,
    render_dealt,
    render_evening,
    shows_dealt,
)

__all__ = [
    "KEY_HELP",
    "STYLE",
    "build_layout",
    "card_text",
    "render_footer",
    "render_hand",
    "render_header",
    "render_lobby",
    "render_log",
    "render_message",
    "render_overlay",
    "render_result",
    "render_rows",
    "render_turn",
    "screen_text",
]

STYLE = Style.from_dict({
    "header": "bg:ansiblue ansiwhite bold",
    "header.status.ok": "bg:ansiblue ansiwhite",
    "header.status.bad": "bg:ansired ansiwhite bold",
    "score": "bold",
    "card.red": "ansired bold",
    "card.black": "bold",
    "card.group": "underline",
    "cursor": "reverse",
    "meaning": "ansibrightblack",
    "turn": "ansigreen bold",
    "label": "",
    "label.you": "bold",
    "gone": "ansiyellow",
    "notice.info": "ansicyan",
    "notice.error": "ansired bold",
    "prompt": "bold",
    "log.good": "ansigreen",
    "log.warn": "ansiyellow",
    "log.error": "ansired",
    "log.answer": "ansimagenta bold",
    "log.chat": "ansiblue",
    "footer": "reverse",
    "newest": "ansiyellow bold",
    "kept": "underline",
    "title": "bold underline",
    "dim": "ansibrightblack",
})

#: (keys, what they do) for the table screen and the lobby; ``?`` shows them all.
KEY_HELP: dict[str, list[tuple[str, str]]] = {
    "Table": [
        ("Left / Right", "move along your hand"),
        ("Enter", "play the card under the cursor (or the one you typed)"),
        ("7h, th, 10s, q♠", "type a card, then Enter to play it (Backspace edits)"),
        ("mouse click", "click a card of your hand to play it"),
        ("e", "an opponent's card: its meaning, then ask a question"),
        ("r", "reply to a question an opponent asked you"),
        ("c", "show both partnerships' convention cards"),
        ("l", "show the whole event log"),
        ("h", "the match so far: penalties, points, information cost"),
        ("x", "hint: the expert's card for you, and why (if HINTS)"),
        ("n / g", "ready, next deal, rematch after the match / g: lobby after it"),
        ("b", "before the match: put a bot in a free seat ('E', or 'E random')"),
        ("m / p", "chat (not during a deal) / pause: ask, agree, resume"),
        ("Esc", "clear what you typed, close a panel"),
    ],
    "Under the cards": [
        ("7s", "promises a pair of sevens (as the partnership's card says)"),
        ("7s?", "the same, or a spare high card with nothing to promise"),
        ("+7 / -7", "answers partner: holds a seven / holds none"),
        ("-", "a signal card that promises nothing (an edge rank)"),
        (".", "a free discard: no meaning"),
        ("*", "marks the newest card on the table"),
    ],
    "Ask panel": [
        ("Left / Right", "previous / next opponent card"),
        ("Enter", "write a free-text question to the card's player"),
    ],
    "Lobby": [
        ("Up / Down", "choose a table"),
        ("Enter", "join the table (you pick the seat; private: your invitation code)"),
        ("s", "watch the table as a spectator (if its creator allows it)"),
        ("c", "create a table (name, target, cards, hints, clock, private)"),
        ("b", "add a server-side bot to a free seat"),
        ("g", "refresh the list"),
        ("m", "chat with the lobby"),
    ],
    "Anywhere": [
        ("?", "this help (any key closes it)"),
        ("Ctrl-Q / Ctrl-C", "quit (asks first during a match)"),
    ],
}

ClickHandler = Callable[[MouseEvent], object]


_card_style = card_style


def _team_of_you(state: TuiState) -> Team | None:
    return state.you.team if state.you is not None else None


# ==================================================================== table screen


def render_header(state: TuiState, server: str = "") -> StyleAndTextTuples:
    """Two lines: table, deal, dealer, target, connection; then the score and the cards."""
    mirror = state.mirror
    name = _shown(mirror.name, 20) or ("lobby" if state.mode is Mode.LOBBY else "")
    left = f" JACKAL  {name}"
    status = {"connected": "connected", "connecting": "connecting...",
              "reconnecting": f"RECONNECTING ({state.retry_text()})",
              "unreachable": f"UNREACHABLE ({state.retry_text()})", "lost": "DISCONNECTED",
              "closed": "closed"}.get(state.status, state.status)
    if state.mode is Mode.TABLE and mirror.table is not None:
        deal = f"deal {mirror.deal}" if mirror.deal else "before the first deal"
        dealer = f"  dealer {mirror.dealer}" if mirror.dealer else ""
        facts = f"  |  {deal}{dealer}  |  target {mirror.target}"
        # The table's name gives way first, so the facts and the status always show.
        room = _width() - len(status) - 3 - len(facts) - len(" JACKAL  ")
        left = f" JACKAL  {fit_width(name, max(room, 4))}{facts}"
    elif server:
        left += f"  {server}"
    status_style = "class:header.status.ok" if state.status in ("connected", "connecting") \
        else "class:header.status.bad"
    width = max(_width() - len(status) - 2, display_width(left) + 1)
    out: StyleAndTextTuples = [("class:header", _cell(left, width)),
                               (status_style, f" {status} "), ("", "\n")]
    if state.mode is Mode.LOBBY:
        shown = len(state.lobby.tables)
        total = state.lobby.tables_total
        if state.status != "connected" and not shown:
            out.append(("", "\n"))  # no list came: no count to give
            return out
        more = f" (the first {shown} shown)" if total > shown else ""
        out.append(("", f" {max(total, shown)} table(s) on the server{more}\n"))
        return out
    mine = _team_of_you(state)
    out.append(("", " Score "))
    for team in (Team.NS, Team.EW):
        tag = " (you)" if team is mine else ""
        out.append(("class:score", f" {team} {mirror.scores.get(team, 0)}{tag} "))
    # Before the cards: a long card name must not push it off the line.
    out += _pause_mark(state)
    flags: StyleAndTextTuples = []
    if mirror.seeded:  # its creator chose the seed, so may know every hand
        flags.append(("class:header.status.bad", " SEEDED "))
    if mirror.hints:  # seated players may ask the expert; everyone is told
        flags.append(("class:dim", " HINTS (x)"))
    # What the second line holds so far (the first line is out's first three pieces).
    used = sum(display_width(text) for _style, text, *_ in out[3:] + flags)
    cards = "  ".join(f"{team}: {_shown(mirror.conventions[team].name, 16)}"
                      for team in (Team.NS, Team.EW) if team in mirror.conventions)
    if cards:  # the cards' names give way to the score and the flags on a narrow screen
        named = f"  |  cards {cards} (c)"
        if used + display_width(named) > _width() - 1:
            named = fit_width(f"  |  {cards}", max(_width() - 1 - used - 4, 1)) + " (c)"
        out.append(("class:dim", named))
    out += flags
    out.append(("", "\n"))
    return out


def _pause_mark(state: TuiState) -> StyleAndTextTuples:
    """PAUSED and who asked; or the request waiting for us to agree."""
    pause = state.mirror.pause
    if pause is None:
        return []
    asker = pause.asked_by
    if pause.paused:
        key = " (p resumes)" if state.you is not None else ""  # a spectator cannot
        return [("class:header.status.bad", f" PAUSED by {asker}{key} ")]
    if state.you is not None and state.you not in pause.agreed:
        return [("class:header.status.bad", f" {asker} asks a pause (p agrees) ")]
    return [("class:dim", f"  pause asked by {asker}")]


def render_rows(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """The four rows in play order: a card line and a meaning line per seat. Between
    deals, the deal's summary instead (:mod:`.summary`), but the rows while the ask
    panel points at one of their cards."""
    mirror = state.mirror
    target = state.ask_target if state.overlay is Overlay.ASK else None
    if target is None and shows_dealt(mirror):
        return render_dealt(mirror, symbols)
    out: StyleAndTextTuples = []
    newest = mirror.newest
    for seat in mirror.play_order:
        info = mirror.seats[seat]
        turn = mirror.turn is seat and mirror.status == "playing"
        marker = "> " if turn else "  "
        label = state.seat_label(seat)
        if not info.connected and info.kind == "human":
            label += " (gone)"
        if info.bot:
            label += f" [{info.bot} bot]"
        label_style = "class:turn" if turn else ("class:label.you" if seat is state.you
                                                   else "class:label")
        out.append((label_style, _cell(marker + label, 24) + " "))
        row = mirror.rows[seat]
        for i, card in enumerate(row, start=1):
            style = _card_style(card)
            if target == (seat, i):
                style += " class:cursor"
            out.append((style, card_text(card, symbols)))
            mark = "*" if newest == (seat, i) else ""
            out.append(("class:newest", mark))
            out.append(("", " " * (5 - len(card_text(card, symbols)) - len(mark))))
        out.append(("", "\n"))
        declared = mirror.conventions.get(seat.team)
        sub = f"    {seat.team} {_shown(declared.name, 16) if declared else ''}"
        if mirror.status == "waiting" and info.kind != "empty":
            sub += "  ready" if info.ready else "  not ready"
        out.append(("class:dim", _cell(sub, 24) + " "))
        for i in range(1, len(row) + 1):
            explained = state.explain(seat, i)
            short = short_meaning(explained[1]) if explained else ""
            out.append(("class:meaning", short[:4].ljust(5)))
        out.append(("", "\n"))
    return out


def render_turn(state: TuiState) -> StyleAndTextTuples:
    """Whose turn it is, or what the table is waiting for."""
    mirror = state.mirror
    if mirror.table is None:
        return [("class:dim", " Connecting to the table...")]
    if mirror.status == "waiting":
        empty = [s.value for s in SEATS if mirror.seats[s].kind == "empty"]
        waiting = [s.value for s in SEATS if mirror.seats[s].kind == "human"
                   and not mirror.seats[s].ready]
        if empty:
            return [("", f" Waiting for players at {' '.join(empty)}.")]
        return [("", f" Waiting for {' '.join(waiting) or 'the deal'} to be ready"
                     f"{' (n: ready)' if state.you is not None else ''}.")]
    if mirror.status == "over":
        winner = mirror.winner.value if mirror.winner else "?"
        again = state.after_match_keys
        return [("class:turn", f" Match over: {winner} win. {again}, Ctrl-Q: quit.")]
    if mirror.status == "between_deals":
        between = state.between_deals_text()
        keys = "n: ready" if state.you is not None else ""
        return [("", " Deal over. " + ". ".join(p for p in (between, keys) if p) + ".")]
    if mirror.turn is None:
        return [("", " ...")]
    clock = state.clock_text()
    if state.my_turn and mirror.play_number is not None:
        out: StyleAndTextTuples = [("class:turn", f" Your turn: your "
                                                  f"{ordinal(mirror.play_number)} card of 8.")]
        if clock:
            out.append(("class:notice.error" if state.clock_warning() else "class:dim",
                        f"  {clock}"))
        return out
    return [("", f" Waiting for {state.seat_label(mirror.turn)}."
                 + (f"  {clock}" if clock else ""))]


def render_hand(state: TuiState, symbols: bool = False,
                on_click: Callable[[int], None] | None = None) -> StyleAndTextTuples:
    """Your hand sorted by rank, groups bracketed and highlighted, a caret under the cursor."""
    if state.you is None:
        return [("class:dim", " Spectating: no hand.\n")]
    hand = state.sorted_hand()
    if not hand:
        return [("class:dim", " Hand  (dealt when the match starts)\n")]
    sizes = state.group_sizes()
    top: StyleAndTextTuples = [("class:label", " Hand  ")]
    column = 7
    caret = -1
    for i, card in enumerate(hand):
        grouped = sizes[card.rank] >= 2
        first_of_group = grouped and (i == 0 or hand[i - 1].rank != card.rank)
        last_of_group = grouped and (i + 1 == len(hand) or hand[i + 1].rank != card.rank)
        handler = _click(on_click, i)
        if first_of_group:
            top.append(("", "["))
            column += 1
        style = _card_style(card) + (" class:card.group" if grouped else "")
        if i == state.cursor and state.prompt is None:
            style += " class:cursor"
            caret = column
        text = card_text(card, symbols)
        top.append((style, text, handler) if handler else (style, text))
        column += len(text)
        if last_of_group:
            top.append(("", "]"))
            column += 1
        top.append(("", " "))
        column += 1
    top.append(("", "\n"))
    held = sorted((rank, count) for rank, count in sizes.items() if count >= 2)
    held_text = [f"{count}x{rank_name(rank)}" for rank, count in held]
    bottom = " " * caret + "^^" if caret >= 0 else ""
    legend = f"held: {' '.join(held_text)}" if held else "no pairs held"
    # Right-aligned within the screen (column 60 at most), cut rather than run off it.
    end = min(60 + len(legend), _width() - 1)
    legend = fit_width(legend, max(end - len(bottom) - 1, 1))
    pad = max(1, end - len(bottom) - len(legend))
    top.append(("class:turn", bottom))
    top.append(("class:dim", " " * pad + legend + "\n"))
    return top


def _click(on_click: Callable[[int], None] | None, index: int) -> ClickHandler | None:
    if on_click is None:
        return None

    def handler(event: MouseEvent) -> object:
        if event.event_type is MouseEventType.MOUSE_UP:
            on_click(index)
            return None
        return NotImplemented

    return handler


def render_message(state: TuiState) -> StyleAndTextTuples:
    """The input line: an open prompt, or what is being typed and the latest message."""
    if state.prompt is not None:
        prompt = state.prompt
        out: StyleAndTextTuples = [("class:prompt", " " + prompt.label), ("", prompt.text),
                                   ("[SetCursorPosition]", ""), ("class:cursor", " ")]
        if prompt.hint:
            out.append(("class:notice.error", "  " + prompt.hint))
        return out
    out = []
    if state.mode is Mode.TABLE and state.you is not None:
        out.append(("class:prompt", f" Card> {state.typed:<3} "))
    else:
        out.append(("", " "))
    out.append((f"class:notice.{state.notice_style}", state.notice))
    return out


_CARD_IN_TEXT = re.compile(r"\b([A2-9TJQK])([SHDC])\b")


def log_text(text: str, symbols: bool = False) -> str:
    """A log line as shown: with ``symbols``, the cards in it drawn with suit symbols."""
    if not symbols:
        return text
    return _CARD_IN_TEXT.sub(lambda found: found.group(1) + SUIT_SYMBOLS[found.group(2)], text)


def render_log(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """The event log, newest at the bottom (the window scrolls to it); long lines are
    wrapped at word boundaries."""
    out: StyleAndTextTuples = []
    lines = list(state.log)
    width = max(_width() - 2, 20)
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            out.append(("[SetCursorPosition]", ""))
        wrapped = wrap_words(log_text(line.text, symbols), width, indent="   ")
        out.append((f"class:log.{line.style}" if line.style else "", " " + wrapped))
        if i < len(lines) - 1:
            out.append(("", "\n"))
    return out


def wrap_words(text: str, width: int, indent: str = "  ") -> str:
    """``text`` wrapped by word to ``width`` columns (continuation lines indented), so
    nothing is cut mid-word and nothing runs past a border."""
    if len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width=width, subsequent_indent=indent,
                                    break_on_hyphens=False)) or text


def _wrap_fragments(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Word-wrap formatted text to ``width`` columns, keeping each fragment's style."""
    out: StyleAndTextTuples = []
    column = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        for k, line in enumerate(text.split("\n")):
            if k:
                out.append(("", "\n"))
                column = 0
            for word in re.findall(r"\S+\s*|\s+", line):
                bare = len(word.rstrip())
                if column and column + bare > width:
                    out.append(("", "\n  "))
                    column = 2
                while column + len(word.rstrip()) > width:  # a word longer than a line
                    room = max(width - column, 1)
                    out.append((style, word[:room]))
                    out.append(("", "\n"))
                    word, column = word[room:], 0
                out.append((style, word))
                column += len(word)
    return out


def render_result(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """At the end of a deal: both teams' ten cards grouped by rank with what each group
    costs, the penalties, the victory points and the scores."""
    result = state.mirror.last_deal
    if result is None:
        return []
    mirror = state.mirror
    if result.winner is None:
        head = f" Deal {result.deal} over: a tie, nobody scores."
    else:
        who = " (you)" if state.you is not None and state.you.team is result.winner \
            else ""
        head = f" Deal {result.deal} over: {result.winner}{who} win +{result.points} points."
    out: StyleAndTextTuples = [("class:title", head), ("", "\n")]
    for team in (Team.NS, Team.EW):
        groups = result.breakdown.get(team, [])
        cards_line: StyleAndTextTuples = [("class:score", f" {team} {team.seats[0]}+"
                                                          f"{team.seats[1]} ")]
        points_line = " " * 8
        for group in groups:
            cards = group.cards
            text = " ".join(card_text(c, symbols) for c in cards)
            if len(cards) > 1:
                text = f"[{text}]"
            pts = str(group.points)
            width = max(len(text), len(pts))
            for j, card in enumerate(cards):
                prefix = "[" if j == 0 and len(cards) > 1 else ""
                cards_line.append(("", prefix))
                cards_line.append((_card_style(card), card_text(card, symbols)))
                suffix = "]" if j == len(cards) - 1 and len(cards) > 1 else " " if \
                    j < len(cards) - 1 else ""
                cards_line.append(("", suffix))
            cards_line.append(("", " " * (width - len(text)) + " "))
            points_line += pts.ljust(width) + " "
        penalty = result.penalty.get(team, 0)
        cards_line.append(("class:score", f" = {penalty}"))
        out.extend(cards_line)
        out.append(("", "\n"))
        out.append(("class:dim", points_line.rstrip() + "\n"))
    scores = "  ".join(f"{t} {mirror.scores.get(t, 0)}" for t in (Team.NS, Team.EW))
    out.append(("", f" Scores: {scores}  (target {mirror.target})"))
    if mirror.status == "over" and mirror.winner is not None:
        again = state.after_match_keys
        out.append(("class:turn", f"\n MATCH OVER: {mirror.winner} win."
                                  f" {again}, Ctrl-Q: quit."))
    elif state.you is not None:
        out.append(("class:dim", "   n: next deal"))
    return out


def render_footer(state: TuiState) -> StyleAndTextTuples:
    """One line of the most useful keys."""
    if state.prompt is not None:
        text = " Enter send  Esc cancel  Backspace edit"
    elif state.overlay is Overlay.ASK:
        text = " Left/Right choose a card  Enter ask a question  Esc close" \
            if state.you is not None else " Left/Right choose a card  Esc close"
    elif state.overlay is Overlay.QUIT:
        text = " y quit  n / Esc stay"
    elif state.overlay is not Overlay.NONE:
        text = " any key closes this panel  (Up/Down scroll)"
    else:
        keys = ["Up/Down", "Enter join", "s watch", "c create", "b bot", "g list", "m chat"] \
            if state.mode is Mode.LOBBY else _table_keys(state)
        # The most useful keys that fit, and always how to see them all and how to quit.
        text, tail = "", "  ? keys  ^Q quit"
        for key in keys:
            if len(text) + 2 + len(key) + len(tail) > _width() - 1:
                break
            text += f"  {key}" if text else f" {key}"
        text += tail
    return [("class:footer", text[:_width()].ljust(_width()))]


def _table_keys(state: TuiState) -> list[str]:
    """The table keys that do something right now, most useful first."""
    status = state.table_status
    if state.you is None:  # watching
        return ["e meaning", "m chat", "c cards", "l log", "h deals", "n lobby"]
    keys: list[str] = []
    if status == "playing":
        keys.append("arrows/type+Enter play" if state.my_turn else "e ask")
        if state.my_turn:
            keys.append("e ask")
    if state.my_turn and state.mirror.hints:
        keys.append("x hint")
    if state.questions_to_me:
        keys.append("r reply")
    if state.mirror.paused:
        keys.append("p resume")
    if status == "waiting":
        keys += ["n ready", "b bot"]
    elif status == "between_deals":
        keys.append("n next deal")
    elif status == "over" and state.can_rematch:
        keys += ["n rematch", "g lobby"]
    elif status == "over":
        keys.append("n lobby" if state.on_server else "n play again")
    if status != "playing" and state.on_server:
        keys.append("m chat")
    keys += ["c cards", "l log"]
    if state.mirror.deals:
        keys.append("h deals")
    return keys


# ==================================================================== lobby


def render_lobby(state: TuiState) -> StyleAndTextTuples:
    """The list of tables with their seats; the selected one in reverse video."""
    if not state.lobby.tables:
        if state.status != "connected":  # no list came: say why, not that it is empty
            why = {"lost": "Not connected", "unreachable": "The server cannot be reached",
                   "reconnecting": "Connection lost"}.get(state.status, "Connecting")
            return [("", f"\n {why}: no list of tables yet.\n")]
        return [("", "\n No tables yet: press c to create one, g to refresh.\n")]
    # Two lines a table, each fitted to the screen, so no name or flag runs off its edge:
    # the table and its settings, then the seats (with room for names).
    width = max(_width() - 1, 40)
    out: StyleAndTextTuples = [("class:title", fit_width(
        f" {'table':<10} {'name':<20} {'target':>6}  {'status':<13} settings", width)
        + "\n" + fit_width(f"{_SEATS_LABEL}N / E / S / W", width) + "\n")]
    for i, info in enumerate(state.lobby.tables):
        flags = [f"CLOCK {info.turn_seconds:g}s"] if info.turn_seconds else []
        flags += [flag for flag, on in (("HINTS", info.hints), ("PRIVATE", info.private),
                                        ("SEEDED", info.seeded)) if on]
        if info.spectators:
            flags.append(f"{info.spectators} watching")
        head = (f" {_cell(info.table, 10)} {_cell(info.name, 20)} {info.target:>6}  "
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
    out: StyleAndTextTuples = [("", f"\n {_shown(info.name, 32)} ({_shown(info.table, 64)}): "
                                    f"{', '.join(about)}\n")]
    codes = state.lobby.invitation_lines(info.table)
    if codes:
        out.append(("class:title", " Invitation codes to pass on (each opens one seat):\n"))
        out += [("", f"   {line}\n") for line in codes]
    return out


#: The start of a lobby entry's second line.
_SEATS_LABEL = "   "


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


# ==================================================================== panels


def render_overlay(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """The content of the open panel."""
    overlay = state.overlay
    out: StyleAndTextTuples = []
    if overlay is Overlay.HELP:
        # "Anywhere" (help, quit) first: a small screen cuts the panel's end.
        sections = ("Anywhere", "Lobby") if state.mode is Mode.LOBBY else \
            ("Anywhere", "Table", "Under the cards", "Ask panel")
        for section in sections:
            keys = KEY_HELP[section]
            out.append(("class:title", f"{section}\n"))
            for key, what in keys:
                out.append(("class:score", f"  {key:<17}"))
                out.append(("", f"{what}\n"))
    elif overlay is Overlay.CONVENTIONS:
        out.extend(_render_conventions(state))
    elif overlay is Overlay.LOG:
        for entry in list(state.log):
            out.append((f"class:log.{entry.style}" if entry.style else "",
                        log_text(entry.text, symbols) + "\n"))
    elif overlay is Overlay.ASK:
        out.extend(_render_ask(state))
    elif overlay is Overlay.HISTORY:
        out.extend(_render_history(state))
    elif overlay is Overlay.HINT:
        out.extend(_render_hint(state))
    elif overlay is Overlay.QUIT:
        out.extend(_render_quit(state))
    # The frame's inner width: wrap by word here rather than let the window cut words.
    out = _wrap_fragments(out, _panel_width())
    if state.panel_scroll and overlay in (Overlay.HELP, Overlay.CONVENTIONS, Overlay.LOG,
                                          Overlay.HISTORY, Overlay.HINT):
        out = _drop_lines(out, state.panel_scroll)
    return out


def _render_quit(state: TuiState) -> StyleAndTextTuples:
    """The Ctrl-Q question (in its panel, or alone on a screen too small for the table)."""
    out: StyleAndTextTuples = [("class:title", "Leave the match?\n\n")]
    if state.on_server:
        out.append(("", "Your seat is held for a while (a bot plays it after that); "
                        "jackal play --server takes it back.\n\n"))
    else:
        out.append(("", "The game ends with it.\n\n"))
    out += [("class:score", "y"), ("", ": quit    "), ("class:score", "n"),
            ("", " / Esc: keep playing")]
    return out


def _render_conventions(state: TuiState) -> StyleAndTextTuples:
    """Both declared cards, each in the words ``jackal conventions show`` prints."""
    out: StyleAndTextTuples = []
    for team in TEAMS:
        card = state.mirror.conventions.get(team)
        mine = " (your side)" if state.you is not None and state.you.team is team else ""
        out.append(("class:title", f"{team}{mine}: "))
        if card is None:
            out.append(("", "no card declared\n\n"))
            continue
        # A card's texts come from the other side: escaped, its notes keep their lines.
        words = escape_text(describe_card(card, width=_panel_width()), multiline=True)
        head, rest = words.split("\n", 1)
        out += [("class:score", head + "\n"), ("", rest + "\n")]
    return out


def _render_history(state: TuiState) -> StyleAndTextTuples:
    """Every deal of the match seen so far, with the running score."""
    mirror = state.mirror
    deals = mirror.deals
    if not deals:
        return [("", "No deal has been scored yet.")]
    out = render_evening(deals, mirror.status in ("between_deals", "over"))
    # Columns: NS-EW pairs; "info" is the information cost, "expert" the expert pair's.
    out.append(("class:title", " deal dlr penalty win pts   score    info   expert\n"))
    for done in deals:
        out.append(("", f" {done.deal:>4} {done.dealer:^3} {_pair(done.penalty)} "
                        f"{done.winner or 'tie':^3} {done.victory_points:>3} "
                        f"{_pair(done.scores)} {_pair(done.information_cost)} "
                        f"{_pair(done.expert_cost)}\n"))
    return out


def _pair(values: Mapping[Team, int] | None) -> str:
    """"209-242" (NS-EW) in seven columns, "-" centred when not known."""
    if values is None:
        return "   -   "
    return f"{values[Team.NS]:>3}-{values[Team.EW]:<3}"


def _render_hint(state: TuiState) -> StyleAndTextTuples:
    """The last hint: the card, and the reasons one sentence a line."""
    hint = state.hint
    if hint is None:
        return [("", "No hint yet: press x on your turn.")]
    out: StyleAndTextTuples = [("class:title", f"The {hint.strategy} bot would play "),
                               (_card_style(hint.card), str(hint.card)), ("", "\n\n")]
    for sentence in re.split(r"(?<=[.!?]) (?=[A-Z])", hint.text)[1:]:
        out.append(("", sentence + "\n"))
    if not hint.honest:
        out.append(("class:notice.error", "Careful: this card's signal is not true of "
                                          "your hand.\n"))
    out.append(("class:dim", "\nAny key closes this panel; the card is then under the "
                             "cursor and Enter plays it. Everyone at the table was told "
                             "you took a hint."))
    return out


def _render_ask(state: TuiState) -> StyleAndTextTuples:
    if state.ask_target is None:
        return [("", "No card selected.")]
    seat, index = state.ask_target
    row = state.mirror.rows[seat]
    if index > len(row):
        return [("", "No card there.")]
    card = row[index - 1]
    card_spec = state.mirror.conventions.get(seat.team)
    out: StyleAndTextTuples = [
        ("class:title", f"{state.seat_label(seat)}: {ordinal(index)} card "),
        (_card_style(card), str(card)), ("", "\n\n")]
    explained = state.explain(seat, index)
    if explained is None:
        out.append(("", "No automatic explanation is available for this card.\n"))
    else:
        name = _shown(card_spec.name, 32) if card_spec else "?"
        out.append(("", f"Under {seat.team}'s card '{name}':\n  {explained[0]}\n"))
    # Only seated players may ask (the server refuses spectators): offer it to them only.
    ask = f"   Enter: ask {seat} a question" if state.you is not None else ""
    out.append(("class:dim", f"\nLeft/Right: other cards{ask}   Esc: close"))
    return out


def _drop_lines(fragments: StyleAndTextTuples, count: int) -> StyleAndTextTuples:
    """Scroll a panel: drop its first ``count`` lines."""
    out: StyleAndTextTuples = []
    dropped = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        if dropped >= count:
            out.append((style, text))
            continue
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if dropped >= count:
                out.append((style, part + ("\n" if k < len(parts) - 1 else "")))
            elif k < len(parts) - 1:
                dropped += 1
    return out


def _overlay_title(state: TuiState) -> str:
    return {Overlay.HELP: "Keys", Overlay.CONVENTIONS: "Convention cards",
            Overlay.LOG: "Event log", Overlay.ASK: "What does it mean?",
            Overlay.QUIT: "Quit", Overlay.HISTORY: "The match so far",
            Overlay.HINT: "Hint"}.get(state.overlay, "")


def _panel_width() -> int:
    """The columns inside a big panel's frame."""
    return max(_width() - 8, 20)


def _shown(text: str | None, width: int) -> str:
    """Text from the server (a name, a card's name) as drawn: escaped (an old record or
    server may hold what today's server refuses) and at most ``width`` columns, so wide
    characters take no more room than narrow ones."""
    return fit_width(escape_text(text or ""), width)


def _cell(text: str, width: int) -> str:
    """:func:`_shown`, padded to exactly ``width`` columns (escaping is idempotent, so
    text with escaped parts may pass again)."""
    shown = _shown(text, width)
    return shown + " " * (width - display_width(shown))


def _width() -> int:
    return _size()[0]


# ==================================================================== assembly


def build_layout(state: TuiState, *, symbols: bool = False, server: str = "") -> Layout:
    """The whole screen: the table or the lobby, with panels floating on top."""

    def text(render: Callable[[], StyleAndTextTuples]) -> FormattedTextControl:
        return FormattedTextControl(render, focusable=False, show_cursor=False)

    def click(index: int) -> None:
        state.click_card(index)

    in_table = Condition(lambda: state.mode is Mode.TABLE)
    in_lobby = Condition(lambda: state.mode is Mode.LOBBY)
    showing_result = Condition(lambda: state.mirror.last_deal is not None
                               and state.mirror.status in ("between_deals", "over"))

    table = HSplit([
        Window(text(lambda: render_rows(state, symbols)), height=8),
        Window(text(lambda: render_turn(state)), height=1),
        Window(text(lambda: render_hand(state, symbols, click)), height=2),
    ])
    log = Window(text(lambda: render_log(state, symbols)), wrap_lines=True,
                 height=Dimension(min=1, weight=1))
    result = Window(text(lambda: render_result(state, symbols)), height=7)
    body = HSplit([
        Window(text(lambda: render_header(state, server)), height=2),
        ConditionalContainer(table, filter=in_table),
        ConditionalContainer(Window(text(lambda: render_lobby(state)),
                                    height=Dimension(min=3, weight=2)), filter=in_lobby),
        # A long prompt (a question being answered) wraps onto a second line or third line.
        Window(text(lambda: render_message(state)), wrap_lines=True,
               height=Dimension(min=1, max=3, preferred=1)),
        ConditionalContainer(result, filter=in_table & showing_result),
        log,
        Window(text(lambda: render_footer(state)), height=1),
    ])
    def panel() -> Frame:
        return Frame(Window(text(lambda: render_overlay(state, symbols)), wrap_lines=True),
                     title=lambda: _overlay_title(state))

    small = (Overlay.ASK, Overlay.QUIT)
    big_panel = Condition(lambda: state.overlay not in (Overlay.NONE, *small))
    small_panel = Condition(lambda: state.overlay in small)
    # Fixed margins rather than the panels' preferred sizes: panels then use what the
    # terminal has and redraw sensibly on resize. The small ones sit over the log, so
    # the rows (with the card being asked about highlighted) stay in view.
    screen = FloatContainer(body, floats=[
        Float(ConditionalContainer(panel(), filter=big_panel), top=2, bottom=1, left=2, right=2),
        Float(ConditionalContainer(panel(), filter=small_panel), height=8, bottom=1, left=2,
              right=2),
    ])
    # Below the smallest size the screen fits, say so instead of cutting it up.
    fits = Condition(lambda: all(have >= need for have, need in zip(_size(), MIN_SIZE,
                                                                   strict=True)))
    root = HSplit([
        ConditionalContainer(screen, filter=fits),
        ConditionalContainer(Window(text(lambda: render_too_small(state)), wrap_lines=True),
                             filter=~fits),
    ])
    return Layout(root)


#: The smallest terminal (columns, rows) the table screen fits: a row label and eight
#: cards across, and header, rows, hand, message, a deal's result and footer down.
MIN_SIZE = (66, 23)


def _size() -> tuple[int, int]:
    try:
        from prompt_toolkit.application.current import get_app_or_none
        app = get_app_or_none()
        if app is not None:
            size = app.output.get_size()
            return size.columns, size.rows
    except Exception:  # drawing must not fail because the size is unknown
        pass
    return 80, 24


def render_too_small(state: TuiState) -> StyleAndTextTuples:
    """The notice that the terminal is too small; the Ctrl-Q question in its place while
    it is asked, so quitting can be confirmed at any size."""
    columns, rows = _size()
    if state.overlay is Overlay.QUIT:
        return _wrap_fragments(_render_quit(state), max(columns - 1, 10))
    quits = "Ctrl-Q asks whether to leave: your match goes on meanwhile." if state.in_match \
        else "Ctrl-Q quits."
    return [("class:notice.error", wrap_words(
        f"The terminal is {columns}x{rows}; Jackal needs at least {MIN_SIZE[0]}x"
        f"{MIN_SIZE[1]}. Make it larger, or {quits}", max(columns - 1, 10)))]


def screen_text(app_screen: object) -> str:
    """The characters of a rendered prompt_toolkit ``Screen`` as lines (for tests and
    debugging); ``app_screen`` is ``app.renderer._last_screen``."""
    from prompt_toolkit.layout.screen import Screen

    if not isinstance(app_screen, Screen):
        return ""
    rows = []
    for y in range(app_screen.height):
        line = app_screen.data_buffer[y]
        width = max(line.keys(), default=-1) + 1
        rows.append("".join(line[x].char for x in range(width)).rstrip())
    return "\n".join(rows)

