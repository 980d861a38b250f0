"""``jackal play`` end to end: the real application on pipe input, a real server on port 0.

Each test runs the prompt_toolkit application on asyncio with trio as a guest (as
``jackal play`` does), feeds keystrokes through ``create_pipe_input()`` and reads what
was drawn at 80x24 from the renderer's last screen. The embedded game's server listens
on a real loopback socket; the checks from outside use raw protocol lines over asyncio
streams, as any client would.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import trio
from jackal.bots.registry import substitute_strategy
from jackal.client.embedded import EmbeddedGame
from jackal.client.mirror import Change, TableMirror
from jackal.client.tui.app import PlayOptions, TuiApp
from jackal.client.tui.asking import askable
from jackal.client.tui.layout import (
    render_hand,
    render_header,
    render_rows,
    render_turn,
)
from jackal.client.tui.state import Mode
from jackal.game.cards import DECK
from jackal.game.conventions import builtin_card
from jackal.game.seats import Seat, Team
from jackal.protocol.messages import ServerMessage
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from support.tui import (
    TIMEOUT,
    Terminal80x24,
    drawn,
    my_turn,
    quick_game,
    quit_app,
    run_app,
    screen,
    spectate,
    until,
)

# ---------------------------------------------------------------------------- tests


@pytest.mark.slow
def test_a_whole_deal_played_by_keystrokes() -> None:
    played: list[str] = []

    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        for play in range(8):
            await my_turn(app)
            hand = app.state.sorted_hand()
            if play % 2 == 0:
                # Arrow keys and Enter: two to the right of the lowest card.
                pipe.send_text("\x1b[H")  # Home
                await until(lambda: app.state.composer.cursor == 0, "cursor home")
                pipe.send_text("\x1b[C\x1b[C")  # Right, Right
                await until(lambda: app.state.composer.cursor == 2, "cursor moved")
                card = hand[2]
                pipe.send_text("\r")
            else:
                # Typed: the highest card, in lower case.
                card = hand[-1]
                pipe.send_text(str(card).lower() + "\r")
            played.append(str(card))

            def mine_shown(n: int = play) -> bool:
                return len(app.state.rows[Seat.S]) == n + 1

            await until(mine_shown, "my play")
        await until(lambda: app.state.mirror.last_deal is not None, "the end of the deal")
        text = await drawn(app, "Deal 1 over")
        assert "penalty" not in text or "=" in text
        assert [str(c) for c in app.state.rows[Seat.S]] == played
        assert len(app.state.hand) == 5
        result = app.state.mirror.last_deal
        assert result is not None
        for team in (Team.NS, Team.EW):
            assert f"= {result.penalty[team]}" in text
        pipe.send_text("n")  # ready for the next deal
        await until(lambda: app.state.mirror.deal == 2 and len(app.state.hand) == 13,
                    "deal 2")
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0
    assert len(played) == 8


def test_the_80x24_screen_shows_hand_seats_and_score() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        text = await drawn(app, "Your turn")
        lines = text.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        hand_line = next(line for line in lines if line.startswith(" Hand"))
        for card in app.state.hand:
            assert str(card) in hand_line
        for label in ("S tester (you)", "N random bot", "E random bot", "W random bot"):
            assert label in text
        assert "Score" in text and "NS 0" in text and "EW 0" in text
        assert "target 1000" in text
        # The same screen redraws at another size.
        output = app.app.output
        assert isinstance(output, Terminal80x24)
        output.size = Size(rows=30, columns=100)
        app.app.invalidate()
        await until(lambda: len(screen(app).splitlines()) > 24, "a redraw at 100x30")
        output.size = Size(rows=24, columns=80)
        app.app.invalidate()
        await until(lambda: len(screen(app).splitlines()) == 24, "a redraw at 80x24")
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0


def test_an_illegal_card_is_explained_and_changes_nothing_on_the_server() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        assert app.port is not None and app.state.table is not None
        before = await spectate(app.port, app.state.table)
        assert before["turn"] == "S"
        missing = next(card for card in DECK if card not in app.state.hand)
        pipe.send_text(str(missing).lower() + "\r")
        text = await drawn(app, f"{missing} is not in your hand")
        assert "Card>" in text
        pipe.send_text("q\r")  # not a whole card
        await drawn(app, "'q' is not a card")
        after = await spectate(app.port, app.state.table)
        assert after["rows"] == before["rows"] and after["turn"] == "S"
        assert len(app.state.hand) == 13
        # A legal card still goes through afterwards.
        pipe.send_text("\r")
        await until(lambda: len(app.state.rows[Seat.S]) == 1, "the legal play")
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0


@pytest.mark.slow
def test_a_dropped_connection_is_reclaimed_and_the_screen_says_so() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        pipe.send_text("\r")
        await until(lambda: len(app.state.rows[Seat.S]) == 1, "the first play")
        await my_turn(app)
        hand_before = sorted(app.state.hand)
        rows_before = {seat: list(row) for seat, row in app.state.rows.items()}
        session, token = app.session, app._token
        assert session is not None and session.conn is not None and token is not None
        conn = session.conn
        # Cut the TCP connection under the session, from inside the trio run.
        token.run_sync_soon(lambda: trio.lowlevel.spawn_system_task(conn.aclose))
        await until(lambda: app.state.link.status == "reconnecting", "reconnecting")
        # The header says so while it happens with the next attempt (the first waits about 0.2 s).
        await drawn(app, "RECONNECTING (")
        await until(lambda: app.state.link.status == "connected" and session.conn is not None
                    and session.conn is not conn, "reconnected")
        await until(lambda: screen(app).splitlines()[0].endswith(" connected"),
                    "the header to say connected again")
        await drawn(app, "Connection lost: reconnecting")  # and the log keeps the story
        await my_turn(app)
        assert sorted(app.state.hand) == hand_before
        assert {seat: list(row) for seat, row in app.state.rows.items()} == rows_before
        pipe.send_text("\r")  # and play goes on
        await until(lambda: len(app.state.rows[Seat.S]) == 2, "a play after the reclaim")
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0


def picture(app: TuiApp) -> dict[str, Any]:
    """Everything the table screen shows of the table, as data and as drawn."""
    mirror = app.state.mirror
    return {
        "seats": {seat: (i.name, i.kind, i.connected, i.ready, i.bot)
                  for seat, i in mirror.seats.items()},
        "cards": (sorted(mirror.hand), mirror.rows, mirror.history(), mirror.newest,
                  mirror.play_order, mirror.play_number, askable(app.state)),
        "match": (mirror.status, mirror.deal, mirror.dealer, mirror.turn,
                  dict(mirror.scores), mirror.deals),
        "drawn": [fragment_text(render(app.state)) for render in
                  (render_header, render_rows, render_turn, render_hand)],
    }


def fragment_text(fragments: Any) -> str:
    return "".join(fragment[1] for fragment in fragments)


@pytest.mark.slow
def test_the_screen_draws_the_sessions_one_mirror_and_a_reclaim_leaves_it_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One picture per client: the screen's mirror is the seat session's, every event is
    applied to a mirror once, and after a dropped connection the reclaim's table_state
    leaves the picture (the match so far included) as a client that never left has it."""
    applied: list[ServerMessage] = []  # kept alive, so no two messages share an id
    apply = TableMirror.apply

    def counted(mirror: TableMirror, msg: ServerMessage) -> Change:
        applied.append(msg)
        return apply(mirror, msg)

    monkeypatch.setattr(TableMirror, "apply", counted)

    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        state = app.state

        def turn_or_result() -> bool:
            return (state.my_turn and state.composer.awaiting_play is None) \
                or state.table_status == "between_deals"

        def more_than(count: int, what: Callable[[], int]) -> Callable[[], bool]:
            return lambda: what() > count

        # Play deal 1 (so the match has a history) into deal 2, until a card lies on the
        # table and it is our turn.
        while not (state.mirror.deal == 2 and state.mirror.history() and turn_or_result()):
            await until(turn_or_result, "a turn or a result")
            mirror = state.mirror
            if mirror.status == "between_deals":
                pipe.send_text("n")
                await until(more_than(mirror.deal, lambda: state.mirror.deal), "next deal")
            elif not (mirror.deal == 2 and mirror.history()):
                pipe.send_text("\r")
                await until(more_than(mirror.plays_made, lambda: state.mirror.plays_made),
                            "the play")
        session = app.session
        assert session is not None and app.state.mirror is session.mirror
        mirror = session.mirror
        # Deal 1's expert figures come from a background job, a while after the deal: wait
        # for them, or the reclaim's snapshot (taken later) holds them and this picture not.
        await until(lambda: mirror.deals[0].expert_cost is not None, "deal 1's expert cost")
        before = picture(app)
        assert len(mirror.deals) == 1 and mirror.deals[0].deal == 1
        assert f"{mirror.history()[-1][1]}*" in before["drawn"][1]  # the newest card
        # Cut the TCP connection under the session, from inside the trio run.
        conn, token = session.conn, app._token
        assert conn is not None and token is not None
        token.run_sync_soon(lambda: trio.lowlevel.spawn_system_task(conn.aclose))
        await until(lambda: app.state.link.status == "reconnecting", "reconnecting")
        await until(lambda: app.state.link.status == "connected" and session.conn is not None
                    and session.conn is not conn, "reconnected")
        await my_turn(app)
        assert app.state.mirror is session.mirror is mirror
        assert picture(app) == before
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0
    times = Counter(map(id, applied))
    assert times and set(times.values()) == {1}, "an event was applied more than once"


