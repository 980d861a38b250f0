"""Pause over real sockets, on trio's mock clock (virtual seconds, so a test waits for
minutes of table time in milliseconds): the turn clock, the between-deal countdown and
the bots stop while everyone agreed; resume lets them go on with what they had left.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing
from jackal.server.config import ServerConfig
from jackal.server.pause import GRID_SECONDS
from support.client import Msg, RawClient, sit
from support.server import QUIET, running_server

CLOCK = 30.0


async def _two_humans(port: int, **options: Any) -> tuple[RawClient, RawClient, str]:
    """N and S are people, E and W bots; the deal has started."""
    lobby = await RawClient.connect(port, "lobby")
    await lobby.hello()
    table = (await lobby.request(type="create_table", target=10_000, **options))["table"]
    north, south = await sit(port, table, "N"), await sit(port, table, "S")
    for seat in ("E", "W"):
        assert (await lobby.request(type="add_bot", table=table, seat=seat))["type"] == "ok"
    for person in (north, south):
        await person.request(type="ready")
    for person in (north, south):
        person.hand = (await person.wait_type("deal_started"))["hand"]
    return north, south, table


async def _my_turn(person: RawClient, other: RawClient) -> tuple[RawClient, RawClient]:
    """Wait (bots playing) until N or S is to play; returns (mover, the other person)."""
    while True:
        msg = await person.recv(60)
        if msg["type"] == "deal_started":
            person.hand = msg["hand"]
        if msg["type"] == "played" and msg["seat"] == person.seat and msg["card"] in person.hand:
            person.hand.remove(msg["card"])
        if msg["type"] == "turn" and msg["seat"] in ("N", "S"):
            return (person, other) if msg["seat"] == person.seat else (other, person)


def _state(msg: Msg) -> tuple[bool, str | None, list[str]]:
    return msg["paused"], msg.get("asked_by"), msg.get("agreed", [])


async def test_the_turn_clock_stops_while_paused_and_runs_on_after(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    async with running_server(ServerConfig(**QUIET)) as port:
        north, south, _table = await _two_humans(port, turn_seconds=CLOCK)
        mover, other = await _my_turn(north, south)
        # Only the mover may ask during a deal (on partner's turn it could be a signal).
        refused = await other.request(type="pause")
        assert refused["code"] == "not_your_turn", refused
        assert (await other.request(type="pause", text="think!"))["code"] == "invalid_message"
        await trio.sleep(10)
        asked = await mover.request(type="pause")
        assert asked["type"] == "pause_state" and _state(asked) == (False, mover.seat,
                                                                     [mover.seat])
        told = await other.wait_type("pause_state")
        assert _state(told) == (False, mover.seat, [mover.seat]) and "id" not in told
        agreed = await other.request(type="pause")
        assert _state(agreed) == (True, mover.seat, ["N", "S"])
        left = (await mover.request(type="sync"))["turn_left"]
        # What the turn gave (a deal's first turn has a grace on top of the clock).
        given = [m for m in north.log if m["type"] == "turn"][-1]["seconds"]
        # Each vote took effect at the next whole GRID_SECONDS (two votes here).
        assert given >= CLOCK and given - 10 - 1 - 2 * GRID_SECONDS < left <= given - 10
        await trio.sleep(600)  # ten minutes of break: the clock does not move
        shot = await other.request(type="sync")
        assert shot["turn_left"] == left and shot["pause"] == {
            "paused": True, "asked_by": mover.seat, "agreed": ["N", "S"]}
        refused = await mover.request(type="play", card=mover.hand[0])
        assert refused["code"] == "paused", refused
        assert not [m for m in (*mover.log, *other.log) if m["type"] == "played"
                    and m["seat"] == mover.seat]
        # Either may resume; the mover's clock then runs out after what it had left.
        resumed = await other.request(type="resume")
        assert _state(resumed) == (False, None, [])
        since = trio.current_time()
        played = await other.recv_until(lambda m: m["type"] == "played", timeout=120)
        assert played[-1]["seat"] == mover.seat and played[-1]["by"] == "clock"
        # Not before what it had left; after it, the substitute takes its thinking time
        # (with the mock clock, as long as a bot may think).
        took = trio.current_time() - since
        assert left <= took <= left + ServerConfig().bot_think_seconds + 1, (took, left)
        assert "pause" not in await other.request(type="sync")


async def test_bots_wait_while_paused(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(**QUIET, bot_pause_seconds=2.0)
    async with running_server(config) as port:
        north, south, _table = await _two_humans(port)
        for _ in range(5):
            mover, other = await _my_turn(north, south)
            await mover.request(type="pause")
            # The hand from a fresh snapshot: an earlier try may have played from it.
            hand = (await mover.request(type="sync"))["hand"]
            await mover.request(type="play", card=hand[0])  # asked, not yet paused
            turn = (await other.recv_until(
                lambda m: m["type"] == "turn" and m["seat"] in ("E", "W")))[-1]
            since = len(other.log)
            assert _state(await other.request(type="pause"))[0] is True
            if not [m for m in other.log[since:] if m["type"] == "played"]:
                break  # paused while the bot still had its card to play
            # On a busy machine the mock clock may jump past the bot's pause while our
            # agreement is still on its way; then the pause began later. Try another turn.
            await mover.request(type="resume")
        else:
            pytest.fail("the pause never began while a bot was to play")
        since = len(other.log)
        await trio.sleep(300)
        await other.request(type="ping")
        assert not [m for m in other.log[since:] if m["type"] == "played"]
        await mover.request(type="resume")
        played = (await other.recv_until(lambda m: m["type"] == "played"))[-1]
        assert played["seat"] == turn["seat"]


async def test_the_between_deal_countdown_stops_while_paused(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(**QUIET, between_deals_seconds=30.0)
    async with running_server(config) as port:
        north, south, _table = await _two_humans(port)
        # Play the deal out (the bots play their own seats).
        for person in (north, south):
            person.turn = None
        async with trio.open_nursery() as nursery:
            for person in (north, south):
                nursery.start_soon(_play_deal, person)
        await trio.sleep(5)
        await north.request(type="pause")
        assert _state(await south.request(type="pause"))[0] is True
        await trio.sleep(600)
        await north.request(type="ping")
        assert not [m for m in north.log if m["type"] == "deal_started"][1:]
        # Ready during the pause is taken, but the deal waits for the pause to end.
        await north.request(type="ready")
        await south.request(type="ready")
        await trio.sleep(1)
        await north.request(type="ping")
        assert len([m for m in north.log if m["type"] == "deal_started"]) == 1
        await south.request(type="resume")
        await north.wait_type("deal_started")


async def test_a_person_who_drops_takes_their_agreement_with_them(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    async with running_server(ServerConfig(**QUIET)) as port:
        north, south, _table = await _two_humans(port)
        mover, other = await _my_turn(north, south)
        await mover.request(type="pause")
        await other.stream.aclose()  # the only one left to agree is gone: paused
        news = (await mover.recv_until(lambda m: m["type"] == "pause_state"))[-1]
        assert _state(news) == (True, mover.seat, [mover.seat])


async def _play_deal(person: RawClient) -> None:
    """Play ``person``'s seat (first card of the hand) until its deal ends."""
    with trio.fail_after(120):
        while True:
            msg = await person.recv(120)
            if msg["type"] == "turn" and msg["seat"] == person.seat:
                card = person.hand[0]
                await person.send(type="play", card=card)
                person.hand.remove(card)
            elif msg["type"] == "deal_ended":
                return


