"""``jackal tournament``: one fault policy for every entry, and standings that read true.

Everything runs for real: the CLI in a subprocess with its embedded server, failing
programs as ``exec:`` and ``cmd:`` entries, the results JSON and the printed table.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

RunJackal = Callable[..., "subprocess.CompletedProcess[str]"]  # the run_jackal fixture

#: The substitute of the fault-policy tournament, and the strategy the reference entry
#: plays itself. Deterministic (no randomness at all), so the same position always gets
#: the same card, whoever asks.
SUBSTITUTE = "baseline"
#: Each failing entry fails on every move, each in its own way; none needs Python (no
#: interpreter start-up under a short time limit). The no-show is a cmd: client, the
#: others exec: programs.
FAILING = {
    "absent": ("cmd:false", "no_show"),                       # exits before taking its seat
    "crasher": ("exec:false", "crash"),                       # exits at every (re)start
    "hanger": ("exec:sleep 3600", "timeout"),                 # never answers
    "garbage": ("exec:sh -c 'while read line; do echo XX; done'", "garbage"),
}


def _tournament(run_jackal: RunJackal, tmp_path: Path, *args: str,
                timeout: float = 120) -> dict[str, Any]:
    results = tmp_path / "results.json"
    done = run_jackal("tournament", *args, "--results", str(results), "-q", timeout=timeout)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(results.read_text())
    report["stdout"] = done.stdout
    return report


def test_every_fault_of_every_entry_is_played_by_the_one_substitute(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """A no-show, a crasher, a hanger and a garbage entry against greedy and against a
    reference entry that plays every card itself with the substitute's strategy.

    Why no failing entry can rank above the reference, by construction: each fails on
    every move, so every card of its seats is the substitute's; the substitute
    (``baseline``) has no randomness, and the reference is the same strategy under the
    same convention card (``none``, its own and what a program declares). So at every table a
    failing entry plays exactly the cards the reference plays at the same table (same
    board, same opponent, same side): against greedy the same results, and between two
    of them (or one and the reference) the two tables of a board are the same game
    from either side, which splits the points. Every one of them then has exactly the
    reference's victory points and net, hence its rank (equal ones are shared). Before,
    an exec: program's faults got the first card of its hand instead, and a hanging
    program cost a wait on every move after its restart.
    """
    entries = {"ref": SUBSTITUTE, "greedy": "greedy",
               **{name: spec for name, (spec, _kind) in FAILING.items()}}
    report = _tournament(
        run_jackal, tmp_path, *(f"--entry={name}={spec}" for name, spec in entries.items()),
        "--substitute", SUBSTITUTE, "--boards", "2", "--seed", "1", "--jobs", "6",
        "--move-seconds", "0.5", "--start-seconds", "0.5", "--sandbox", "off",
        "--bot-floor", "0")
    standings = {row["name"]: row for row in report["standings"]}
    ref = standings["ref"]
    assert ref["faults"] == 0 and standings["greedy"]["faults"] == 0
    # Each entry: 5 opponents x 2 sides x 2 boards, 16 moves a table (two seats of 8).
    for name, (_spec, kind) in FAILING.items():
        row = standings[name]
        assert row["tables"] == ref["tables"] == 20
        assert row["fault_kinds"] == {kind: 20 * 16}, (name, row["fault_kinds"])
        assert (row["vp"], row["net_vp_per_table"]) == (ref["vp"], ref["net_vp_per_table"])
        assert row["rank"] == ref["rank"], (name, row["rank"], ref["rank"])
    # The cards themselves: at every table against greedy, the failing entry played what
    # the reference played there.
    plays = {(t["board"], t["ns"], t["ew"]): t["plays"] for t in report["tables"]}
    for name in FAILING:
        for board in (1, 2):
            assert plays[board, name, "greedy"] == plays[board, "ref", "greedy"], name
            assert plays[board, "greedy", name] == plays[board, "greedy", "ref"], name