def test_quit_asks_first_and_panels_open_and_close() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        pipe.send_text("\x11")
        await drawn(app, "Leave the match?")
        pipe.send_text("n")  # stay after all
        await until(lambda: "Leave the match?" not in screen(app), "the panel to close")
        pipe.send_text("?")
        await drawn(app, "Ctrl-Q / Ctrl-C")
        pipe.send_text("x")
        pipe.send_text("c")
        await drawn(app, "Convention cards")
        pipe.send_text("x")
        pipe.send_text("\x03")  # Ctrl-C asks too
        await drawn(app, "Leave the match?")
        pipe.send_text("y")

    assert run_app(quick_game(), scenario) == 0


# ---------------------------------------------------------------------------- lobby


class ServerThread:
    """A real server in its own thread and trio run (the app has its own loop)."""

    def __init__(self) -> None:
        self.port: int | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        from jackal.server.config import ServerConfig
        from jackal.server.net.listener import serve

        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as self._scope:
            async with trio.open_nursery() as nursery:
                # The expert figure from a thread: a worker process at a low
                # priority may be slower than these waits on a busy machine (the
                # processes are tests/server/test_expert_pool.py's subject).
                self.port = await nursery.start(serve, ServerConfig(port=0,
                                                                    expert_workers=0))
                self._ready.set()

    def __enter__(self) -> ServerThread:
        self._thread.start()
        assert self._ready.wait(TIMEOUT)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None and self._scope is not None:
            self._token.run_sync_soon(self._scope.cancel)
        self._thread.join(TIMEOUT)

    def play_options(self, name: str) -> PlayOptions:
        """``jackal play --server`` pointed at this server, as player ``name``."""
        assert self.port is not None
        return PlayOptions(game=EmbeddedGame(name=name), server=("127.0.0.1", self.port))


