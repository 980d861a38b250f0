"""Key bindings of ``jackal play``, by mode as ptpython's ``load_*_bindings`` are: one
loader for each thing on screen (a prompt, a dialog, a reading panel, the table, the
lobby), each with small handlers that call a :class:`~jackal.client.tui.state.TuiState`
method and never touch the network; :func:`create_key_bindings` merges them."""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import (
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)

from . import gathering
from .asking import ask_question, move_ask, open_ask, reply_question
from .fit import panel_height
from .hint import HINT_KEY
from .overlays import render_overlay
from .state import Mode, Overlay, TuiState

#: A scroll past any panel's end: drawing brings it back to the last page.
PANEL_END = 1_000_000

__all__ = [
    "create_key_bindings",
    "load_card_bindings",
    "load_dialog_bindings",
    "load_global_bindings",
    "load_lobby_bindings",
    "load_prompt_bindings",
    "load_reading_bindings",
    "load_table_bindings",
    "load_table_panel_bindings",
]


def create_key_bindings(state: TuiState) -> KeyBindingsBase:
    """Bindings for every screen, reading and changing ``state``.

    Which keys are live depends on what is on screen, expressed as filters (:class:`Modes`):
    an open prompt takes every key, then an open panel, then the table or the lobby.
    Specific keys win over the catch-all ``<any>`` binding (prompt_toolkit prefers bindings
    with fewer wildcards, across merged sets too), which is how typed cards ("7h", "10s")
    and one-letter commands share the keyboard: command letters are chosen among those
    that cannot start a card (``c`` clubs only ends one, so it is a command only while
    nothing is typed).
    """
    modes = Modes.of(state)
    loaders = (load_global_bindings, load_prompt_bindings, load_dialog_bindings,
               load_reading_bindings, load_table_panel_bindings, load_card_bindings,
               load_table_bindings, load_lobby_bindings)
    return merge_key_bindings([load(state, modes) for load in loaders])


@dataclass(frozen=True)
class Modes:
    """The filters that say which loader's keys are live."""

    prompt_open: Filter
    #: No prompt and no panel: the screen itself takes the keys.
    free: Filter
    table: Filter
    lobby: Filter
    #: A panel only read (help, cards, log, history, hint): any other key closes it.
    reading: Filter
    nothing_typed: Filter
    quit_dialog: Filter
    ask_dialog: Filter

    @classmethod
    def of(cls, state: TuiState) -> Modes:
        prompt_open = Condition(lambda: state.prompt is not None)
        no_prompt = ~prompt_open

        def overlay(*kinds: Overlay) -> Filter:
            return no_prompt & Condition(lambda: state.panels.overlay in kinds)

        free = overlay(Overlay.NONE)
        return cls(prompt_open=prompt_open, free=free,
                   table=free & Condition(lambda: state.mode is Mode.TABLE),
                   lobby=free & Condition(lambda: state.mode is Mode.LOBBY),
                   reading=overlay(Overlay.HELP, Overlay.CONVENTIONS, Overlay.LOG,
                                   Overlay.HISTORY, Overlay.HINT),
                   nothing_typed=Condition(lambda: not state.composer.typed),
                   quit_dialog=overlay(Overlay.QUIT), ask_dialog=overlay(Overlay.ASK))


def _finish(state: TuiState, event: KeyPressEvent) -> None:
    if state.quit_requested and not event.app.is_done:
        event.app.exit(result=0)



def load_global_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """Keys live everywhere: quitting, and on a free screen help and chat."""
    kb = KeyBindings()

    @kb.add("c-q")
    @kb.add("c-c")
    def quit_(event: KeyPressEvent) -> None:
        """Quit; during a match, ask first."""
        state.prompt = None
        state.request_quit()
        _finish(state, event)




    @kb.add("?", filter=modes.free)
    def show_help(event: KeyPressEvent) -> None:
        """Show every key."""
        state.panels.show(Overlay.HELP)



    @kb.add("m", filter=modes.free)
    def chat(event: KeyPressEvent) -> None:
        """Say something (lobby, table between deals, or fellow spectators)."""
        state.open_chat()

    return kb


def load_prompt_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """An open prompt takes every key: typing, Backspace, Enter sends, Esc closes."""
    kb = KeyBindings()

    @kb.add("<any>", filter=modes.prompt_open)
    def prompt_type(event: KeyPressEvent) -> None:
        """Type into the prompt."""
        for char in event.data:
            state.prompt_char(char)

    @kb.add("backspace", filter=modes.prompt_open)
    def prompt_backspace(event: KeyPressEvent) -> None:
        """Delete the last character of the prompt."""
        state.prompt_backspace()

    @kb.add("enter", filter=modes.prompt_open)
    def prompt_submit(event: KeyPressEvent) -> None:
        """Send what the prompt holds."""
        state.prompt_submit()

    @kb.add("escape", filter=modes.prompt_open)
    def prompt_cancel(event: KeyPressEvent) -> None:
        """Close the prompt without sending."""
        state.prompt_cancel()

    return kb


