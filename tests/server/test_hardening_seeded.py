"""A table created with a chosen seed says so, to everyone (issue 12 item 2).

Whoever chose the seed can compute every hand; nobody else could tell. So the lobby entry
and every ``table_state`` carry ``seeded`` (always sent, true or false), the records keep
it across a restart, and the terminal client shows it in the lobby and the table header.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jackal.client.tui import layout as tui_layout
from jackal.client.tui.events import apply
from jackal.client.tui.lobby_screen import render_lobby
from jackal.client.tui.state import Mode, TuiState
from jackal.game.seats import SEATS, Seat
from jackal.protocol import messages as m
from jackal.server.config import ServerConfig
from support.client import RawClient, greeted
from support.server import QUIET, running_server


async def entries(client: RawClient) -> dict[str, Any]:
    reply = await client.request(type="list_tables")
    return {info["table"]: info for info in reply["tables"]}


async def test_a_chosen_seed_is_shown_in_the_lobby_and_the_table_state(tmp_path: Path) -> None:
    config = ServerConfig(records_dir=tmp_path, **QUIET)
    async with running_server(config) as port:
        lobby = await greeted(port, "lobby")
        chosen = (await lobby.request(type="create_table", seed=7))["table"]
        random = (await lobby.request(type="create_table"))["table"]
        lobby_view = await entries(lobby)
        assert lobby_view[chosen]["seeded"] is True
        assert lobby_view[random]["seeded"] is False
        watcher = await greeted(port, "watcher")
        assert (await watcher.request(type="spectate", table=chosen))["seeded"] is True
        player = await greeted(port, "player")
        await player.join(random, "N")
        state = player.log[-1]
        assert state["type"] == "table_state" and state["seeded"] is False
    # A restart restores the mark with the table.
    async with running_server(ServerConfig(records_dir=tmp_path, **QUIET)) as port:
        lobby = await greeted(port, "lobby")
        lobby_view = await entries(lobby)
        assert lobby_view[chosen]["seeded"] is True
        assert lobby_view[random]["seeded"] is False


def test_the_terminal_client_shows_a_seeded_table() -> None:
    state = TuiState(mode=Mode.LOBBY)
    apply(state, m.Tables(tables=[
         m.TableInfo(table="t1", name="fair", target=300, status="waiting",
                     seats=dict.fromkeys(SEATS), kinds=dict.fromkeys(SEATS, "empty")),
         m.TableInfo(table="t2", name="known", target=300, status="waiting",
                     seats=dict.fromkeys(SEATS), kinds=dict.fromkeys(SEATS, "empty"),
                     seeded=True),
     ], total=2))
    lines = "".join(piece[1] for piece in render_lobby(state)).splitlines()
    assert "SEEDED" not in next(line for line in lines if "fair" in line)
    assert "SEEDED" in next(line for line in lines if "known" in line)
    seats = [m.SeatInfo(seat=seat, name=None, kind="empty", connected=False, ready=False)
             for seat in SEATS]
    state.mode = Mode.TABLE
    apply(state, m.TableState(table="t2", name="known", target=300, status="waiting",
                              seats=seats, conventions={}, scores={}, deal=0, dealer=None,
                              first=None, turn=None, rows={}, seeded=True, you=Seat.N))
    header = "".join(piece[1] for piece in tui_layout.render_header(state))
    assert "SEEDED" in header
