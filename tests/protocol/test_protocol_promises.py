"""Promises docs/PROTOCOL.md makes beyond single messages, each checked against the code.

One test per statement a bot author found implied but not written (issue 14): each test
first finds the statement in the document, then shows a real server (or the real client
library) doing what it says.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
import trio.testing
from jackal.client.connection import connect
from jackal.game.cards import Card
from jackal.game.seats import Seat
from jackal.protocol.codec import CLIENT_TYPES
from jackal.protocol.messages import HelloOk, ServerMessage, Turn
from jackal.protocol.replies import reply_tags
from jackal.protocol.requests import Hello
from jackal.protocol.schema import json_schema
from jackal.server.config import ServerConfig
from support import ROOT
from support.client import (
    RawClient,
    alone_with_bots,
    greeted,
    open_table,
    play_out,
    ready_all,
    seat_four,
)
from support.server import running_server

DOC = " ".join((ROOT / "docs" / "PROTOCOL.md")
               .read_text().split())


def says(text: str) -> None:
    """The document states ``text`` (compared with runs of white space collapsed)."""
    assert " ".join(text.split()) in DOC, f"docs/PROTOCOL.md no longer says: {text}"


async def test_the_hand_is_sorted_and_not_resent_with_each_turn() -> None:
    says("your copy carries your 13 cards, sorted by suit S, H, D, C and then by rank, "
         "ace low")
    says("Your hand is not sent again with each `turn`, only with `your_turn`")
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "S", "ann", target=1, seed=5)
        dealt = [Card.parse(text) for text in human.hand]
        assert dealt == sorted(dealt) and len(dealt) == 13
        await play_out(human, lambda m: m["type"] == "deal_ended")
    carrying = {m["type"] for m in human.log if "hand" in m}
    assert "your_turn" in carrying <= {"table_state", "deal_started", "your_turn"}


async def test_ready_after_match_ended_does_nothing() -> None:
    says("`ready` is still answered `ok` and does nothing (no new match starts)")
    async with running_server() as port:
        lobby, human, table = await alone_with_bots(port, "S", "ann", target=1, seed=6)
        await play_out(human, lambda m: m["type"] == "match_ended")
        reply = await human.request(type="ready")
        assert reply["type"] == "ok" and reply["request"] == "ready"
        pong = await human.request(type="ping")
        assert human.log[-2:] == [reply, pong]  # no event came between them
        tables = (await lobby.request(type="list_tables"))["tables"]
        assert [t["status"] for t in tables if t["table"] == table] == ["over"]
        refused = await lobby.request(type="add_bot", table=table, seat="S")
        assert refused["code"] == "seat_taken"  # the match is over, but S is still seated


async def _fake_server(stream: trio.SocketStream) -> None:
    """A newer server: extra fields everywhere and an event type nobody knows yet."""
    async def send(**msg: Any) -> None:
        await stream.send_all(json.dumps(msg).encode() + b"\n")

    await send(type="welcome", protocol=1, server="jackal", version="9", hint="",
               features=["time_travel"])
    buffer = b""
    while b"\n" not in buffer:
        buffer += await stream.receive_some(4096)
    hello = json.loads(buffer.partition(b"\n")[0])
    await send(type="hello_ok", name="x", id=hello["id"], colour="blue")
    await send(type="weather", sky="clear")
    await send(type="turn", seat="N", deadline=30.0)
    await trio.sleep_forever()


async def test_the_client_ignores_unknown_fields_and_events(nursery: trio.Nursery) -> None:
    says("A client must do the opposite: ignore fields it does not know in a server "
         "message, and ignore whole messages whose `type` it does not know")
    listeners = await nursery.start(trio.serve_tcp, _fake_server, 0)
    port = listeners[0].socket.getsockname()[1]
    conn = await connect(nursery, "127.0.0.1", port)
    try:
        assert isinstance(await conn.request(Hello(name="x")), HelloOk)
        event: ServerMessage = await conn.next_event()
        assert event == Turn(seat=Seat.N)
    finally:
        await conn.aclose()


async def test_the_server_is_strict_about_unknown_fields() -> None:
    says("The server accepts exactly what this document describes and refuses the rest")
    async with running_server() as port:
        client = await greeted(port, "c")
        reply = await client.request(type="list_tables", colour="blue")
        assert reply["code"] == "invalid_message" and "colour" in reply["message"]


async def test_a_client_that_ignores_pings_is_disconnected(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    says("every client **must** answer a `ping` with `pong`")
    async with running_server(ServerConfig(port=0)) as port:
        client = await greeted(port, "quiet")
        client.auto_pong = False
        got = await client.eof(timeout=100)
    assert [m["type"] for m in got] == ["ping", "error"]
    assert got[-1]["code"] == "timeout"


@pytest.mark.slow
async def test_no_move_limit_without_a_clock(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    says("A table has no time limit on a play unless it has a [clock](#clocks) (`turn_seconds` "
         "in `create_table`, or the server's `--turn-seconds`; off by default). A table "
         "without a clock waits for the seat to move as long as it takes")
    assert ServerConfig().turn_seconds is None  # "off by default"
    async with running_server(ServerConfig(port=0)) as port:
        _, table = await open_table(port, target=1, seed=8)
        clients = await seat_four(port, table)
        await ready_all(clients)
        for client in clients:
            first = (await client.wait_type("turn"))["seat"]
        mover = next(c for c in clients if c.seat == first)
        seen = {id(c): len(c.log) for c in clients}

        async def listen(client: RawClient) -> None:
            while True:
                await client.recv(timeout=10**6)  # answers pings on the way

        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(listen, client)
            await trio.sleep(3 * 3600)  # three hours of virtual time
            nursery.cancel_scope.cancel()
        later = [m["type"] for c in clients for m in c.log[seen[id(c)]:]]
        # Nothing played, nobody replaced: only the mover's your_turn and pings.
        assert set(later) <= {"your_turn", "ping"}, later
        dealt = next(m for m in mover.log if m["type"] == "deal_started")["hand"]
        played = await mover.request(type="play", card=dealt[0])
        assert played["type"] == "played" and played["seat"] == first


async def test_a_table_created_with_a_clock_has_one() -> None:
    """The paragraph above once said no table of this server had a clock (issue 25)."""
    says("unless it has a [clock](#clocks) (`turn_seconds` in `create_table`")
    async with running_server() as port:
        _, table = await open_table(port, target=1, seed=8, turn_seconds=30)
        clients = await seat_four(port, table)
        await ready_all(clients)
        turn = await clients[0].wait_type("turn")
        assert turn["seconds"] >= 30, turn


async def test_explain_of_an_unplayed_card_is_the_code_the_doc_names() -> None:
    """The `explain` section once named `invalid_message` here (issue 25)."""
    says("A card that has not been played yet is `not_played` (an `index` outside 1..8 is "
         "`invalid_message` naming `index`)")
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "N", "ann", target=1, seed=5)
        unplayed = await human.request(type="explain", seat="W", index=8)
        outside = await human.request(type="explain", seat="W", index=9)
    assert unplayed["code"] == "not_played", unplayed
    assert outside["code"] == "invalid_message" and "index" in outside["message"], outside


async def test_rows_has_the_two_documented_shapes() -> None:
    """`rows` is a list in `your_turn` and an object in `table_state`: the doc warns of it
    (issue 25), and the server sends exactly those shapes."""
    says("**Warning: `rows` has two shapes.** In `your_turn` it is a *list* of `{seat, "
         "cards}` in play order (`first`'s row first)")
    says("in `table_state` it is an *object keyed by seat*")
    says("`rows` (the cards each seat has played this deal, in order, as an object keyed by "
         "seat")
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "S", "ann", target=1, seed=5)
        mine = await human.wait_type("your_turn")
        state = await human.request(type="sync")
    listed = mine["rows"]
    play_order = [str(seat) for seat in Seat.parse(mine["first"]).clockwise_from()]
    assert [row["seat"] for row in listed] == play_order
    keyed = state["rows"]
    assert set(keyed) == {"N", "E", "S", "W"}
    assert {row["seat"]: row["cards"] for row in listed} == keyed


async def test_leave_mid_match_is_player_left_then_bot_takeover() -> None:
    says("During a match on a table with `bot_takeover` a `bot_takeover` for the seat "
         "follows at once")
    async with running_server() as port:
        _, table = await open_table(port, target=100, seed=9)
        clients = await seat_four(port, table)
        await ready_all(clients)
        await clients[1].request(type="leave")
        got = await clients[0].recv_until(lambda m: m["type"] == "bot_takeover")
        kinds = [m["type"] for m in got if m["type"] in ("player_left", "bot_takeover")]
        assert kinds == ["player_left", "bot_takeover"]
        assert got[-1]["seat"] == "E"


def test_only_durations_may_have_a_fraction() -> None:
    says("Numbers are integers (JSON numbers without a fraction or exponent), except the "
         "durations in seconds, which may have a fraction: `retry_after` of an `error`, "
         "`seconds` of `player_gone`, of `turn` and of `clock`, `deadline` of `your_turn`, "
         "`next_deal_in` of `deal_ended` and `table_state`, and the "
         "clock's `turn_seconds` (also in `create_table`) and `turn_left`")
    # The published schema (cards are text there), client and server messages alike.
    components = json_schema()["$defs"]
    floats = set()

    def walk(node: Any, name: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "number":
                floats.add(name)
            for key, value in node.items():
                if key == "properties":
                    for prop, sub in value.items():
                        walk(sub, prop)
                else:
                    walk(value, name)
        elif isinstance(node, list):
            for item in node:
                walk(item, name)

    walk(components, "")
    assert floats == {"retry_after", "seconds", "deadline", "turn_seconds", "turn_left",
                      "next_deal_in"}


def test_protocol_help_names_every_field_of_every_message() -> None:
    """``help`` (and ``jackal protocol help``) leaves no field of a client message out."""
    from jackal.protocol.codec import CLIENT_TYPES
    from jackal.protocol.help import HELP_ENTRIES

    entries = {entry.type: entry for entry in HELP_ENTRIES}
    missing = []
    for kind, struct in CLIENT_TYPES.items():
        entry = entries[kind]
        for name in struct.__struct_fields__:
            if name != "id" and name not in entry.summary and f'"{name}"' not in entry.example:
                missing.append(f"{kind}.{name}")
    assert not missing, missing


#: Sends one request and checks its reply against the reply table (returns the reply).
Checked = Callable[..., Awaitable[dict[str, Any]]]


async def _play_first(client: RawClient, checked: Checked) -> None:
    """``client`` plays the first card of its hand (read from a ``sync``) on its turn."""
    state = await checked(client, type="sync")
    await checked(client, type="play", card=state["hand"][0])


async def _until_turn_of(seat: str, reader: RawClient, other: RawClient,
                         checked: Checked, until: str = "") -> None:
    """Read ``reader``'s events until it is ``seat``'s turn (or an ``until`` event),
    playing ``other``'s cards on its turns; the bots play theirs."""
    while True:
        msg = await reader.recv(30)
        if msg["type"] == until:
            return
        if msg["type"] == "deal_ended":  # no match end yet: the next deal
            await reader.send(type="ready")
            await other.send(type="ready")
        if msg["type"] == "turn":
            if msg["seat"] == seat:
                return
            if msg["seat"] == other.seat:
                await _play_first(other, checked)


