"""Chat over real sockets: who reads which line, when seats may talk, and the limits.

Partners talk only through their cards: no line a seated player sends during a deal
reaches anyone, and spectators' lines never reach a seat (not as events, not in a
snapshot). Lines are limited in rate (per connection and per address), in width, and
checked like every text from people; a table keeps its last lines for snapshots and
writes them to its record within a fixed budget.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jackal.server import chat
from jackal.server.config import ServerConfig
from support.client import SEATS, Msg, RawClient, greeted, open_table, seat_four, sit, start_deal
from support.server import QUIET, running_server

#: Chat without its rate limit, for tests about something else.
FREE_CHAT: dict[str, Any] = dict(chat_per_minute=60_000.0, chat_burst=1000.0,
                                 chat_per_minute_per_address=60_000.0,
                                 chat_burst_per_address=1000.0)


def _chats(log: list[Msg]) -> list[Msg]:
    return [msg for msg in log if msg["type"] == "chat"]


async def _drain(client: RawClient) -> None:
    """Read what has arrived (a ping round trip: everything sent before is in the log)."""
    await client.request(type="ping")


async def _seat_and_watcher(port: int) -> tuple[RawClient, RawClient, RawClient, str]:
    """The table's lobby connection, N seated there, a spectator, and the table's id."""
    lobby, table = await open_table(port)
    seated = await sit(port, table, "N")
    watcher = await greeted(port, "watcher")
    await watcher.request(type="spectate", table=table)
    return lobby, seated, watcher, table


async def test_no_line_from_a_seat_reaches_anyone_during_a_deal() -> None:
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        lobby, table = await open_table(port, target=10_000, seed=5)
        clients = await seat_four(port, table)
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        by_seat = dict(zip(SEATS, clients, strict=True))
        await start_deal(clients)
        turn = (await clients[0].wait_type("turn"))["seat"]
        for play in range(32):
            # Before every card, every seat tries to talk: each is refused, with its code.
            for client in clients:
                reply = await client.request(type="chat", text=f"psst {play}: lead spades")
                assert reply["type"] == "error" and reply["code"] == "chat_closed", reply
            mover = by_seat[turn]
            reply = await mover.request(type="play", card=mover.hand[0])
            assert reply["type"] == "played", reply
            mover.hand.remove(reply["card"])
            nxt = (await clients[0].recv_until(
                lambda m: m["type"] in ("turn", "deal_ended")))[-1]
            if nxt["type"] == "deal_ended":
                assert play == 31
                break
            turn = nxt["seat"]
        for each in (*clients, watcher):
            await _drain(each)
            assert not _chats(each.log), each.name
            shot = await each.request(type="sync")
            assert "chat" not in shot, shot
        # Between deals the table talks again, spectators reading along.
        said = await by_seat["S"].request(type="chat", text="well played")
        assert said["type"] == "chat" and said["channel"] == "table" and said["seat"] == "S"
        for each in (*clients, watcher):
            if each is not by_seat["S"]:
                got = await each.wait_type("chat")
                assert (got["text"], got["name"], "id" in got) == ("well played", "pS", False)
        await lobby.aclose()


async def test_spectators_chat_never_reaches_a_seat() -> None:
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        _lobby, table = await open_table(port, target=10_000)
        clients = await seat_four(port, table)
        # Watchers from another address than the seats: a seated address may not chat
        # from a second connection during a deal (see the test below).
        one = await greeted(port, "ann", local="127.0.0.2")
        two = await greeted(port, "bob", local="127.0.0.2")
        for watcher in (one, two):
            await watcher.request(type="spectate", table=table)
        before = await one.request(type="chat", text="who do you back?")
        assert before["channel"] == "spectators" and "seat" not in before
        await start_deal(clients)
        during = await one.request(type="chat", text="north holds the ace")
        assert during["type"] == "chat", during
        assert [m["text"] for m in _chats(await two.recv_until(
            lambda m: m.get("text") == "north holds the ace"))] == [
            "who do you back?", "north holds the ace"]
        for client in clients:
            await _drain(client)
            assert not _chats(client.log)
            shot = await client.request(type="sync")
            assert "chat" not in shot
        shot = await two.request(type="sync")
        assert [(line["channel"], line["name"], line["text"]) for line in shot["chat"]] == [
            ("spectators", "ann", "who do you back?"),
            ("spectators", "ann", "north holds the ace")]


async def test_a_seated_players_second_connection_cannot_chat_during_the_deal() -> None:
    """N's second window, in the lobby or watching, is N typing: during the deal its
    lines are refused like N's own; a spectator from another address still talks."""
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        _lobby, table = await open_table(port, target=10_000)
        clients = await seat_four(port, table)  # all four from 127.0.0.1
        lobby_window = await greeted(port, "second")
        watch_window = await greeted(port, "third")
        await watch_window.request(type="spectate", table=table)
        stranger = await greeted(port, "stranger", local="127.0.0.2")
        await stranger.request(type="spectate", table=table)
        assert (await lobby_window.request(type="chat", text="before"))["type"] == "chat"
        await start_deal(clients)
        for window in (lobby_window, watch_window):
            refused = await window.request(type="chat", text="I hold the queens")
            assert refused["code"] == "chat_closed", refused
        assert (await stranger.request(type="chat", text="nice play"))["type"] == "chat"
        for client in clients:
            await _drain(client)
            assert not [m for m in _chats(client.log) if "queens" in m["text"]]

