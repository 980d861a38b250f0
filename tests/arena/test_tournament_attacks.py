"""Hostile entries and a hostile server against ``jackal tournament`` (issue 21, item 5).

Each test runs the real command in a subprocess with a real hostile program: one that
tries seeds until it finds its board, copies of one program that pass their hands
through a file, a ``cmd:`` client that takes the seats of tables it was not given, and
a server that hands out a table id made to run a command in a shell.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from conftest import RunJackal
from jackal.client.sandbox import find_bwrap
from support import ROOT
from support.proxy import ProxyThread
from support.server import ServerProcess
from support.tournament import program_file

pytestmark = pytest.mark.subprocess

PY = sys.executable
needs_bwrap = pytest.mark.skipif(find_bwrap() is None,
                                 reason="bubblewrap cannot isolate a program here")

#: An exec: entry that, at its first move, tries match seeds 0..19,999 until one deals it
#: its hand (board b's seed is S+b), then plays its first card each move.
GUESSER = """\
import json, sys
from jackal.game.deal import Deal
from jackal.game.match import deal_seed, first_dealer
from jackal.game.seats import Seat
for line in sys.stdin:
    turn = json.loads(line)
    if turn["play"] == 1:
        mine = set(turn["hand"])
        found = next((seed for seed in range(20000) if {str(card) for card in Deal.from_seed(
            deal_seed(seed, 1), first_dealer(seed)).dealt_hand(Seat(turn["seat"]))} == mine),
            None)
        print(f"GUESSER {turn['seat']} found={found}", file=sys.stderr, flush=True)
    print(turn["hand"][0], flush=True)
"""

#: An exec: entry whose copies append each your_turn to one file (argv[1], "~" meaning
#: its HOME) and count the different dealt hands of the board they find there.
SHARER = """\
import json, os, sys
path = os.path.expanduser(sys.argv[1])
for line in sys.stdin:
    turn = json.loads(line)
    seen = 1
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a") as shared:
            shared.write(json.dumps([turn["seat"], turn["play"], turn["hand"]]) + "\\n")
        with open(path) as shared:
            rows = [json.loads(row) for row in shared]
        seen = len({seat for seat, play, hand in rows})
    except OSError as exc:
        print(f"SHARER cannot share: {exc}", file=sys.stderr, flush=True)
    print(f"SHARER {turn['seat']} play {turn['play']} sees {seen} hands", file=sys.stderr,
          flush=True)
    print(turn["hand"][0], flush=True)
"""

#: A cmd: entry that plays its own seat (the level 4 example) while four more
#: connections keep trying to sit at every other table's seats, which they then hold,
#: and one more keeps trying to watch every other table.
THIEF = """\
import json, runpy, socket, sys, threading, time
own = sys.argv[sys.argv.index("--table") + 1]
host, port = sys.argv[sys.argv.index("--host") + 1], int(sys.argv[sys.argv.index("--port") + 1])
def steal(n):
    for _ in range(300):
        for number in range(1, 13):
            table = f"t{number}"
            if table == own:
                continue
            for seat in "NESW":
                link = socket.create_connection((host, port))
                reader = link.makefile("rb")
                def send(**message):
                    link.sendall((json.dumps(message) + "\\n").encode())
                send(type="hello", name=f"thief{n}{own}", id=1)
                send(type="join", table=table, seat=seat, id=2)
                for raw in reader:
                    reply = json.loads(raw)
                    if reply.get("id") == 2:
                        break
                if reply["type"] == "joined":
                    print(f"THIEF took {table} {seat}", file=sys.stderr, flush=True)
                    send(type="ready")
                    while link.recv(65536):
                        pass
                    return
                link.close()
        time.sleep(0.05)
def watch():
    for _ in range(300):
        for number in range(1, 13):
            table = f"t{number}"
            if table == own:
                continue
            link = socket.create_connection((host, port))
            reader = link.makefile("rb")
            link.sendall((json.dumps({"type": "hello", "name": f"peek{own}", "id": 1}) + "\\n"
                          + json.dumps({"type": "spectate", "table": table, "id": 2}) + "\\n"
                          ).encode())
            for raw in reader:
                reply = json.loads(raw)
                if reply.get("id") == 2:
                    break
            if reply["type"] == "table_state":
                print(f"THIEF watched {table}", file=sys.stderr, flush=True)
            link.close()
        time.sleep(0.05)
for n in range(4):
    threading.Thread(target=steal, args=(n,), daemon=True).start()
