"""Table life: starting, between deals, leaving, limits, removal, and fault isolation."""

from __future__ import annotations

import json
import logging
import socket as stdsocket
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server import snapshot, table_task
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from jackal.server.records.restore import restore_tables
from jackal.server.table import Table
from support.client import (
    RawClient,
    alone_with_bots,
    greeted,
    new_table,
    open_table,
    play_out,
    seat_four,
    sit,
    start_deal,
)
from support.server import QUIET, running_server


async def test_match_starts_only_when_every_human_is_ready() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await greeted(port, "lobby")
        table = await new_table(lobby, seed=1)
        north = await greeted(port, "n")
        await north.join(table)  # any free seat: the first is N
        assert north.seat == "N"
        south = await greeted(port, "s")
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
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    # Bots think in threads; if the clock jumps meanwhile it may jump far (virtual time is
    # free), so neither the bot time cap nor our own timeouts may be what it jumps to.
    config = ServerConfig(between_deals_seconds=30, bot_think_seconds=5000, **QUIET)
    async with running_server(config) as port:
        _, human, _ = await alone_with_bots(port, "N", "h", seed=2, target=10_000)
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
        lobby, table = await open_table(port, seed=3, target=1)
        humans = [await sit(port, table, seat, seat) for seat in "NE"]
        for seat in "SW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        await start_deal(humans)
        north, east = humans
        reply = await east.request(type="leave")
        assert reply["type"] == "ok" and reply["request"] == "leave"
        assert (await north.wait_type("player_left"))["seat"] == "E"
        takeover = await north.wait_type("bot_takeover")
        assert takeover["seat"] == "E"
        # The old token is dead; the match goes on to its end.
        again = await RawClient.connect(port, "e2")
        reply = await again.request(type="hello", name="e2", token=east.token)
        assert reply["code"] == "bad_token"
        await play_out(north, lambda m: m["type"] == "match_ended")


async def test_leaving_before_the_match_frees_the_seat() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby, table = await open_table(port, seed=4)
        client = await sit(port, table, "W", "c")
        await client.request(type="leave")
        state = await lobby.request(type="spectate", table=table)
        assert state["seats"][3] == {"seat": "W", "name": None, "kind": "empty",
                                     "connected": False, "ready": False}
        await client.join(table, "W")  # and it can sit again


async def test_tables_are_limited_and_idle_ones_removed(
        autojump_clock: trio.testing.MockClock, tmp_path: Path) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(max_tables=2, idle_table_seconds=100, records_dir=tmp_path, **QUIET)
    async with running_server(config) as port:
        lobby = await greeted(port, "lobby")
        first = await new_table(lobby)
        second = await new_table(lobby)
        reply = await lobby.request(type="create_table")
        assert reply["code"] == "server_full"
        sitter = await greeted(port, "s")
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
        lobby, human, _ = await alone_with_bots(port, "N", "h", seed=6, target=1)
        await play_out(human, lambda m: m["type"] == "match_ended")
        tables = (await lobby.request(type="list_tables"))["tables"]
        assert tables[0]["status"] == "over"
        await human.request(type="leave")
        with trio.fail_after(5):
            while (await lobby.request(type="list_tables"))["tables"]:
                await trio.sleep(0.01)


