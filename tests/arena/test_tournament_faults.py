"""``jackal tournament``: one fault policy for every entry, and standings that read true.

Everything runs for real: the CLI in a subprocess with its embedded server, failing
programs as ``exec:`` and ``cmd:`` entries, the results JSON and the printed table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import RunJackal
from jackal.arena.run import wilson_interval
from jackal.bots.registry import STRATEGIES
from jackal.bots.yardstick import efficiency
from jackal.client.exec_host import START_SECONDS
from support import ROOT
from support.tournament import rescore, run_tournament

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


@pytest.mark.subprocess
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
    report = run_tournament(
        run_jackal, tmp_path, *(f"--entry={name}={spec}" for name, spec in entries.items()),
        "--substitute", SUBSTITUTE, "--boards", "1", "--seed", "1", "--jobs", "6",
        "--move-seconds", "0.5", "--start-seconds", "0.5", "--sandbox", "off",
        "--bot-floor", "0")
    standings = {row["name"]: row for row in report["standings"]}
    ref = standings["ref"]
    assert ref["faults"] == 0 and standings["greedy"]["faults"] == 0
    # Each entry: 5 opponents x 2 sides, 16 moves a table (two seats of 8).
    for name, (_spec, kind) in FAILING.items():
        row = standings[name]
        assert row["tables"] == ref["tables"] == 10
        assert row["fault_kinds"] == {kind: 10 * 16}, (name, row["fault_kinds"])
        assert (row["vp"], row["net_vp_per_table"]) == (ref["vp"], ref["net_vp_per_table"])
        assert row["rank"] == ref["rank"], (name, row["rank"], ref["rank"])
    # The cards themselves: at every table against greedy, the failing entry played what
    # the reference played there.
    plays = {(t["board"], t["ns"], t["ew"]): t["plays"] for t in report["tables"]}
    for name in FAILING:
        assert plays[1, name, "greedy"] == plays[1, "ref", "greedy"], name
        assert plays[1, "greedy", name] == plays[1, "greedy", "ref"], name


def _columns(stdout: str) -> list[list[str]]:
    """The printed standings, row by row, split where two spaces part the columns."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#"))
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(re.split(r" {2,}", line.strip()))
    return rows


