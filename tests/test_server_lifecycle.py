"""Table life: starting, between deals, leaving, limits, removal, and fault isolation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.records import restore_tables
from jackal.server.table import Table
from test_server_support import RawClient, make_bot_clock, new_table, play_out, running_server

QUIET: dict[str, Any] = dict(ping_interval=10_000.0, ping_timeout=10_000.0,
                             hello_timeout=10_000.0)
bot_clock = pytest.fixture(make_bot_clock)


async def _lobby(port: int) -> RawClient:
    lobby = await RawClient.connect(port, "lobby")
    await lobby.hello()
    return lobby


async def test_match_starts_only_when_every_human_is_ready() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await _lobby(port)
        table = await new_table(lobby, seed=1)
        north = await RawClient.connect(port, "n")
        await north.hello()
        await north.join(table)  # any free seat: the first is N
        assert north.seat == "N"
        south = await RawClient.connect(port, "s")
        await south.hello()
        await south.join(table)
        assert south.seat == "E"
        await lobby.request(type="add_bot", table=table, seat="S")
        await north.request(type="ready")
        await lobby.request(type="add_bot", table=table, seat="W")
        state = await lobby.request(type="spectate", table=table)
        assert state["status"] == "waiting"  # E is not ready yet
        assert [s["ready"] for s in state["seats"]] == [True, False, True, True]
        await south.request(type="ready")
        started = await north.wait_type("deal_started")
        assert started["deal"] == 1 and len(started["hand"]) == 13


async def test_between_deals_timer_starts_the_next_deal(
        bot_clock: trio.testing.MockClock) -> None:
    # Bots think in threads; if the clock jumps meanwhile it may jump far (virtual time is
    # free), so neither the bot time cap nor our own timeouts may be what it jumps to.
    config = ServerConfig(between_deals_seconds=30, bot_think_seconds=5000, **QUIET)
    async with running_server(config) as port:
        lobby = await _lobby(port)
        table = await new_table(lobby, seed=2, target=10_000)
        human = await RawClient.connect(port, "h")
        await human.hello()
        await human.join(table, "N")
        for seat in "ESW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        await human.request(type="ready")
        # Play deal 1 without sending ready afterwards.
        await play_out(human, lambda m: m["type"] == "deal_ended", ready_between=False,
                       timeout=1e6)
        ended_at = trio.current_time()
        # Conventions may change now; not during a deal.
        assert (await human.request(type="conventions", card="none"))["type"] == "ok"
        started = await human.wait_type("deal_started", timeout=60)
        assert started["deal"] == 2
        assert 29.9 <= trio.current_time() - ended_at <= 31
        reply = await human.request(type="conventions", card="beginner")
        assert reply["code"] == "not_allowed"


async def test_leaving_mid_match_hands_the_seat_to_a_bot() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await _lobby(port)
        table = await new_table(lobby, seed=3, target=1)
        humans = []
        for seat in "NE":
            client = await RawClient.connect(port, seat)
            await client.hello()
            await client.join(table, seat)
            humans.append(client)
        for seat in "SW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        for client in humans:
            await client.request(type="ready")
        north, east = humans
        await east.wait_type("deal_started")
        reply = await east.request(type="leave")
        assert reply["type"] == "ok" and reply["request"] == "leave"
        assert (await north.wait_type("player_left"))["seat"] == "E"
        takeover = await north.wait_type("bot_takeover")
        assert takeover["seat"] == "E"
        # The old token is dead; the match goes on to its end.
        again = await RawClient.connect(port, "e2")
        reply = await again.request(type="hello", name="e2", token=east.token)
        assert reply["code"] == "bad_token"
        north.hand = next(m for m in north.log if m["type"] == "deal_started")["hand"]
        await play_out(north, lambda m: m["type"] == "match_ended")


async def test_leaving_before_the_match_frees_the_seat() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await _lobby(port)
        table = await new_table(lobby, seed=4)
        client = await RawClient.connect(port, "c")
        await client.hello()
        await client.join(table, "W")
        await client.request(type="leave")
        state = await lobby.request(type="spectate", table=table)
        assert state["seats"][3] == {"seat": "W", "name": None, "kind": "empty",
                                     "connected": False, "ready": False}
        await client.join(table, "W")  # and it can sit again


async def test_tables_are_limited_and_idle_ones_removed(
        autojump_clock: trio.testing.MockClock, tmp_path: Path) -> None:
    config = ServerConfig(max_tables=2, idle_table_seconds=100, records_dir=tmp_path, **QUIET)
    async with running_server(config) as port:
        lobby = await _lobby(port)
        first = await new_table(lobby)
        second = await new_table(lobby)
        reply = await lobby.request(type="create_table")
        assert reply["code"] == "server_full"
        sitter = await RawClient.connect(port, "s")
        await sitter.hello()
        await sitter.join(second)
        await trio.sleep(150)
        tables = (await lobby.request(type="list_tables"))["tables"]
        assert [t["table"] for t in tables] == [second]  # the empty one went away
        assert (await lobby.request(type="join", table=first))["code"] == "no_such_table"
        assert (await lobby.request(type="create_table"))["type"] == "table_created"
        # The removed table's record says so, and a restart would not bring it back.
        restored = restore_tables(tmp_path, 0.0)
        for _, record in restored:
            record.close()
        assert sorted(table.id for table, _ in restored) == sorted([second, "t3"])


async def test_a_finished_table_goes_when_everyone_has_left() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await _lobby(port)
        table = await new_table(lobby, seed=6, target=1)
        human = await RawClient.connect(port, "h")
        await human.hello()
        await human.join(table, "N")
        for seat in "ESW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        await human.request(type="ready")
        await play_out(human, lambda m: m["type"] == "match_ended")
        tables = (await lobby.request(type="list_tables"))["tables"]
        assert tables[0]["status"] == "over"
        await human.request(type="leave")
        with trio.fail_after(5):
            while (await lobby.request(type="list_tables"))["tables"]:
                await trio.sleep(0.01)


async def test_one_broken_table_does_not_touch_another(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    original = Table.bot_view

    def sometimes_broken(self: Table, seat: Any) -> Any:
        if self.name == "doomed":
            raise RuntimeError("a bug in this table")
        return original(self, seat)

    monkeypatch.setattr(Table, "bot_view", sometimes_broken)
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await _lobby(port)
        doomed = await new_table(lobby, name="doomed", seed=1)
        fine = await new_table(lobby, name="fine", seed=2, target=100)
        watchers = []
        for table in (doomed, fine):
            watcher = await RawClient.connect(port, f"w{table}")
            await watcher.hello()
            await watcher.request(type="spectate", table=table)
            watchers.append(watcher)
            for seat in "NESW":
                await lobby.request(type="add_bot", table=table, seat=seat)
        error = await watchers[0].wait_type("error")
        assert error["code"] == "internal"
        await watchers[1].wait_type("match_ended", timeout=30)
        # The server still takes new work.
        assert (await lobby.request(type="ping"))["type"] == "pong"
