"""The lobby during one's own deal (issue 30 items 7 and 9), over real sockets.

A seated player, and every connection of its address, writes nothing the lobby shows while
its deal is played (``lobby_closed``), and the lobby line hides what they do meanwhile
(a drop, a watcher); chat is closed only where the deal is; names that differ invisibly
are refused. 127.0.0.1 is the cheating seat's address, 127.0.0.2 everyone else's.
"""

from __future__ import annotations

import functools
from typing import Any

import trio
from jackal.server.config import ServerConfig
from support.client import Msg, RawClient, greeted, new_table, play_out, sit, start_deal
from support.server import QUIET, running_server

SEAT_HOST, OTHERS = "127.0.0.1", "127.0.0.2"
#: Chat without its rate limit; a table stays between deals for the whole test.
CONFIG: dict[str, Any] = dict(**QUIET, chat_per_minute=60_000.0, chat_burst=1000.0,
                              chat_per_minute_per_address=60_000.0,
                              chat_burst_per_address=1000.0, between_deals_seconds=10_000.0)


async def _lines(client: RawClient) -> dict[str, Msg]:
    reply = await client.request(type="list_tables")
    return {line["table"]: line for line in reply["tables"]}


async def _bots_around(lobby: RawClient, table: str, human: str) -> None:
    for seat in "NESW":
        if seat != human:
            assert (await lobby.request(type="add_bot", table=table, seat=seat))["type"] \
                == "ok"


async def _deal_with_partner(port: int) -> tuple[RawClient, RawClient, RawClient, str]:
    """S (from SEAT_HOST) and its partner N (from OTHERS) in deal 1 of a table with two
    bots; also returns the table's creator (from OTHERS)."""
    creator = await greeted(port, "creator", local=OTHERS)
    table = await new_table(creator, target=10_000)
    south = await greeted(port, "south", local=SEAT_HOST)
    north = await greeted(port, "north", local=OTHERS)
    assert (await south.join(table, "S"))["type"] == "joined"
    assert (await north.join(table, "N"))["type"] == "joined"
    for seat in "EW":
        await creator.request(type="add_bot", table=table, seat=seat)
    await start_deal([south, north])
    return creator, south, north, table


async def _finish_deal(*players: RawClient) -> None:
    """Play the deal out for each of ``players`` (a table stays between deals after)."""
    async with trio.open_nursery() as nursery:
        for player in players:
            nursery.start_soon(functools.partial(
                play_out, player, lambda m: m["type"] == "deal_ended", ready_between=False,
                timeout=30.0))


async def test_no_lobby_write_from_a_seats_address_during_its_deal() -> None:
    async with running_server(ServerConfig(**CONFIG)) as port:
        # S's second window made a side table before the deal (so it may fill its seats).
        window = await greeted(port, "window", local=SEAT_HOST)
        side = await new_table(window, name="side")
        _creator, south, north, _table = await _deal_with_partner(port)
        before = await _lines(north)
        writes: list[tuple[RawClient, dict[str, Any]]] = [
            (south, dict(type="create_table", name="S:KS KH 7D 7C 2S")),
            (window, dict(type="create_table", name="S:KS KH 7D 7C 2S")),
            (window, dict(type="add_bot", table=side, seat="N")),
            (window, dict(type="join", table=side, seat="E")),
            (south, dict(type="add_bot", table=side, seat="W")),
        ]
        for client, write in writes:
            reply = await client.request(**write)
            assert (reply["type"], reply.get("code")) == ("error", "lobby_closed"), (write, reply)
        assert await _lines(north) == before  # the partner reads nothing new
        # Others are not held up: a stranger, from an address not seated, still may.
        stranger = await greeted(port, "stranger", local="127.0.0.3")
        assert (await stranger.request(type="create_table"))["type"] == "table_created"
        # Between deals the address may write again.
        await _finish_deal(south, north)
        assert (await window.request(type="add_bot", table=side, seat="W"))["type"] \
            == "ok"
        assert (await window.join(side, "E"))["type"] == "joined"
        assert (await south.request(type="create_table"))["type"] == "table_created"


