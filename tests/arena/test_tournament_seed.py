"""What ``jackal tournament --seed S`` plays again: the same boards, not the server bots'
same cards (README, BOTS.md), checked against two real runs of the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RunJackal
from support import ROOT
from support.tournament import run_tournament


@pytest.mark.subprocess
def test_the_seed_deals_the_same_boards_but_a_random_bot_plays_its_own_way(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    bots = " ".join((ROOT / "docs" / "BOTS.md").read_text().split())
    assert ("(`--seed` deals the same boards again; the server's bots, a `random` entry or "
            "substitute among them, draw secret randomness of their own, so their cards may "
            "differ)") in readme
    assert ("The same boards, not always the same cards: the server's bots draw their "
            "randomness from a secret seed of their own") in bots
    runs = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        report = run_tournament(run_jackal, tmp_path / run, "--entry=r=random",
                             "--entry=g=greedy", "--boards", "2", "--seed", "5")
        runs.append({(t["board"], t["ns"], t["ew"]): t for t in report["tables"]})
    first, second = runs
    assert first.keys() == second.keys() and len(first) == 4
    random_differs = False
    for key, table in first.items():
        again = second[key]
        assert table["seed"] == again["seed"] == 5 + key[0]  # the same board
        greedy_seats = "NS" if key[1] == "g" else "EW"
        # Until random's first other card the position is the same, so greedy (no
        # randomness) plays the same card at each play; after it, nothing need match.
        for mine, theirs in zip(table["plays"], again["plays"], strict=True):
            if mine[0] in greedy_seats:
                assert mine == theirs, (key, mine, theirs)
            elif mine != theirs:
                random_differs = True
                break
    # 16 random cards a table at 4 tables: equal by chance about never.
    assert random_differs
