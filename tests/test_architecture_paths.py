"""docs/ARCHITECTURE.md draws two data paths, file by file: a `play` through the server
and a `your_turn` to the terminal client's screen. These tests trace the real work (real
sockets, the real application) and fail when a file the doc names is not passed through,
in the doc's order."""

from __future__ import annotations

from pathlib import Path

import trio
from jackal.client.tui.app import TuiApp
from jackal.protocol.messages import YourTurn
from jackal.server.config import ServerConfig
from prompt_toolkit.input import PipeInput
from support import ROOT
from support.callpath import CallPath, drawn_path, missing_in_order
from support.client import RawClient, seat_four, start_deal
from support.server import running_server
from support.tui import my_turn, quick_game, quit_app, run_app, until

DOC = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
PLAY = "The path of one `play`"
YOUR_TURN = "The path of one `your_turn` to the terminal client's screen"


def test_the_doc_draws_both_paths_with_files_in_every_step() -> None:
    for heading in (PLAY, YOUR_TURN):
        steps = drawn_path(DOC, heading)
        assert len(steps) >= 3, heading
        assert all(steps), f"{heading}: a step names no file"
        for name in (n for step in steps for n in step):
            assert (ROOT / name).is_file(), f"{heading}: {name} does not exist"


async def test_a_play_passes_through_the_files_the_doc_draws(tmp_path: Path) -> None:
    async with running_server(ServerConfig(records_dir=tmp_path)) as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        table = (await lobby.request(type="create_table"))["table"]
        clients = await seat_four(port, table)
        await start_deal(clients)
        seat = (await clients[0].wait_type("turn"))["seat"]
        mover = next(c for c in clients if c.seat == seat)
        path = CallPath()
        with path.tracing():
            await mover.send(type="play", card=mover.hand[0])
            with trio.fail_after(10):
                for client in clients:
                    await client.wait_type("played")
        for client in (*clients, lobby):
            await client.aclose()
    missing = missing_in_order(drawn_path(DOC, PLAY), path.files)
    assert not missing, f"not passed in the doc's order: {missing}; the path: {path.files}"


def test_a_your_turn_reaches_the_screen_through_the_files_the_doc_draws() -> None:
    # The embedded server shares the client's thread: its work is left out of the path.
    path = CallPath(outside=("server", "bots"))
    carried = CallPath(outside=("server", "bots"), carrying=YourTurn)

    async def scenario(app: TuiApp, pipe: PipeInput) -> None:
        await my_turn(app)
        played = len(app.state.hand)
        with path.tracing():
            pipe.send_text(str(app.state.sorted_hand()[0]).lower() + "\r")
            await until(lambda: len(app.state.hand) < played, "my play")
            await my_turn(app)
        played = len(app.state.hand)
        with carried.tracing():
            pipe.send_text(str(app.state.sorted_hand()[0]).lower() + "\r")
            await until(lambda: len(app.state.hand) < played, "my play")
            await my_turn(app)
            # The mirror may say it is our turn before the your_turn itself is handled.
            await until(lambda: "client/tui/events.py" in carried.files,
                        "the your_turn at the screen's handler (client/tui/events.py)")
        await quit_app(app, pipe)

    assert run_app(quick_game(), scenario) == 0
    missing = missing_in_order(drawn_path(DOC, YOUR_TURN), path.files)
    assert not missing, f"not passed in the doc's order: {missing}; the path: {path.files}"
    # The message itself reached the screen's handler (above), through no file the doc
    # leaves out.
    drawn = {name for step in drawn_path(DOC, YOUR_TURN) for name in step}
    assert set(carried.files) <= drawn, f"not in the doc: {set(carried.files) - drawn}"
