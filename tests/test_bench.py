"""The measurement scripts in bench/ keep working: each starts (``--help``), and none
imports a test module; code a bench shares with a test lives in tests/support/."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))


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


@pytest.mark.subprocess
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_bench_script_starts(script: Path) -> None:
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 0 and "usage" in done.stdout, done.stderr[-2000:]


@pytest.mark.subprocess
def test_the_tournament_floor_bench_runs_small() -> None:
    done = subprocess.run([sys.executable, "bench/tournament_floor.py", "--boards", "1",
                           "--floor", "0.02"], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "3 entries, 1 boards (6 tables): floor 0.02 s" in done.stdout, done.stdout
