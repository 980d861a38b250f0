"""The arena: records re-scored independently, figures, the CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jackal.arena.reports import encode
from jackal.arena.run import (
    ArenaConfig,
    DealOutcome,
    collect,
    run_arena,
    summarise,
    wilson_interval,
)
from jackal.game.cards import parse_card
from jackal.game.deal import Deal
from jackal.game.scoring import compare_teams, team_penalty
from jackal.game.seats import SEATS, Seat, Team


def rescore(record: dict[str, object]) -> None:
    """Replay one record through a fresh Deal and check every figure it states."""
    hands = record["hands"]
    assert isinstance(hands, dict)
    seed = record["seed"]
    assert isinstance(seed, int)
    dealer = Seat.parse(str(record["dealer"]))
    shuffled = Deal.from_seed(seed, dealer)
    for seat in SEATS:
        assert [str(c) for c in shuffled.dealt_hand(seat)] == hands[seat.value]
    deal = Deal([[parse_card(c) for c in hands[seat.value]] for seat in SEATS], dealer)
    plays = record["plays"]
    assert isinstance(plays, list) and len(plays) == 32
    for seat_name, card in plays:
        deal.play(parse_card(card), Seat.parse(seat_name))
    assert deal.is_over
    kept = record["kept"]
    assert isinstance(kept, dict)
    for seat in SEATS:
        assert sorted(str(c) for c in deal.kept(seat)) == sorted(kept[seat.value])
    # Score from the kept cards alone, without Deal.result.
    ns = team_penalty([parse_card(c) for c in kept["N"] + kept["S"]])
    ew = team_penalty([parse_card(c) for c in kept["E"] + kept["W"]])
    assert record["penalties"] == {"NS": ns, "EW": ew}
    winner, points = compare_teams(ns, ew)
    assert record["winner"] == (winner.value if winner else None)
    assert record["points"] == points


def test_records_rescore_independently(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    config = ArenaConfig(ns="beginner", ew="greedy", deals=6, seed=21, duplicate=True)
    with path.open("w") as out:
        def write(outcome: DealOutcome) -> None:
            out.write(encode(outcome.record).decode() + "\n")

        outcomes = collect(config, 1, write)
    lines = path.read_text().splitlines()
    assert len(lines) == 12 == len(outcomes)
    records = [json.loads(line) for line in lines]
    for record in records:
        rescore(record)
    # Duplicate: each deal twice on the same hands, strategies swapping seats.
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first["seed"] == second["seed"] and first["hands"] == second["hands"]
        assert first["strategies"] == {"NS": "beginner", "EW": "greedy"}
        assert second["strategies"] == {"NS": "greedy", "EW": "beginner"}


def test_duplicate_outcomes_follow_the_side_not_the_seat() -> None:
    config = ArenaConfig(ns="beginner", ew="greedy", deals=4, seed=3, duplicate=True)
    outcomes = collect(config)
    for outcome in outcomes:
        teams = (Team.EW, Team.NS) if outcome.swapped else (Team.NS, Team.EW)
        penalties = outcome.record.penalties
        assert outcome.penalty == (penalties[teams[0]], penalties[teams[1]])


def test_baseline_against_baseline_has_zero_efficiency() -> None:
    # The arena's baseline is computed without playing; a played baseline pair must
    # land exactly on it on every deal, which checks the two agree.
    config = ArenaConfig(ns="baseline", ew="baseline", deals=30, seed=8)
    outcomes = collect(config)
    assert all(o.penalty == o.baseline for o in outcomes)
    ns_side, ew_side = summarise(config, outcomes)
    assert ns_side.efficiency == 0.0 and ew_side.efficiency == 0.0
    assert ns_side.efficiency_ci95 == (0.0, 0.0)
    assert ns_side.mean_penalty == ns_side.baseline_penalty
    assert ns_side.optimum_penalty < ns_side.baseline_penalty
    assert ns_side.wins + ew_side.wins + ns_side.ties == 30


def test_parallel_run_equals_serial_run() -> None:
    config = ArenaConfig(ns="beginner", ew="random", deals=8, seed=4)
    serial = [o.record for o in run_arena(config, jobs=1)]
    parallel = [o.record for o in run_arena(config, jobs=2)]
    assert serial == parallel


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and high == pytest.approx(0.1611, abs=1e-4)


@pytest.mark.subprocess
def test_cli_json_and_records(tmp_path: Path) -> None:
    records = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "jackal.cli.main", "arena", "--ns", "beginner", "--ew",
         "random", "--deals", "5", "--seed", "9", "--json", "--records", str(records)],
        capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    ns_side, ew_side = report["sides"]["ns"], report["sides"]["ew"]
    assert ns_side["strategy"] == "beginner" and ns_side["conventions"] == "beginner"
    assert ew_side["strategy"] == "random" and ew_side["conventions"] == "none"
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(lines) == 5 == report["played"]
    for line in lines:
        rescore(line)
    mean_ns = sum(line["penalties"]["NS"] for line in lines) / 5
    assert ns_side["mean_penalty"] == pytest.approx(mean_ns, abs=1e-3)
    wins = sum(1 for line in lines if line["winner"] == "NS")
    assert ns_side["wins"] == wins
    points = sum(line["points"] for line in lines if line["winner"] == "EW") / 5
    assert ew_side["victory_points_per_deal"] == pytest.approx(points, abs=1e-3)


@pytest.mark.subprocess
def test_cli_plain_summary_and_bad_strategy() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "jackal.cli.main", "arena", "--ns", "greedy", "--ew", "random",
         "--deals", "3", "--seed", "1"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "3 deals played" in proc.stdout and "greedy" in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "jackal.cli.main", "arena", "--ns", "nosuch", "--ew", "random",
         "--deals", "3"], capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "nosuch" in bad.stderr
