"""The arena's and the tournament's output decode strictly as their Structs: a field added,
dropped or mistyped anywhere on the way to the file fails here."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from conftest import RunJackal
from jackal.arena.reports import ArenaReport, DealRecord, TournamentReport, decode
from jackal.game.seats import Team


def _decode_records(path: Path) -> list[DealRecord]:
    return [decode(line, DealRecord) for line in path.read_bytes().splitlines()]


@pytest.mark.subprocess
@pytest.mark.parametrize("options", [["--deals", "1"], ["--deals", "3", "--duplicate"]])
def test_arena_json_and_records_decode_strictly(run_jackal: RunJackal, tmp_path: Path,
                                                options: list[str]) -> None:
    # One deal too: its efficiency has no interval, which JSON cannot write as infinity.
    path = tmp_path / "records.jsonl"
    done = run_jackal("arena", "--ns", "beginner", "--ew", "greedy", *options, "--seed", "4",
                      "--json", "--records", str(path))
    assert done.returncode == 0, done.stderr
    report = decode(done.stdout, ArenaReport)
    records = _decode_records(path)
    assert report.played == len(records) and report.scheduler is None
    assert len(records) == (1 if report.deals == 1 else 6)
    assert (report.sides.ns.strategy, report.sides.ew.strategy) == ("beginner", "greedy")
    # Side ns is wherever the --ns strategy sat: its wins are its team's, deal by deal.
    wins = sum(record.winner is (Team.EW if record.swapped else Team.NS) for record in records)
    assert report.sides.ns.wins == wins
    for side in (report.sides.ns, report.sides.ew):
        assert (side.information_efficiency_ci95 is None) == (
            report.played == 1 or side.information_efficiency is None)
    # A field nobody declared is refused, not carried along.
    extra = json.loads(done.stdout)
    extra["sides"]["ns"]["note"] = "added by hand"
    with pytest.raises(msgspec.ValidationError, match="note"):
        decode(json.dumps(extra), ArenaReport)


@pytest.mark.subprocess
def test_tournament_results_and_json_decode_strictly(run_jackal: RunJackal,
                                                      tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    records = tmp_path / "records"
    done = run_jackal("tournament", "--entry=r=random", "--entry=g=greedy", "--boards", "2",
                      "--seed", "3", "--json", "--results", str(results), "-q",
                      "--records", str(records))
    assert done.returncode == 0, done.stderr
    written = decode(results.read_bytes(), TournamentReport)
    printed = decode(done.stdout, TournamentReport)
    assert written == printed
    assert {standing.name for standing in written.standings} == {"r", "g"}
    assert [standing.rank for standing in written.standings] in ([1, 2], [1, 1])
    assert len(written.tables) == 4 and written.failures == []
    assert written.tournament.seed == 3 and not written.tournament.seed_secret
    for table in written.tables:
        assert len(table.plays) >= 32 and set(table.penalty) == {Team.NS, Team.EW}
        # The server's own id, as its record file names it (issue 32: it was 1, 2, ...).
        assert table.record is not None and f"-{table.table}-" in table.record
        assert (records / table.record).is_file()
    assert len({table.table for table in written.tables}) == 4
    # Built-in entries carry no "events": that field is an exec: entry's alone.
    assert "events" not in json.loads(results.read_text())["standings"][0]
