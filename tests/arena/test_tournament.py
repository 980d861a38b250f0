"""``jackal tournament``: duplicate tournaments between strategies and bot programs.

Everything runs for real: the CLI in a subprocess with its embedded server, the example
stdin/stdout bot and a deliberately broken program as exec entries, the example TCP bot
and a hanging client as cmd entries. The standings are then checked against a scoring
of the server's record files done here from scratch with the game engine (the records'
plays replayed through ``Deal``), not with the tournament's own code.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import RunJackal
from jackal.arena.tournament import (
    TableJob,
    board_deal,
    command_argv,
    parse_entry,
    schedule,
)
from jackal.bots.yardstick import efficiency
from jackal.game.errors import MalformedInput
from jackal.game.seats import SEATS
from support import ROOT
from support.server import ServerProcess
from support.tournament import rescore

#: The programs are started with -I -S (no site packages): they need only the standard
#: library, and start several times faster, which keeps the tests lean.
PY = f"{sys.executable} -I -S"

#: An exec entry that misbehaves on purpose: on its 1st play it names a card it does
#: not hold; at N and E it hangs on its 2nd play, at S and W it crashes on its 3rd (so
#: every table has one of each); started again by the host, it then plays properly.
BROKEN = """\
import json, sys, time
for line in sys.stdin:
    turn = json.loads(line)
    if turn.get("type") != "your_turn":
        continue
    hand, play = turn["hand"], turn["play"]
    if play == 1:
        print(next(r + s for s in "SHDC" for r in "A23456789TJQK" if r + s not in hand),
              flush=True)
    elif play == 2 and turn["seat"] in "NE":
        time.sleep(120)
    elif play == 3 and turn["seat"] in "SW":
        sys.exit(3)
    else:
        print(hand[-1], flush=True)
"""

#: A full protocol client that takes its seat, says ready and then never plays.
HANGING_CLIENT = """\
import json, socket, sys, time
host, port, table, seat, invite_fd = sys.argv[1:6]
invite = open(int(invite_fd)).readline().strip()
link = socket.create_connection((host, int(port)))
def send(**message):
    link.sendall((json.dumps(message) + "\\n").encode())
send(type="hello", name="hang")
send(type="join", table=table, seat=seat, invite=invite)
send(type="ready")
while link.recv(65536):
    pass
