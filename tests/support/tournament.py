"""jackal tournament runs and their scores worked out again."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from conftest import RunJackal
from jackal.arena.reports import TournamentReport, decode
from jackal.bots.yardstick import baseline_penalty, optimum_penalty
from jackal.game.cards import Card
from jackal.game.deal import Deal
from jackal.game.seats import Seat, Team


def rescore(records: Path) -> tuple[dict[str, dict[str, Any]], list[tuple[int, str, str]]]:
    """Per entry: boards, VP, wins and penalties, from the record files alone.

    Who sat where is read from each record's seat lines (a server-side bot is its
    strategy, a program its player name); deal 1 is replayed with the engine.
    """
    totals: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    tables = []
    for path in sorted(records.glob("*.jsonl")):
        events = [json.loads(line) for line in path.read_text().splitlines()]
        seats: dict[str, str] = {}
        deal: Deal | None = None
        seed = events[0]["seed"]
        for event in events:
            if event["event"] == "seat" and event["kind"] != "empty":
                seats[event["seat"]] = event["strategy"] or event["name"]
            elif event["event"] == "deal" and event["number"] == 1:
                deal = Deal.from_seed(event["seed"], Seat(event["dealer"]))
            elif event["event"] == "play" and deal is not None and not deal.is_over:
                deal.play(Card.parse(event["card"]), Seat(event["seat"]))
        assert deal is not None and deal.is_over, path
        result = deal.result()
        entry = {Team.NS: seats["N"], Team.EW: seats["E"]}
        assert seats["S"] == entry[Team.NS] and seats["W"] == entry[Team.EW]
        tables.append((seed, entry[Team.NS], entry[Team.EW]))
        for team in (Team.NS, Team.EW):
            mine = totals[entry[team]]
            mine["boards"] += 1
            mine["wins"] += result.winner is team
            mine["vp"] += result.points if result.winner is team else 0
            first, second = (deal.dealt_hand(seat) for seat in team.seats)
            # Per board, for the yardstick's ratio of means and its interval.
            mine.setdefault("penalties", []).append(result.penalty(team))
            mine.setdefault("baselines", []).append(baseline_penalty(first, second))
            mine.setdefault("optima", []).append(optimum_penalty(first, second))
            mine.setdefault("seeds", []).append(seed)  # the board's
    return totals, tables




def run_tournament(run_jackal: RunJackal, tmp_path: Path, *args: str,
                timeout: float = 120) -> dict[str, Any]:
    results = tmp_path / "results.json"
    done = run_jackal("tournament", *args, "--results", str(results), "-q", timeout=timeout)
    assert done.returncode == 0, done.stderr
    # Strictly as the Struct too: every tournament a test runs checks the file's shape.
    decode(results.read_bytes(), TournamentReport)
    report: dict[str, Any] = json.loads(results.read_text())
    report["stdout"], report["stderr"] = done.stdout, done.stderr
    return report


def program_file(folder: Path, name: str, text: str) -> Path:
    """A tournament entry's program, ``text`` written to ``folder/name``."""
    path = folder / name
    path.write_text(text)
    return path
