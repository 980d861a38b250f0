"""``jackal stats``: an evening at a real server (``jackal serve`` in a subprocess, with
hints), its real records read by the real CLI in a subprocess, and every figure checked
against the record lines by plain arithmetic written here, apart from the command's code.

The evening: ``ann`` plays S with three server bots and takes hints (as many as the server
allows) but on her very first turn, where she plays a false promise on purpose; ``ANN``
(the same name to the server) plays N at a second table the same way, without the lie;
four bots play a third table.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.bots.yardstick import baseline_keep, optimum_penalty
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.deal import Deal
from jackal.game.honesty import verdict
from jackal.game.scoring import team_penalty
from jackal.game.seats import Seat
from support import ROOT
from support.client import RawClient, alone_with_bots, open_table
from support.records import lines, record_match, rewrite
from support.server import JACKAL, ServerProcess

pytestmark = pytest.mark.subprocess

RANKS = "A23456789TJQK"
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}


def false_promise(hand: list[str]) -> str:
    """A card that is a false first play under ``beginner`` (play 1: a card of rank r
    promises a pair of rank r - 1 kept): one whose rank below is held fewer than twice."""
    held = Counter(RANKS.index(card[0]) + 1 for card in hand)
    return next(card for card in hand
                if (rank := RANKS.index(card[0]) + 1) >= 2 and held[rank - 1] < 2)


async def play_with_hints(client: RawClient, lie_first: bool) -> None:
    """Play ``client``'s seat to the match's end: take a hint on each turn and play its
    card, except (``lie_first``) the very first turn, played as :func:`false_promise`
    (and turns where the server refuses the hint as too many)."""
    lie = lie_first
    with trio.fail_after(60):
        my_turn = client.turn == client.seat  # announced before this loop read anything
        while True:
            if my_turn:
                if lie:
                    card, lie = false_promise(client.hand), False
                else:
                    hint = await client.request(type="hint")
                    # Three at once, then one each 3 s (the server's limit): past that,
                    # the first card in hand.
                    assert hint["type"] == "hint" or hint["code"] == "rate_limited", hint
                    card = hint["card"] if hint["type"] == "hint" else client.hand[0]
                await client.send(type="play", card=card)
                my_turn = False
            msg = await client.recv(30)
            kind = msg["type"]
            if kind == "deal_started":
                client.hand = list(msg["hand"])
            elif kind == "turn" and msg["seat"] == client.seat:
                my_turn = True
            elif kind == "played" and msg["seat"] == client.seat:
                client.hand.remove(msg["card"])
            elif kind == "deal_ended":
                await client.send(type="ready")
            elif kind == "match_ended":
                return


async def evening(tmp: Path) -> ServerProcess:
    """The evening of the module doc, its records left in ``server.records``."""
    server = await trio.to_thread.run_sync(ServerProcess, tmp, "--hints", "--bot-floor", "0",
                                         "--bot-pause", "0")
    try:
        _, ann, _ = await alone_with_bots(server.port, "S", "ann", seed=11, target=1)
        await play_with_hints(ann, lie_first=True)
        _, again, _ = await alone_with_bots(server.port, "N", "ANN", seed=12, target=1)
        await play_with_hints(again, lie_first=False)
        lobby, table = await open_table(server.port, seed=13, target=1)
        for seat in "NESW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        with trio.fail_after(60):  # the bots' match is over when its record says so
            while sum(b'"match_end"' in path.read_bytes()
                      for path in server.records.glob("*.jsonl")) < 3:
                await trio.sleep(0.05)
    finally:
        server.stop()
    return server


def stats(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JACKAL, "stats", *map(str, args)], capture_output=True,
                          text=True, timeout=60, check=False, cwd=ROOT)


def _figures() -> dict[str, Any]:
    return {"deals": 0, "penalties": [], "refs": [], "hints": 0, "moves": [],
            "false": Counter(), "plays": Counter(), "lies": []}


def expected(records: list[Path]) -> dict[Any, dict[str, Any]]:
    """Per player (by the name as the server compares it: lower case here) and per
    partnership (its two names, sorted), worked out from the record lines: deals,
    penalties, hints, move times and false signals."""
    want: dict[Any, dict[str, Any]] = defaultdict(_figures)

    def both(holders: dict[str, str], seat: str) -> list[dict[str, Any]]:
        """The seat's player's figures and its partnership's."""
        pair = tuple(sorted((holders[seat], holders[PARTNER[seat]])))
        return [want[holders[seat]], want[pair]]

    for path in records:
        names: dict[str, str] = {}
        cards: dict[str, str] = {"NS": "beginner", "EW": "beginner"}
        deal: Deal | None = None
        holders: dict[str, str] = {}
        history: list[tuple[Seat, Card]] = []
        hands: dict[str, list[Card]] = {}
        began = 0.0
        for event in lines(path):
            kind = event["event"]
            if kind == "seat":
                names[event["seat"]] = event["name"].casefold()
            elif kind == "conventions":
                cards[event["team"]] = event["card"]["name"]
            elif kind == "deal":
                deal = Deal.from_seed(event["seed"], Seat(event["dealer"]))
                holders, history, began = dict(names), [], event["time"]
                hands = {s: list(deal.dealt_hand(Seat(s))) for s in "NESW"}
            elif kind == "hint":
                for figures in both(holders, event["seat"]):
                    figures["hints"] += 1
            elif kind == "play":
                seat, card = event["seat"], Card.parse(event["card"])
                team = "NS" if seat in "NS" else "EW"
                found = verdict(builtin_card(cards[team]), hands[seat], history, Seat(seat))
                for figures in both(holders, seat):
                    if event["by"] != "substitute":
                        figures["moves"].append(event["time"] - began)
                    if event["by"] not in ("substitute", "clock") and found.kind != "none":
                        figures["plays"][found.kind] += 1
                        figures["false"][found.kind] += card not in found.honest
                        if card not in found.honest:
                            figures["lies"].append(event)
                began = event["time"]
                history.append((Seat(seat), card))
                hands[seat].remove(card)
            elif kind == "result":
                assert deal is not None
                for seat in holders:
                    team = "NS" if seat in "NS" else "EW"
                    mine, ours = deal.dealt_hand(Seat(seat)), deal.dealt_hand(
                        Seat(PARTNER[seat]))
                    baseline = team_penalty([*baseline_keep(mine), *baseline_keep(ours)])
                    # A partnership's deal once, from its first seat (N or E).
                    for figures in both(holders, seat)[:1 if seat in "SW" else 2]:
                        figures["deals"] += 1
                        figures["penalties"].append(event["penalty"][team])
                        figures["refs"].append((baseline, optimum_penalty(mine, ours)))
    return want


