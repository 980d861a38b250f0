"""The client Connection against a scripted server speaking real protocol bytes over TCP.

The peer here is a few lines of trio that write exact wire lines, so these tests pin the
client's own behaviour (id matching, errors, pings, events, drops) independently of the
real server, which other tests use end to end.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from jackal.client.connection import (
    ConnectionLost,
    RequestTimeout,
    ServerError,
    UnexpectedReply,
    connect,
    open_connection,
    parse_address,
)
from jackal.game.cards import Card
from jackal.protocol.messages import HelloOk, Ok, Played, ServerPong, Tables
from jackal.protocol.requests import Hello, ListTables, Ping, Play, Pong, Ready
from support.fake_server import Peer, fake_server


async def test_request_reply_ids_match_out_of_order() -> None:
    """Replies are matched by id, whatever order they come in; events go to events()."""

    async def script(peer: Peer) -> None:
        first = await peer.receive()
        second = await peer.receive()
        assert first["type"] == "hello" and second["type"] == "list_tables"
        assert isinstance(first["id"], int) and first["id"] != second["id"]
        # Answer the second request first, with an event squeezed in between.
        await peer.send({"type": "tables", "tables": [], "id": second["id"]})
        await peer.send({"type": "turn", "seat": "E"})
        await peer.send({"type": "hello_ok", "name": "zed", "id": first["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        assert conn.welcome is not None and conn.welcome.server == "fake"
        assert conn.welcome is conn._conn.welcome  # kept once: by the sans-IO object
        results: dict[str, Any] = {}

        async def ask(key: str, msg: Any) -> None:
            results[key] = await conn.request(msg)

        async with trio.open_nursery() as inner:
            inner.start_soon(ask, "hello", Hello(name="zed"))
            await trio.sleep(0.05)  # make the send order deterministic
            inner.start_soon(ask, "list", ListTables())
        assert isinstance(results["hello"], HelloOk) and results["hello"].name == "zed"
        assert isinstance(results["list"], Tables)
        event = await conn.next_event()
        assert type(event).__name__ == "Turn"


async def test_error_reply_raises_server_error_and_connection_stays_usable() -> None:
    async def script(peer: Peer) -> None:
        msg = await peer.receive()
        await peer.send({"type": "error", "code": "no_such_table", "message": "no table 'x'",
                         "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "error", "code": "rate_limited", "message": "slow down",
                         "retry_after": 1.5, "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "hello_ok", "name": "a", "id": msg["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        with pytest.raises(ServerError) as info:
            await conn.request(ListTables())
        assert info.value.code == "no_such_table"
        assert "no table 'x'" in info.value.message
        with pytest.raises(ServerError) as info:
            await conn.request(ListTables())
        assert info.value.code == "rate_limited" and info.value.retry_after == 1.5
        assert isinstance(await conn.request(Hello(name="a")), HelloOk)


async def test_a_reply_the_reply_table_does_not_name_is_refused() -> None:
    """``request`` checks the reply's type against protocol/replies.py: ``hello_ok`` does
    not answer ``list_tables``, nor ``ok`` naming another request ``ready``; ``pong``,
    which nothing answers, is refused before it is sent."""

    async def script(peer: Peer) -> None:
        msg = await peer.receive()
        await peer.send({"type": "hello_ok", "name": "a", "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "ok", "request": "leave", "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "ok", "request": "ready", "id": msg["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        with pytest.raises(UnexpectedReply, match="ListTables was answered with HelloOk"):
            await conn.request(ListTables())
        with pytest.raises(UnexpectedReply):
            await conn.request(Ready())
        reply = await conn.request(Ready())  # the connection stays usable
        assert isinstance(reply, Ok) and reply.request == "ready"
        with pytest.raises(ValueError, match="does not answer Pong"):
            await conn.request(Pong())


async def test_server_ping_is_answered_with_pong_while_nobody_reads() -> None:
    got: list[dict[str, Any]] = []

    async def script(peer: Peer) -> None:
        await peer.send({"type": "ping"})
        got.append(await peer.receive())
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port):
        while not got:
            await trio.sleep(0.01)
    assert got == [{"type": "pong"}]


async def test_own_played_reply_is_also_an_event() -> None:
    async def script(peer: Peer) -> None:
        msg = await peer.receive()
        await peer.send({"type": "played", "seat": "S", "card": "7H", "index": 1,
                         "id": msg["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        reply = await conn.request(Play(card=Card.parse("7H")))
        assert isinstance(reply, Played) and reply.card == Card.parse("7H")
        event = await conn.next_event()
        assert isinstance(event, Played) and event.index == 1


async def test_drop_fails_waiting_request_and_ends_events() -> None:
    async def script(peer: Peer) -> None:
        await peer.receive()
        await peer.send({"type": "player_left", "seat": "N"})
        # ...and hang up without answering.

    async with fake_server(script) as (nursery, port):
        conn = await connect(nursery, "127.0.0.1", port)
        with pytest.raises(ConnectionLost):
            await conn.request(ListTables())
        # The event sent before the drop is still delivered, then the end.
        assert type(await conn.next_event()).__name__ == "PlayerLeft"
        with pytest.raises(ConnectionLost) as info:
            await conn.next_event()
        assert "closed" in info.value.reason
        with pytest.raises(ConnectionLost):
            await conn.send(ListTables())
        await conn.aclose()


async def test_request_timeout_leaves_connection_open() -> None:
    async def script(peer: Peer) -> None:
        await peer.receive()  # never answered
        msg = await peer.receive()
        await peer.send({"type": "hello_ok", "name": "late", "id": msg["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (nursery, port):
        conn = await connect(nursery, "127.0.0.1", port)
        with pytest.raises(RequestTimeout):
            await conn.request(ListTables(), timeout=0.1)
        assert isinstance(await conn.request(Hello(name="late")), HelloOk)
        await conn.aclose()
        assert conn.closed


async def test_unreachable_server_is_connection_lost(refused_port: int,
                                                    nursery: trio.Nursery) -> None:
    with trio.fail_after(5), pytest.raises(ConnectionLost) as info:
        await connect(nursery, "127.0.0.1", refused_port)
    assert f"127.0.0.1:{refused_port}" in info.value.reason


@pytest.mark.parametrize(("text", "expected"), [
    ("127.0.0.1:7000", ("127.0.0.1", 7000)),
    ("localhost", ("localhost", 7878)),
    ("[::1]:9", ("::1", 9)),
])
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":80", "host:port", "host:70000", "[::1"])
def test_parse_address_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


async def test_server_shutdown_is_delivered_then_the_connection_ends() -> None:
    async def script(peer: Peer) -> None:
        await peer.send({"type": "server_shutdown", "reason": "maintenance"})
        await trio.sleep_forever()  # the client must not wait for the close

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        event = await conn.next_event()
        assert type(event).__name__ == "ServerShutdown"
        with pytest.raises(ConnectionLost, match="maintenance"):
            await conn.next_event()
        with pytest.raises(ConnectionLost):
            await conn.request(ListTables())


#: One ``turn`` line as the scripted server writes it, newline included.
_TURN = {"type": "turn", "seat": "N"}
_TURN_SIZE = len(json.dumps(_TURN)) + 1


async def test_a_consumer_that_falls_behind_loses_the_connection() -> None:
    """The event stream's one budget is bytes: two turns fit, the third drops the link."""

    async def script(peer: Peer) -> None:
        for _ in range(5):
            await peer.send(_TURN)
        await trio.sleep_forever()

    async with fake_server(script) as (nursery, port):
        conn = await connect(nursery, "127.0.0.1", port, max_event_bytes=2 * _TURN_SIZE)
        while not conn.closed:
            await trio.sleep(0.01)
        assert conn.lost_reason is not None and "fell behind" in conn.lost_reason
        # What was queued is still delivered, then the end.
        assert [type(await conn.next_event()).__name__ for _ in range(2)] == ["Turn"] * 2
        with pytest.raises(ConnectionLost):
            await conn.next_event()