def load_dialog_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """The panels that ask something: quitting (y/n) and asking about a card."""
    kb = KeyBindings()

    @kb.add("y", filter=modes.quit_dialog)
    def quit_yes(event: KeyPressEvent) -> None:
        """Confirm quitting."""
        state.confirm_quit()
        _finish(state, event)

    @kb.add("n", filter=modes.quit_dialog)
    @kb.add("escape", filter=modes.quit_dialog)
    def quit_no(event: KeyPressEvent) -> None:
        """Stay in the match."""
        state.panels.close()

    @kb.add("left", filter=modes.ask_dialog)
    @kb.add("up", filter=modes.ask_dialog)
    def ask_previous(event: KeyPressEvent) -> None:
        """The previous (older) opponent card."""
        move_ask(state, -1)

    @kb.add("right", filter=modes.ask_dialog)
    @kb.add("down", filter=modes.ask_dialog)
    def ask_next(event: KeyPressEvent) -> None:
        """The next (newer) opponent card."""
        move_ask(state, 1)

    @kb.add("enter", filter=modes.ask_dialog)
    def ask_write(event: KeyPressEvent) -> None:
        """Write a question about the selected card."""
        ask_question(state)

    @kb.add("escape", filter=modes.ask_dialog)
    @kb.add("e", filter=modes.ask_dialog)
    def ask_close(event: KeyPressEvent) -> None:
        """Close the ask panel."""
        state.panels.close()

    return kb


def load_reading_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """A panel only read: scrolling it, and any other key closes it."""
    kb = KeyBindings()

    @kb.add("up", filter=modes.reading)
    def panel_up(event: KeyPressEvent) -> None:
        """Scroll the panel up."""
        state.panels.scroll = max(0, state.panels.scroll - 1)

    @kb.add("down", filter=modes.reading)
    def panel_down(event: KeyPressEvent) -> None:
        """Scroll the panel down."""
        state.panels.scroll += 1

    @kb.add("pageup", filter=modes.reading)
    def panel_page_up(event: KeyPressEvent) -> None:
        """Scroll the panel up a page."""
        state.panels.scroll = max(0, state.panels.scroll - max(panel_height() - 1, 1))

    @kb.add("pagedown", filter=modes.reading)
    def panel_page_down(event: KeyPressEvent) -> None:
        """Scroll the panel down a page (drawing stops it at the end)."""
        state.panels.scroll += max(panel_height() - 1, 1)

    @kb.add("home", filter=modes.reading)
    def panel_top(event: KeyPressEvent) -> None:
        """Scroll to the panel's first line."""
        state.panels.scroll = 0

    @kb.add("end", filter=modes.reading)
    def panel_bottom(event: KeyPressEvent) -> None:
        """Scroll to the panel's last line."""
        state.panels.scroll = PANEL_END
        render_overlay(state)  # brings the scroll back to the last page now

    @kb.add("<any>", filter=modes.reading)
    def panel_close(event: KeyPressEvent) -> None:
        """Any other key closes a reading panel."""
        state.panels.close()

    return kb


def load_table_panel_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """The table's panels: convention cards, the log, the history, asking and answering."""
    kb = KeyBindings()

    @kb.add("c", filter=modes.table & modes.nothing_typed)
    def conventions(event: KeyPressEvent) -> None:
        """Show both convention cards."""
        state.panels.show(Overlay.CONVENTIONS)

    @kb.add("l", filter=modes.table)
    def full_log(event: KeyPressEvent) -> None:
        """Show the whole event log."""
        state.panels.show(Overlay.LOG)
        # Open at the end: the newest lines are the interesting ones (drawing the panel
        # brings the scroll back to where its last line meets the bottom).
        state.panels.scroll = PANEL_END
        render_overlay(state)  # now, not at the next redraw: a PgUp may come first

    @kb.add("e", filter=modes.table)
    def ask(event: KeyPressEvent) -> None:
        """Pick an opponent's card to see its meaning and ask about it."""
        open_ask(state)

    @kb.add("r", filter=modes.table)
    def reply(event: KeyPressEvent) -> None:
        """Answer an opponent's question."""
        reply_question(state)

    @kb.add("h", filter=modes.table & modes.nothing_typed)
    def match_history(event: KeyPressEvent) -> None:
        """Show the deals of the match so far: penalties, points, the score."""
        state.panels.show(Overlay.HISTORY)

    return kb