async def test_every_request_is_answered_as_the_reply_table_says() -> None:
    """Each client message, sent to a real server where it succeeds, is answered by a
    message of a type protocol/replies.py names for it (with its id; ``ok`` names it)."""
    says("The type of its direct reply when it succeeds, for every request")
    sent: set[str] = set()

    async def checked(client: RawClient, **msg: Any) -> dict[str, Any]:
        reply = await client.request(**msg)
        assert reply["type"] in reply_tags(msg["type"]), (msg, reply)
        if reply["type"] == "ok":
            assert reply["request"] == msg["type"], reply
        sent.add(msg["type"])
        return reply

    async with running_server() as port:
        lobby = await RawClient.connect(port, "lobby")
        helped = await checked(lobby, type="help")
        # The help entries name the same replies, read from the wire.
        assert {entry["type"]: tuple(entry["replies"]) for entry in helped["messages"]} \
            == {kind: reply_tags(kind) for kind in CLIENT_TYPES}
        await checked(lobby, type="ping")
        await checked(lobby, type="hello", name="lobby")
        await checked(lobby, type="list_tables")
        table = (await checked(lobby, type="create_table", target=1, seed=5,
                               hints=True))["table"]
        south, east = await greeted(port, "ann"), await greeted(port, "eve")
        for client, seat in ((south, "S"), (east, "E")):
            client.seat = (await checked(client, type="join", table=table, seat=seat))["seat"]
        await checked(lobby, type="spectate", table=table)
        for seat in ("N", "W"):
            await checked(lobby, type="add_bot", table=table, seat=seat)
        await checked(lobby, type="chat", text="good evening")
        await checked(south, type="conventions", card="beginner")
        await checked(south, type="ready")
        await checked(east, type="ready")
        question = await checked(south, type="ask", seat="E", text="what do you lead?")
        await checked(east, type="answer", question=question["question"], text="low")
        await _until_turn_of("S", south, east, checked)
        await checked(south, type="hint")
        await checked(south, type="pause")
        await checked(south, type="resume")
        await _play_first(south, checked)
        await checked(east, type="explain", seat="S", index=1)
        while True:
            await _until_turn_of("S", south, east, checked, until="match_ended")
            if south.log[-1]["type"] == "match_ended":
                break
            await _play_first(south, checked)
        await checked(south, type="rematch")
        await checked(east, type="leave")
    assert sent == set(CLIENT_TYPES) - {"pong"}  # pong is answered by nothing
    assert reply_tags("pong") == ()
