"""``jackal replay FILE``: print a recorded match deal by deal.

Reads a record written by ``jackal serve --records DIR`` and replays every deal
through the game engine (checking each play against the recorded seed): the table's
options and players, then per deal the dealer, the four rows in play order, both
teams' kept cards scored rank by rank, the winner and the running score. A match that
has not finished is printed as far as it went. Exit status 2 for an unreadable file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..game.cards import format_cards, parse_card
from ..game.deal import Deal
from ..game.errors import JackalError
from ..game.match import Match
from ..game.seats import SEATS, Seat, Team
from ..server.records import read_events
from .score import format_team, format_verdict

__all__ = ["add_arguments", "format_record", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal replay``."""
    parser.add_argument("file", type=Path, help="a match record (.jsonl) from serve --records")


def _header(event: dict[str, Any]) -> list[str]:
    return [f"Table {event['table']} {event['name']!r}: target {event['target']}, "
            f"seed {event['seed']}, bot takeover {'on' if event['bot_takeover'] else 'off'}"]


def _finish_deal(deal: Deal, number: int, match: Match) -> list[str]:
    lines: list[str] = []
    result = match.finish_deal()  # scores the deal once; the lines below show that score
    for team, score in zip((Team.NS, Team.EW), result.scores, strict=True):
        kept = sorted(card for seat in team.seats for card in deal.kept(seat))
        lines += ["  " + line for line in format_team(team.value, kept, score)]
    lines.append("  " + format_verdict(result.scores[0].penalty, result.scores[1].penalty,
                                       ("NS", "EW")))
    lines.append(f"  Score after deal {number}: NS {match.scores[Team.NS]}, "
                 f"EW {match.scores[Team.EW]}")
    return lines


def _rows(deal: Deal) -> list[str]:
    return [f"  {seat.value}: {format_cards(deal.row(seat))}" for seat in SEATS]


def format_record(events: list[dict[str, Any]]) -> list[str]:
    """The whole record as printable lines (raises JackalError/KeyError on a bad record)."""
    if not events or events[0]["event"] != "table":
        raise JackalError("not a Jackal match record (no 'table' event first)")
    head = events[0]
    lines = _header(head)
    match = Match(int(head["seed"]), int(head["target"]))
    players: dict[str, str] = {}
    conventions: dict[str, str] = {}
    number = 0
    for event in events[1:]:
        kind = event["event"]
        if kind == "seat":
            players[event["seat"]] = (f"{event['name']} ({event['kind']})"
                                      if event["kind"] != "empty" else "(empty)")
        elif kind == "conventions":
            conventions[event["team"]] = str(event["card"].get("name", "?"))
        elif kind == "match_start":
            lines.append("Players: " + ", ".join(f"{seat} {players.get(seat, '?')}"
                                                  for seat in "NESW"))
            lines.append("Conventions: " + ", ".join(f"{team} {name}"
                                                      for team, name in conventions.items()))
        elif kind == "deal":
            deal = match.start_deal()
            number = event["number"]
            if deal.seed != event["seed"] or deal.dealer.value != event["dealer"]:
                raise JackalError(f"deal {number} does not match the match seed")
            lines += ["", f"Deal {number}: dealer {deal.dealer}, {deal.first} plays first"]
        elif kind == "play":
            assert match.deal is not None
            match.deal.play(parse_card(event["card"]), Seat(event["seat"]))
        elif kind == "result":
            assert match.deal is not None
            lines += _rows(match.deal)
            lines += _finish_deal(match.deal, number, match)
        elif kind == "match_end":
            lines += ["", f"Match over: {event['winner']} wins, NS {event['scores']['NS']}"
                          f" EW {event['scores']['EW']}"]
    if match.deal is not None:
        lines += _rows(match.deal)
        lines.append(f"  (deal {number} unfinished: {match.deal.plays_made} of 32 plays)")
    if not match.is_over and not any(event["event"] == "match_end" for event in events):
        lines += ["", "The match is not finished."]
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the record; exit status 2 if it cannot be read."""
    try:
        events = read_events(args.file)
        lines = format_record(events)
    except (OSError, JackalError, KeyError, TypeError, ValueError, AssertionError) as exc:
        print(f"jackal replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