async def create_table(app: TuiApp, pipe: PipeInput, *answers: str) -> None:
    """Press c in the lobby, answer its prompts (name, target, NS card, EW card, hints,
    clock, private; Enter for those not given) and wait for the new table in the list."""
    pipe.send_text("c")
    await drawn(app, "New table name")
    for answer in (*answers, *[""] * (7 - len(answers))):
        pipe.send_text(answer + "\r")
    await until(lambda: len(app.state.lobby.tables) == 1, "the new table")


async def answer_bot_prompt(app: TuiApp, pipe: PipeInput, answer: str) -> None:
    """Press b (in the lobby or at a waiting table) and answer "seat [strategy]"."""
    pipe.send_text("b")
    await drawn(app, "Bot at")
    pipe.send_text(answer + "\r")


def test_the_lobby_creates_fills_and_joins_a_table() -> None:
    with ServerThread() as server:
        options = server.play_options("lobbyist")

        async def scenario(app: TuiApp, pipe: PipeInput) -> None:
            await drawn(app, "No tables yet")
            assert app.state.mode is Mode.LOBBY
            await create_table(app, pipe, "club night", "500", "", "none", "y")
            await drawn(app, "club night")
            assert app.state.lobby.tables[0].target == 500
            assert app.state.lobby.tables[0].hints
            await drawn(app, "HINTS")
            await answer_bot_prompt(app, pipe, "N random")  # a bot from the lobby...
            await until(lambda: app.state.lobby.tables[0].seats.get(Seat.N) is not None,
                        "a bot at N")
            pipe.send_text("\r")
            await drawn(app, "Seat at club night (free: E S W")
            pipe.send_text("s\r")
            await until(lambda: app.state.mode is Mode.TABLE and app.state.you is Seat.S,
                        "seated")
            await drawn(app, "E W free (b: bot)")
            for seat in "EW":  # ...and from the table while it waits
                await answer_bot_prompt(app, pipe, f"{seat} random")

                def bot_seated(s: str = seat) -> bool:
                    return app.state.mirror.seats[Seat(s)].kind == "bot"

                await until(bot_seated, f"a bot at {seat}")
            # Sitting down is not being ready, even when bots fill the table later.
            await drawn(app, "waiting for you (n)")
            assert app.state.mirror.status == "waiting"
            pipe.send_text("n")
            await my_turn(app)
            # The screen is redrawn a moment after the state changes: wait for it.
            assert "E random bot" in await drawn(app, "W random bot")
            assert app.state.mirror.conventions.keys() == {"NS", "EW"}
            assert app.state.you is not None
            assert app.state.mirror.conventions[app.state.you.team].name == "beginner"
            assert app.state.mirror.hints  # as the table was created
            pipe.send_text("\r")
            await until(lambda: len(app.state.rows[Seat.S]) == 1, "a play from the lobby seat")
            await quit_app(app, pipe)

        assert run_app(options, scenario) == 0


