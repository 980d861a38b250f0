"""Key bindings of ``jackal play`` (:func:`create_key_bindings`): small handlers that each
call a :class:`~jackal.client.tui.state.TuiState` method and never touch the network.
Which keys are live depends on what is on screen: a prompt, then a panel, then the table
or the lobby."""

from __future__ import annotations

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from . import gathering
from .asking import ask_question, move_ask, open_ask, reply_question
from .fit import panel_height
from .hint import HINT_KEY
from .overlays import render_overlay
from .state import Mode, Overlay, TuiState

#: A scroll past any panel's end: drawing brings it back to the last page.
PANEL_END = 1_000_000

__all__ = ["create_key_bindings"]


def create_key_bindings(state: TuiState) -> KeyBindings:
    """Bindings for every screen, reading and changing ``state``.

    Each handler is small and only calls a :class:`~jackal.client.tui.state.TuiState` method;
    none touches the network (the state queues what must be sent). Which keys are live
    depends on what is on screen, expressed as filters: an open prompt takes every key, then
    an open panel, then the table or the lobby. Specific keys win over the catch-all
    ``<any>`` binding (prompt_toolkit prefers bindings with fewer wildcards), which is how
    typed cards ("7h", "10s") and one-letter commands share the keyboard: command letters
    are chosen among those that cannot start a card (``c`` clubs only ends one, so it is
    a command only while nothing is typed).
    """
    kb = KeyBindings()

    prompt_open = Condition(lambda: state.prompt is not None)
    no_prompt = ~prompt_open

    def overlay(*kinds: Overlay) -> Filter:
        return no_prompt & Condition(lambda: state.overlay in kinds)

    reading_panel = overlay(Overlay.HELP, Overlay.CONVENTIONS, Overlay.LOG, Overlay.HISTORY,
                            Overlay.HINT)
    free = no_prompt & Condition(lambda: state.overlay is Overlay.NONE)
    table = free & Condition(lambda: state.mode is Mode.TABLE)
    lobby = free & Condition(lambda: state.mode is Mode.LOBBY)
    nothing_typed = Condition(lambda: not state.composer.typed)

    def finish(event: KeyPressEvent) -> None:
        if state.quit_requested and not event.app.is_done:
            event.app.exit(result=0)

    # ------------------------------------------------------------------ anywhere

    @kb.add("c-q")
    @kb.add("c-c")
    def quit_(event: KeyPressEvent) -> None:
        """Quit; during a match, ask first."""
        state.prompt = None
        state.request_quit()
        finish(event)

    # ------------------------------------------------------------------ an open prompt

    @kb.add("<any>", filter=prompt_open)
    def prompt_type(event: KeyPressEvent) -> None:
        """Type into the prompt."""
        for char in event.data:
            state.prompt_char(char)

    @kb.add("backspace", filter=prompt_open)
    def prompt_backspace(event: KeyPressEvent) -> None:
        """Delete the last character of the prompt."""
        state.prompt_backspace()

    @kb.add("enter", filter=prompt_open)
    def prompt_submit(event: KeyPressEvent) -> None:
        """Send what the prompt holds."""
        state.prompt_submit()

    @kb.add("escape", filter=prompt_open)
    def prompt_cancel(event: KeyPressEvent) -> None:
        """Close the prompt without sending."""
        state.prompt_cancel()

    # ------------------------------------------------------------------ panels

    @kb.add("y", filter=overlay(Overlay.QUIT))
    def quit_yes(event: KeyPressEvent) -> None:
        """Confirm quitting."""
        state.confirm_quit()
        finish(event)

    @kb.add("n", filter=overlay(Overlay.QUIT))
    @kb.add("escape", filter=overlay(Overlay.QUIT))
    def quit_no(event: KeyPressEvent) -> None:
        """Stay in the match."""
        state.close_overlay()

    @kb.add("left", filter=overlay(Overlay.ASK))
    @kb.add("up", filter=overlay(Overlay.ASK))
    def ask_previous(event: KeyPressEvent) -> None:
        """The previous (older) opponent card."""
        move_ask(state, -1)

    @kb.add("right", filter=overlay(Overlay.ASK))
    @kb.add("down", filter=overlay(Overlay.ASK))
    def ask_next(event: KeyPressEvent) -> None:
        """The next (newer) opponent card."""
        move_ask(state, 1)

    @kb.add("enter", filter=overlay(Overlay.ASK))
    def ask_write(event: KeyPressEvent) -> None:
        """Write a question about the selected card."""
        ask_question(state)

    @kb.add("escape", filter=overlay(Overlay.ASK))
    @kb.add("e", filter=overlay(Overlay.ASK))
    def ask_close(event: KeyPressEvent) -> None:
        """Close the ask panel."""
        state.close_overlay()

    @kb.add("up", filter=reading_panel)
    def panel_up(event: KeyPressEvent) -> None:
        """Scroll the panel up."""
        state.panel_scroll = max(0, state.panel_scroll - 1)

    @kb.add("down", filter=reading_panel)
    def panel_down(event: KeyPressEvent) -> None:
        """Scroll the panel down."""
        state.panel_scroll += 1

    @kb.add("pageup", filter=reading_panel)
    def panel_page_up(event: KeyPressEvent) -> None:
        """Scroll the panel up a page."""
        state.panel_scroll = max(0, state.panel_scroll - max(panel_height() - 1, 1))

    @kb.add("pagedown", filter=reading_panel)
    def panel_page_down(event: KeyPressEvent) -> None:
        """Scroll the panel down a page (drawing stops it at the end)."""
        state.panel_scroll += max(panel_height() - 1, 1)

    @kb.add("home", filter=reading_panel)
    def panel_top(event: KeyPressEvent) -> None:
        """Scroll to the panel's first line."""
        state.panel_scroll = 0

    @kb.add("end", filter=reading_panel)
    def panel_bottom(event: KeyPressEvent) -> None:
        """Scroll to the panel's last line."""
        state.panel_scroll = PANEL_END
        render_overlay(state)  # brings the scroll back to the last page now

    @kb.add("<any>", filter=reading_panel)
    def panel_close(event: KeyPressEvent) -> None:
        """Any other key closes a reading panel."""
        state.close_overlay()

    # ------------------------------------------------------------------ both screens

    @kb.add("?", filter=free)
    def show_help(event: KeyPressEvent) -> None:
        """Show every key."""
        state.show(Overlay.HELP)

    # ------------------------------------------------------------------ the table

    @kb.add("left", filter=table)
    def cursor_left(event: KeyPressEvent) -> None:
        """Move the cursor one card left."""
        state.composer.move_cursor(-1)

    @kb.add("right", filter=table)
    def cursor_right(event: KeyPressEvent) -> None:
        """Move the cursor one card right."""
        state.composer.move_cursor(1)

    @kb.add("home", filter=table)
    def cursor_home(event: KeyPressEvent) -> None:
        """Move the cursor to the lowest card."""
        state.composer.select(0)

    @kb.add("end", filter=table)
    def cursor_end(event: KeyPressEvent) -> None:
        """Move the cursor to the highest card."""
        state.composer.select(len(state.hand) - 1)

    @kb.add("enter", filter=table)
    def play(event: KeyPressEvent) -> None:
        """Play the typed card, or the one under the cursor."""
        state.composer.submit()

    @kb.add("backspace", filter=table)
    def untype(event: KeyPressEvent) -> None:
        """Delete the last typed character."""
        state.composer.backspace()

    @kb.add("escape", filter=table)
    def clear(event: KeyPressEvent) -> None:
        """Forget what was typed and the message."""
        state.composer.clear_input()

    @kb.add("c", filter=table & nothing_typed)
    def conventions(event: KeyPressEvent) -> None:
        """Show both convention cards."""
        state.show(Overlay.CONVENTIONS)

    @kb.add("l", filter=table)
    def full_log(event: KeyPressEvent) -> None:
        """Show the whole event log."""
        state.show(Overlay.LOG)
        # Open at the end: the newest lines are the interesting ones (drawing the panel
        # brings the scroll back to where its last line meets the bottom).
        state.panel_scroll = PANEL_END
        render_overlay(state)  # now, not at the next redraw: a PgUp may come first

    @kb.add("e", filter=table)
    def ask(event: KeyPressEvent) -> None:
        """Pick an opponent's card to see its meaning and ask about it."""
        open_ask(state)

    @kb.add("r", filter=table)
    def reply(event: KeyPressEvent) -> None:
        """Answer an opponent's question."""
        reply_question(state)

    @kb.add("b", filter=table)
    def table_bot(event: KeyPressEvent) -> None:
        """Put a bot in a free seat before the first deal or after the match."""
        state.table_add_bot()

    @kb.add("h", filter=table & nothing_typed)
    def match_history(event: KeyPressEvent) -> None:
        """Show the deals of the match so far: penalties, points, the score."""
        state.show(Overlay.HISTORY)

    @kb.add(HINT_KEY, filter=table)
    def hint(event: KeyPressEvent) -> None:
        """On your turn, where the table allows it: the expert's card and why."""
        state.ask_hint()

    @kb.add("m", filter=free)
    def chat(event: KeyPressEvent) -> None:
        """Say something (lobby, table between deals, or fellow spectators)."""
        state.open_chat()

    @kb.add("p", filter=table)
    def pause(event: KeyPressEvent) -> None:
        """Ask for a pause, agree to one, or resume."""
        state.toggle_pause()

    @kb.add("n", filter=table)
    def ready(event: KeyPressEvent) -> None:
        """Ready / next deal / play again."""
        state.ready()

    @kb.add("o", filter=table)
    def rematch_options(event: KeyPressEvent) -> None:
        """After the match: the rematch's target and our side's card."""
        gathering.rematch_options(state)

    @kb.add("g", filter=table)
    def to_lobby(event: KeyPressEvent) -> None:
        """After the match: back to the lobby (no rematch)."""
        state.to_lobby()

    @kb.add("<any>", filter=table)
    def type_card(event: KeyPressEvent) -> None:
        """Type a card: a rank (A 2-9 T 10 J Q K) then a suit (S H D C or a symbol)."""
        for char in event.data:
            if not state.composer.type_char(char) and char.isprintable():
                state.composer.reject_char(char)

    # ------------------------------------------------------------------ the lobby

    @kb.add("up", filter=lobby)
    def lobby_up(event: KeyPressEvent) -> None:
        """Select the previous table."""
        state.lobby.move(-1)

    @kb.add("down", filter=lobby)
    def lobby_down(event: KeyPressEvent) -> None:
        """Select the next table."""
        state.lobby.move(1)

    @kb.add("enter", filter=lobby)
    def lobby_join(event: KeyPressEvent) -> None:
        """Join the selected table."""
        state.lobby.join()

    @kb.add("s", filter=lobby)
    def lobby_watch(event: KeyPressEvent) -> None:
        """Watch the selected table."""
        state.lobby.spectate()

    @kb.add("c", filter=lobby)
    def lobby_create(event: KeyPressEvent) -> None:
        """Create a table."""
        state.lobby.create()

    @kb.add("b", filter=lobby)
    def lobby_bot(event: KeyPressEvent) -> None:
        """Add a server-side bot to the selected table."""
        state.lobby.add_bot()

    @kb.add("g", filter=lobby)
    def lobby_refresh(event: KeyPressEvent) -> None:
        """Refresh the table list."""
        state.lobby.refresh()

    return kb