def break_bots_at(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A bug in the table named ``name``: its task fails at its first bot move."""
    original = snapshot.bot_view  # what the table task calls

    def sometimes_broken(table: Table, seat: Any) -> Any:
        if table.name == name:
            raise RuntimeError("a bug in this table")
        return original(table, seat)

    monkeypatch.setattr(table_task, "bot_view", sometimes_broken)


@pytest.mark.slow
async def test_one_broken_table_does_not_touch_another(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    break_bots_at(monkeypatch, "doomed")
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby = await greeted(port, "lobby")
        doomed = await new_table(lobby, name="doomed", seed=1)
        fine = await new_table(lobby, name="fine", seed=2, target=100)
        watchers = []
        for table in (doomed, fine):
            watcher = await greeted(port, f"w{table}")
            await watcher.request(type="spectate", table=table)
            watchers.append(watcher)
            for seat in "NESW":
                await lobby.request(type="add_bot", table=table, seat=seat)
        error = await watchers[0].wait_type("error")
        assert error["code"] == "internal"
        await watchers[1].wait_type("match_ended", timeout=30)
        # The server still takes new work.
        assert (await lobby.request(type="ping"))["type"] == "pong"


async def test_a_table_that_fails_frees_its_players_for_another_table(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    break_bots_at(monkeypatch, "doomed")
    async with running_server(ServerConfig(records_dir=tmp_path, **QUIET)) as port:
        lobby, doomed = await open_table(port, name="doomed", seed=1)
        human = await sit(port, doomed, "N", "nora")
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=doomed)
        for seat in "ESW":
            await lobby.request(type="add_bot", table=doomed, seat=seat)
        await human.send(type="ready")
        # The first bot to move breaks the table (N plays a card if the deal starts there).
        await play_out(human, lambda msg: msg["type"] == "error", timeout=20)
        assert human.log[-1]["code"] == "internal", human.log[-1]
        listed = await lobby.request(type="list_tables")
        assert doomed not in {info["table"] for info in listed["tables"]}
        # Nobody is still mapped to the failed table: the player sits down elsewhere, the
        # watcher is at no table, and the record says the table closed.
        other = await new_table(lobby, name="next", seed=2)
        assert (await human.request(type="join", table=other))["type"] == "joined"
        assert (await watcher.request(type="sync"))["code"] == "not_seated"
        assert (await watcher.request(type="spectate", table=other))["type"] == "table_state"
        record = next(tmp_path.glob(f"*-{doomed}-*.jsonl")).read_text().splitlines()
        last = json.loads(record[-1])
        assert (last["event"], last["reason"]) == ("closed", "failed")


async def test_add_bot_reply_then_the_same_event_for_a_requester_at_the_table() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby, table = await open_table(port, seed=4)
        north = await sit(port, table, "N")
        watcher = await greeted(port, "w")
        await watcher.request(type="spectate", table=table)
        # Seated requester: its ok, then (the very next message) the table's event.
        reply = await north.request(type="add_bot", table=table, seat="E", strategy="random")
        assert reply == {"type": "ok", "request": "add_bot", "id": reply["id"]}
        event = {"type": "player_joined", "seat": "E", "name": "random bot", "kind": "bot"}
        assert await north.recv() == event
        assert await watcher.wait_type("player_joined") == event
        # A spectator may not add one (only players and the creator may).
        reply = await watcher.request(type="add_bot", table=table, seat="S",
                                      strategy="random")
        assert reply["code"] == "not_at_table"
        # The creator, not at the table, gets its ok and nothing else.
        assert (await lobby.request(type="add_bot", table=table, seat="W"))["type"] == "ok"
        assert (await lobby.request(type="ping"))["type"] == "pong"
        assert not any(m["type"] == "player_joined" for m in lobby.log)
        event = {**event, "seat": "W", "name": "expert bot"}  # the substitute
        assert await north.wait_type("player_joined") == event
        assert await watcher.wait_type("player_joined") == event


async def test_a_deal_started_by_the_players_is_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    """Human plays do not wake the table's task; the log still tells of every deal."""
    caplog.set_level(logging.INFO, logger="jackal.server")
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port, seed=6, target=1)
        clients = await seat_four(port, table)
        await start_deal(clients)
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "match_ended")
        deals = max(m["deal"] for m in clients[0].log if m["type"] == "deal_ended")
    started = [r.getMessage() for r in caplog.records if "started" in r.getMessage()]
    assert started == [f"table {table}: deal {n} started" for n in range(1, deals + 1)]


async def test_cancelling_serve_says_server_shutdown_after_what_was_queued() -> None:
    """``serve`` cancelled in-process (how ``jackal play`` and tests stop it): every
    connection gets what was already queued for it, whole, then ``server_shutdown``."""
    config = ServerConfig(rate_per_second=1e6, rate_burst=1e6, **QUIET)
    server = trio.CancelScope()

    async def run_server(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                         ) -> None:
        with server:
            await serve(config, task_status=task_status)

    async with trio.open_nursery() as nursery:
        port: int = await nursery.start(run_server)
        idle = await greeted(port, "idle")
        # A client behind a small receive buffer that does not read for a while: the
        # server's writer is stuck on a full socket when the server is told to stop.
        sock = trio.socket.socket()
        sock.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_RCVBUF, 4096)
        await sock.connect(("127.0.0.1", port))
        busy = RawClient(trio.SocketStream(sock), "busy")
        assert (await busy.recv())["type"] == "welcome"
        await busy.hello()
        # More than the kernel buffers take, less than the server's send buffer holds:
        # counted from the size of one help reply, which grows with the protocol.
        help_bytes = len(json.dumps(await idle.request(type="help")))
        count = config.send_buffer // (2 * help_bytes)
        assert count * help_bytes > 64 * 1024, "too few replies to fill the kernel buffers"
        await busy.send_raw(b"".join(b'{"type":"help","id":%d}\n' % i for i in range(count)))
        await trio.sleep(0.3)
        server.cancel()
        got = await busy.eof()  # every line must parse: nothing was cut off
        # Whatever the server had answered before it stopped arrives, in order, none lost
        # (requests it had not read yet are not answered: that part depends on timing).
        ids = [m["id"] for m in got if m["type"] == "help"]
        assert ids and ids == list(range(len(ids))), ids
        assert len(got) == len(ids) + 1
        assert got[-1] == {"type": "server_shutdown", "reason": "the server is shutting down"}
        assert (await idle.eof())[-1]["type"] == "server_shutdown"
    # serve has returned; nothing listens any more.
    with pytest.raises(OSError):
        await trio.open_tcp_stream("127.0.0.1", port)