@pytest.mark.subprocess
def test_the_standings_count_boards_and_tables_and_keep_their_columns_apart(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """4 entries with --boards 3: 3 boards, at 18 tables each; every printed row has as
    many columns as the header (negative nets and intervals included), and the
    efficiency's interval is the yardstick's over the boards, rescored from the records."""
    records = tmp_path / "records"
    names = ["random", "greedy", "baseline", "beginner"]
    report = run_tournament(run_jackal, tmp_path, *(f"--entry={n}={n}" for n in names),
                         "--boards", "3", "--seed", "4", "--jobs", "4",
                         "--records", str(records))
    assert report["tournament"]["seed"] == 4 and report["tournament"]["seed_secret"] is False
    rows = _columns(report["stdout"])
    header, body = rows[0], rows[1:]
    assert header[3:5] == ["boards", "tables"]
    assert len(body) == 4 and all(len(row) == len(header) for row in body), rows
    assert all(row[3:5] == ["3", "18"] for row in body), rows
    assert any(row[6].startswith("-") for row in body)  # a negative net, still apart
    totals, _tables = rescore(records)
    for row in report["standings"]:
        assert (row["boards"], row["tables"]) == (3, 18)
        mine = totals[row["name"]]
        assert row["win_rate_ci95"] == pytest.approx(
            list(wilson_interval(mine["wins"], 18)), abs=1e-4)
        # One sample a board: its six tables' sums.
        per_board: dict[int, list[int]] = {}
        for seed, *figures in zip(mine["seeds"], mine["penalties"], mine["baselines"],
                                  mine["optima"], strict=True):
            sums = per_board.setdefault(seed, [0, 0, 0])
            for index, figure in enumerate(figures):
                sums[index] += figure
        assert len(per_board) == 3
        eff = efficiency(*zip(*per_board.values(), strict=True))
        assert eff is not None
        assert row["efficiency"] == pytest.approx(eff.value, abs=1e-4)
        assert row["efficiency_ci95"] == pytest.approx([eff.low, eff.high], abs=1e-4)


@pytest.mark.subprocess
def test_one_board_has_no_interval_and_a_secret_seed_is_told_at_the_end(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """BOTS.md: both intervals are null with one board; the table says [n/a]. Without
    --seed the seed is a secret one, given in the JSON and the text once played."""
    doc = " ".join((ROOT / "docs" / "BOTS.md").read_text().split())
    assert "`efficiency_ci95` (both intervals `null` with one board)" in doc
    assert "With one board neither figure has an interval: the table shows `[n/a]`" in doc
    report = run_tournament(run_jackal, tmp_path, "--entry=r=random", "--entry=g=greedy",
                         "--boards", "1")
    for row in report["standings"]:
        assert row["boards"] == 1 and row["tables"] == 2
        assert row["win_rate_ci95"] is None and row["efficiency_ci95"] is None, row
    for row in _columns(report["stdout"])[1:]:
        assert row[7].endswith(" [n/a]"), row
        assert row[8] == "n/a" or row[8].endswith(" [n/a]"), row
    settings = report["tournament"]
    assert settings["seed_secret"] is True and isinstance(settings["seed"], int)
    assert f"seed {settings['seed']} (--seed {settings['seed']}" in report["stdout"]
    # The boards were dealt from it: board 1 is seed S+1.
    assert {table["seed"] for table in report["tables"]} == {settings["seed"] + 1}


@pytest.mark.subprocess
def test_the_help_names_every_strategy_and_the_clocks_mean_one_thing(
        run_jackal: RunJackal) -> None:
    """The tournament's help lists every built-in strategy (baseline was missing), and
    --start-seconds has one meaning and one default in jackal bot, jackal tournament and
    BOTS.md; the seat limit is --seat-seconds."""
    tournament = run_jackal("tournament", "--help").stdout
    bot = run_jackal("bot", "--help").stdout
    flat = " ".join(tournament.split())
    listed = ", ".join(STRATEGIES)
    assert f"a built-in strategy, played by the server: one of {listed}" in flat
    assert f"({listed}; default random" in flat  # --substitute
    start = "extra time for an exec program's first answer after it is started or restarted"
    for text in (tournament, bot):
        option = re.search(r"--start-seconds S\s+(.*?)\n  -", text, re.S)
        assert option is not None
        described = " ".join(option.group(1).split())
        assert start in described and described.endswith(f"(default {START_SECONDS:g})")
    assert "--seat-seconds S" in tournament and "(default 15)" in flat
    doc = " ".join((ROOT / "docs" / "BOTS.md").read_text().split())
    defaults = re.findall(r"`--start-seconds`[^`]*?default (\d+)", doc)
    assert defaults and set(defaults) == {f"{START_SECONDS:g}"}, defaults
    assert re.findall(r"`--seat-seconds` \(default (\d+)\)", doc) == ["15"]


@pytest.mark.subprocess
def test_a_program_s_log_lines_name_its_table_seat_and_entry(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """Many copies of many programs log side by side in a tournament: each of an exec:
    program's lines says whose it is (they said only "the program failed to answer")."""
    spec, _kind = FAILING["garbage"]
    report = run_tournament(run_jackal, tmp_path, f"--entry=junk={spec}", "--entry=g=greedy",
                         "--boards", "1", "--seed", "1", "--sandbox", "off",
                         "--bot-floor", "0")
    err = report["stderr"]
    named = set(re.findall(r"table (t\w+) seat ([NESW]) \(junk\): the program failed to "
                           r"answer \(garbage: ", err))
    # Two tables, junk at both seats of one side at each: four copies, each named.
    assert len(named) == 4 and len({table for table, _seat in named}) == 2, err
    assert {seat for _table, seat in named} == set("NESW"), err
    assert "WARNING the program" not in err, err  # none left unnamed