async def test_a_seat_at_another_table_stays_while_its_address_plays() -> None:
    async with running_server(ServerConfig(**CONFIG)) as port:
        other = await greeted(port, "other", local=OTHERS)
        side = await new_table(other)
        sitter = await sit(port, side, "N", "sitter")  # from SEAT_HOST, before the deal
        _creator, south, north, _table = await _deal_with_partner(port)
        refused = await sitter.request(type="leave")
        assert refused.get("code") == "lobby_closed", refused
        assert (await _lines(other))[side]["seats"]["N"] == "sitter"
        await _finish_deal(south, north)
        assert (await sitter.request(type="leave"))["type"] == "ok"


async def test_the_lobby_line_hides_drops_and_watchers_of_a_playing_address() -> None:
    async with running_server(ServerConfig(**CONFIG)) as port:
        _creator, south, north, table = await _deal_with_partner(port)
        watchers = [await greeted(port, f"w{n}", local=SEAT_HOST) for n in range(2)]
        for watcher in watchers:
            assert (await watcher.request(type="spectate", table=table))["type"] == "table_state"
        stranger = await greeted(port, "stranger", local="127.0.0.3")
        await stranger.request(type="spectate", table=table)
        line = (await _lines(north))[table]
        assert line["spectators"] == 1, line  # the stranger only
        await watchers[0].aclose()
        await south.aclose()  # a drop mid-deal: its seat is held
        await north.request(type="ping")
        line = (await _lines(north))[table]
        assert line["kinds"]["S"] == "human" and line["spectators"] == 1, line


async def test_spectators_chat_where_no_deal_of_their_address_is_played() -> None:
    """A club on one address: one of its people plays at one table; another watches a
    table between deals and talks with its spectators. Lobby chat, and chat among the
    playing table's own spectators, stay closed."""
    async with running_server(ServerConfig(**CONFIG)) as port:
        # Table two, from another address, goes to between deals.
        host = await greeted(port, "host", local=OTHERS)
        two = await new_table(host, target=10_000)
        player = await greeted(port, "player", local=OTHERS)
        await player.join(two, "N")
        await _bots_around(host, two, "N")
        await start_deal([player])
        await _finish_deal(player)
        _creator, _south, _north, one = await _deal_with_partner(port)
        watcher = await greeted(port, "watcher", local=SEAT_HOST)
        reader = await greeted(port, "reader", local=OTHERS)
        for each in (watcher, reader):
            assert (await each.request(type="spectate", table=two))["type"] == "table_state"
        said = await watcher.request(type="chat", text="good evening")
        assert (said["type"], said.get("channel")) == ("chat", "spectators"), said
        assert (await reader.wait_type("chat"))["text"] == "good evening"
        # The playing table's spectators and the lobby are still closed to the address.
        lobby = await greeted(port, "lobby", local=SEAT_HOST)
        assert (await lobby.request(type="chat", text="hi"))["code"] == "chat_closed"
        assert (await watcher.request(type="spectate", table=one))["type"] == "table_state"
        assert (await watcher.request(type="chat", text="hi"))["code"] == "chat_closed"


async def test_names_that_differ_invisibly_are_refused() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        nora = await greeted(port, "nora", local=SEAT_HOST)
        for name in ("nora\u034f", "expert bot\u3164", "\u3164", "nora\u2800", "\u2800",
                     "nor\ufe0fa", "\u115f\u1160"):
            other = await RawClient.connect(port, "x", local=OTHERS)
            reply = await other.request(type="hello", name=name)
            assert (reply["type"], reply.get("code")) == ("error", "bad_text"), (name, reply)
            assert "field 'name'" in reply["message"]
        reply = await nora.request(type="create_table", name="\u2800\u2800")
        assert reply.get("code") == "bad_text", reply
        reply = await nora.request(type="create_table", name="tea\ufe0f")
        assert reply.get("code") == "bad_text", reply