def load_card_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """Choosing a card at the table: the cursor, typing a card, Enter plays it."""
    kb = KeyBindings()

    @kb.add("left", filter=modes.table)
    def cursor_left(event: KeyPressEvent) -> None:
        """Move the cursor one card left."""
        state.composer.move_cursor(-1)

    @kb.add("right", filter=modes.table)
    def cursor_right(event: KeyPressEvent) -> None:
        """Move the cursor one card right."""
        state.composer.move_cursor(1)

    @kb.add("home", filter=modes.table)
    def cursor_home(event: KeyPressEvent) -> None:
        """Move the cursor to the lowest card."""
        state.composer.select(0)

    @kb.add("end", filter=modes.table)
    def cursor_end(event: KeyPressEvent) -> None:
        """Move the cursor to the highest card."""
        state.composer.select(len(state.hand) - 1)

    @kb.add("enter", filter=modes.table)
    def play(event: KeyPressEvent) -> None:
        """Play the typed card, or the one under the cursor."""
        state.composer.submit()

    @kb.add("backspace", filter=modes.table)
    def untype(event: KeyPressEvent) -> None:
        """Delete the last typed character."""
        state.composer.backspace()

    @kb.add("escape", filter=modes.table)
    def clear(event: KeyPressEvent) -> None:
        """Forget what was typed and the message."""
        state.composer.clear_input()

    @kb.add("<any>", filter=modes.table)
    def type_card(event: KeyPressEvent) -> None:
        """Type a card: a rank (A 2-9 T 10 J Q K) then a suit (S H D C or a symbol)."""
        for char in event.data:
            if not state.composer.type_char(char) and char.isprintable():
                state.composer.reject_char(char)

    return kb


def load_table_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """The table's other commands: bots, hints, pause, ready, and what next after a match."""
    kb = KeyBindings()

    @kb.add("b", filter=modes.table)
    def table_bot(event: KeyPressEvent) -> None:
        """Put a bot in a free seat before the first deal or after the match."""
        state.table_add_bot()

    @kb.add(HINT_KEY, filter=modes.table)
    def hint(event: KeyPressEvent) -> None:
        """On your turn, where the table allows it: the expert's card and why."""
        state.ask_hint()

    @kb.add("p", filter=modes.table)
    def pause(event: KeyPressEvent) -> None:
        """Ask for a pause, agree to one, or resume."""
        state.toggle_pause()

    @kb.add("n", filter=modes.table)
    def ready(event: KeyPressEvent) -> None:
        """Ready / next deal / play again."""
        state.ready()

    @kb.add("o", filter=modes.table)
    def rematch_options(event: KeyPressEvent) -> None:
        """After the match: the rematch's target and our side's card."""
        gathering.rematch_options(state)

    @kb.add("g", filter=modes.table)
    def to_lobby(event: KeyPressEvent) -> None:
        """After the match: back to the lobby (no rematch)."""
        state.to_lobby()

    return kb


def load_lobby_bindings(state: TuiState, modes: Modes) -> KeyBindings:
    """The lobby: choosing a table, joining or watching it, creating one, adding bots."""
    kb = KeyBindings()

    @kb.add("up", filter=modes.lobby)
    def lobby_up(event: KeyPressEvent) -> None:
        """Select the previous table."""
        state.lobby.move(-1)

    @kb.add("down", filter=modes.lobby)
    def lobby_down(event: KeyPressEvent) -> None:
        """Select the next table."""
        state.lobby.move(1)

    @kb.add("enter", filter=modes.lobby)
    def lobby_join(event: KeyPressEvent) -> None:
        """Join the selected table."""
        state.lobby.join()

    @kb.add("s", filter=modes.lobby)
    def lobby_watch(event: KeyPressEvent) -> None:
        """Watch the selected table."""
        state.lobby.spectate()

    @kb.add("c", filter=modes.lobby)
    def lobby_create(event: KeyPressEvent) -> None:
        """Create a table."""
        state.lobby.create()

    @kb.add("b", filter=modes.lobby)
    def lobby_bot(event: KeyPressEvent) -> None:
        """Add a server-side bot to the selected table."""
        state.lobby.add_bot()

    @kb.add("g", filter=modes.lobby)
    def lobby_refresh(event: KeyPressEvent) -> None:
        """Refresh the table list."""
        state.lobby.refresh()

    return kb
