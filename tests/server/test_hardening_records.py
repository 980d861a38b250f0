"""Records stay bounded (issue 22 item 2): convention cards change a few times a match and
an unchanged card is not written again; a match record stops at its cap and its table is
closed with the reason; bots with nobody seated stop after a number of deals; ``jackal
serve --records-max-mb`` caps the folder (rotating finished records out). Real sockets
on port 0; the folder cap through the real CLI in a subprocess.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.disclosure import MAX_CONVENTION_CHANGES
from support.client import SEATS, RawClient, greeted, open_table
from support.server import QUIET, TIMEOUT, ServerProcess, running_server


def record_lines(records: Path, table: str) -> list[dict[str, Any]]:
    path = next(records.glob(f"*-{table}-*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_card_changes_a_few_times_a_match_and_an_unchanged_one_is_not_written(
        tmp_path: Path) -> None:
    async with running_server(ServerConfig(records_dir=tmp_path, **QUIET)) as port:
        lobby, table = await open_table(port)
        north = await greeted(port, "north")
        await north.join(table, "N")
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        cards = ["advanced", "beginner"] * MAX_CONVENTION_CHANGES
        for number, name in enumerate(cards[:MAX_CONVENTION_CHANGES]):
            assert (await north.request(type="conventions", card=name))["type"] == "ok"
            told = await watcher.wait_type("conventions_changed")
            assert told["card"]["name"] == name, number
            watcher.log.clear()
            # The same card again, as the attack sent it in a loop: accepted, not written.
            for _ in range(20):
                assert (await north.request(type="conventions", card=name))["type"] == "ok"
        refused = await north.request(type="conventions", card=cards[MAX_CONVENTION_CHANGES])
        assert refused["code"] == "too_many_changes", refused
        await watcher.request(type="ping")
        assert not [m for m in watcher.log if m["type"] == "conventions_changed"]
        written = [e for e in record_lines(tmp_path, table) if e["event"] == "conventions"]
        assert len(written) == 2 + MAX_CONVENTION_CHANGES  # both presets, then each change
        await lobby.aclose()


async def watch_bots(port: int, *, target: int) -> tuple[RawClient, str]:
    """A table of four random bots (target ``target``) and a connection watching it."""
    lobby, table = await open_table(port, target=target)
    watcher = await greeted(port, "watcher")
    await watcher.request(type="spectate", table=table)
    for seat in SEATS:
        await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
    return watcher, table


async def closed_notice(watcher: RawClient, timeout: float = 30.0) -> tuple[dict[str, Any], int]:
    """Read until ``table_closed``; returns it and the deals that ended before it."""
    deals = 0
    with trio.fail_after(timeout):
        while True:
            msg = await watcher.recv(timeout)
            if msg["type"] == "deal_ended":
                deals += 1
            if msg["type"] == "error":
                return msg, deals


async def test_a_record_at_its_cap_closes_its_table_with_the_reason(tmp_path: Path) -> None:
    cap = 30_000
    config = ServerConfig(records_dir=tmp_path, record_max_bytes=cap,
                          max_unseated_deals=1_000_000, **QUIET)
    async with running_server(config) as port:
        watcher, table = await watch_bots(port, target=1_000_000)
        notice, _deals = await closed_notice(watcher)
        assert notice["code"] == "table_closed" and "cap" in notice["message"]
        path = next(tmp_path.glob(f"*-{table}-*.jsonl"))
        lines = path.read_text().splitlines()
        last = json.loads(lines[-1])
        assert (last["event"], last["reason"]) == ("closed", "record_full")
        assert path.stat().st_size - len(lines[-1]) - 1 <= cap
        # The watcher is at no table any more, and the table is gone from the lobby.
        assert (await watcher.request(type="sync"))["code"] == "not_seated"
        listed = await watcher.request(type="list_tables")
        assert table not in {info["table"] for info in listed["tables"]}


async def test_bots_with_nobody_seated_stop_after_their_deals(tmp_path: Path) -> None:
    config = ServerConfig(records_dir=tmp_path, max_unseated_deals=3, **QUIET)
    async with running_server(config) as port:
        watcher, table = await watch_bots(port, target=1_000_000)
        notice, deals = await closed_notice(watcher)
        assert notice["code"] == "table_closed" and "deals" in notice["message"], notice
        assert deals == 3
        events = record_lines(tmp_path, table)
        assert [e["event"] for e in events].count("deal") == 3
        assert (events[-1]["event"], events[-1]["reason"]) == ("closed", "deal_limit")


def line_client(port: int) -> tuple[socket.socket, Any]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    reader = sock.makefile("rb")
    reader.readline()
    sock.sendall(b'{"type":"hello","name":"host"}\n')
    reader.readline()
    return sock, reader


def ask(sock: socket.socket, reader: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Send ``msg`` with id 1; its reply (events before it are skipped)."""
    sock.sendall(json.dumps({**msg, "id": 1}).encode() + b"\n")
    while True:
        reply: dict[str, Any] = json.loads(reader.readline())
        if reply.get("id") == 1:
            return reply


@pytest.mark.subprocess
def test_serve_records_max_mb_caps_the_folder(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    # An old match already in the folder: 40 KB of the 50 KB cap.
    old = records / "20250101T000000-t9-000000.jsonl.corrupt"
    old.write_bytes(b"x" * 40_000)
    server = ServerProcess(tmp_path, "--records-max-mb", "0.05", "--bot-floor", "0",
                           "--bot-pause", "0", "--ping-interval", "600")
    try:
        sock, reader = line_client(server.port)
        with sock, reader:
            table = ask(sock, reader, {"type": "create_table", "target": 1_000_000})["table"]
            ask(sock, reader, {"type": "spectate", "table": table})
            for seat in SEATS:
                ask(sock, reader, {"type": "add_bot", "table": table, "seat": seat,
                                   "strategy": "random"})
            while True:  # the old record is rotated out, then the live one fills the folder
                msg = json.loads(reader.readline())
                if msg["type"] == "error":
                    break
            assert msg["code"] == "table_closed", msg
            assert not old.exists()
            total = sum(path.stat().st_size for path in records.iterdir())
            assert total <= 50_000 + 100, total  # the cap, and the closing line
            # Its record is finished now: rotated in turn, so the cap locks nobody out.
            again = ask(sock, reader, {"type": "create_table"})
            assert again["type"] == "table_created", again
        total = sum(path.stat().st_size for path in records.iterdir())
        assert total <= 50_000, total
    finally:
        server.stop()
