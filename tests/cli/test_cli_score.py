"""The engine's command-line faces: ``jackal score``, ``jackal demo`` and the engine
benchmark ``bench/engine.py``. One test of each command runs it as a real subprocess (what
a user runs); the rest of their answers are pure functions of the arguments, called in
this process through the same ``main``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import CallJackal, RunJackal
from support import ROOT

A = "AS AH AD 7C 7D 9H 9S KC KD KH"  # trips A, pair 7, pair 9, trips K: 50
B = "2C 3C 4C 5C 6C 8C 9C TC JC QC"  # ten singles: 270


class TestScore:
    @pytest.mark.subprocess
    def test_two_hands_human(self, run_jackal: RunJackal) -> None:
        proc = run_jackal("score", A, B)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        out = proc.stdout
        assert "Team A: AS AH AD 7C 7D 9H 9S KC KD KH" in out
        # One line per rank with cards, count and points.
        assert any(line.split()[:6] == ["7", "7D", "7C", "2", "25", "(pair)"]
                   for line in out.splitlines())
        assert any(line.split()[:5] == ["A", "AS", "AH", "AD", "3"] for line in out.splitlines())
        assert any(line.split()[:4] == ["Q", "QC", "1", "32"] for line in out.splitlines())
        penalties = [line.split()[1] for line in out.splitlines() if line.strip().startswith(
            "penalty")]
        assert penalties == ["50", "270"]
        assert out.rstrip().endswith("A wins: 20 + (270 - 50) = 240 victory points.")

    def test_two_hands_json(self, call_jackal: CallJackal) -> None:
        proc = call_jackal("score", B, A, "--json")
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["penalty"] == [270, 50]
        assert data["winner"] == "B"
        assert data["points"] == 240
        groups = {g["rank"]: g for g in data["hands"][1]["groups"]}
        assert groups["7"] == {"rank": "7", "value": 7, "cards": ["7D", "7C"],
                               "count": 2, "points": 25}
        assert groups["K"]["points"] == 0 and groups["K"]["count"] == 3
        assert sum(g["points"] for g in data["hands"][0]["groups"]) == 270

    def test_tie_and_zero_bonus_json(self, call_jackal: CallJackal) -> None:
        tie = call_jackal("score", "--json", "AS AH 7S 7H 9S 9H 2S 2H 2D 2C",
                         "ad,ac,7d,7c,9d,9c,3s,3h,3d,3c")
        assert tie.returncode == 0, tie.stderr
        assert json.loads(tie.stdout)["winner"] is None
        assert json.loads(tie.stdout)["points"] == 0
        clean = call_jackal("score", "--json", "A♠ A♥ A♦ 5S 5H 5D 5C KS KH KD", A.replace(
            "AS AH AD", "2S 2H 2D").replace("KC KD KH", "QC QD QH"))
        data = json.loads(clean.stdout)
        assert data["penalty"] == [0, 50]
        assert (data["winner"], data["points"]) == ("A", 100)

    def test_one_hand(self, call_jackal: CallJackal) -> None:
        proc = call_jackal("score", "10s js qs ks 4s 5s 6s 7s 8s 9s")
        assert proc.returncode == 0, proc.stderr
        assert "penalty" in proc.stdout and "285" in proc.stdout
        assert "wins" not in proc.stdout
        data = json.loads(call_jackal("score", "--json", A).stdout)
        assert data["penalty"] == [50]
        assert [g["rank"] for g in data["hands"][0]["groups"]] == ["A", "7", "9", "K"]

    @pytest.mark.parametrize(
        ("hands", "problem"),
        [
            ((A[:-3],), "9 cards, expected exactly 10"),
            ((A + " 2C",), "11 cards"),
            ((A, B + " KS"), "hand B has 11 cards"),
            ((A.replace("KH", "KD"),), "KD appears twice"),
            ((A, B.replace("QC", "AS")), "AS appears in both hands"),
            ((A.replace("9S", "9X"),), "'9X' is not a card"),
            ((A, B, B), "one or two hands"),
        ],
    )
    def test_bad_input(self, call_jackal: CallJackal, hands: tuple[str, ...],
                       problem: str) -> None:
        for extra in ((), ("--json",)):
            proc = call_jackal("score", *hands, *extra)
            assert proc.returncode == 2
            assert proc.stdout == ""
            assert problem in proc.stderr
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


class TestDemo:
    @pytest.mark.subprocess
    def test_demo_is_deterministic_and_complete(self, run_jackal: RunJackal,
                                                call_jackal: CallJackal) -> None:
        first = run_jackal("demo", "--seed", "7")
        assert first.returncode == 0, first.stderr
        again = call_jackal("demo", "--seed", "7")  # another process, the same deal
        assert again.stdout == first.stdout
        out = first.stdout.splitlines()
        assert out[1].startswith("Dealer W; N plays first")  # seed 7: dealer W (golden)
        rounds = [line for line in out if line.strip().startswith("round ")]
        assert len(rounds) == 8
        assert all(len(line.split()) == 2 + 8 for line in rounds)  # 4 x "seat card"
        rows = out[out.index("Rows (public, in play order):") + 1:][:4]
        assert [row.split()[0] for row in rows] == ["N:", "E:", "S:", "W:"]
        assert all(len(row.split()) == 9 for row in rows)
        penalties = [int(line.split()[1]) for line in out if line.strip().startswith("penalty")]
        assert len(penalties) == 2
        verdict = out[-1]
        if penalties[0] == penalties[1]:
            assert "nobody scores" in verdict
        else:
            low, high = sorted(penalties)
            winner = "NS" if penalties[0] < penalties[1] else "EW"
            bonus = 30 if low == 0 else 0
            assert verdict.startswith(f"{winner} wins:")
            assert f"= {20 + high - low + bonus} victory points." in verdict

    def test_seed_changes_the_deal(self, call_jackal: CallJackal) -> None:
        assert call_jackal("demo", "--seed", "1").stdout != call_jackal("demo", "--seed",
                                                                         "2").stdout


@pytest.mark.subprocess
def test_engine_benchmark_prints_one_json_object() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "engine.py"), "--deals", "200", "--repeat", "1"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["deals"] == 200 and data["plays"] == 200 * 32
    assert data["deals_per_s"] > 0 and data["plays_per_s"] > data["deals_per_s"]
    assert {"seconds", "python"} <= data.keys()


def test_readme_quick_start_is_what_ci_runs() -> None:
    """.ci/run takes its commands from README.md; keep the shape it relies on."""
    from jackal.cli.main import COMMANDS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Quick start\n", 1)[1]
    block = section.split("```", 2)[1]
    lines = [line for line in block.splitlines()[1:] if line.strip()]
    assert lines == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/jackal play",
        ".venv/bin/python -m pytest",
    ]
    usage = readme.split("\n## Usage\n", 1)[1].split("\n## ", 1)[0]
    for name in COMMANDS:
        assert f"\n### jackal {name}" in usage, name
    assert "Sakaali" in readme and "Tuomas Korppi" in readme and "pagat.com" in readme


@pytest.mark.subprocess
def test_readme_quick_start_says_what_its_lines_do(run_jackal: RunJackal) -> None:
    """Issue 25: the first line exits 2 when scripted, and the `[test]` extra installed Dask
    while the README presented Dask as the `[cluster]` extra. The README now says both,
    and here they are held against the CLI and pyproject.toml."""
    import tomllib

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert ("its last command, `jackal play`, then exits with status 2 and says it needs a "
            "terminal, so the whole line exits 2") in readme
    scripted = run_jackal("play")  # stdin is a pipe here, as in a script
    assert scripted.returncode == 2 and "needs a terminal" in scripted.stderr
    assert "and the whole `[cluster]` extra (Dask, for `jackal arena --scheduler`)" in readme
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert f"{project['name']}[cluster]" in extras["test"]
    # Named, not copied: nothing of the cluster extra is listed again in the test extra.
    assert not set(extras["cluster"]) & set(extras["test"])
