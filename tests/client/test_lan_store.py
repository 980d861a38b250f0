"""Saved seats on disk (client/seat_store.py) and where ``jackal serve`` keeps records."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from pathlib import Path

import pytest
from jackal.cli.main import main
from jackal.cli.paths import records_dir, state_dir
from jackal.client.seat_store import FILE_NAME, MAX_INVITATIONS, SeatStore, server_key
from support.client import create_table
from support.server import ServerProcess

# --------------------------------------------------------------------------- the store


def test_a_saved_seat_is_found_again_by_a_new_store(tmp_path: Path) -> None:
    folder = tmp_path / "jackal"
    SeatStore(folder).save("10.0.0.5:7878", "t3", "W", "secret-1", name="ada")
    again = SeatStore(folder)  # as a restarted client would
    found = again.find("10.0.0.5:7878", "t3")
    assert found is not None
    assert (found.seat, found.token, found.name) == ("W", "secret-1", "ada")
    assert again.find("10.0.0.5:7878", "t3", "W") == found
    assert again.find("10.0.0.5:7878", "t3", "N") is None
    assert again.find("10.0.0.5:7879", "t3") is None  # keyed by server...
    assert again.find("10.0.0.5:7878", "t4") is None  # ...and by table


def test_invitation_codes_are_kept_beside_the_seats(tmp_path: Path) -> None:
    """A private table's codes outlive the client (the server cannot show them again),
    survive seat changes, and only the newest MAX_INVITATIONS are kept."""
    folder = tmp_path / "jackal"
    server = "10.0.0.5:7878"
    # A file written before codes were kept still reads.
    folder.mkdir(mode=0o700)
    (folder / FILE_NAME).write_text(json.dumps({"format": 1, "seats": []}))
    store = SeatStore(folder)
    assert store.invitations(server) == []
    store.save_invitations(server, "t1", "friends", {"N": "aaaa-bbbb-cccc-dddd"})
    store.save("10.0.0.5:7878", "t1", "N", "secret-1")
    store.forget("10.0.0.5:7878", "t1", "N")
    kept = SeatStore(folder).invitations(server)
    assert [(e.table, e.name, e.codes) for e in kept] == [
        ("t1", "friends", {"N": "aaaa-bbbb-cccc-dddd"})]
    assert stat.S_IMODE((folder / FILE_NAME).stat().st_mode) == 0o600
    for number in range(2, MAX_INVITATIONS + 3):
        store.save_invitations(server, f"t{number}", "x", {"N": str(number)})
    tables = [entry.table for entry in store.invitations(server)]
    assert len(tables) == MAX_INVITATIONS and tables[0] == f"t{MAX_INVITATIONS + 2}"
    assert "t1" not in tables and store.invitations("other:1") == []


def test_the_file_is_private_from_the_start(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "jackal"
    store = SeatStore(folder)
    old_umask = os.umask(0)  # the most permissive umask must still give 0600
    try:
        store.save("h:1", "t1", "N", "tok")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # Nothing but the file and its lock is left behind (no stray temporary files).
    assert sorted(p.name for p in folder.iterdir()) == [FILE_NAME, FILE_NAME + ".lock"]


def test_saving_again_replaces_and_forgetting_removes(tmp_path: Path) -> None:
    store = SeatStore(tmp_path)
    store.save("h:1", "t1", "N", "old")
    store.save("h:1", "t1", "S", "partner")  # a second local client at the same table
    store.save("h:1", "t1", "N", "new")
    store.save("h:1", "t2", "E", "other")
    assert [s.token for s in store.seats("h:1", "t1")] == ["new", "partner"]  # newest first
    store.forget("h:1", "t1", "N")
    assert [s.token for s in store.seats("h:1")] == ["other", "partner"]
    store.forget("h:1", "t1")
    assert [s.token for s in store.seats()] == ["other"]
    store.forget("h:1", "nothing-here")  # forgetting what is not there is fine
    assert json.loads(store.path.read_text())["seats"][0]["token"] == "other"


@pytest.mark.parametrize("content", [b"", b"{not json", b"\xff\xfe\x00garbage",
                                     b'{"format": 1, "seats": [{"server": 3}]}',
                                     b'{"format": 99, "seats": []}', b"[1, 2, 3]"])
def test_a_corrupt_file_counts_as_empty_and_is_replaced(tmp_path: Path,
                                                         content: bytes) -> None:
    store = SeatStore(tmp_path)
    store.path.write_bytes(content)
    assert store.seats() == []
    assert store.find("h:1", "t1") is None
    store.save("h:1", "t1", "N", "tok")
    assert [s.token for s in SeatStore(tmp_path).seats()] == ["tok"]


def _save_many(folder: Path, seat: str) -> None:
    store = SeatStore(folder)
    for i in range(30):
        store.save("h:1", f"t{i}", seat, "tok")


@pytest.mark.subprocess
def test_concurrent_saves_from_two_processes_keep_both(tmp_path: Path) -> None:
    # Two local clients (two terminals at one table) saving at once must not lose a seat:
    # each read-change-write holds the lock. Forked, so no second interpreter start-up.
    fork = multiprocessing.get_context("fork")
    procs = [fork.Process(target=_save_many, args=(tmp_path, seat)) for seat in ("N", "S")]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0, 0]
    assert len(SeatStore(tmp_path).seats()) == 60


def test_server_key_and_state_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert server_key("192.168.1.20", 7878) == "192.168.1.20:7878"
    assert server_key("::1", 7878) == "[::1]:7878"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_dir() == tmp_path / "jackal"
    assert records_dir() == tmp_path / "jackal" / "records"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "jackal"


# --------------------------------------------------------------------------- serve records


@pytest.mark.subprocess
def test_serve_keeps_records_in_the_state_folder_by_default(
        private_state_dir: Path, tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, records=False)
    try:
        create_table(server.port, {}, name="evening")
    finally:
        assert server.stop() == 0
    lines = server.log().splitlines()
    folder = private_state_dir / "jackal" / "records"
    assert any(f"match records in {folder}" in line for line in lines), lines
    files = list(folder.glob("*.jsonl"))
    assert len(files) == 1 and '"name":"evening"' in files[0].read_text()


@pytest.mark.subprocess
def test_serve_with_no_records_keeps_none_and_says_so(private_state_dir: Path,
                                                      tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--no-records", records=False)
    try:
        create_table(server.port, {}, name="evening")
    finally:
        assert server.stop() == 0
    lines = server.log().splitlines()
    assert any("keeping no match records" in line for line in lines), lines
    assert not (private_state_dir / "jackal").exists()


def test_records_and_no_records_exclude_each_other(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--records", "x", "--no-records"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
