"""The records folder's cap is a bound, never a lockout (issue 31 item 4): finished records
are rotated out oldest first (a match in progress never), one address group or name holds
at most a quota of the folder in open records, and on a full disk a table whose unwritten
lines pass a small memory budget is held (``records_paused``) until the disk has room.
Real server in-process, real sockets on port 0; the full disk is a tiny tmpfs (root only).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
import trio
from jackal.cli.serve import add_arguments, config_from_args
from jackal.server.config import ServerConfig
from support.client import RawClient, connect_from, greeted, new_table
from support.disk import fill, tiny_tmpfs
from support.server import QUIET, running_server

SEATS = ("N", "E", "S", "W")


@pytest.mark.parametrize(("given", "cap"), [([], 1_000_000_000), (["--records-max-mb", "5"],
                                                                    5_000_000),
                                            (["--records-max-mb", "0"], None)])
def test_jackal_serve_keeps_a_bounded_records_folder_by_default(given: list[str],
                                                                cap: int | None) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert config_from_args(parser.parse_args(["--records", "x", *given])).records_max_bytes \
        == cap


def _old(path: Path, size: int, when: float) -> Path:
    path.write_bytes(b"x" * size)
    os.utime(path, (when, when))
    return path


async def test_past_the_cap_the_oldest_finished_records_go_and_a_live_one_stays(
        tmp_path: Path) -> None:
    # Three finished records (damaged ones set aside at an earlier start rotate too)
    # take 18 of the folder's 20 KB: today every create_table is refused from then on.
    olds = [_old(tmp_path / f"2020010{n}T000000-t9{n}-abcdef.jsonl.corrupt", 6000,
                 2000.0 + n) for n in range(3)]
    config = ServerConfig(records_dir=tmp_path, records_max_bytes=20_000, **QUIET)
    async with running_server(config) as port:
        first = await greeted(port, "first")
        live_table = await new_table(first)
        live = next(tmp_path.glob(f"*-{live_table}-*.jsonl"))
        os.utime(live, (1000.0, 1000.0))  # the oldest file of all, but a match in progress
        second = await greeted(port, "second", "127.0.0.2")
        reply = await second.request(type="create_table")
        assert reply["type"] == "table_created", reply
        assert not olds[0].exists()  # the oldest finished record went...
        assert olds[1].exists() and olds[2].exists()  # ...down to the low-water mark
        assert live.exists()
        # The live table still writes its record.
        await first.join(live_table, "N")
        assert "seat" in live.read_text().splitlines()[-1]
        await first.aclose()
        await second.aclose()


async def test_one_address_holds_a_quota_of_the_folder_in_open_records(tmp_path: Path) -> None:
    config = ServerConfig(records_dir=tmp_path, records_max_bytes=40_000,
                          max_tables_per_connection=100, max_tables_per_address=100, **QUIET)
    async with running_server(config) as port:
        hog = await greeted(port, "hog")
        made = 0
        while True:
            reply = await hog.request(type="create_table")
            if reply["type"] != "table_created":
                break
            made += 1
            assert made < 100
        assert reply["code"] == "records_unavailable" and "share" in reply["message"], reply
        held = sum(path.stat().st_size for path in tmp_path.glob("*.jsonl"))
        assert held <= 40_000 * 0.25 + 2000, held
        other = await greeted(port, "other", "127.0.0.2")
        assert (await other.request(type="create_table"))["type"] == "table_created"
        await hog.aclose()
        await other.aclose()


# --------------------------------------------------------------------------- a full disk




async def play_until(client: RawClient, code: str, limit: int = 5000) -> list[str]:
    """Play the first card of the hand on each turn, say ready between deals, until an
    error with ``code`` arrives; returns the codes of the errors seen."""
    seen: list[str] = []
    for _ in range(limit):
        msg = await client.recv()
        kind = msg["type"]
        if msg.get("hand") is not None:
            client.hand = list(msg["hand"])
        if kind == "your_turn":
            await client.send(type="play", card=msg["hand"][0])
        elif kind == "deal_ended":
            await client.send(type="ready")
        elif kind == "error":
            seen.append(msg["code"])
            if msg["code"] == code:
                assert "id" not in msg, msg
                return seen
    raise AssertionError(f"no {code} in {limit} messages: {seen}")


@pytest.mark.subprocess
async def test_a_full_disk_holds_a_table_past_its_memory_budget_until_there_is_room(
        tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "records") as records:
        config = ServerConfig(records_dir=records, record_memory_bytes=2048,
                              between_deals_seconds=0.0, **QUIET)
        async with running_server(config) as port:
            player = await connect_from(port, "127.0.0.1")
            await player.expect("welcome")
            await player.hello("north")
            table = await new_table(player, target=1_000_000)
            await player.join(table, "N")
            for seat in SEATS[1:]:
                await player.request(type="add_bot", table=table, seat=seat,
                                     strategy="random")
            await player.send(type="ready")
            await player.wait_type("deal_started")
            filler = fill(records)
            seen = await play_until(player, "records_paused")
            assert seen[0] == "records_failing", seen
            # Held: a card now is refused, and nothing is played meanwhile.
            state = await player.request(type="sync")
            assert state["type"] == "table_state", state
            if state.get("turn") == "N":
                refused = await player.request(type="play", card=player.hand[0])
                assert refused["code"] == "paused", refused
            with trio.move_on_after(1.5):
                while True:
                    msg = await player.recv(timeout=5.0)
                    assert msg["type"] not in ("played", "deal_started"), msg
            filler.unlink()  # room again: tried each second, then play goes on
            # The deal summary's expert figure may come first: it is worked out apart.
            before = (await player.recv_until(
                lambda m: m.get("code") == "records_resumed", timeout=10.0))[:-1]
            assert not [m for m in before if m["type"] in ("played", "deal_started")], before
            # Play goes on: on N's turn only because ``your_turn`` comes again (a card sent
            # during the hold was refused), so a program waiting for its turn goes on too.
            with trio.fail_after(10):
                while True:
                    msg = await player.recv()
                    if msg["type"] == "your_turn":
                        await player.send(type="play", card=msg["hand"][0])
                    elif msg["type"] == "played":
                        break
            await player.aclose()