def ratio_and_interval(penalties: list[int], refs: list[tuple[int, int]]
                       ) -> tuple[float, list[float] | None]:
    """Information efficiency as the arena takes it, worked out longhand: R = sum of
    (baseline - penalty) over sum of (baseline - optimum), the 95% interval R +- 1.96 *
    sd(a - R b) / (mean b * sqrt n)."""
    gained = [b - p for p, (b, _) in zip(penalties, refs, strict=True)]
    gap = [b - o for b, o in refs]
    r = sum(gained) / sum(gap)
    n = len(gained)
    if n < 2:
        return r, None
    residuals = [a - r * b for a, b in zip(gained, gap, strict=True)]
    sd = math.sqrt(sum(x * x for x in residuals) / (n - 1))
    half = 1.959964 * sd / (sum(gap) / n * math.sqrt(n))
    return r, [r - half, r + half]


def test_stats_json_agrees_with_the_records_of_a_real_evening(tmp_path: Path) -> None:
    server = trio.run(evening, tmp_path)
    records = sorted(server.records.glob("*.jsonl"))
    assert len(records) == 3
    events = [event for path in records for event in lines(path)]
    assert [e["seat"] for e in events if e["event"] == "hint"], "no hint was recorded"

    proc = stats("--json", *records)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    want = expected(records)
    deals = sum(1 for e in events if e["event"] == "result")
    assert (got["records"], got["deals"]) == (3, deals)
    players = {line["name"].casefold(): line for line in got["players"]}
    pairs = {tuple(sorted(name.casefold() for name in line["players"])): line
             for line in got["partnerships"]}
    assert set(players) | set(pairs) == set(want)
    assert sorted(players["ann"]["names"]) == ["ANN", "ann"]  # one player, two spellings
    assert players["ann"]["kind"] == "human"
    for key, mine in want.items():
        line = players[key] if isinstance(key, str) else pairs[key]
        assert line["deals"] == mine["deals"], key
        assert line["mean_penalty"] == round(statistics.mean(mine["penalties"]), 3), key
        assert line["hints"] == mine["hints"], key
        assert line["moves"] == len(mine["moves"]), key
        assert line["median_move_seconds"] == round(statistics.median(mine["moves"]), 3)
        for kind in ("promise", "answer"):
            assert line["signals"][kind]["plays"] == mine["plays"][kind], (key, kind)
            assert line["signals"][kind]["false"] == mine["false"][kind], (key, kind)
        if sum(b - o for b, o in mine["refs"]) > 0:
            r, interval = ratio_and_interval(mine["penalties"], mine["refs"])
            assert line["information_efficiency"] == round(r, 4), key
            assert line["information_efficiency_ci95"] == (
                None if interval is None else [round(x, 4) for x in interval]), key
    # ann took hints (three at each table at least), and her false promise is counted.
    assert players["ann"]["hints"] >= 6
    ((first_play, *_),) = [[e for e in lines(path) if e["event"] == "play" and e["seat"] == "S"]
                           for path in records
                           if any(e.get("name") == "ann" for e in lines(path))]
    assert first_play in want["ann"]["lies"]
    assert players["ann"]["signals"]["promise"]["false"] >= 1
    # Her partnership is keyed by the two names, whichever seats: S at one table, N at
    # the other, one line.
    assert len([pair for pair in pairs if "ann" in pair]) == 1

    # A folder is its records: the same figures.
    folder = stats("--json", server.records)
    assert folder.returncode == 0, folder.stderr
    assert json.loads(folder.stdout) == got

    # Text: the same figures for a person, and a name's control characters escaped.
    (first,) = [path for path in records
                if any(e.get("name") == "ann" for e in lines(path))]
    edited = lines(first)
    for event in edited:
        if event["event"] == "seat" and event.get("name") == "ann":
            event["name"] = "ann\x1b[2J"
    rewrite(first, edited)
    text = stats(first)
    assert text.returncode == 0, text.stderr
    assert "\x1b" not in text.stdout
    assert "ann\\x1b[2J (human)" in text.stdout
    assert "hints taken:" in text.stdout and "median time per move:" in text.stdout
    assert "Partnerships" in text.stdout


def test_stats_reports_a_bad_record_and_exits_quietly_on_a_closed_pipe(
        tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event":"play"}\n')
    proc = stats(bad)
    assert proc.returncode == 2
    assert "bad.jsonl" in proc.stderr and "Traceback" not in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert stats(empty).returncode == 2
    # The reader is gone before anything is written: no complaint, and the status a shell
    # gives cat there (cli/main.py, as for every command).
    good = record_match(tmp_path / "good").path
    read, write = os.pipe()
    os.close(read)
    closed = subprocess.run([*JACKAL, "stats", str(good)], stdout=write,
                            stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    os.close(write)
    assert closed.returncode == 141, closed.stderr
    assert closed.stderr == ""
