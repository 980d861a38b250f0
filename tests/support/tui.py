"""The terminal client in-process: its state, its screen, an app driven by keys."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from jackal.cli.play import start_embedded_server
from jackal.client.embedded import EmbeddedGame
from jackal.client.tui.app import PlayOptions, TuiApp
from jackal.client.tui.events import apply
from jackal.client.tui.keys import create_key_bindings
from jackal.client.tui.layout import (
    build_layout,
    screen_text,
)
from jackal.client.tui.state import (
    Mode,
    TuiState,
)
from jackal.client.tui.style import STYLE
from jackal.game.cards import parse_hand
from jackal.game.conventions import builtin_card
from jackal.game.seats import SEATS, Seat, Team
from jackal.protocol import messages as m
from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

TIMEOUT = 20.0


class Terminal80x24(DummyOutput):
    """Output that draws nowhere but says it is an 80x24 terminal."""

    def __init__(self) -> None:
        self.size = Size(rows=24, columns=80)

    def get_size(self) -> Size:
        return self.size


def screen(app: TuiApp) -> str:
    return screen_text(app.app.renderer._last_screen)


async def until(check: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def drawn(app: TuiApp, text: str) -> str:
    """Wait until ``text`` is on the screen; return the screen."""
    await until(lambda: text in screen(app), f"{text!r} on screen")
    return screen(app)


def quick_game(**overrides: Any) -> PlayOptions:
    settings: dict[str, Any] = {"seed": 11, "target": 1000, "partner": "random",
                                "opponents": "random", "name": "tester"}
    settings.update(overrides)
    return PlayOptions(game=EmbeddedGame(**settings), start_server=start_embedded_server)


def run_app(options: PlayOptions,
            scenario: Callable[[TuiApp, PipeInput], Awaitable[None]]) -> int:
    """Run the application with ``scenario`` driving it; the scenario must make it quit."""

    async def main() -> int:
        with create_pipe_input() as pipe:
            app = TuiApp(options, input=pipe, output=Terminal80x24())
            task = asyncio.ensure_future(app.run())
            try:
                await scenario(app, pipe)
                return await asyncio.wait_for(task, TIMEOUT)
            finally:
                if not task.done():
                    app.app.exit(result=99)
                    await asyncio.wait_for(task, TIMEOUT)
                assert app.failure is None, app.failure

    return asyncio.run(main())


async def quit_app(app: TuiApp, pipe: PipeInput) -> None:
    pipe.send_text("\x11")  # Ctrl-Q
    if app.state.in_match:
        await drawn(app, "Leave the match?")
        pipe.send_text("y")


async def my_turn(app: TuiApp) -> None:
    await until(lambda: app.state.my_turn and app.state.composer.awaiting_play is None, "my turn")


async def spectate(port: int, table: str) -> dict[str, Any]:
    """The table's public snapshot, fetched over a fresh raw connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        assert json.loads(await reader.readline())["type"] == "welcome"
        writer.write(b'{"type":"hello","name":"watcher","id":1}\n'
                     + json.dumps({"type": "spectate", "table": table, "id": 2}).encode()
                     + b"\n")
        await writer.drain()
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), TIMEOUT))
            if msg["type"] == "table_state":
                return msg
            assert msg["type"] != "error", msg
    finally:
        writer.close()


def text(fragments: StyleAndTextTuples) -> str:
    return fragment_list_to_text(fragments)


class Terminal(DummyOutput):
    def __init__(self, rows: int, columns: int) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def drive(state: TuiState, steps: Callable[[PipeInput, Application[int]], object],
          rows: int = 24, columns: int = 80) -> str:
    """Run the layout and bindings on ``state`` (no network), apply ``steps``, return the
    screen."""

    async def main() -> str:
        with create_pipe_input() as pipe:
            app: Application[int] = Application(
                layout=build_layout(state), key_bindings=create_key_bindings(state),
                style=STYLE, full_screen=True, input=pipe, output=Terminal(rows, columns))
            task = asyncio.ensure_future(app.run_async())
            await asyncio.sleep(0.05)
            result = steps(pipe, app)
            if asyncio.iscoroutine(result):
                await result
            await asyncio.sleep(0.1)
            # A redraw after the keys, awaited: reading the last screen at once raced the
            # renderer on a busy machine (the state had the panel, the screen not yet).
            drawn = app.render_counter
            app.invalidate()
            for _ in range(500):
                if app.render_counter > drawn:
                    break
                await asyncio.sleep(0.01)
            shown = screen_text(app.renderer._last_screen)
            if not app.is_done:
                app.exit(result=0)
            await task
            return shown

    return asyncio.run(main())


HAND = "2S 2C 5H 7D 9C TS JH QS QH QD KC AD 3H"


def seated(hand: str = HAND, *, turn: str = "S", rows: dict[str, list[str]] | None = None,
           status: str = "playing", hints: bool = False, name: str = "me") -> TuiState:
    """A state seated at S (as ``name``), E dealing (so S plays first), both sides on the
    beginner card; ``hints``: the table allows them."""
    state = TuiState()
    beginner = builtin_card("beginner")
    seats = [m.SeatInfo(seat=Seat(s), name=name if s == "S" else f"bot{s}",
                        kind="human" if s == "S" else "bot", connected=True, ready=True)
             for s in "NESW"]
    apply(state, m.TableState(
        table="t1", name="test", target=300, status=status,  # type: ignore[arg-type]
        seats=seats, conventions={Team.NS: beginner, Team.EW: beginner},
        scores={Team.NS: 10, Team.EW: 20}, deal=1, dealer=Seat.E, first=Seat.S, turn=Seat(turn),
        rows={Seat(seat): parse_hand(" ".join(row)) for seat, row in (rows or {}).items()},
        you=Seat.S, hand=parse_hand(hand), hints=hints))
    return state


def lobby_state() -> TuiState:
    state = TuiState(mode=Mode.LOBBY)
    apply(state, m.Tables(tables=[
         m.TableInfo(table="t1", name="one", target=300, status="waiting",
                     seats={Seat.N: "ann", Seat.E: None, Seat.S: None, Seat.W: "random bot"},
                     kinds={Seat.N: "human", Seat.E: "empty", Seat.S: "empty", Seat.W: "bot"}),
         m.TableInfo(table="t2", name="two", target=100, status="waiting",
                     seats=dict.fromkeys(SEATS), kinds=dict.fromkeys(SEATS, "empty")),
     ]))
    return state


VALUE = {rank: value for value, rank in enumerate("A23456789TJQK", 1)}


def penalty(cards: list[str]) -> int:
    """A team's penalty, by the rules' words: a rank held once costs 20 + its value,
    twice 25, three or four times nothing."""
    ranks = [card[0] for card in cards]
    return sum(20 + VALUE[rank] if ranks.count(rank) == 1 else 25 if ranks.count(rank) == 2
               else 0 for rank in set(ranks))
