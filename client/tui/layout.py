"""The screens of ``jackal play``, drawn from a :class:`~jackal.client.tui.state.TuiState`:
pure ``render_*`` functions that read the state when prompt_toolkit draws (tests call them
directly), put in windows by :func:`build_layout`. Colour is a help, never the only
signal: suits are letters, held groups bracketed, whose turn it is marked with ``>``."""

from __future__ import annotations

from collections.abc import Callable

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
from prompt_toolkit.widgets import Frame

from ...game.cards import rank_name
from ...game.seats import Team
from ...protocol.text import display_width, fit_width
from .clock import between_deals_text, clock_text, clock_warning
from .fit import (
    MIN_SIZE,
    drawn,
    log_text,
    padded,
    screen_size,
    screen_width,
    wrap_fragments,
    wrap_words,
)
from .gathering import waiting_line
from .lobby_screen import render_lobby
from .meaning import short_meaning
from .overlays import overlay_title, render_overlay, render_quit
from .state import Mode, Overlay, TuiState, ordinal
from .summary import (
    card_style,
    card_text,
    render_dealt,
    shows_dealt,
)

__all__ = [
    "build_layout",
    "render_footer",
    "render_hand",
    "render_header",
    "render_log",
    "render_message",
    "render_result",
    "render_rows",
    "render_turn",
    "screen_text",
]


ClickHandler = Callable[[MouseEvent], object]


def _team_of_you(state: TuiState) -> Team | None:
    return state.you.team if state.you is not None else None


# ==================================================================== table screen


