"""``jackal replay`` tells a post-mortem what happened: plays made by the clock and by a
substitute, each seat's kept cards, the questions and answers, and the restart at the
play where it happened. The record is written by a real Table into a real RecordFile,
restored by the server's own restore code, and read by the real CLI in a subprocess."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from jackal.game.seats import SEATS, Seat
from jackal.protocol import messages as m
from jackal.server.records.files import RecordFile
from jackal.server.records.restore import restore_tables
from jackal.server.snapshot import bot_turn
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from support.peer import Peer
from support.server import JACKAL

pytestmark = pytest.mark.subprocess

HUMANS = (Seat.N, Seat.E, Seat.S)


def step(table: Table, peers: dict[Seat, Peer], now: float) -> None:
    """One play: a bot's (or the clock's, or a substitute's) if the table wants one, else
    the human on turn plays its first legal card."""
    deal = table.match.deal
    assert deal is not None and deal.turn is not None
    card = deal.legal_plays()[0]
    if bot_turn(table) is not None:
        table.bot_play(deal.turn, card, now)
    else:
        table.play(peers[deal.turn], card, now)


def plays_made(table: Table) -> int:
    deal = table.match.deal
    return 0 if deal is None else deal.plays_made


def test_replay_shows_clock_substitute_questions_kept_cards_and_the_restart(
        tmp_path: Path) -> None:
    record = RecordFile.create(tmp_path, "t1")
    lobby = Peer()
    table = Table("t1", TableOptions(name="evening", target=1, seed=5, turn_seconds=30.0,
                                     hold_seconds=10.0), recorder=record, creator=lobby)
    table.record_header()
    peers = {seat: Peer() for seat in HUMANS}
    for seat in HUMANS:
        table.join(peers[seat], f"p{seat}", seat)
    table.add_bot(lobby, Seat.W, "random")
    for peer in peers.values():
        table.ready(peer, now=0.0)
    now = 1.0
    # The first human on turn lets the clock run out: its substitute plays one card.
    while table.match.deal is not None and table.match.deal.turn not in HUMANS:
        step(table, peers, now)
    late = table.match.deal.turn if table.match.deal else None
    table.tick(now + 31.0)
    assert bot_turn(table) is late
    now += 32.0
    step(table, peers, now)
    # A question to a person (answered by them) and one to a bot (answered from its card).
    while not (table.match.deal and table.match.deal.row(Seat.E) and table.match.deal.row(
            Seat.W)):
        step(table, peers, now)
    out = table.ask(peers[Seat.S], Seat.E, "does your card say a pair?", 1)
    (asked,) = [msg for peer, msg in out if peer is peers[Seat.E]
                and isinstance(msg, m.Question)]
    table.answer(peers[Seat.E], asked.question, "yes, of its rank")
    table.ask(peers[Seat.N], Seat.W, "and yours?", 1)
    # S goes away; the hold runs out and the substitute plays S's seat.
    table.disconnect(peers[Seat.S], now)
    table.tick(now + 11.0)
    now += 12.0
    assert table.seats[Seat.S].takeover
    deal = table.match.deal
    assert deal is not None
    played_for_s = len(deal.row(Seat.S))
    while len(deal.row(Seat.S)) == played_for_s:
        step(table, peers, now)
    # The server dies here; a restart restores the match from the record.
    restart_at = plays_made(table)
    record.close()
    ((table, record),) = restore_tables(tmp_path, now=0.0)
    peers = {seat: Peer() for seat in HUMANS}
    for seat in HUMANS:
        table.reclaim(peers[seat], seat, 0.0)
    while table.status != "over":
        if table.status == "between_deals":
            for peer in peers.values():
                table.ready(peer, now=now)
            continue
        step(table, peers, now)
    record.close()

    (path,) = tmp_path.glob("*.jsonl")
    proc = subprocess.run([*JACKAL, "replay", str(path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert re.search(rf"play \d+ of 32: {late} \w\w played by the clock: the player's time "
                     "ran out", text)
    assert re.search(r"play \d+ of 32: S \w\w played by the substitute: the player was away",
                     text)
    assert "S asked E about its card 1 (q1): 'does your card say a pair?'" in text
    assert "E answered q1: 'yes, of its rank'" in text
    assert "N asked W about its card 1 (q2): 'and yours?'" in text
    assert "W answered q2 (a bot, from its card): " in text
    assert f"the server restarted here before play {restart_at + 1} of 32 of deal 1" in text
    for seat in SEATS:
        assert f"  {seat} kept: " in text
    # In order: the clock's play, the questions, the substitute's play, the restart.
    order = [text.index(part) for part in ("by the clock", "S asked E", "by the substitute",
                                          "the server restarted here")]
    assert order == sorted(order)
    # Review marks the same cards in their rows (issue 32) and says what ~ means.
    from jackal.cli.review_model import ExpertCache, load_review, point_lines, text_of
    review = load_review(path)
    first = review.deals[0]
    bots = [number for number, by in enumerate(first.by, start=1)
            if by in ("clock", "substitute")]
    assert len(bots) >= 2
    experts = ExpertCache()
    shown = text_of(point_lines(review, first, bots[-1], experts, 80))
    assert "~ played by the clock or the substitute" in shown
    for number in bots:
        seat, card, _ = first.play(number)
        (row,) = [line for line in shown.splitlines() if line.startswith(f" {seat} ")]
        assert re.search(rf"\b{card}[!*]*~", row), row
