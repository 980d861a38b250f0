"""The stdlib-only example bot plays whole matches on a real server (run as a subprocess)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio
from support import ROOT
from support.bots import non_stdlib_imports, table_with_bots

EXAMPLE = ROOT / "examples" / "minimal_bot.py"


async def run_example(*args: str) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(60):
        return await trio.run_process([sys.executable, str(EXAMPLE), *args],
                                      capture_stdout=True, capture_stderr=True, check=False)


def test_example_is_small_and_stdlib_only() -> None:
    text = EXAMPLE.read_text()
    assert len(text.splitlines()) < 100
    assert non_stdlib_imports(text) == set()


@pytest.mark.subprocess
async def test_example_creates_a_table_and_plays_the_match(server_port: int) -> None:
    done = await run_example("--host", "127.0.0.1", "--port", str(server_port),
                             "--target", "50")
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "playing at table" in out and "deal 1:" in out
    assert "match over:" in out
    assert done.stderr.decode() == ""  # no server error along the way


@pytest.mark.subprocess
async def test_example_joins_a_given_table_and_seat(server_port: int) -> None:
    table = await table_with_bots(server_port, "NES", target=30, strategy="random")
    done = await run_example("--port", str(server_port), "--table", table,
                             "--seat", "W")
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert f"playing at table {table}, seat W" in out and "match over:" in out
