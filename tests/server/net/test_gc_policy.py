"""The server's garbage-collector policy (server/net/gctune.py) and what makes it safe.

``jackal serve`` freezes whatever survives a collector pass, so no later pass walks the
thousands of long-lived connection and table objects again. Frozen objects are still
freed by reference counting, but a reference *cycle* among them would never be: the
policy is only safe while the server leaves no cyclic garbage behind as connections and
matches come and go. These tests hold it to that, over a real server and real sockets.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import trio
import trio.testing
from jackal.server.config import ServerConfig
from jackal.server.net import gctune
from support.client import (
    RawClient,
    alone_with_bots,
    greeted,
    open_table,
    play_out,
    seat_four,
    start_deal,
)

QUIET: dict[str, Any] = dict(ping_interval=10_000.0, ping_timeout=10_000.0,
                             hello_timeout=10_000.0)


@contextmanager
def cyclic_garbage() -> Iterator[list[str]]:
    """Collect first, then keep the collector off for the body; afterwards the list
    names every object of ours (or a task) that only a collection could free."""
    found: list[str] = []
    gc.collect()
    gc.disable()
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        for obj in gc.garbage:
            kind = type(obj)
            if kind.__module__.startswith("jackal") or kind.__name__ in ("Task", "Session"):
                found.append(f"{kind.__qualname__}: {repr(obj)[:80]}")
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.slow
async def test_connections_that_end_leave_no_cycles() -> None:
    """Seated players mid-deal, lobby clients and refused connections all close; a client
    is dropped for flooding. None of it leaves cyclic garbage."""
    config = ServerConfig(port=0, max_per_address=12, rate_per_second=10, rate_burst=10,
                          flood_limit=20, **QUIET)
    async with trio.open_nursery() as nursery:
        from jackal.server.net.listener import serve

        port: int = await nursery.start(serve, config)
        _lobby, table = await open_table(port)
        warm = await greeted(port, "warm-up")  # first use of every code path: imports etc.
        await warm.aclose()
        rail = await greeted(port, "rail", local="127.0.0.2")
        await rail.request(type="spectate", table=table)
        with cyclic_garbage() as found:
            players = await seat_four(port, table)
            await start_deal(players)
            watchers = [await greeted(port, f"watcher{i}") for i in range(3)]
            for watcher in watchers:
                await watcher.request(type="spectate", table=table)
            flooder = await greeted(port, "flooder")
            await flooder.send_raw(b"\n" * 2000)
            await flooder.eof()
            extra = [RawClient(await trio.open_tcp_stream("127.0.0.1", port)) for _ in range(6)]
            for client in [*players, *watchers, *extra]:
                await client.aclose()
            # The server has handled every close once the address's connections are free
            # again: all but the lobby's fit under max_per_address once more. (Nobody is
            # told of a seat's drop mid-deal before that seat's turn ends.)
            with trio.fail_after(10):
                while not await _address_is_free(port, config.max_per_address - 1):
                    await trio.sleep(0.05)
            await trio.sleep(0.1)
        assert found == [], "\n".join(found)
        nursery.cancel_scope.cancel()


async def _address_is_free(port: int, count: int) -> bool:
    """Whether ``count`` more connections from 127.0.0.1 are all welcomed (each closed)."""
    probes = [RawClient(await trio.open_tcp_stream("127.0.0.1", port)) for _ in range(count)]
    try:
        firsts = [(await probe.recv())["type"] for probe in probes]
        return firsts == ["welcome"] * count
    finally:
        for probe in probes:
            await probe.aclose()


@pytest.mark.slow
async def test_a_whole_match_leaves_no_cycles() -> None:
    """A match played to its end with server bots (deals started, scored and finished;
    bot decisions on worker threads), and the table removed."""
    async with trio.open_nursery() as nursery:
        from jackal.server.net.listener import serve

        # Port 0: the default port may be any other server's on this machine.
        port: int = await nursery.start(serve, ServerConfig(port=0, **QUIET))
        with cyclic_garbage() as found:
            lobby, human, _table = await alone_with_bots(port, "N", "solo", target=30)
            await play_out(human, lambda msg: msg["type"] == "match_ended", timeout=120)
            await human.aclose()
            await lobby.aclose()
            await trio.sleep(0.2)
        assert found == [], "\n".join(found)
        nursery.cancel_scope.cancel()


def test_settle_freezes_what_survives_each_pass_and_unsettle_puts_it_back() -> None:
    before = gc.get_threshold()
    thresholds = gctune.settle()
    try:
        assert thresholds == before
        assert gc.get_threshold()[0] == gctune.YOUNG
        kept = [[index] for index in range(100)]  # 101 new container objects
        gc.collect(0)
        # Frozen: in none of the collector's generations any more. (Counting the frozen
        # objects instead failed by one now and then: another thread's objects, frozen
        # too, can die meanwhile.)
        collected = {id(obj) for generation in (0, 1, 2) for obj in gc.get_objects(generation)}
        assert not collected & {id(obj) for obj in [kept, *kept]}
        assert gc.get_freeze_count() >= len(kept)
        assert gc.get_count()[1] == 0 and len(gc.get_objects(1)) == 0
    finally:
        gctune.unsettle(thresholds)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    frozen_again = gc.get_freeze_count()
    gc.collect(0)
    assert gc.get_freeze_count() == frozen_again  # no longer freezing after passes


async def test_young_passes_run_on_a_clock(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    passes: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 0:
            passes.append(1)

    gc.callbacks.append(count)
    try:
        with trio.move_on_after(gctune.YOUNG_EVERY * 10.5):
            await gctune.young_passes()
    finally:
        gc.callbacks.remove(count)
    assert len(passes) == 10