async def test_lobby_chat_goes_to_the_lobby_only() -> None:
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        _lobby, seated, watcher, _table = await _seat_and_watcher(port)
        here = await greeted(port, "here")
        early = await RawClient.connect(port, "early")  # no hello yet: not in the lobby
        said = await here.request(type="chat", text="anyone for a game?")
        assert (said["channel"], said["name"]) == ("lobby", "here")
        got = await _lobby.wait_type("chat")
        assert (got["channel"], got["text"], "id" in got) == ("lobby", "anyone for a game?",
                                                              False)
        for other in (seated, watcher, early):
            await other.send(type="ping", id="p")
            await other.recv_until(lambda m: m.get("id") == "p")
            assert not _chats(other.log)
        # Table chat does not leak to the lobby either.
        await seated.request(type="chat", text="at the table")
        await _drain(_lobby)
        assert [m["text"] for m in _chats(_lobby.log)] == ["anyone for a game?"]


async def test_rate_limits_per_connection_and_per_address() -> None:
    config = ServerConfig(**QUIET)
    async with running_server(config) as port:
        talker = await greeted(port, "talker")
        replies = [await talker.request(type="chat", text=f"line {n}")
                   for n in range(int(config.chat_burst) + 1)]
        assert [r["type"] for r in replies[:-1]] == ["chat"] * int(config.chat_burst)
        refused = replies[-1]
        assert refused["code"] == "rate_limited" and refused["retry_after"] > 0, refused
        # Other messages are not held up by the chat limit.
        assert (await talker.request(type="list_tables"))["type"] == "tables"
        # More connections from the same address chat no faster, all together.
        others = [await greeted(port, f"o{n}") for n in range(4)]
        sent = 0
        outcome: list[str] = []
        for _round in range(3):
            for other in others:
                reply = await other.request(type="chat", text="hello")
                outcome.append(reply["type"] if reply["type"] == "chat" else reply["code"])
                sent += reply["type"] == "chat"
        # The address had spent burst-per-connection lines already (talker's).
        assert sent == int(config.chat_burst_per_address - config.chat_burst), outcome
        assert outcome.count("rate_limited") == 12 - sent
        # Another address still chats.
        stranger = await greeted(port, "stranger", local="127.0.0.2")
        assert (await stranger.request(type="chat", text="hi"))["type"] == "chat"


async def test_width_length_and_control_characters_are_refused() -> None:
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        sender, listener = await greeted(port, "sender"), await greeted(port, "listener")
        assert (await sender.request(type="chat", text="x" * 500))["type"] == "chat"
        for text, code in (("x" * 501, "bad_text"), ("全" * 251, "bad_text"),
                           ("y" * 1001, "invalid_message"), ("", "invalid_message"),
                           ("clear\x1b[2J", "bad_text"), ("bell\x07", "bad_text"),
                           ("\u202egnp.exe", "bad_text"), ("a\nb", "bad_text"),
                           ("zero\u200bwidth", "bad_text")):
            reply = await sender.request(type="chat", text=text)
            assert (reply["type"], reply.get("code")) == ("error", code), (text, reply)
            assert "field 'text'" in reply["message"]
        await _drain(listener)
        assert [m["text"] for m in _chats(listener.log)] == ["x" * 500]


async def test_the_snapshot_keeps_the_last_lines_each_may_read() -> None:
    async with running_server(ServerConfig(**QUIET, **FREE_CHAT)) as port:
        _lobby, north, watcher, table = await _seat_and_watcher(port)
        for n in range(chat.KEEP + 5):
            await north.request(type="chat", text=f"table {n}")
        await watcher.request(type="chat", text="from the rail")
        late = await sit(port, table, "E", "late")
        state = next(m for m in late.log if m["type"] == "table_state")
        assert [line["text"] for line in state["chat"]] == [
            f"table {n}" for n in range(5, chat.KEEP + 5)]
        assert state["chat"][-1] == {"channel": "table", "name": "pN", "text": "table 24",
                                     "seat": "N"}
        shot = await watcher.request(type="sync")
        assert [line["text"] for line in shot["chat"]] == [
            *(f"table {n}" for n in range(6, chat.KEEP + 5)), "from the rail"]


async def test_the_record_keeps_chat_within_its_budget(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    budget = 2000
    monkeypatch.setattr(chat, "RECORD_BUDGET", budget)
    config = ServerConfig(**QUIET, **FREE_CHAT, records_dir=tmp_path)
    async with running_server(config) as port:
        _lobby, table = await open_table(port)
        north = await sit(port, table, "N")
        for n in range(40):
            await north.request(type="chat", text=f"{n:02d} " + "z" * 400)
    record = next(tmp_path.glob("*.jsonl"))
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    said = [line for line in lines if line["event"] == "chat"]
    assert said and len(said) < 40
    assert sum(len(line["text"]) + len(line["name"]) + 100 for line in said) <= budget
    assert said[0]["text"].startswith("00 ") and said[0]["seat"] == "N"
    # A restart shows the recorded lines again.
    async with running_server(ServerConfig(**QUIET, records_dir=tmp_path)) as port:
        back = await RawClient.connect(port, "back")
        await back.hello(token=north.token)
        state = await back.wait_type("table_state")
        assert [line["text"] for line in state["chat"]] == [line["text"] for line in said]
