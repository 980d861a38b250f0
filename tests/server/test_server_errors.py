"""Every error code the server produces, over real TCP, with real bytes.

Each bad request gets exactly one ``error`` reply carrying its ``id`` and the
connection stays usable, except for framing errors and abuse, which close it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.table import Table
from support.client import RawClient, alone_with_bots, greeted, new_table
from support.server import running_server


async def _error(client: RawClient, code: str, **msg: Any) -> dict[str, Any]:
    reply = await client.request(**msg)
    assert reply["type"] == "error", reply
    assert reply["code"] == code, reply
    assert reply["message"]
    return reply


async def _state(client: RawClient, table: str) -> dict[str, Any]:
    """The table as a spectator sees it (from a fresh connection)."""
    reply = await client.request(type="spectate", table=table)
    assert reply["type"] == "table_state"
    reply.pop("id")
    return reply


async def test_decoding_errors_keep_the_connection_open() -> None:
    async with running_server() as port:
        client = await RawClient.connect(port, "c")
        await client.send_raw(b"this is not json\n")
        assert (await client.recv())["code"] == "bad_json"
        await client.send_raw(b'{"type":"hello","name":"\xff\xfe"}\n')
        assert (await client.recv())["code"] == "bad_json"
        await client.send_raw(b"[1,2,3]\n")
        assert (await client.recv())["code"] == "invalid_message"
        reply = await _error(client, "unknown_type", type="dance")
        assert "dance" in reply["message"]
        reply = await _error(client, "invalid_message", type="hello", name=42)
        assert "name" in reply["message"]
        reply = await _error(client, "invalid_message", type="hello", name="x", colour="red")
        assert "colour" in reply["message"]
        await _error(client, "hello_first", type="list_tables")
        # help and ping work before hello; after all that, hello still works.
        assert (await client.request(type="help"))["type"] == "help"
        assert (await client.request(type="ping"))["type"] == "pong"
        reply = await _error(client, "invalid_message", type="hello", name="x", protocol=2)
        assert "protocol" in reply["message"]
        await client.hello()
        await _error(client, "not_allowed", type="hello", name="again")
        # Blank lines and CRLF are fine.
        await client.send_raw(b'\r\n\n{"type":"ping","id":7}\r\n')
        assert await client.recv() == {"type": "pong", "id": 7}


async def test_lobby_and_seat_errors_change_nothing() -> None:
    async with running_server() as port:
        a = await RawClient.connect(port, "a")
        await a.hello()
        b = await RawClient.connect(port, "b")
        await b.hello()
        watcher = await RawClient.connect(port, "w")
        await watcher.hello()
        await _error(a, "no_such_table", type="join", table="nope")
        await _error(a, "no_such_table", type="spectate", table="nope")
        table = await new_table(a, seed=1)
        await a.join(table, "N")
        before = await _state(watcher, table)
        await _error(b, "seat_taken", type="join", table=table, seat="N")
        await _error(a, "already_seated", type="join", table=table, seat="E")
        await _error(a, "already_seated", type="spectate", table=table)
        await _error(b, "not_at_table", type="add_bot", table=table, seat="E")
        await _error(a, "seat_taken", type="add_bot", table=table, seat="N")
        await _error(a, "unknown_strategy", type="add_bot", table=table, seat="E",
                     strategy="os:system")
        await _error(b, "not_seated", type="ready")
        await _error(b, "not_seated", type="play", card="AS")
        await _error(b, "not_seated", type="leave")
        await _error(b, "not_seated", type="conventions", card="none")
        await _error(a, "bad_conventions", type="conventions", card="no-such-card")
        await _error(a, "bad_conventions", type="create_table", conventions_ns="nope")
        await _error(a, "no_deal", type="play", card="AS")
        await _error(a, "bad_card", type="play", card="ZZ")
        await _error(a, "no_deal", type="explain", seat="E", index=1)
        await _error(a, "not_allowed", type="ask", seat="S", text="partner?")
        await _error(a, "not_allowed", type="ask", seat="E", text="nobody there")
        await _error(a, "no_such_question", type="answer", question="q99", text="hm")
        assert await _state(watcher, table) == before
        # Fill the table; a fifth player finds it full.
        for seat in ("E", "S", "W"):
            assert (await a.request(type="add_bot", table=table, seat=seat))["type"] == "ok"
        c = await RawClient.connect(port, "c")
        await c.hello()
        await _error(c, "table_full", type="join", table=table)


async def test_play_errors_during_a_deal() -> None:
    async with running_server() as port:
        # Bots make no moves before the match: nothing starts until N is ready.
        _, n, _ = await alone_with_bots(port, "N", "n", seed=5)
        started = next(m for m in n.log if m["type"] == "deal_started")
        hand = n.hand
        not_mine = next(c for c in ("AS", "2S", "3S", "4S", "5S", "6S") if c not in hand)
        if started["first"] != "N":
            await n.recv_until(lambda m: m["type"] == "turn" and m["seat"] == "N")
            await _error(n, "not_in_hand", type="play", card=not_mine)
            await n.request(type="play", card=hand[0])
            # Now it is a bot's turn: N may not play.
            reply = await n.request(type="play", card=hand[1])
            assert reply["type"] == "error" and reply["code"] in ("not_your_turn",), reply
        else:
            await _error(n, "not_in_hand", type="play", card=not_mine)
            await n.request(type="play", card=hand[0])
            reply = await n.request(type="play", card=hand[1])
            assert reply["code"] == "not_your_turn"
        await _error(n, "not_allowed", type="conventions", card="none")


async def test_line_too_long_after_a_good_line_in_the_same_chunk() -> None:
    # One write: a request, then a line over the cap. The request is answered first, then
    # line_too_long, then the connection closes (docs/PROTOCOL.md, "Framing").
    async with running_server(ServerConfig(max_line=1000)) as port:
        c = await RawClient.connect(port, "c")
        await c.send_raw(b'{"type":"ping","id":"first"}\n{"type":"help","x":"' + b"x" * 2000)
        rest = await c.eof()
        assert [m["type"] for m in rest] == ["pong", "error"]
        assert rest[0]["id"] == "first" and rest[1]["code"] == "line_too_long"


async def test_pong_before_hello_is_accepted_silently() -> None:
    async with running_server() as port:
        c = await RawClient.connect(port, "c")
        await c.send_raw(b'{"type":"pong"}\n{"type":"ping","id":"p"}\n')
        # The first line back answers the ping: the pong got no error (and no reply).
        assert await c.recv() == {"type": "pong", "id": "p"}
        await c.hello()


async def test_password_and_tokens() -> None:
    # Seven wrong passwords from one address: more than the per-address allowance would
    # answer (that limit is tested in test_hardening_limits); here it is the connection's.
    config = ServerConfig(password="sesame", password_guess_burst=10)
    async with running_server(config) as port:
        c = await RawClient.connect(port, "c")
        await _error(c, "bad_password", type="hello", name="c")
        await _error(c, "bad_password", type="hello", name="c", password="open")
        await _error(c, "bad_token", type="hello", name="c", password="sesame", token="x" * 43)
        await c.hello(password="sesame")
        # Guessing is abuse: the fifth wrong password closes the connection.
        guesser = await RawClient.connect(port, "g")
        for attempt in range(4):
            await _error(guesser, "bad_password", type="hello", name="g", password=str(attempt))
        await guesser.send(type="hello", name="g", password="4")
        got = await guesser.eof()
        assert got[-1]["code"] == "bad_password"


async def test_line_too_long_closes_the_connection() -> None:
    async with running_server(ServerConfig(max_line=1000)) as port:
        c = await RawClient.connect(port, "c")
        await c.send_raw(b'{"type":"ping","pad":"' + b"x" * 2000)
        rest = await c.eof()
        assert rest[-1]["type"] == "error" and rest[-1]["code"] == "line_too_long"
        # The server is fine.
        d = await RawClient.connect(port, "d")
        await d.hello()


async def test_flood_is_rate_limited_then_closed() -> None:
    config = ServerConfig(rate_per_second=5, rate_burst=5, flood_limit=20)
    async with running_server(config) as port:
        c = await RawClient.connect(port, "c")
        await c.send_raw(b"".join(json.dumps({"type": "ping", "id": i}).encode() + b"\n"
                                  for i in range(200)))
        got = await c.eof()
        pongs = [m for m in got if m["type"] == "pong"]
        limited = [m for m in got if m.get("code") == "rate_limited" and "id" in m]
        assert 5 <= len(pongs) <= 7
        assert limited and all(m["retry_after"] > 0 for m in limited)
        # Every limited request still got its own reply with its id, until the close.
        assert [m["id"] for m in got if "id" in m] == list(range(len(got) - 1))
        assert got[-1]["code"] == "rate_limited" and "id" not in got[-1]


async def test_server_full() -> None:
    async with running_server(ServerConfig(max_connections=2)) as port:
        a = await RawClient.connect(port, "a")
        b = await RawClient.connect(port, "b")
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        third = RawClient(stream, "c")
        got = await third.eof()
        assert got == [{"type": "error", "code": "server_full",
                        "message": got[0]["message"]}]
        await a.aclose()
        await trio.sleep(0.05)
        d = await RawClient.connect(port, "d")
        await d.hello()
        await b.hello()


async def test_hello_timeout(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    async with running_server(ServerConfig(hello_timeout=30, ping_interval=1000)) as port:
        c = await RawClient.connect(port, "c")
        await c.request(type="help")
        with trio.fail_after(40):
            got = await c.eof(timeout=40)
        assert got[-1]["code"] == "timeout"


async def test_internal_error_is_reported_and_the_connection_survives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Table, "ready", broken)
    async with running_server() as port:
        c = await RawClient.connect(port, "c")
        await c.hello()
        table = await new_table(c)
        await c.join(table)
        await _error(c, "internal", type="ready")
        assert (await c.request(type="ping"))["type"] == "pong"


async def test_retry_after_is_rounded_up_and_never_zero() -> None:
    # A fast refill: the wait for the next token is at most half a millisecond, which
    # rounding to the nearest millisecond would turn into 0.0.
    config = ServerConfig(rate_per_second=2000.0, rate_burst=1.0, flood_limit=1000)
    async with running_server(config) as port:
        c = await greeted(port, "c")
        await c.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i for i in range(100)))
        got = [await c.recv() for _ in range(100)]
        limited = [m for m in got if m.get("code") == "rate_limited"]
        assert limited, got
        for m in limited:
            assert m.get("retry_after", 0.0) >= 0.001, m
            assert "0.000" not in m["message"], m
        # Waiting as told is enough.
        await trio.sleep(limited[-1]["retry_after"])
        assert (await c.request(type="ping"))["type"] == "pong"


#: The flood (64 KB chunks of lines) and the quiet client's round trips meanwhile. The
#: server, reading 16 KiB at a time, answered 20 round trips while about 16 more chunks
#: went in after the first 8; reading up to 4 MiB at a time it needed about 56 more.
FLOOD_CHUNKS = 40
QUIET_ROUND_TRIPS = 20


@pytest.mark.slow
async def test_a_flooding_client_does_not_starve_another() -> None:
    """Each chunk the server reads is a scheduling point: while one connection keeps the
    server's socket full of lines, another client's round trips are answered in between.

    Checked by order, not by time: the flood is a fixed amount (FLOOD_CHUNKS) followed
    by a ping of its own, and every round trip of the quiet client, started once the
    flood is under way, must complete before the flood's ping is answered, that is while
    the server still has flood to read. A fair server reads less than a chunk of flood per
    round trip; one that read the flood in large helpings before letting others in would
    get through it first.
    """
    config = ServerConfig(rate_per_second=1e9, rate_burst=1e9)
    async with running_server(config) as port:
        flooder = await greeted(port, "flood")
        other = await greeted(port, "other")
        chunk = b'{"type":"pong"}\n' * 4000  # pong: never answered, so nothing queues up
        order: list[str] = []
        under_way = trio.Event()

        async def flood() -> None:
            for sent in range(1, FLOOD_CHUNKS + 1):
                await flooder.send_raw(chunk)
                if sent == 8:  # the socket buffers hold flood the server has yet to read
                    under_way.set()
            assert (await flooder.request(type="ping", timeout=600))["type"] == "pong"
            order.append("flood read")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(flood)
            await under_way.wait()
            for _ in range(QUIET_ROUND_TRIPS):
                assert (await other.request(type="ping", timeout=600))["type"] == "pong"
                order.append("quiet")
        assert order == ["quiet"] * QUIET_ROUND_TRIPS + ["flood read"], order
