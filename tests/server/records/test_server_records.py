"""Match records, ``jackal replay``, and crash recovery of a real ``jackal serve`` process."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import CallJackal
from jackal.game.seats import Seat
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from jackal.server.records.events import read_record
from jackal.server.records.replay import replay
from jackal.server.records.restore import restore_tables
from jackal.server.tokens import hash_token
from support.client import RawClient, open_table, play_out, ready_all, seat_four
from support.records import record_match, rewrite
from support.server import ServerProcess, running_server


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.subprocess
async def test_a_match_is_recorded_and_replayed(tmp_path: Path, run_jackal: Any) -> None:
    records = tmp_path / "records"
    async with running_server(ServerConfig(records_dir=records)) as port:
        _, table = await open_table(port, name="recorded", target=1, seed=31)
        clients = await seat_four(port, table)
        await ready_all(clients)
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "match_ended")
    files = list(records.glob("*.jsonl"))
    assert len(files) == 1
    events = _events(files[0])
    kinds = [e["event"] for e in events]
    assert kinds[0] == "table" and events[0]["seed"] == 31 and events[0]["name"] == "recorded"
    assert kinds.count("conventions") == 2
    assert kinds[-1] == "match_end"
    deals = kinds.count("deal")
    assert deals >= 1 and kinds.count("play") == 32 * deals and kinds.count("result") == deals
    seats = [e for e in events if e["event"] == "seat"]
    # Token hashes are recorded, the tokens themselves never.
    text = files[0].read_text()
    for client in clients:
        assert client.token is not None and client.token not in text
        assert any(s["token_hash"] == hash_token(client.token) for s in seats)
    # Plays are recorded in the order everyone saw them.
    seen = [(m["seat"], m["card"]) for m in clients[0].log if m["type"] == "played"]
    assert seen == [(e["seat"], e["card"]) for e in events if e["event"] == "play"]

    result = run_jackal("replay", str(files[0]))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Deal 1: dealer" in out and "Match over:" in out
    first_row = [m["card"] for m in clients[0].log if m["type"] == "played"
                 and m["seat"] == "N"][:8]
    assert " ".join(first_row) in out
    ended = next(m for m in clients[0].log if m["type"] == "deal_ended")
    assert f"Score after deal 1: NS {ended['scores']['NS']}, EW {ended['scores']['EW']}" in out

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event":"play"}\n')
    result = run_jackal("replay", str(bad))
    assert result.returncode == 2 and "jackal replay" in result.stderr


@pytest.mark.subprocess
async def test_crash_recovery_after_sigkill(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--between-deals", "0.2")
    records = server.records
    try:
        port = server.port
        _, table = await open_table(port, target=300, seed=4242)
        clients = await seat_four(port, table)
        await ready_all(clients)
        # Play the first deal and 11 cards of the second, then kill the server hard.
        count = 0

        def eleventh_of_deal_two(msg: dict[str, Any]) -> bool:
            nonlocal count
            if msg["type"] == "played" and any(
                    m["type"] == "deal_started" and m["deal"] == 2 for m in clients[0].log):
                count += 1
            return count >= 11

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_out, clients[0], eleventh_of_deal_two)
            for client in clients[1:]:
                nursery.start_soon(play_out, client, lambda _m: False)
            await trio.sleep(0)
            with trio.fail_after(30):
                while count < 11:
                    await trio.sleep(0.01)
            server.kill()
            nursery.cancel_scope.cancel()
        rows_before = {s: [m["card"] for m in clients[0].log
                           if m["type"] == "played" and m["seat"] == s][8:] for s in "NESW"}
        scores_before = next(m for m in clients[0].log if m["type"] == "deal_ended")["scores"]
        # Restart on the same records directory.
        port = server.start()
        back = []
        for old in clients:
            client = await RawClient.connect(port, old.name)
            ok = await client.hello(token=old.token)
            assert ok["table"] == table and ok["seat"] == old.seat
            state = await client.wait_type("table_state")
            assert state["rows"] == rows_before and state["deal"] == 2
            assert state["scores"] == scores_before and state["status"] == "playing"
            assert old.seat is not None
            assert len(state["hand"]) == 13 - len(rows_before[old.seat])
            client.seat, client.token, client.hand = old.seat, old.token, state["hand"]
            back.append(client)
        async with trio.open_nursery() as nursery:
            for client in back:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "match_ended")
        final = back[0].log[-1]
        assert final["type"] == "match_ended" and max(final["scores"].values()) >= 300
        ended = [m for m in back[0].log if m["type"] == "deal_ended"]
        assert ended[0]["deal"] == 2
        assert server.stop() == 0
    finally:
        server.stop()
    text = server.log()
    assert "restored" in text
    # Each thing is logged once: no line twice, and the deal under way at the crash is
    # not logged as starting again after the restart.
    lines = text.splitlines()
    assert len(lines) == len(set(lines)), "a log line was written twice"
    started = re.findall(r"deal (\d+) started", text)
    assert started and len(started) == len(set(started)), started
    # The record reads back as one whole match with no play lost.
    files = list(records.glob("*.jsonl"))
    assert len(files) == 1
    events = _events(files[0])
    assert events[-1]["event"] == "match_end"
    assert sum(1 for e in events if e["event"] == "play") == 32 * sum(
        1 for e in events if e["event"] == "result")


@pytest.mark.subprocess
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_sigterm_or_ctrl_c_sends_server_shutdown(tmp_path: Path, signum: int) -> None:
    server = ServerProcess(tmp_path, "--between-deals", "0.2")
    try:
        client = await RawClient.connect(server.port, "c")
        await client.hello()
        assert server.proc is not None
        server.proc.send_signal(signum)
        got = await client.eof()
        assert got[-1]["type"] == "server_shutdown"
        assert server.proc.wait(10) == 0
    finally:
        server.stop()


def test_restore_between_deals_and_with_a_torn_last_line(tmp_path: Path) -> None:
    """Sans-IO: a table recorded to a file comes back in the same state."""
    made = record_match(tmp_path, table_id="t7", seed=77, target=10_000,
                        until=lambda table: table.status == "between_deals")
    scores = dict(made.table.match.scores)
    with made.path.open("a") as handle:
        handle.write('{"event":"play","seat":"N"')  # the crash tore this line
    restored = restore_tables(tmp_path, now=100.0)
    assert len(restored) == 1
    again, new_record = restored[0]
    assert again.id == "t7" and again.status == "between_deals"
    assert again.match.scores == scores and again.match.deal_number == 1
    assert again.clock.between_deadline == 100.0 + again.options.between_deals_seconds
    assert again.seats[Seat.W].kind == "bot"
    for slot in again.seating.humans:
        assert slot.peer is None and slot.held_until == 100.0 + again.options.hold_seconds
    assert again.seating.find_token(hash_token(made.tokens[Seat.E])) is Seat.E
    new_record.close()


def test_every_event_is_one_write_and_syncs_only_at_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One write syscall per event (no open/flush per line); fsync at match end/close."""
    calls: list[str] = []
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: Any) -> int:
        calls.append("write")
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)
    made = record_match(tmp_path, seed=11, target=1)
    events = _events(made.path)
    assert events[-1]["event"] == "match_end"
    # Every event one write; an fsync right after match_end, and one as the file closes.
    assert calls == ["write"] * len(events) + ["fsync", "fsync"]