async def test_a_pause_ends_when_every_person_has_left_the_table(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    """Nobody is left to resume (spectators may not, and bot seats cannot be taken): the
    bots play on instead of the spectators watching a table stopped for good."""
    async with running_server(ServerConfig(**QUIET)) as port:
        north, south, table = await _two_humans(port, turn_seconds=CLOCK)
        watcher = await RawClient.connect(port, "watcher")
        await watcher.hello()
        assert (await watcher.request(type="spectate", table=table))["type"] == "table_state"
        mover, other = await _my_turn(north, south)
        await mover.request(type="pause")
        assert _state(await other.request(type="pause"))[0] is True
        await watcher.request(type="ping")
        since = len(watcher.log)
        await mover.request(type="leave")
        await trio.sleep(60)
        await watcher.request(type="ping")
        # One person is still there to resume: still paused.
        assert not [m for m in watcher.log[since:] if m["type"] == "played"]
        await other.request(type="leave")
        news = (await watcher.recv_until(lambda m: m["type"] == "pause_state"
                                         and not m["paused"]))[-1]
        assert news.get("asked_by") is None, news
        with trio.fail_after(60):
            played = (await watcher.recv_until(lambda m: m["type"] == "played"))[-1]
        assert played["seat"] == mover.seat  # the substitute plays the turn paused at
        assert "pause" not in await watcher.request(type="sync")
