"""A rematch at the same table: every human seat asks, a new match starts there (bots stay;
a seat left takes a newcomer or a bot; a new target makes the others ask again), the record
starts a new match, and a restart restores it, and a ready between deals. A real server on
port 0, real sockets, real record files."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import trio
from jackal.server.config import ServerConfig
from support.client import RawClient, open_table, play_out, sit, start_deal
from support.records import FAST
from support.server import running_server


def record_kinds(directory: Path) -> list[str]:
    (path,) = directory.glob("*.jsonl")
    return [json.loads(line)["event"] for line in path.read_text().splitlines()]


async def both(north: RawClient, south: RawClient, until: str, seat_played: bool) -> None:
    """Play N and S at once until each has seen ``until`` (``played`` by itself when
    ``seat_played``)."""
    def done(client: RawClient) -> Any:
        return lambda m: m["type"] == until and (not seat_played or m["seat"] == client.seat)

    async with trio.open_nursery() as nursery:
        for client in (north, south):
            nursery.start_soon(play_out, client, done(client))


async def test_every_human_asks_then_a_new_match_starts_and_survives_a_restart(
        tmp_path: Path) -> None:
    config = ServerConfig(records_dir=tmp_path, **FAST)
    async with running_server(config) as port:
        lobby, table = await open_table(port, target=1, seed=3)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        for seat in ("E", "W"):
            await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
        await start_deal([north, south])
        early = await north.request(type="rematch")  # not before the end
        assert (early["type"], early["code"]) == ("error", "not_allowed")
        await both(north, south, "match_ended", seat_played=False)

        # N asks: everyone hears, nothing starts while S has not asked.
        assert (await north.request(type="rematch"))["type"] == "ok"
        assert (await south.wait_type("rematch_wanted"))["seat"] == "N"
        state = await south.request(type="sync")
        assert state["status"] == "over"
        assert {s["seat"]: s["ready"] for s in state["seats"]} == {
            "N": True, "E": True, "S": False, "W": True}
        # S asks too: the new match starts at once, same seats, scores back to 0.
        assert (await south.request(type="rematch"))["type"] == "ok"
        for client in (north, south):
            await client.wait_type("rematch_started")
            started = await client.wait_type("deal_started")
            assert started["deal"] == 1 and len(started["hand"]) == 13
            client.hand = started["hand"]
        state = await north.request(type="sync")
        assert state["status"] == "playing" and state["deal"] == 1
        assert set(state["scores"].values()) == {0}
        assert [(s["name"], s["kind"]) for s in state["seats"]] == [
            ("pN", "human"), ("random bot", "bot"), ("pS", "human"), ("random bot", "bot")]
        await both(north, south, "played", seat_played=True)
        north_row = [m["card"] for m in north.log if m["type"] == "played"
                     and m["seat"] == "N"][-1:]
        token = north.token
    kinds = record_kinds(tmp_path)
    assert kinds.count("match_start") == 2 and kinds.count("match_end") == 1
    assert kinds.index("match_end") < kinds.index("rematch") < len(kinds) - 1 - kinds[
        ::-1].index("match_start")

    # A restart (the first server is gone without a goodbye) restores the new match.
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        back = await RawClient.connect(port, "pN")
        ok = await back.hello(token=token)
        assert (ok["table"], ok["seat"]) == (table, "N")
        state = await back.wait_type("table_state")
        assert state["status"] == "playing" and state["deal"] == 1
        assert set(state["scores"].values()) == {0}
        assert state["rows"]["N"] == north_row


async def test_a_rematch_is_for_seated_players_and_waits_for_every_human() -> None:
    async with running_server(ServerConfig(**FAST)) as port:
        lobby, table = await open_table(port, target=1, seed=4)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        for seat in ("E", "W"):
            await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
        watcher = await RawClient.connect(port, "watcher")
        await watcher.hello()
        await watcher.request(type="spectate", table=table)
        await start_deal([north, south])
        await both(north, south, "match_ended", seat_played=False)
        refused = await watcher.request(type="rematch")
        assert (refused["type"], refused["code"]) == ("error", "not_seated")
        assert (await north.request(type="rematch"))["type"] == "ok"
        # S leaves: its seat is empty, so no rematch here; N is told who left.
        assert (await south.request(type="leave"))["type"] == "ok"
        assert (await north.wait_type("player_left"))["seat"] == "S"
        assert (await north.request(type="rematch"))["type"] == "ok"  # asking twice: no-op
        state = await north.request(type="sync")
        assert state["status"] == "over"
        assert not any(m["type"] == "rematch_started" for m in north.log + watcher.log)


async def finished(port: int, **options: Any) -> tuple[RawClient, str, RawClient, RawClient]:
    """A table (target 1) whose match N and S played to its end against two bots."""
    lobby, table = await open_table(port, target=1, **options)
    north, south = await sit(port, table, "N"), await sit(port, table, "S")
    for seat in ("E", "W"):
        await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
    await start_deal([north, south])
    await both(north, south, "match_ended", seat_played=False)
    return lobby, table, north, south


async def test_a_seat_left_after_the_match_takes_a_bot_or_a_newcomer(tmp_path: Path) -> None:
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        _lobby, table, north, south = await finished(port, seed=4)
        assert (await north.request(type="rematch"))["type"] == "ok"
        assert (await south.request(type="leave"))["type"] == "ok"
        assert (await north.wait_type("player_left"))["seat"] == "S"
        # A stranger may not fill it with a bot (it would start the match)...
        stranger = await RawClient.connect(port, "stranger")
        await stranger.hello()
        refused = await stranger.request(type="add_bot", table=table, seat="S")
        assert refused["code"] == "not_at_table"
        # ...but may sit there at a public table, and must then ask like the others.
        joined = await stranger.request(type="join", table=table, seat="S")
        assert joined["type"] == "joined"
        state = await stranger.wait_type("table_state")
        assert state["status"] == "over"
        assert {s["seat"]: s["ready"] for s in state["seats"]}["S"] is False
        assert (await north.wait_type("player_joined"))["seat"] == "S"
        assert (await stranger.request(type="leave"))["type"] == "ok"
        # N fills the seat with a bot instead: the bot asks at once, so N's ask starts it.
        ok = await north.request(type="add_bot", table=table, seat="S", strategy="random")
        assert ok["type"] == "ok"
        await north.wait_type("rematch_started")
        assert (await north.wait_type("deal_started"))["deal"] == 1


async def test_a_new_target_withdraws_the_others_asks_and_cards_may_change(
        tmp_path: Path) -> None:
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        _lobby, _table, north, south = await finished(port, seed=3)
        assert (await south.request(type="rematch"))["type"] == "ok"
        assert (await north.wait_type("rematch_wanted"))["target"] == 1
        # The match is over: N's partnership may take another card for the rematch.
        assert (await north.request(type="conventions", card="none"))["type"] == "ok"
        assert (await south.wait_type("conventions_changed"))["card"]["name"] == "none"
        # N asks for a longer match: S asked for 1 point, so S's ask is withdrawn.
        assert (await north.request(type="rematch", target=2))["type"] == "ok"
        state = await south.wait_type("table_state")
        assert {s["seat"]: s["ready"] for s in state["seats"]} == {
            "N": True, "E": True, "S": False, "W": True}
        wanted = await south.wait_type("rematch_wanted")
        assert (wanted["seat"], wanted["target"]) == ("N", 2)
        assert not any(m["type"] == "rematch_started" for m in north.log)
        too_big = await north.request(type="rematch", target=0)
        assert too_big["type"] == "error"
        assert (await south.request(type="rematch"))["type"] == "ok"
        await south.wait_type("rematch_started")
        state = await south.request(type="sync")
        assert state["target"] == 2 and state["conventions"]["NS"]["name"] == "none"
    (path,) = tmp_path.glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e.get("target") for e in lines if e["event"] == "rematch"] == [2]


async def test_a_ready_between_deals_survives_a_restart(tmp_path: Path) -> None:
    """N says ready after deal 1; the server dies; the restored table still has N ready
    and S not, and S's ready alone starts deal 2."""
    config = ServerConfig(records_dir=tmp_path, **{**FAST, "between_deals_seconds": 600})
    async with running_server(config) as port:
        lobby, table = await open_table(port, target=100_000, seed=3)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        for seat in ("E", "W"):
            await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
        await start_deal([north, south])
        async with trio.open_nursery() as nursery:  # nobody says ready after the deal
            for client in (north, south):
                nursery.start_soon(functools.partial(
                    play_out, client, lambda m: m["type"] == "deal_ended",
                    ready_between=False))
        assert (await north.request(type="ready"))["type"] == "ok"
        tokens = north.token, south.token
    assert "ready" in record_kinds(tmp_path)
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        back = []
        for name, token in zip(("pN", "pS"), tokens, strict=True):
            client = await RawClient.connect(port, name)
            await client.hello(token=token)
            back.append(client)
        state = await back[1].wait_type("table_state")
        assert state["status"] == "between_deals"
        assert {s["seat"]: s["ready"] for s in state["seats"]} == {
            "N": True, "E": True, "S": False, "W": True}
        assert (await back[1].request(type="ready"))["type"] == "ok"
        assert (await back[0].wait_type("deal_started"))["deal"] == 2


async def test_a_player_gone_after_the_match_is_held_then_the_seat_is_free() -> None:
    """A connection lost after the end: the others are told (player_gone); once its hold
    runs out the seat is empty (player_left), and a bot there lets the rematch start."""
    async with running_server(ServerConfig(**{**FAST, "hold_seconds": 0.5})) as port:
        _lobby, table, north, south = await finished(port, seed=4)
        await south.aclose()
        gone = await north.wait_type("player_gone")
        assert (gone["seat"], gone["seconds"]) == ("S", 0.5)
        assert (await north.wait_type("player_left"))["seat"] == "S"
        assert (await north.request(type="rematch"))["type"] == "ok"
        ok = await north.request(type="add_bot", table=table, seat="S", strategy="random")
        assert ok["type"] == "ok"
        await north.wait_type("rematch_started")
