"""The measurement scripts in bench/ keep working: each RUNS on a small size (a few
seconds) and reports without errors, so a new server limit cannot silently break one
again (issue 31: a per-address table limit made the load bench measure nothing); none
imports a test module (code a bench shares with a test lives in tests/support/)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))

#: Each bench's small run: its arguments. ``baseline_server.py`` is the load bench's relay
#: and runs inside its run (both modes); ``card_difference.py`` reads two arena runs that
#: its test makes first.
SMALL: dict[str, list[str]] = {
    "abuse.py": ["--seconds", "0.2", "--lobby-tables", "20", "--hog-limit", "60",
                 "--only", "lobby_lockout,card_spam", "--json"],
    "arena_memory.py": ["--deals", "20", "--jobs", "1"],
    "arena_scale.py": ["--deals", "4", "--rounds", "1", "--workers", "1"],
    "bot_timing.py": ["--tables", "1", "--moves", "8"],
    "bots.py": ["--deals", "2"],
    "deal_summary.py": ["--deals", "4", "--expert-deals", "1"],
    "engine.py": ["--deals", "50", "--repeat", "1"],
    "exec_lines.py": ["--target", "1"],
    "expert_speed.py": ["--deals", "1"],
    "seat_relay.py": ["--lines", "50", "--rounds", "1"],
    "tournament_floor.py": ["--boards", "1", "--floor", "0.02"],
    "server_load.py": ["--tables", "2", "--target", "1", "--procs", "1", "--timeout", "60",
                       "--json"],
    "tournament_hang.py": ["--boards", "1", "--jobs", "1", "--", "--move-seconds", "0.05",
                           "--start-seconds", "0.05", "--seat-seconds", "1",
                           "--bot-floor", "0"],
}
RUN_ELSEWHERE = {"baseline_server.py", "card_difference.py"}


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
    return names


def test_no_bench_script_imports_a_test_module() -> None:
    assert len(SCRIPTS) > 5
    wrong = {path.name: sorted(name for name in _imported(path)
                               if name.split(".")[-1].startswith("test_")
                               or name.split(".")[0] == "tests")
             for path in SCRIPTS}
    assert {name: found for name, found in wrong.items() if found} == {}


def test_every_bench_script_has_a_small_run() -> None:
    assert {path.name for path in SCRIPTS} == set(SMALL) | RUN_ELSEWHERE


def _run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, check=False)


def _last_json(text: str) -> Any:
    return json.loads(text.strip().splitlines()[-1])


@pytest.mark.subprocess
@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_bench_script_runs_on_a_small_size(name: str) -> None:
    done = _run([str(ROOT / "bench" / name), *SMALL[name]])
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert done.stdout.strip(), done.stderr[-2000:]
    if name == "server_load.py":
        report = _last_json(done.stdout)
        assert report["errors"] == 0 and report["matches"] == 2, report
        # The bare relay (baseline_server.py), both ways, ran under the same clients.
        assert report["baseline_errors"] == 0 and report["baseline_ratio"] > 0, report
        assert report["stock_relay_errors"] == 0, report
    elif name == "expert_speed.py":
        report = json.loads(done.stdout)
        assert report["deals"] == 1 and report["decisions"] > 20, report
        assert report["decisions_per_second"] > 0, report
    elif name == "tournament_floor.py":
        assert "3 entries, 1 boards (6 tables): floor 0.02 s" in done.stdout, done.stdout
    elif name == "abuse.py":
        report = _last_json(done.stdout)
        assert report["lobby_lockout"]["another_address_creates"] is True, report


@pytest.mark.subprocess
def test_the_load_bench_plays_over_the_websocket_too() -> None:
    # --transport ws: the same tables over TCP, then over /ws of jackal serve --web.
    done = _run([str(ROOT / "bench" / "server_load.py"), "--tables", "2", "--target", "1",
                 "--procs", "1", "--timeout", "60", "--json", "--transport", "ws"])
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    report = _last_json(done.stdout)
    assert report["errors"] == 0 and report["matches"] == report["ws_matches"] == 2, report
    assert report["ws_plays"] == report["plays"] and report["ws_ratio"] > 0, report
    assert report["ws_server_kib_per_connection"] is not None, report


@pytest.mark.subprocess
def test_the_load_bench_fails_loudly_when_the_server_refuses_tables() -> None:
    # A per-address limit the bench does not lift (here given back on purpose).
    done = _run([str(ROOT / "bench" / "server_load.py"), "--tables", "3", "--target", "1",
                 "--procs", "1", "--timeout", "20", "--no-baseline",
                 "--server-arg=--max-tables-per-address=1"])
    assert done.returncode == 1, done.stdout[-2000:]
    assert "FAILED" in done.stderr and "refused" in done.stderr, done.stderr[-2000:]


@pytest.mark.subprocess
def test_card_difference_reads_two_arena_runs(tmp_path: Path) -> None:
    files = []
    for card in ("advanced", "beginner"):
        records = tmp_path / f"{card}.jsonl"
        done = _run(["-m", "jackal.cli.main", "arena", "--ns", "greedy", "--ew", "random",
                     "--ns-conventions", card, "--deals", "4", "--seed", "1",
                     "--records", str(records)])
        assert done.returncode == 0, done.stderr[-2000:]
        files.append(str(records))
    done = _run([str(ROOT / "bench" / "card_difference.py"), *files])
    assert done.returncode == 0, done.stderr[-2000:]
    assert isinstance(json.loads(done.stdout), dict)
