"""``jackal review`` on real records: a bots match on the real ``jackal serve``, SIGKILLed
mid-deal and restarted, stepped through in a real terminal (tmux); a record with a false
signal made on purpose, whose marks must be game/honesty.py's verdicts; ``--text`` for a
pipe (escaped names, a closed pipe, a deal the record lacks)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CallJackal, RunJackal
from jackal.cli.main import EXIT_CLOSED_PIPE
from jackal.cli.review_model import ExpertCache, load_review, point_lines, text_of
from jackal.game.cards import Card
from jackal.game.conventions import ConventionCard, card_from_json
from jackal.game.deal import Deal
from jackal.game.explain import explain_play
from jackal.game.honesty import verdict
from jackal.game.knowledge import SeatKnowledge
from jackal.game.seats import SEATS, Seat, Team
from jackal.server.table import Table
from support.client import create_table
from support.pipes import run_into_closed_pipe
from support.records import lines, record_match, rewrite
from support.server import JACKAL, TIMEOUT, ServerProcess
from support.tmux import TMUX, Tmux

POINT = re.compile(r"^Deal \d+ of \d+", re.M)


class RecordedDeal:
    """One deal of a record, read from its JSON lines here (not by the review's code)."""

    def __init__(self, event: dict[str, Any]) -> None:
        self.deal = Deal.from_seed(event["seed"], Seat(event["dealer"]))
        self.plays: list[tuple[Seat, Card]] = []
        self.restored_before: int | None = None  # the play a restart came before
        self.result: dict[str, Any] | None = None
        self.cards: dict[Team, ConventionCard] = {}  # the cards in force


def read_deals(path: Path) -> list[RecordedDeal]:
    deals: list[RecordedDeal] = []
    cards: dict[Team, ConventionCard] = {}
    for event in lines(path):
        kind = event["event"]
        if kind == "conventions":
            cards[Team(event["team"])] = card_from_json(json.dumps(event["card"]))
        elif kind == "deal":
            deals.append(RecordedDeal(event))
            deals[-1].cards = dict(cards)
        elif kind == "play":
            deals[-1].plays.append((Seat(event["seat"]), Card.parse(event["card"])))
        elif kind == "restored" and deals and deals[-1].result is None:
            deals[-1].restored_before = len(deals[-1].plays) + 1
        elif kind == "result":
            deals[-1].result = event
    return deals


def seat_line(screen: str, seat: Seat) -> tuple[str, str]:
    """``seat``'s hand and row as the screen shows them (the hand's cards are one space
    apart, and two or more spaces end it)."""
    (line,) = [line for line in screen.splitlines() if line.startswith(f" {seat} ")]
    hand, _, row = line[3:].strip().partition("  ")
    return hand, row


def hand_line(screen: str, seat: Seat) -> set[str]:
    """The cards of ``seat``'s hand as the screen shows them."""
    return set(seat_line(screen, seat)[0].split())


def expert_card(screen: str) -> str | None:
    found = re.search(r"^  expert   (\w\w)\b", screen, re.M)
    return found.group(1) if found else None


def points(text: str) -> list[str]:
    """``--text`` output cut into its points (each starts with its "Deal i of n" line)."""
    starts = [found.start() for found in POINT.finditer(text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def restored_bots_match(tmp: Path) -> Path:
    """A four-bot match on the real server, SIGKILLed mid-deal, started again on the same
    port and records, and played to its end; returns the record."""
    # The fair-play floor paces the bots' cards (30 ms each at least), so that the kill
    # can land mid-deal; --bot-pause applies only while people are at the table.
    server = ServerProcess(tmp, "--bot-floor", "0.03", "--between-deals", "0")
    try:
        create_table(server.port, {"N": "greedy", "E": "random", "S": "beginner",
                                   "W": "random"}, target=100, seed=3)
        deadline = time.monotonic() + TIMEOUT
        while True:  # kill in the middle of a deal: plays 8 to 24 of it are on disk
            plays = sum(event["event"] == "play" for event in server.record_events())
            if 8 <= plays % 32 <= 24:
                break
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.01)
        server.kill()
        assert not any(event["event"] == "match_end" for event in server.record_events())
        server.start()
        while not any(event["event"] == "match_end" for event in server.record_events()):
            assert time.monotonic() < deadline + TIMEOUT, server.log()
            time.sleep(0.05)
    finally:
        server.stop()
    (path,) = server.records.glob("*.jsonl")
    return path


@pytest.mark.subprocess
@pytest.mark.tmux
@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_review_steps_through_a_restored_server_match_in_a_terminal(
        tmp_path: Path, call_jackal: CallJackal) -> None:
    path = restored_bots_match(tmp_path)
    deals = read_deals(path)
    (where,) = [i for i, deal in enumerate(deals) if deal.restored_before is not None]
    restart = deals[where].restored_before
    assert restart is not None and len(deals) >= 1
    text = call_jackal("review", "--text", "--deal", str(where + 1), str(path))
    assert text.returncode == 0, text.stderr
    shown = points(text.stdout)
    assert len(shown) == 33

    terminal = Tmux([*JACKAL, "review", str(path)], tmp_path, name="review")
    try:
        screen = terminal.wait(lambda s: "play 0 of 32" in s, "the first deal")
        assert f"Deal 1 of {len(deals)}" in screen
        for seat in SEATS:  # the dealt hands
            assert hand_line(screen, seat) == {str(c) for c in deals[0].deal.dealt_hand(seat)}
        terminal.keys("Right")
        seat, card = deals[0].plays[0]
        terminal.wait(lambda s: f"Play 1: {seat} plays {card}, its card 1" in s, "play 1")
        terminal.keys("End")
        screen = terminal.wait(lambda s: "play 32 of 32" in s, "the deal's end")
        penalty = deals[0].result["penalty"] if deals[0].result else {}
        assert f"Kept: penalties NS {penalty['NS']}, EW {penalty['EW']}" in screen
        terminal.keys("Home")
        terminal.wait(lambda s: "play 0 of 32" in s, "the start again")
        for _ in range(where):
            terminal.keys("PageDown")
        terminal.wait(lambda s: f"Deal {where + 1} of" in s, "the restored deal")
        for _ in range(restart):
            terminal.keys("Right")
        seat, card = deals[where].plays[restart - 1]
        screen = terminal.wait(
            lambda s: f"Play {restart}: {seat} plays {card}" in s and expert_card(s) is not None,
            "the play after the restart, with the expert's card")
        assert "the server restarted before this play and restored the match" in screen
        played = {str(c) for _, c in deals[where].plays[:restart]}
        for other in SEATS:  # the hands as they stand after this play
            dealt = {str(c) for c in deals[where].deal.dealt_hand(other)}
            assert hand_line(screen, other) == dealt - played
        # The expert's card, worked out in the background (this point first), is the
        # one --text worked out in order in another process: the review is reproducible.
        assert expert_card(screen) == expert_card(shown[restart])
        assert f"Play {restart}: {seat} plays {card}" in shown[restart]
        assert "the server restarted before this play" in shown[restart]
        terminal.keys("q")
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()


def record_with_a_lie(directory: Path) -> tuple[Path, int]:
    """Two deals at a real recorded Table in which every seat plays its first honest
    card, except N, whose first card of deal 1 makes a false statement on purpose while
    an honest one was in hand; EW change to the advanced card between the deals.
    Returns the record and the play number of the lie."""
    lies: list[int] = []

    def choose(table: Table) -> Card:
        deal = table.match.deal
        assert deal is not None and deal.turn is not None
        seat = deal.turn
        found = verdict(table.conventions[seat.team], deal.hand(seat), deal.history, seat)
        false = [card for card in deal.hand(seat) if found.avoidable(card)]
        if not lies and seat is Seat.N and false:
            lies.append(deal.plays_made + 1)
            return false[0]
        return found.allowed[0]

    def between(table: Table) -> bool:
        if table.status == "between_deals" and table.conventions[Team.EW].name != "advanced":
            east = table.seats[Seat.E].peer
            assert east is not None
            table.set_conventions(east, "advanced")
        return len(table.match.results) == 2

    made = record_match(directory, seed=11, target=1000, humans=tuple(SEATS), choose=choose,
                        until=between)
    assert lies
    return made.path, lies[0]


def test_the_review_marks_are_the_honesty_verdicts(tmp_path: Path,
                                                   call_jackal: CallJackal) -> None:
    path, lie = record_with_a_lie(tmp_path)
    deals = read_deals(path)
    assert [deal.cards[Team.EW].name for deal in deals] == ["beginner", "advanced"]
    done = call_jackal("review", "--text", str(path))
    assert done.returncode == 0, done.stderr
    shown = points(done.stdout)
    assert len(shown) == 66
    falses: dict[int, list[int]] = {1: [], 2: []}
    for number, deal in enumerate(deals, start=1):
        for point, (seat, card) in enumerate(deal.plays, start=1):
            screen = shown[33 * (number - 1) + point]
            assert screen.startswith(f"Deal {number} of 2:")
            history = deal.plays[:point]
            # What it meant: under the card in force for this deal.
            index = sum(1 for who, _ in history if who is seat)
            meaning = explain_play(deal.cards[seat.team], history, seat, index).text
            assert f"\n  meaning  {meaning}\n" in screen
            hand = [c for c in deal.deal.dealt_hand(seat) if (seat, c) not in history[:-1]]
            found = verdict(deal.cards[seat.team], hand, history[:-1], seat)
            (said,) = re.findall(r"^  signal   (.*)$", screen, re.M)
            if not found.meaningful:
                assert said.startswith("no statement"), (point, said)
            elif found.is_false(card):
                falses[number].append(point)
                assert said.startswith(f"FALSE of {seat}'s hand"), (point, said)
                if found.avoidable(card):
                    honest = " ".join(str(c) for c in sorted(found.honest,
                                                             key=lambda c: (c.rank, c)))
                    assert said.endswith(f"honest cards were in hand: {honest}"), said
            else:
                assert said.startswith(f"true of {seat}'s hand"), (point, said)
        # In the rows at the deal's end, exactly the false cards carry the mark.
        end = shown[33 * number - 1]
        for seat in SEATS:
            _, row = seat_line(end, seat)
            marked = re.findall(r"(\w\w)!", row)
            mine = [str(card) for point, (who, card) in enumerate(deal.plays, start=1)
                    if who is seat and point in falses[number]]
            assert marked == mine, (seat, row)
    assert lie in falses[1]


@pytest.mark.subprocess
def test_text_escapes_names_and_stops_quietly_on_a_closed_pipe(
        tmp_path: Path, run_jackal: RunJackal, call_jackal: CallJackal) -> None:
    made = record_match(tmp_path, humans=tuple(SEATS))
    events = lines(made.path)
    names = iter(("\x1b]0;pwned\x07", "\x1b[2J", "a\x9b2J", "evil\u202egnp"))
    for event in events:
        if event["event"] == "seat":
            event["name"] = next(names)
    rewrite(made.path, events)
    done = run_jackal("review", "--text", str(made.path))
    assert done.returncode == 0, done.stderr
    assert not [ch for ch in ("\x1b", "\x07", "\x9b", "\u202e") if ch in done.stdout]
    assert "N \\x1b]0;pwned\\x07 (human)" in done.stdout
    # A reader that has gone (``| head``): no traceback, and the status of every command
    # whose output was cut short (cli/main.py).
    cut = run_into_closed_pipe("review", "--text", str(made.path))
    assert (cut.returncode, cut.stderr) == (EXIT_CLOSED_PIPE, "")
    # A deal the record does not hold, and a file that is no record.
    missing = call_jackal("review", "--text", "--deal", "99", str(made.path))
    assert missing.returncode == 2 and "the record holds deals 1 to" in missing.stderr
    (tmp_path / "junk.jsonl").write_text("not json\n")
    junk = call_jackal("review", str(tmp_path / "junk.jsonl"))
    assert junk.returncode == 2 and "line 1" in junk.stderr
    helped = call_jackal("review", "--help")
    assert "Left/Right" in helped.stdout and "PageUp/PageDown" in helped.stdout


def test_on_the_smallest_screen_the_header_breaks_between_its_parts(tmp_path: Path) -> None:
    """At 66 columns (65 for text) the lines above the hands keep every word: the target
    and each seat's player (names as long as the server allows) move to a line of their
    own instead of being cut off with an ellipsis."""
    made = record_match(tmp_path, humans=tuple(SEATS), target=300,
                        until=lambda table: len(table.match.results) == 1)
    events = lines(made.path)
    for event in events:
        if event["event"] == "seat":
            event["name"] = f"{event['seat']} " + "x" * 30  # 32 characters, the most
    rewrite(made.path, events)
    review = load_review(made.path)
    for point in (0, 1):
        shown = text_of(point_lines(review, review.deals[0], point, ExpertCache(), 65))
        assert max(len(line) for line in shown.splitlines()) <= 65, shown
        assert "…" not in shown, shown
        assert "Before the deal: NS 0, EW 0 (target 300)" in shown, shown
        for seat in SEATS:
            assert f"{seat} {seat} {'x' * 30} (human)" in shown, shown


def test_the_expert_sees_what_a_bot_in_that_seat_saw_and_always_answers_the_same(
        tmp_path: Path) -> None:
    path, _ = record_with_a_lie(tmp_path)
    review = load_review(path)
    recorded = read_deals(path)
    forwards, backwards = ExpertCache(), ExpertCache()
    for deal, seen in zip(review.deals, recorded, strict=True):
        live = Deal.from_seed(seen.deal.seed or 0, seen.deal.dealer)
        for point, (seat, card) in enumerate(seen.plays, start=1):
            # The view a bot at that seat gets from the live deal (as the arena builds it).
            bot = SeatKnowledge.from_deal(live, seat, deal_number=deal.number,
                                          conventions=seen.cards, scores=deal.scores,
                                          target=deal.target)
            assert deal.view(point) == bot
            live.play(card, seat)
        for point in range(1, deal.plays + 1):
            forwards.compute(deal, point)
        for point in range(deal.plays, 0, -1):
            backwards.compute(deal, point)
        assert [forwards.get(deal, p) for p in range(1, 33)] == \
               [backwards.get(deal, p) for p in range(1, 33)]


def test_a_deal_that_is_not_over_keeps_its_hands_secret(tmp_path: Path,
                                                        call_jackal: CallJackal) -> None:
    """The record of a live table (or of a match a restart will restore) ends mid-deal:
    that deal is not reviewed, since its unplayed cards are still secret."""
    made = record_match(tmp_path, seed=21, target=10_000,
                        until=lambda t: t.match.deal_number == 2 and t.match.deal is not None
                        and t.match.deal.plays_made == 12)
    review = load_review(made.path)
    assert [deal.number for deal in review.deals] == [1]
    assert "deal 2 is not over" in review.ending
    done = call_jackal("review", "--text", str(made.path))
    assert done.returncode == 0, done.stderr
    assert "Deal 1 of 1" in done.stdout and "Deal 2" not in done.stdout
    assert "deal 2 is not over" in done.stdout
    # A record whose only deal is under way shows nothing of it.
    first = record_match(tmp_path / "first", until=lambda t: t.match.deal is not None
                         and t.match.deal.plays_made == 5)
    alone = call_jackal("review", "--text", str(first.path))
    assert alone.returncode == 2 and "holds no deal" in alone.stderr
    assert "deal 1 is not over" in alone.stderr
