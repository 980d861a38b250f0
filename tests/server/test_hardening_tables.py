"""Tables nobody attends stop, one connection cannot fill the lobby, questions are bounded
(issue 12 items 6 and 7). Real server on port 0, autojump clock for the timers.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing
from jackal.server import bots as server_bots
from jackal.server.config import ServerConfig
from jackal.server.disclosure import MAX_QUESTIONS
from support.client import (
    SEATS,
    Msg,
    RawClient,
    greeted,
    new_table,
    open_table,
    play_out,
    seat_four,
    start_deal,
)
from support.server import QUIET, running_server


def ended(msg: Msg) -> bool:
    return bool(msg["type"] == "deal_ended")


async def listed(client: RawClient) -> set[str]:
    reply = await client.request(type="list_tables")
    return {info["table"] for info in reply["tables"]}


async def keep_reading(client: RawClient) -> None:
    """Read (and drop) everything, as a watching client does, until cancelled."""
    while True:
        await client.recv(timeout=60)
        client.log.clear()


@pytest.mark.slow
async def test_a_table_of_bots_nobody_watches_stops_and_is_removed(tmp_path: Path) -> None:
    # Real time: bots that play without pause never let a mock clock jump.
    config = ServerConfig(unattended_seconds=0.5, records_dir=tmp_path,
                          max_unseated_deals=1_000_000, **QUIET)
    async with running_server(config) as port:
        lobby, bots_only = await open_table(port, target=100_000)
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=bots_only)
        for seat in SEATS:
            await lobby.request(type="add_bot", table=bots_only, seat=seat, strategy="random")
        await watcher.wait_type("played", timeout=30)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(keep_reading, watcher)
            # Watched, it plays on for longer than the unattended limit.
            await trio.sleep(3 * config.unattended_seconds)
            assert bots_only in await listed(lobby)
            nursery.cancel_scope.cancel()
        await watcher.request(type="leave")
        with trio.fail_after(30):
            while bots_only in await listed(lobby):
                await trio.sleep(0.05)
    record = next(tmp_path.glob(f"*-{bots_only}-*.jsonl"))
    assert '"unattended"' in record.read_text().splitlines()[-1]


async def test_a_table_with_a_person_playing_is_attended(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(unattended_seconds=60, between_deals_seconds=5, **QUIET)
    async with running_server(config) as port:
        lobby, table = await open_table(port)
        players = await seat_four(port, table)
        await start_deal(players)
        await trio.sleep(200)  # nobody plays for a while: still attended (people sit here)
        assert table in await listed(lobby)
        # Everyone goes away: the seats are held, then bots take over; nobody is left.
        for player in players:
            await player.aclose()
        await trio.sleep(config.hold_seconds + 61)
        assert table not in await listed(lobby)


async def test_a_waiting_table_with_only_a_bot_is_not_kept_for_good(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    """A bot in a seat once made a table never idle: one client could fill the lobby."""
    config = ServerConfig(unattended_seconds=60, idle_table_seconds=1000, **QUIET)
    async with running_server(config) as port:
        lobby, table = await open_table(port)
        await lobby.request(type="add_bot", table=table, seat="N")
        await trio.sleep(59)
        assert table in await listed(lobby)
        await trio.sleep(2)
        assert table not in await listed(lobby)


async def test_one_connection_may_keep_only_so_many_tables_open(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(max_tables_per_connection=2, idle_table_seconds=60, **QUIET)
    async with running_server(config) as port:
        maker = await greeted(port, "maker")
        await new_table(maker)
        await new_table(maker)
        refused = await maker.request(type="create_table")
        assert refused["type"] == "error" and refused["code"] == "not_allowed", refused
        other = await greeted(port, "other")
        await new_table(other)
        await trio.sleep(61)  # the first two were never used: removed
        await new_table(maker)


async def test_people_s_tables_are_marked_attended_for_bot_threads(
        bot_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ARG001  (its clock drives the test)
    """The hub tells the bot pool which decisions are for a table where a person plays;
    the pool serves those first (tested in test_hardening_bots)."""
    asked: dict[str, set[bool]] = {}
    real_choose = server_bots.BotPool.choose

    async def spy(self: server_bots.BotPool, table_id: str, *args: object,
                  attended: bool = False, **rest: float) -> object:
        asked.setdefault(table_id, set()).add(attended)
        return await real_choose(self, table_id, *args, attended=attended, **rest)  # type: ignore[arg-type]

    monkeypatch.setattr(server_bots.BotPool, "choose", spy)
    async with running_server(ServerConfig(**QUIET)) as port:
        lobby, bots_only = await open_table(port, target=100_000)
        for seat in SEATS:
            await lobby.request(type="add_bot", table=bots_only, seat=seat)
        people = await new_table(lobby)
        human = await greeted(port, "human")
        await human.join(people, "S")
        for seat in ("N", "E", "W"):
            await lobby.request(type="add_bot", table=people, seat=seat)
        await start_deal([human])
        # Play S's cards until one of the table's bots has played (whoever leads).
        await play_out(human, lambda msg: msg["type"] == "played" and msg["seat"] != "S",
                       timeout=60)
        # What was asked while the person sat there: once the server stops, the human's
        # connection goes first and a bot may rightly think for a table nobody attends.
        seen = {table: set(flags) for table, flags in asked.items()}
    assert seen[bots_only] == {False}
    assert seen[people] == {True}


async def test_questions_are_capped_per_asker_and_expire_with_the_deal(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(between_deals_seconds=5, **QUIET)
    async with running_server(config) as port:
        _lobby, table = await open_table(port, seed=11, target=1000)
        north, east, south, west = await seat_four(port, table)
        await start_deal([north, east, south, west])
        asked = []
        for number in range(MAX_QUESTIONS):
            receipt = await north.request(type="ask", seat="E", text=f"why {number}?")
            assert receipt["type"] == "question", receipt
            asked.append(receipt["question"])
        refused = await north.request(type="ask", seat="E", text="and now?")
        assert refused["type"] == "error" and refused["code"] == "too_many_questions", refused
        # Another asker has its own allowance; an answer frees no place (the count is
        # of questions asked this deal, whoever answers).
        assert (await south.request(type="ask", seat="E", text="me too?"))["type"] == "question"
        assert (await east.request(type="answer", question=asked[0], text="a pair"))[
            "type"] == "ok"
        again = await north.request(type="ask", seat="E", text="again?")
        assert again["code"] == "too_many_questions", again
        # The deal ends: whatever is still open is gone with it.
        async with trio.open_nursery() as nursery:
            for player in (north, east, south, west):
                nursery.start_soon(partial(play_out, player, ended, ready_between=False))
        late = await east.request(type="answer", question=asked[1], text="too late")
        assert late["type"] == "error" and late["code"] == "no_such_question", late