"""


@pytest.mark.subprocess
def test_a_tournament_with_a_broken_entry_completes_and_its_records_rescore(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(BROKEN)
    results, records = tmp_path / "results.json", tmp_path / "records"
    names = ["random", "greedy", "beginner", "expert"]
    done = run_jackal(
        "tournament", *(f"--entry={name}={name}" for name in names),
        f"--entry=stdin=exec:{PY} {ROOT / 'examples' / 'stdin_bot.py'}",
        f"--entry=broken=exec:{PY} {broken}",
        "--boards", "1", "--seed", "40", "--jobs", "4", "--move-seconds", "2",
        # Fault handling, not bot timing, is under test: a short floor saves half a minute.
        "--bot-floor", "0.02",
        "--results", str(results), "--records", str(records), timeout=170)
    assert done.returncode == 0, done.stderr
    assert "6 entries, 1 board each way round: 30 tables in " in done.stdout
    report = json.loads(results.read_text())
    standings = {row["name"]: row for row in report["standings"]}
    everyone = [*names, "stdin", "broken"]
    assert set(standings) == set(everyone)
    ranks = [row["rank"] for row in report["standings"]]
    assert ranks[0] == 1 and ranks == sorted(ranks)  # shared by equal entries

    totals, tables = rescore(records)
    # Duplicate: every pair on board 1 (seed 41) once each way round, nothing else.
    expected = {(41, a, b) for a in everyone for b in everyone if a != b}
    assert sorted(tables) == sorted(expected)
    for name in everyone:
        row, mine = standings[name], totals[name]
        assert row["tables"] == mine["boards"] == 10
        assert row["boards"] == 1  # one board, played at 10 tables
        assert row["vp"] == mine["vp"]
        assert row["vp_per_table"] == pytest.approx(mine["vp"] / 10, abs=1e-4)
        assert row["win_rate"] == pytest.approx(mine["wins"] / 10, abs=1e-4)
        # The arena's yardstick, on the boards' hands: the same measure as jackal arena.
        eff = efficiency(mine["penalties"], mine["baselines"], mine["optima"])
        assert eff is not None
        assert row["efficiency"] == pytest.approx(eff.value, abs=1e-4)
        # One board: no interval for either figure (its ten tables share the hands).
        assert row["win_rate_ci95"] is None and row["efficiency_ci95"] is None
        assert row["baseline_penalty"] == pytest.approx(sum(mine["baselines"]) / 10, abs=1e-3)
    by_vp = sorted(everyone, key=lambda n: -standings[n]["vp_per_table"])
    assert [standings[n]["vp_per_table"] for n in by_vp] == [
        row["vp_per_table"] for row in report["standings"]]

    # Each of the broken entry's 20 seats lied once; at each of its 10 tables one seat
    # hung and one crashed. The substitute played every such move; nobody else faulted.
    assert standings["broken"]["fault_kinds"] == {"crash": 10, "garbage": 20, "timeout": 10}
    assert standings["broken"]["faults"] == 40
    for name in ["stdin", *names]:
        assert standings[name]["faults"] == 0, standings[name]
    assert "expert" in done.stdout and "broken" in done.stdout
    assert not report["failures"]


@pytest.mark.subprocess
def test_cmd_entries_get_their_seat_and_a_hanging_one_is_substituted(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    hanging = tmp_path / "hanging.py"
    hanging.write_text(HANGING_CLIENT)
    results, records = tmp_path / "results.json", tmp_path / "records"
    minimal = ROOT / "examples" / "minimal_bot.py"
    done = run_jackal(
        "tournament",
        "--entry", f"mini=cmd:{PY} {minimal} --host {{host}} --port {{port}} "
                   "--table {table} --seat {seat} --invite-fd {invite_fd}",
        "--entry", f"hang=cmd:{PY} {hanging} {{host}} {{port}} {{table}} {{seat}} {{invite_fd}}",
        "--entry", f"absent=cmd:{PY} -c 'import time; time.sleep(60)'",
        "--boards", "1", "--seed", "3", "--jobs", "4", "--move-seconds", "2",
        # Faults, not bot timing, are under test: no floor under the substitutes' cards.
        "--seat-seconds", "4", "--bot-floor", "0", "--results", str(results),
        "--records", str(records), "-q", timeout=170)
    assert done.returncode == 0, done.stderr
    report = json.loads(results.read_text())
    standings = {row["name"]: row for row in report["standings"]}
    assert {name: row["tables"] for name, row in standings.items()} == {
        "mini": 4, "hang": 4, "absent": 4}
    assert standings["mini"]["faults"] == 0, standings["mini"]
    # The hanging client loses each seat at its first turn, the absent one never sits:
    # their 2 seats x 8 plays at 4 tables are all played by the substitute.
    assert standings["hang"]["fault_kinds"] == {"timeout": 64}
    assert standings["absent"]["fault_kinds"] == {"no_show": 64}
    for table in report["tables"]:
        assert len(table["plays"]) == 32
        assert (records / table["record"]).is_file()
    assert sum(1 for _ in records.glob("*.jsonl")) == 6


def test_the_schedule_pairs_everyone_on_the_same_boards_both_ways() -> None:
    jobs = schedule(["a", "b", "c"], boards=2, seed=10)
    assert len(jobs) == 3 * 2 * 2
    assert [job.number for job in jobs] == list(range(1, 13))
    assert {(job.board, job.seed) for job in jobs} == {(1, 11), (2, 12)}
    pairs = Counter((job.board, job.ns, job.ew) for job in jobs)
    assert all(count == 1 for count in pairs.values())
    assert (1, "a", "b") in pairs and (1, "b", "a") in pairs
    # Both tables of a board get the same deal: the same hands, the same dealer.
    one, two = (board_deal(TableJob(0, 1, 11, "a", "b")), board_deal(TableJob(1, 1, 11, "b", "a")))
    assert one.dealer is two.dealer
    assert all(one.dealt_hand(seat) == two.dealt_hand(seat) for seat in SEATS)


def test_entries_are_parsed_and_checked() -> None:
    assert parse_entry("ex=expert").conventions == "advanced"
    entry = parse_entry("js=exec:node examples/stdin_bot.js")
    assert (entry.kind, entry.spec, entry.conventions) == (
        "exec", "node examples/stdin_bot.js", "none")
    assert parse_entry("c=cmd:bot {host}", "beginner").conventions == "beginner"
    for bad in ("expert", "=expert", "x=", "x=nosuch", "x=exec:", "a b=expert"):
        with pytest.raises(MalformedInput):
            parse_entry(bad)
    with pytest.raises(MalformedInput):
        schedule(["a", "a"], 1, 0)
    assert command_argv("x {host}:{port} '{table} {seat}' {other}", {
        "host": "h", "port": "1", "table": "t1", "seat": "N"}) == [
        "x", "h:1", "t1 N", "{other}"]


@pytest.mark.subprocess
def test_bad_options_exit_2_with_one_line(run_jackal: RunJackal) -> None:
    done = run_jackal("tournament", "--entry", "a=expert", "--entry", "b=nosuch")
    assert done.returncode == 2
    assert done.stderr.startswith("jackal tournament: entry 'b'")
    done = run_jackal("tournament", "--entry", "a=expert", "--entry", "b=greedy",
                      "--server", "127.0.0.1:1", "--records", "x")
    assert done.returncode == 2 and "--records" in done.stderr


@pytest.mark.subprocess
def test_a_tournament_on_an_existing_server_with_a_password(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    server = ServerProcess(tmp_path, "--password", "sesame", "--quiet")
    try:
        results = tmp_path / "results.json"
        done = run_jackal("tournament", "--entry", "r=random", "--entry", "g=greedy",
                          "--server", f"127.0.0.1:{server.port}", "--password", "sesame",
                          "--boards", "2", "--seed", "5", "--results", str(results), "-q")
        assert done.returncode == 0, done.stderr
        report = json.loads(results.read_text())
        assert [row["tables"] for row in report["standings"]] == [4, 4]
        assert [row["boards"] for row in report["standings"]] == [2, 2]
        assert {(t["board"], t["seed"], t["ns"]) for t in report["tables"]} == {
            (1, 6, "r"), (1, 6, "g"), (2, 7, "r"), (2, 7, "g")}
        # The tables were the server's: its records hold them, one file each.
        seeds = sorted(json.loads(path.read_text().splitlines()[0])["seed"]
                       for path in server.records.glob("*.jsonl"))
        assert seeds == [6, 6, 7, 7]
    finally:
        server.stop()


@pytest.mark.subprocess
def test_an_exec_entry_opted_in_to_events_hears_each_tables_end(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """--exec-events NAME=all: the entry's copies get every event and the cards, as under
    jackal bot --exec-events all (the Perl example says so on stderr, which passes
    through); another exec: entry still gets your_turn lines only."""
    perl = shutil.which("perl")
    if perl is None or subprocess.run([perl, "-MJSON::PP", "-e", "1"]).returncode != 0:
        pytest.skip("perl with JSON::PP is not installed (.ci/run installs it)")
    results = tmp_path / "results.json"
    done = run_jackal(
        "tournament", "--entry", f"ev=exec:{perl} {ROOT / 'examples' / 'events_bot.pl'}",
        "--entry", f"py=exec:{PY} {ROOT / 'examples' / 'stdin_bot.py'}",
        "--exec-events", "ev=all", "--boards", "1", "--seed", "4", "--sandbox", "off",
        "--bot-floor", "0", "--results", str(results), "-q", timeout=120)
    assert done.returncode == 0, done.stderr
    standings = {row["name"]: row for row in json.loads(results.read_text())["standings"]}
    assert (standings["ev"]["events"], standings["py"]["events"]) == ("all", "your_turn")
    assert standings["ev"]["faults"] == standings["py"]["faults"] == 0
    # Both tables (one each way round), two copies each: every copy heard the match end.
    assert done.stderr.count("deal 1: we play none, they play none") == 4
    # Each line labelled with its copy's entry, table and seat.
    assert len(re.findall(r"^\[ev t\d [NESW]\] match over: we won \d+ of \d+ deals",
                          done.stderr, re.M)) == 4
    for bad in (["--exec-events", "py=loud"], ["--exec-events", "nobody=all"]):
        refused = run_jackal("tournament", "--entry", "py=exec:true", "--entry", "g=greedy",
                             *bad)
        assert refused.returncode == 2 and "--exec-events" in refused.stderr