def render_header(state: TuiState, server: str = "") -> StyleAndTextTuples:
    """Two lines: table, deal, dealer, target, connection; then the score and the cards."""
    mirror = state.mirror
    name = drawn(mirror.name, 20) or ("lobby" if state.mode is Mode.LOBBY else "")
    left = f" JACKAL  {name}"
    status = {"connected": "connected", "connecting": "connecting...",
              "reconnecting": f"RECONNECTING ({state.link.retry_text()})",
              "unreachable": f"UNREACHABLE ({state.link.retry_text()})", "lost": "DISCONNECTED",
              "closed": "closed"}.get(state.link.status, state.link.status)
    if state.mode is Mode.TABLE and mirror.table is not None:
        deal = f"deal {mirror.deal}" if mirror.deal else "before the first deal"
        dealer = f"  dealer {mirror.dealer}" if mirror.dealer else ""
        facts = f"  |  {deal}{dealer}  |  target {mirror.target}"
        # The table's name gives way first, so the facts and the status always show.
        room = screen_width() - len(status) - 3 - len(facts) - len(" JACKAL  ")
        left = f" JACKAL  {fit_width(name, max(room, 4))}{facts}"
    elif server:
        left += f"  {server}"
    status_style = "class:header.status.ok" if state.link.status in ("connected", "connecting") \
        else "class:header.status.bad"
    width = max(screen_width() - len(status) - 2, display_width(left) + 1)
    out: StyleAndTextTuples = [("class:header", padded(left, width)),
                               (status_style, f" {status} "), ("", "\n")]
    if state.mode is Mode.LOBBY:
        shown = len(state.lobby.tables)
        total = state.lobby.tables_total
        if state.link.status != "connected" and not shown:
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
    if state.clock.limit:  # the table's clock: a late card is the substitute's
        flags.append(("class:dim", f" CLOCK {state.clock.limit:g}s"))
    if mirror.hints and state.you is not None:  # seated players may ask the expert
        flags.append(("class:dim", " HINTS (x)"))
    # What the second line holds so far (the first line is out's first three pieces).
    used = sum(display_width(text) for _style, text, *_ in out[3:] + flags)
    cards = "  ".join(f"{team}: {drawn(mirror.conventions[team].name, 16)}"
                      for team in (Team.NS, Team.EW) if team in mirror.conventions)
    if cards:  # the cards' names give way to the score and the flags on a narrow screen
        named = f"  |  cards {cards} (c)"
        if used + display_width(named) > screen_width() - 1:
            named = fit_width(f"  |  {cards}", max(screen_width() - 1 - used - 4, 1)) + " (c)"
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
    target = state.panels.ask_target if state.panels.overlay is Overlay.ASK else None
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
        out.append((label_style, padded(marker + label, 24) + " "))
        row = mirror.rows[seat]
        for i, card in enumerate(row, start=1):
            style = card_style(card)
            if target == (seat, i):
                style += " class:cursor"
            out.append((style, card_text(card, symbols)))
            # ~ a card the clock or the substitute played (no signal), * the newest one.
            bot = "~" if (seat, i) in mirror.played_by else ""
            mark = "*" if newest == (seat, i) else ""
            out.append(("class:log.warn", bot))
            out.append(("class:newest", mark))
            out.append(("", " " * (5 - len(card_text(card, symbols)) - len(bot + mark))))
        out.append(("", "\n"))
        declared = mirror.conventions.get(seat.team)
        sub = f"    {seat.team} {drawn(declared.name, 16) if declared else ''}"
        if mirror.status == "waiting" and info.kind != "empty":
            sub += "  ready" if info.ready else "  not ready"
        out.append(("class:dim", padded(sub, 24) + " "))
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
    if mirror.status in ("waiting", "over"):
        return [("class:turn" if mirror.status == "over" else "", waiting_line(state))]
    if mirror.status == "between_deals":
        between = between_deals_text(state)
        keys = "n: ready" if state.you is not None else ""
        return [("", " Deal over. " + ". ".join(p for p in (between, keys) if p) + ".")]
    if mirror.turn is None:
        return [("", " ...")]
    clock = clock_text(state)
    if state.my_turn and mirror.play_number is not None:
        out: StyleAndTextTuples = [("class:turn", f" Your turn: your "
                                                  f"{ordinal(mirror.play_number)} card of 8.")]
        if clock:
            out.append(("class:notice.error" if clock_warning(state) else "class:dim",
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
        style = card_style(card) + (" class:card.group" if grouped else "")
        if i == state.composer.cursor and state.prompt is None:
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
    end = min(60 + len(legend), screen_width() - 1)
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
        # By word, as the message line: what the prompt asks and its hint stay whole.
        return wrap_fragments(out, screen_width() - 1)
    out = []
    if state.mode is Mode.TABLE and state.you is not None:
        out.append(("class:prompt", f" Card> {state.composer.typed:<3} "))
    else:
        out.append(("", " "))
    out.append((f"class:notice.{state.notice.style}", state.notice.text))
    # By word, here: the window would cut a word in two at the edge ("Chat o").
    return wrap_fragments(out, screen_width() - 1)


def render_log(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """The event log, newest at the bottom (the window scrolls to it); long lines are
    wrapped at word boundaries."""
    out: StyleAndTextTuples = []
    lines = list(state.log)
    width = max(screen_width() - 2, 20)
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            out.append(("[SetCursorPosition]", ""))
        wrapped = wrap_words(log_text(line.text, symbols), width, indent="   ")
        out.append((f"class:log.{line.style}" if line.style else "", " " + wrapped))
        if i < len(lines) - 1:
            out.append(("", "\n"))
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
                cards_line.append((card_style(card), card_text(card, symbols)))
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
    elif state.panels.overlay is Overlay.ASK:
        text = " Left/Right choose a card  Enter ask a question  Esc close" \
            if state.you is not None else " Left/Right choose a card  Esc close"
    elif state.panels.overlay is Overlay.QUIT:
        text = " y quit  n / Esc stay"
    elif state.panels.overlay is not Overlay.NONE:
        text = " any key closes this panel  (Up/Down PgUp/PgDn Home/End scroll)"
    else:
        keys = ["Up/Down", "Enter join", "s watch", "c create", "b bot", "g list", "m chat"] \
            if state.mode is Mode.LOBBY else _table_keys(state)
        # The most useful keys that fit, and always how to see them all and how to quit.
        text, tail = "", "  ? keys  ^Q quit"
        for key in keys:
            if len(text) + 2 + len(key) + len(tail) > screen_width() - 1:
                break
            text += f"  {key}" if text else f" {key}"
        text += tail
    return [("class:footer", text[:screen_width()].ljust(screen_width()))]


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
    elif status == "over" and state.can_rematch:
        keys += ["n rematch", "b bot", "o target/card", "g lobby"]
    elif status == "between_deals":
        keys.append("n next deal")
    elif status == "over":
        keys.append("n lobby" if state.on_server else "n play again")
    if status != "playing" and state.on_server:
        keys.append("m chat")
    keys += ["c cards", "l log"]
    if state.mirror.deals:
        keys.append("h deals")
    return keys


# ==================================================================== assembly


def build_layout(state: TuiState, *, symbols: bool = False, server: str = "") -> Layout:
    """The whole screen: the table or the lobby, with panels floating on top.

    The ``render_*`` functions go in windows here. The table screen fits 80x24 (header 2
    lines, the four rows 8, turn line 1, hand 2, message 1, footer 1; the log takes the
    rest and grows with the terminal).

    Colour is a help, never the only signal: suits are always written as letters (or suit
    symbols with ``symbols=True``), held groups are bracketed as well as highlighted, the
    cursor is reverse video with a caret under it, and whose turn it is has a ``>`` marker.
    """

    screen = FloatContainer(_body(state, symbols, server), floats=_panels(state, symbols))
    # Below the smallest size the screen fits, say so instead of cutting it up.
    fits = Condition(lambda: all(have >= need for have, need in zip(screen_size(), MIN_SIZE,
                                                                   strict=True)))
    root = HSplit([
        ConditionalContainer(screen, filter=fits),
        ConditionalContainer(Window(_text(lambda: render_too_small(state)), wrap_lines=True),
                             filter=~fits),
    ])
    return Layout(root)


def _text(render: Callable[[], StyleAndTextTuples]) -> FormattedTextControl:
    return FormattedTextControl(render, focusable=False, show_cursor=False)


def _body(state: TuiState, symbols: bool, server: str) -> HSplit:
    """The screen under the panels: header, the table or the lobby, message, log, footer."""
    in_table = Condition(lambda: state.mode is Mode.TABLE)
    in_lobby = Condition(lambda: state.mode is Mode.LOBBY)
    showing_result = Condition(lambda: state.mirror.last_deal is not None
                               and state.mirror.status in ("between_deals", "over"))
    table = HSplit([
        Window(_text(lambda: render_rows(state, symbols)), height=8),
        # Two lines when the clock's warning does not fit beside the turn.
        Window(_text(lambda: wrap_fragments(render_turn(state), screen_width() - 1)),
               height=Dimension(min=1, max=2)),
        Window(_text(lambda: render_hand(state, symbols, state.composer.click_card)),
               height=2),
    ])
    log = Window(_text(lambda: render_log(state, symbols)), wrap_lines=True,
                 height=Dimension(min=1, weight=1))
    result = Window(_text(lambda: render_result(state, symbols)), height=7)
    return HSplit([
        Window(_text(lambda: render_header(state, server)), height=2),
        ConditionalContainer(table, filter=in_table),
        ConditionalContainer(Window(_text(lambda: render_lobby(state)),
                                    height=Dimension(min=3, weight=2)), filter=in_lobby),
        # A long prompt (a question being answered) wraps onto a second line or third line.
        Window(_text(lambda: render_message(state)), wrap_lines=True,
               height=Dimension(min=1, max=3)),
        ConditionalContainer(result, filter=in_table & showing_result),
        log,
        Window(_text(lambda: render_footer(state)), height=1),
    ])


def _panels(state: TuiState, symbols: bool) -> list[Float]:
    """The panels over the screen: the big ones over all of it, the small ones (asking,
    quitting) over the log."""

    def panel() -> Frame:
        return Frame(Window(_text(lambda: render_overlay(state, symbols)), wrap_lines=True),
                     title=lambda: overlay_title(state))

    small = (Overlay.ASK, Overlay.QUIT)
    big_panel = Condition(lambda: state.panels.overlay not in (Overlay.NONE, *small))
    small_panel = Condition(lambda: state.panels.overlay in small)
    # Fixed margins rather than the panels' preferred sizes: panels then use what the
    # terminal has and redraw sensibly on resize. The small ones sit over the log, so
    # the rows (with the card being asked about highlighted) stay in view.
    return [
        # Edge to edge: a margin beside a panel showed a column of the screen under it.
        Float(ConditionalContainer(panel(), filter=big_panel), top=2, bottom=1, left=0, right=0),
        Float(ConditionalContainer(panel(), filter=small_panel), height=8, bottom=1, left=0,
              right=0),
    ]


def render_too_small(state: TuiState) -> StyleAndTextTuples:
    """The notice that the terminal is too small; the Ctrl-Q question in its place while
    it is asked, so quitting can be confirmed at any size."""
    columns, rows = screen_size()
    if state.panels.overlay is Overlay.QUIT:
        return wrap_fragments(render_quit(state), max(columns - 1, 10))
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

