"""Disconnects, holds, reclaiming with a token, bot takeover, keepalive, slow readers."""

from __future__ import annotations

import socket as stdsocket
from collections.abc import Callable
from functools import partial

import pytest
import trio
from jackal.server.config import ServerConfig
from support.client import (
    Msg,
    RawClient,
    greeted,
    new_table,
    open_table,
    play_out,
    seat_four,
    sit,
    start_deal,
)
from support.server import QUIET, running_server


async def _four(port: int, table: str) -> list[RawClient]:
    """Four players at N, E, S, W who hold their first hands."""
    clients = await seat_four(port, table)
    await start_deal(clients)
    return clients


def _is_played(n: int):  # type: ignore[no-untyped-def]
    count = 0

    def check(msg: dict[str, object]) -> bool:
        nonlocal count
        if msg["type"] == "played":
            count += 1
        return count >= n

    return check


async def test_reclaim_a_seat_mid_deal_with_no_play_lost() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port, seed=77, target=1)
        clients = await _four(port, table)
        # Play six cards, then East drops.
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(play_out, client, _is_played(6))
        east = clients[1]
        hand_before = list(east.hand)
        token = east.token
        assert token is not None
        await east.aclose()
        others = [c for i, c in enumerate(clients) if i != 1]
        # A wrong token reclaims nothing.
        thief = await RawClient.connect(port, "thief")
        reply = await thief.request(type="hello", name="thief", token=token[:-2] + "xx")
        assert reply["code"] == "bad_token"
        # The right token, from a new connection: the full private view comes back.
        back = await RawClient.connect(port, "pE2")
        ok = await back.hello(token=token)
        assert ok["table"] == table and ok["seat"] == "E"
        state = await back.wait_type("table_state")
        assert state["you"] == "E" and sorted(state["hand"]) == sorted(hand_before)
        assert sum(len(row) for row in state["rows"].values()) == 6
        back.seat, back.token, back.hand = "E", token, list(state["hand"])
        players = [clients[0], back, clients[2], clients[3]]
        async with trio.open_nursery() as nursery:
            for client in players:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "deal_ended")
        ended = players[0].log[-1]
        assert ended["type"] == "deal_ended"
        # East kept exactly what it held minus what it played after coming back.
        east_played = [m["card"] for m in back.log if m["type"] == "played" and m["seat"] == "E"]
        assert sorted(ended["hands"]["E"]) == sorted(set(hand_before) - set(east_played))
        assert len([m for m in players[0].log if m["type"] == "played"]) == 32
        # East was back before its turn came: the others were never told it had gone (a
        # drop and a return are told at the seat's turn boundaries, their net change only).
        for other in others:
            assert not [m for m in other.log if m["type"] in ("player_gone", "player_back")]


