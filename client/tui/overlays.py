"""The panels ``jackal play`` draws over the table: keys, convention cards, the log, the
match so far, a hint, the ask panel and the Ctrl-Q question."""

from __future__ import annotations

import re
from collections.abc import Mapping

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ...game.explain import describe_card
from ...game.seats import TEAMS, Team
from ...protocol.messages import DealSummary
from ...protocol.text import escape_text
from .fit import drawn, log_text, panel_height, panel_width, wrap_fragments
from .state import Mode, Overlay, TuiState, ordinal
from .style import KEY_HELP
from .summary import card_style, render_evening

__all__ = ["overlay_title", "render_overlay", "render_quit"]

def render_overlay(state: TuiState, symbols: bool = False) -> StyleAndTextTuples:
    """The content of the open panel."""
    overlay = state.panels.overlay
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
        out.extend(render_quit(state))
    # The frame's inner width: wrap by word here rather than let the window cut words.
    out = wrap_fragments(out, panel_width())
    if overlay in (Overlay.HELP, Overlay.CONVENTIONS, Overlay.LOG, Overlay.HISTORY,
                   Overlay.HINT):
        # Scrolling stops where the last line reaches the panel's bottom, so the panel
        # never scrolls into blank space (the log opens there: scroll set past the end).
        lines = 1 + sum(fragment[1].count("\n") for fragment in out)
        if out and out[-1][1].endswith("\n"):
            lines -= 1
        state.panels.scroll = max(0, min(state.panels.scroll, lines - panel_height()))
        if state.panels.scroll:
            out = _drop_lines(out, state.panels.scroll)
    return out


def render_quit(state: TuiState) -> StyleAndTextTuples:
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
        words = escape_text(describe_card(card, width=panel_width()), multiline=True)
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
                        f"{_expert_pair(done)}\n"))
    out.append(("class:dim", "\n Each column NS-EW. penalty: the kept cards' penalty; info: "
                             "information cost, the penalty above the best keep the "
                             "side's dealt hands allowed; expert: the information cost the "
                             "expert pair has on the same hands (- while it is worked "
                             "out, n/a when the server was too busy).\n"))
    return out


def _expert_pair(done: DealSummary) -> str:
    """The expert pair's figures, or "n/a" when the server was too busy to work them out."""
    return "  n/a  " if done.expert_unavailable is not None else _pair(done.expert_cost)


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
                               (card_style(hint.card), str(hint.card)), ("", "\n\n")]
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
    if state.panels.ask_target is None:
        return [("", "No card selected.")]
    seat, index = state.panels.ask_target
    row = state.mirror.rows[seat]
    if index > len(row):
        return [("", "No card there.")]
    card = row[index - 1]
    card_spec = state.mirror.conventions.get(seat.team)
    out: StyleAndTextTuples = [
        ("class:title", f"{state.seat_label(seat)}: {ordinal(index)} card "),
        (card_style(card), str(card)), ("", "\n\n")]
    explained = state.explain(seat, index)
    if explained is None:
        out.append(("", "No automatic explanation is available for this card.\n"))
    else:
        name = drawn(card_spec.name, 32) if card_spec else "?"
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


def overlay_title(state: TuiState) -> str:
    return {Overlay.HELP: "Keys", Overlay.CONVENTIONS: "Convention cards",
            Overlay.LOG: "Event log", Overlay.ASK: "What does it mean?",
            Overlay.QUIT: "Quit", Overlay.HISTORY: "The match so far",
            Overlay.HINT: "Hint"}.get(state.panels.overlay, "")