threading.Thread(target=watch, daemon=True).start()
sys.argv = [sys.argv[0], *sys.argv[1:]]
runpy.run_path(MINIMAL, run_name="__main__")
"""


def test_a_program_cannot_find_the_boards_by_trying_seeds(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    guesser = program_file(tmp_path, "guesser.py", GUESSER)
    results = tmp_path / "results.json"
    done = run_jackal("tournament", "--entry", f"guess=exec:{PY} {guesser}",
                      "--entry", "r=random", "--boards", "1", "--move-seconds", "20",
                      # The search is the subject, not bot timing: no floor under r's cards.
                      "--bot-floor", "0", "--results", str(results), "-q", timeout=170)
    assert done.returncode == 0, done.stderr
    found = re.findall(r"GUESSER [NESW] found=(\w+)", done.stderr)
    assert len(found) == 4, done.stderr  # both seats, at both tables
    assert found == ["None"] * 4, f"the program found its board's seed: {found}"
    # Told at the end, so the run can be played again.
    seed = json.loads(results.read_text())["tournament"]["seed"]
    assert f"seed {seed} (--seed {seed}" in done.stdout
    assert seed >= 20000


@pytest.mark.parametrize("where", [
    pytest.param("absolute", marks=needs_bwrap),  # a file anywhere: bubblewrap's job
    "home",  # a file in HOME: separate HOMEs stop it even without bubblewrap
])
def test_copies_of_a_program_cannot_share_a_file(
        where: str, tmp_path: Path, run_jackal: RunJackal) -> None:
    sharer = program_file(tmp_path, "sharer.py", SHARER)
    shared = str(tmp_path / "shared" / "hands.jsonl") if where == "absolute" \
        else "~/jackal-shared/hands.jsonl"
    # Without bubblewrap (--sandbox off) only HOME and TMPDIR are the copy's own.
    sandbox = () if where == "absolute" else ("--sandbox", "off")
    done = run_jackal("tournament", "--entry", f"share=exec:{PY} -I -S {sharer} {shared}",
                      "--entry", "r=random", "--boards", "1", "--jobs", "2", "-q", *sandbox,
                      "--bot-floor", "0", timeout=170)  # the copies' files, not bot timing
    assert done.returncode == 0, done.stderr
    seen = [int(n) for n in re.findall(r"SHARER [NESW] play \d sees (\d) hands", done.stderr)]
    assert len(seen) >= 32, done.stderr  # 2 tables x 2 seats x 8 plays (more if tied)
    assert max(seen) == 1, f"copies saw each other's hands: up to {max(seen)} of the 4"


def test_a_cmd_entry_cannot_take_other_tables_seats(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    minimal = ROOT / "examples" / "minimal_bot.py"
    thief = program_file(tmp_path, "thief.py", THIEF.replace(
        "MINIMAL", repr(str(minimal))))
    results = tmp_path / "results.json"
    done = run_jackal(
        "tournament", "--entry",
        f"thief=cmd:{PY} -I -S {thief} --host {{host}} --port {{port}} --table {{table}} "
        "--seat {seat} --invite-fd {invite_fd}",
        "--entry", "r=random", "--entry", "g=greedy", "--boards", "1", "--jobs", "3",
        "--move-seconds", "3", "--seat-seconds", "8", "--program-output",
        "--bot-floor", "0",  # the seats and the watching, not bot timing
        "--results", str(results), "-q", timeout=170)
    report = json.loads(results.read_text())
    stolen = re.findall(r"THIEF took (t\d+ [NESW])", done.stderr)
    assert not stolen, f"the thief sat at {stolen}"
    # Other pairs play the same board meanwhile: watching them would show its cards.
    watched = sorted(set(re.findall(r"THIEF watched (t\d+)", done.stderr)))
    assert not watched, f"the thief watched {watched}"
    assert report["failures"] == [], report["failures"]
    assert len(report["tables"]) == 6
    assert done.returncode == 0, done.stderr


def test_a_table_id_from_a_hostile_server_reaches_no_shell(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    marker = tmp_path / "x"
    forged = f"t1; touch {marker} #"
    server = ServerProcess(tmp_path, "--quiet")
    try:
        # The server says t1 is called "t1; touch ... #", and takes it back under that name.
        with ProxyThread(server.port, rewrite=(b'"t1"', json.dumps(forged).encode())) as proxy:
            command = shlex.join(["sh", "-c", "echo joining --table {table} >/dev/null"])
            done = run_jackal("tournament", "--entry", f"evil=cmd:{command}",
                              "--entry", "r=random", "--boards", "1", "--jobs", "1",
                              "--seat-seconds", "3", "--move-seconds", "2",
                              "--server", f"127.0.0.1:{proxy.port}", "-q", timeout=170)
    finally:
        server.stop()
    assert not marker.exists(), "the forged table id ran a command in a shell"
    assert "not a plain word" in done.stderr, done.stderr