@pytest.mark.slow
def test_match_end_shows_the_winner_and_n_plays_again() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        first_table = None
        while app.state.mirror.winner is None:
            await until(lambda: app.state.my_turn or app.state.table_status == "over"
                        or app.state.mirror.last_deal is not None, "a turn or a result")
            first_table = first_table or app.state.table
            if app.state.table_status == "over":
                break
            if app.state.mirror.last_deal is not None:  # a tied deal: go on
                deal = app.state.mirror.deal
                pipe.send_text("n")

                def next_deal(d: int = deal) -> bool:
                    return app.state.mirror.deal == d + 1 or app.state.table_status == "over"

                await until(next_deal, "the next deal")
                continue
            if app.state.composer.awaiting_play is None:
                pipe.send_text("\r")
            await asyncio.sleep(0.01)
        text = await drawn(app, "MATCH OVER")
        winner = app.state.mirror.winner
        assert winner is not None and f"MATCH OVER: {winner.value} win" in text
        pipe.send_text("n")
        await until(lambda: app.state.table not in (None, first_table)
                    and len(app.state.hand) == 13, "a new match")
        assert app.state.mirror.scores == {team: 0 for team in app.state.mirror.scores}
        assert app.state.table_status == "playing"
        pipe.send_text("\x11")  # in a match again, so quitting asks
        await drawn(app, "Leave the match?")
        pipe.send_text("y")

    assert run_app(quick_game(target=1), scenario) == 0


def test_spectating_from_the_lobby_shows_a_bots_only_table() -> None:
    with ServerThread() as server:
        options = server.play_options("watcher")

        async def scenario(app: TuiApp, pipe: PipeInput) -> None:
            await drawn(app, "No tables yet")
            await create_table(app, pipe, "bots", "100000", "", "", "")
            for seat in "NESW":
                await answer_bot_prompt(app, pipe, seat)  # the default strategy

                def listed(s: str = seat) -> bool:
                    return app.state.lobby.tables[0].seats.get(Seat(s)) is not None

                await until(listed, f"a bot at {seat}")
            pipe.send_text("s")
            await until(lambda: app.state.mode is Mode.TABLE, "the table screen")
            await until(lambda: sum(len(r) for r in app.state.rows.values()) >= 8,
                        "plays seen by the spectator")
            # b with a seat alone: the server's bot for that side's (beginner) card.
            default = f"{substitute_strategy(builtin_card('beginner'))} bot"
            text = await drawn(app, "Spectating: no hand")
            assert default in text and app.state.you is None
            pipe.send_text("n")  # back to the lobby
            await drawn(app, "table(s) on the server")
            assert app.state.mode is Mode.LOBBY
            pipe.send_text("\x11")  # nothing to lose: quits without a question
        assert run_app(options, scenario) == 0


def test_an_unreachable_server_is_a_message_not_a_traceback() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = PlayOptions(game=EmbeddedGame(name="lost"), server=("127.0.0.1", port))

    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        # It keeps trying (a LAN server may still be starting) and says why and when.
        text = await drawn(app, f"cannot reach 127.0.0.1:{port}")
        # It never connected: nothing was lost, and the lobby is not empty, just unknown.
        assert "UNREACHABLE (" in text.splitlines()[0]
        assert "Connection lost" not in text and "No tables yet" not in text
        assert "Traceback" not in text
        pipe.send_text("\x11")  # nothing to lose: quits at once

    assert run_app(options, scenario) == 0


def test_a_refused_setup_is_shown_on_screen() -> None:
    # The server refuses a bot strategy it does not know; the screen says why.
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        text = await drawn(app, "Could not take the seat")
        assert "no-such-strategy" in text and "Traceback" not in text
        pipe.send_text("\x11")

    assert run_app(quick_game(opponents="no-such-strategy"), scenario) == 0


def test_a_mouse_click_on_a_card_plays_it() -> None:
    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        text = await drawn(app, "Your turn")
        lines = text.splitlines()
        y = next(i for i, line in enumerate(lines) if line.startswith(" Hand"))
        target = app.state.sorted_hand()[3]
        x = lines[y].index(str(target))
        # An SGR mouse click (press and release), 1-based coordinates.
        pipe.send_text(f"\x1b[<0;{x + 2};{y + 1}M\x1b[<0;{x + 2};{y + 1}m")
        await until(lambda: len(app.state.rows[Seat.S]) == 1, "the clicked card played")
        assert app.state.rows[Seat.S] == [target]
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0