async def test_hold_runs_out_then_a_bot_takes_over_and_hands_back(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(hold_seconds=120, between_deals_seconds=5, **QUIET)
    async with running_server(config) as port:
        _, table = await open_table(port, seed=8, target=10_000)
        clients = await _four(port, table)
        south = clients[2]
        token = south.token
        await south.aclose()
        north = clients[0]
        start = trio.current_time()
        # The others play their cards; nothing is lost while S is away and nobody plays
        # for it yet. The drop is told when S's turn comes (a time S does not choose).
        never: Callable[[Msg], bool] = lambda _: False  # noqa: E731
        async with trio.open_nursery() as nursery:
            for other in (clients[1], clients[3]):
                nursery.start_soon(partial(play_out, other, never, timeout=1000))
            await play_out(north, lambda m: m["type"] == "bot_takeover", timeout=300)
            takeover = north.log[-1]
            gone = [m for m in north.log if m["type"] == "player_gone"]
            assert [m["seat"] for m in gone] == ["S"]
            assert takeover["seat"] == "S" and takeover["strategy"] == "expert"
            assert 119 <= trio.current_time() - start <= 125
            back = await RawClient.connect(port, "pS2")
            await back.hello(token=token)
            state = await back.wait_type("table_state")
            assert state["you"] == "S"
            back.seat, back.hand = "S", list(state["hand"])
            # The return is told at S's next turn boundary: the table plays on until then.
            nursery.start_soon(partial(play_out, back, never, timeout=1000))
            await play_out(north, lambda m: m["type"] == "player_back", timeout=300)
            assert north.log[-1]["seat"] == "S"
            nursery.cancel_scope.cancel()


async def test_without_takeover_the_table_waits(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    async with running_server(ServerConfig(hold_seconds=10, **QUIET)) as port:
        _, table = await open_table(port, seed=9, bot_takeover=False)
        clients = await _four(port, table)
        first = next(m for m in clients[0].log if m["type"] == "deal_started")["first"]
        mover = next(c for c in clients if c.seat == first)
        await mover.aclose()
        watcher = await greeted(port, "w")
        await trio.sleep(1000)
        state = await watcher.request(type="spectate", table=table)
        assert state["turn"] == first and sum(len(r) for r in state["rows"].values()) == 0
        neighbour = clients[(clients.index(mover) + 1) % 4]
        assert not any(m["type"] == "bot_takeover" for m in neighbour.log)


async def test_keepalive_pings_then_drops_a_silent_client(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(ping_interval=15, ping_timeout=15, hello_timeout=10_000)
    async with running_server(config) as port:
        silent = await RawClient.connect(port, "silent")
        silent.auto_pong = False
        lively = await RawClient.connect(port, "lively")

        async def listen() -> None:
            while True:
                await lively.recv(300)

        start = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(listen)
            ping = await silent.recv(100)
            assert ping == {"type": "ping"}
            assert 14.9 <= trio.current_time() - start <= 16
            got = await silent.eof(100)
            assert got[-1]["code"] == "timeout"
            assert 29.9 <= trio.current_time() - start <= 32
            # The client that answers its pings is still here much later.
            await trio.sleep(200)
            nursery.cancel_scope.cancel()
        assert sum(1 for m in lively.log if m["type"] == "ping") >= 10
        assert (await lively.request(type="ping"))["type"] == "pong"


@pytest.mark.slow
async def test_a_client_that_never_reads_is_dropped_without_slowing_others(
        caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(send_buffer=4096, rate_per_second=1e6, rate_burst=1e6,
                          between_deals_seconds=0.0, **QUIET)
    async with running_server(config) as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        table_a = await new_table(lobby, seed=1)
        table_b = await new_table(lobby, seed=2, target=300)
        watcher_a = await RawClient.connect(port, "wa")
        await watcher_a.hello()
        await watcher_a.request(type="spectate", table=table_a)
        # The non-reader: a tiny receive buffer, seated at table A, asking for help forever.
        sock = trio.socket.socket()
        sock.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_RCVBUF, 4096)
        await sock.connect(("127.0.0.1", port))
        hog = RawClient(trio.SocketStream(sock), "hog")
        await hog.recv()
        await hog.hello()
        await hog.join(table_a, "N")
        watcher_b = await RawClient.connect(port, "wb")
        await watcher_b.hello()
        await watcher_b.request(type="spectate", table=table_b)
        for seat in ("N", "E", "S", "W"):
            await lobby.request(type="add_bot", table=table_b, seat=seat)

        async def spam() -> None:
            line = b'{"type":"help"}\n' * 1000
            with trio.move_on_after(20):
                try:
                    while True:
                        await hog.send_raw(line)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

        async with trio.open_nursery() as nursery:
            nursery.start_soon(spam)
            gone = await watcher_a.wait_type("player_gone", timeout=20)
            assert gone["seat"] == "N"
            # Meanwhile table B plays its whole match.
            with trio.fail_after(30):
                await watcher_b.wait_type("match_ended", timeout=30)
            nursery.cancel_scope.cancel()
        assert any("not reading" in record.getMessage() for record in caplog.records)
        # The hog may reclaim its seat from a fresh connection.
        again = await RawClient.connect(port, "hog2")
        reply = await again.hello(token=hog.token)
        assert reply["seat"] == "N"


async def test_a_second_reclaim_takes_the_seat_from_the_first_connection() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port, seed=3)
        first = await sit(port, table, "S", "first")
        second = await RawClient.connect(port, "second")
        ok = await second.hello(token=first.token)
        assert ok["seat"] == "S"
        told = await first.wait_type("error")
        assert told["code"] == "bad_token" and "id" not in told
        reply = await first.request(type="ready")
        assert reply["code"] == "not_seated"
        assert (await second.request(type="ready"))["type"] == "ok"


async def test_a_dropped_slow_reader_is_told_why_if_it_reads_at_last(
        caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(send_buffer=4096, rate_per_second=1e6, rate_burst=1e6, **QUIET)
    async with running_server(config) as port:
        hog = await greeted(port, "hog")
        # Read in one chunk, these ask for more replies than the queue holds at once.
        await hog.send_raw(b'{"type":"help"}\n' * 50)
        with trio.fail_after(10):
            while not any("not reading" in r.getMessage() for r in caplog.records):
                await trio.sleep(0.01)
        got = await hog.eof()  # every line parses: no reply was cut in half
        assert got[-1]["type"] == "error" and got[-1]["code"] == "slow_reader", got[-1]
        assert all(m["type"] == "help" for m in got[:-1])
