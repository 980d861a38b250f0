"""A tournament's timing: an ``exec:`` program's card leaves on the release floor's fixed
schedule, so copies of one program cannot time symbols to each other; waiting tables
overlap, and the two tables of one board and pair never do. Real server on port 0, real
program processes; the figures are counted, never timed against the wall clock."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from jackal.arena.director import DirectorSettings, play_table, play_tables
from jackal.arena.tournament import TableJob, parse_entry, schedule
from jackal.client.release import release_steps
from jackal.server.config import ServerConfig

#: The sharer's symbol step and the floor it is tried under: its four symbols (delays of
#: 25 to 175 ms) all fit within the floor.
STEP = 0.05
FLOOR = 0.25

#: A copy of this program times each of its answers by a symbol (the card's letters
#: mod 4), and writes what it decodes from the time between its partner's ``turn`` and
#: ``played``: "true decoded" per partner move. Today's cards left when it answered.
SHARER = """\
import json, sys, time
STEP = float(sys.argv[2])
out = open(sys.argv[1], "a")
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
me, started = None, {}
def symbol(card):
    return sum(map(ord, card)) % 4
for line in sys.stdin:
    now = time.monotonic()
    event = json.loads(line)
    kind = event.get("type")
    if kind == "your_turn":
        me = event["seat"]
        card = event["hand"][0]
        time.sleep(symbol(card) * STEP + STEP / 2)
        print(card, flush=True)
    elif kind == "turn":
        started[event["seat"]] = now
    elif kind == "played" and me is not None and event["seat"] == PARTNER[me] \\
            and event["seat"] in started:
        decoded = min(3, int((now - started.pop(event["seat"])) / STEP))
        out.write(f"{symbol(event['card'])} {decoded}\\n")
        out.flush()
"""


def mutual_information(pairs: list[tuple[int, int]]) -> float:
    """Bits the decoded symbols carry about the sent ones (plug-in estimate)."""
    joint = Counter(pairs)
    sent = Counter(a for a, _ in pairs)
    got = Counter(b for _, b in pairs)
    n = len(pairs)
    return sum(c / n * math.log2(c * n / (sent[a] * got[b])) for (a, b), c in joint.items())


def test_release_steps_double_past_the_floor() -> None:
    assert [release_steps(t, 0.2) for t in (0.0, 0.19, 0.2, 0.3, 0.5, 0.9, 1.7)] == \
        [1, 1, 1, 2, 4, 8, 16]
    assert release_steps(5.0, 0.0) == 0


@pytest.fixture
def server_config() -> ServerConfig:
    # Tournament-like: seats of stopped programs go to the substitute after a second.
    # Its bots' floor makes a table last long enough (0.6 s) for tables to overlap.
    return ServerConfig(port=0, hold_seconds=1.0, between_deals_seconds=1.0,
                        takeover_strategy="random", bot_floor_seconds=0.02)


@pytest.mark.subprocess
async def test_copies_cannot_time_symbols_to_each_other(server_port: int,
                                                        tmp_path: Path) -> None:
    program = tmp_path / "sharer.py"
    program.write_text(SHARER)
    # A program that does not even compile would decode nothing and pass for the wrong
    # reason.
    subprocess.run([sys.executable, "-I", "-S", "-m", "py_compile", str(program)], check=True)
    out = tmp_path / "decoded.txt"
    entries = {entry.name: entry for entry in (
        parse_entry(f"sh=exec:{sys.executable} -I -S {program} {out} {STEP}"),
        parse_entry("gr=greedy"))}
    entries["sh"] = dataclasses.replace(entries["sh"], events="all")
    options = DirectorSettings("127.0.0.1", server_port, hold_seconds=1.0, floor_seconds=FLOOR)
    job = TableJob(number=1, board=1, seed=7, ns="sh", ew="gr")
    result = await play_table(options, job, entries)
    assert sum(result.faults.get(seat, Counter()).total() for seat in result.faults) == 0
    pairs = [(int(a), int(b)) for a, b in
             (line.split() for line in out.read_text().splitlines())]
    assert len(pairs) >= 10  # both copies decode most of the other's eight moves
    sent = Counter(a for a, _ in pairs)
    assert len(sent) >= 2, "the symbols must vary, or nothing could be learned"
    # Without the floor every symbol was decoded (all the bits of the symbols sent).
    assert mutual_information(pairs) < 1.0, pairs


async def test_boards_overlap_but_a_boards_two_tables_never_do(server_port: int) -> None:
    names = ["a", "b", "c"]
    entries = [parse_entry("a=random"), parse_entry("b=greedy"), parse_entry("c=baseline")]
    jobs = schedule(names, 2, 11)  # 3 pairs x 2 boards x 2 sides: 6 units of 2 tables
    options = DirectorSettings("127.0.0.1", server_port, hold_seconds=1.0, floor_seconds=0.02)
    results, failures = await play_tables(options, jobs, entries, 1, tables_at_once=6)
    assert failures == [] and len(results) == len(jobs) == 12
    by_unit: dict[tuple[int, frozenset[str]], list[tuple[float, float]]] = {}
    for result in results:
        job = result.job
        by_unit.setdefault((job.board, frozenset((job.ns, job.ew))), []).append(
            (result.started, result.ended))
    for spans in by_unit.values():
        first, second = sorted(spans)
        assert first[1] <= second[0], "a board was played from both sides at once"
    # The most tables in play at one moment, from the recorded spans.
    edges = sorted([(r.started, 1) for r in results] + [(r.ended, -1) for r in results],
                   key=lambda edge: (edge[0], edge[1]))
    running = most = 0
    for _, step in edges:
        running += step
        most = max(most, running)
    assert most > 1, "tables were played one at a time"