def test_a_failed_write_waits_for_the_disk_and_the_record_catches_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    real_write = os.write
    written = 0

    def disk_full_for_a_while(fd: int, data: Any) -> int:
        nonlocal written
        written += 1
        if written == 20:  # a short write: the disk fills in the middle of a line
            return real_write(fd, data[:7])
        if 20 < written <= 40:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_full_for_a_while)
    caplog.set_level(logging.ERROR, "jackal.server")
    made = record_match(tmp_path / "full", seed=11, target=1,
                        until=lambda _table: written == 30)
    # While the disk is full the file is a consistent prefix (its torn line is dropped).
    assert len(read_record(made.path).events) == 19
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2 and "No space left" in errors[0].getMessage()
    assert "could not write" in errors[1].getMessage()  # closed before the disk took it

    written = 0
    caught_up = record_match(tmp_path / "again", seed=11, target=1)
    # The disk came back before the end: nothing is missing, nothing out of order (the
    # record reads strictly and replays to the table's own end).
    read = read_record(caught_up.path)
    assert not read.torn_bytes
    state = None
    for step in replay(read.events):
        state = step.state
    assert state is not None and state.finished_in_record
    assert state.match.scores == caught_up.table.match.scores


def test_replay_prints_what_a_torn_record_implies(tmp_path: Path,
                                                  call_jackal: CallJackal) -> None:
    made = record_match(tmp_path, seed=11, target=1)
    full = call_jackal("replay", str(made.path))
    assert full.returncode == 0, full.stderr
    events = _events(made.path)
    rewrite(made.path, events[:-2], tail=b'{"event":"resu')  # result and match_end lost
    torn = call_jackal("replay", str(made.path))
    assert torn.returncode == 0, torn.stderr
    assert "Match over:" in torn.stdout and "implied by the lines before it" in torn.stdout
    assert "cut short" in torn.stdout
    # The same deals and scores either way: one replay loop decides both.
    implied = "  (not in the record: implied by the lines before it)"
    assert [line for line in torn.stdout.splitlines()
            if line != implied and "cut short" not in line] == full.stdout.splitlines()