async def test_a_silent_server_is_pinged_then_given_up() -> None:
    """A link that dies without a close: the client pings once, then gives up."""
    seen: list[dict[str, Any]] = []

    async def script(peer: Peer) -> None:
        seen.append(await peer.receive())  # the client's ping, never answered
        await trio.sleep_forever()

    async with fake_server(script) as (nursery, port):
        conn = await connect(nursery, "127.0.0.1", port, idle_timeout=0.4)
        with pytest.raises(ConnectionLost, match="nothing heard"):
            await conn.next_event()
        assert seen == [{"type": "ping"}]


@pytest.mark.slow
async def test_an_answered_ping_keeps_a_quiet_link_open() -> None:
    async def script(peer: Peer) -> None:
        while True:
            msg = await peer.receive()
            if msg["type"] == "ping":  # echo the id when there is one, as servers do
                await peer.send({"type": "pong", **({"id": msg["id"]} if "id" in msg else {})})

    async with fake_server(script) as (nursery, port):
        conn = await connect(nursery, "127.0.0.1", port, idle_timeout=0.2)
        await trio.sleep(1.0)  # five idle limits, kept alive by ping/pong alone
        assert not conn.closed
        assert isinstance(await conn.request(Ping()), ServerPong)  # a pong with our id
        with trio.move_on_after(0.1):
            await conn.next_event()
            raise AssertionError("unrequested pongs are not events")
        await conn.aclose()