@pytest.mark.subprocess
def test_serve_on_a_taken_port_fails_with_one_line(run_jackal: Any) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run_jackal("serve", "--port", str(taken.getsockname()[1]), timeout=30)
    assert result.returncode == 1
    assert result.stderr.startswith("jackal serve: ") and "Traceback" not in result.stderr


@pytest.mark.subprocess
async def test_serve_starts_past_a_corrupt_record(tmp_path: Path) -> None:
    """A real ``jackal serve`` on a folder with a corrupt record and a good one."""
    records = tmp_path / "records"  # ServerProcess(tmp_path)'s records folder
    records.mkdir()
    good = record_match(records, table_id="t1", seed=5, target=300,
                        until=lambda t: t.match.deal is not None
                        and t.match.deal.plays_made == 10)
    bad = record_match(records, table_id="t2", seed=6, target=300,
                       until=lambda t: t.status == "playing")
    bad.path.write_bytes(bad.path.read_bytes().replace(b'"target":300', b'"target":Infinity'))
    server = ServerProcess(tmp_path, "--between-deals", "0.2")
    try:
        client = await RawClient.connect(server.port, "pN")
        ok = await client.hello(token=good.tokens[Seat.N])
        assert ok["table"] == "t1" and ok["seat"] == "N"
        state = await client.wait_type("table_state")
        assert state["status"] == "playing" and sum(map(len, state["rows"].values())) == 10
        assert server.stop() == 0
    finally:
        server.stop()
    about = [line for line in server.log().splitlines() if bad.path.name in line]
    assert len(about) == 1 and "moved aside" in about[0] and "Traceback" not in server.log()
    assert (records / (bad.path.name + ".corrupt")).exists()


class _GatedFsync:
    """A stand-in for ``os.fsync`` that waits for :attr:`release` (a thread event) and
    notes, per call, whether it ran on the main thread (the event loop's)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.on_main: list[bool] = []
        self.returned = 0
        self.real = os.fsync

    def __call__(self, fd: int) -> None:
        self.on_main.append(threading.current_thread() is threading.main_thread())
        self.entered.set()
        self.release.wait(10)  # bounded: an inline fsync would hold the loop this long
        self.real(fd)
        self.returned += 1


async def _bots_end_a_match(port: int, gate: _GatedFsync) -> RawClient:
    """Four bots play a one-deal match that a watcher follows; returns the watcher once
    the record's ``match_end`` fsync has started (and is held by ``gate``)."""
    lobby, table = await open_table(port, target=1, seed=31)
    watcher = await RawClient.connect(port, "watcher")
    await watcher.hello()
    await watcher.request(type="spectate", table=table)
    for seat in "NESW":
        await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
    assert await trio.to_thread.run_sync(gate.entered.wait, 30)
    return watcher


async def test_a_match_end_is_synced_in_a_thread_while_the_server_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _GatedFsync()
    monkeypatch.setattr(os, "fsync", gate)  # what jackal.server.records.files calls
    async with running_server(ServerConfig(port=0, records_dir=tmp_path)) as port:
        watcher = await _bots_end_a_match(port, gate)
        # The fsync of match_end is held; everyone was told and the server answers.
        await watcher.wait_type("match_ended")
        other = await RawClient.connect(port, "other")
        assert (await other.request(type="ping"))["type"] == "pong"
        assert (await other.hello())["type"] == "hello_ok"
        assert gate.returned == 0 and gate.on_main == [False]
        gate.release.set()
    [path] = tmp_path.glob("*.jsonl")
    assert _events(path)[-1]["event"] == "match_end"
    assert gate.returned == len(gate.on_main) >= 2  # match end, then the close
    assert not any(gate.on_main)


def _open_fds_of(path: Path) -> int:
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == str(path.resolve()))


async def test_shutdown_returns_only_once_pending_syncs_are_done(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _GatedFsync()
    monkeypatch.setattr(os, "fsync", gate)  # what jackal.server.records.files calls
    stopped: list[int] = []  # gate.returned when the server had stopped
    scope = trio.CancelScope()

    async def server(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        with scope:
            await serve(ServerConfig(port=0, records_dir=tmp_path), task_status=task_status)
        stopped.append(gate.returned)

    async with trio.open_nursery() as nursery:
        port: int = await nursery.start(server)
        await _bots_end_a_match(port, gate)
        [path] = tmp_path.glob("*.jsonl")
        scope.cancel()  # the server stops while match_end's fsync is held
        with trio.move_on_after(0.5):
            while not stopped:
                await trio.sleep(0.01)
        assert stopped == [] and _open_fds_of(path) == 1
        gate.release.set()
    # It returned after the held fsync and the close's own, with the file closed.
    assert stopped == [2] and gate.returned == 2 and _open_fds_of(path) == 0
    assert _events(path)[-1]["event"] == "match_end"
