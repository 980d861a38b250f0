"""``jackal replay FILE``: print a recorded match deal by deal, read strictly and run through
the one replay loop the server restores crashed matches with, which checks every deal,
play and result against the engine. Exit status 2 for a file that cannot be read or
replayed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..game.cards import format_cards
from ..game.deal import Deal
from ..game.scoring import DealResult
from ..game.seats import SEATS, Seat, Team
from ..protocol.text import escape_text
from ..server.records.events import (
    AnswerEvent,
    DealEvent,
    HintEvent,
    MatchEnd,
    MatchStart,
    PlayEvent,
    QuestionEvent,
    RecordError,
    RematchEvent,
    Restored,
    ResultEvent,
    SeatEvent,
    TableEvent,
    read_record,
)
from ..server.records.replay import MatchReplay, Step, replay
from .score import format_team, format_verdict
from .terminal import printable

__all__ = ["add_arguments", "format_record", "run"]

_IMPLIED = "  (not in the record: implied by the lines before it)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal replay``."""
    parser.add_argument("file", type=Path, help="a match record (.jsonl) from serve --records")


def _header(event: TableEvent) -> list[str]:
    return [f"Table {event.table} {event.name!r}: target {event.target}, "
            f"seed {event.seed}, bot takeover {'on' if event.bot_takeover else 'off'}"
            + (", hints allowed" if event.hints else "")]


def _player(seat: SeatEvent) -> str:
    return f"{seat.name} ({seat.kind})" if seat.kind != "empty" else "(empty)"


def _scored(deal: Deal, result: DealResult, number: int, state: MatchReplay) -> list[str]:
    lines = [f"  {seat.value}: {format_cards(deal.row(seat))}" for seat in SEATS]
    lines += [f"  {seat.value} kept: {format_cards(sorted(deal.kept(seat)))}" for seat in SEATS]
    for team, score in zip((Team.NS, Team.EW), result.scores, strict=True):
        kept = sorted(card for seat in team.seats for card in deal.kept(seat))
        lines += ["  " + line for line in format_team(team.value, kept, score)]
    lines.append("  " + format_verdict(result.scores[0].penalty, result.scores[1].penalty,
                                       ("NS", "EW")))
    scores = state.match.scores
    lines.append(f"  Score after deal {number}: NS {scores[Team.NS]}, EW {scores[Team.EW]}")
    return lines


def _play_number(state: MatchReplay, upcoming: bool = False) -> str:
    """"play 12 of 32": the play just applied (or, ``upcoming``, the next one)."""
    deal = state.match.deal
    if deal is None:
        return "between deals"
    return f"play {deal.plays_made + (1 if upcoming else 0)} of 32"


def _quoted(text: str | None) -> str:
    return "(text not kept: the record's question budget was spent)" if text is None \
        else repr(text)


def _step_lines(step: Step) -> list[str]:
    state, event = step.state, step.event
    lines: list[str] = []
    match event:
        case TableEvent():
            lines += _header(event)
        case MatchStart():
            lines.append("Players: " + ", ".join(f"{seat} {_player(state.seats[seat])}"
                                                  for seat in SEATS))
            lines.append("Conventions: " + ", ".join(f"{team} {card.name}"
                                                      for team, card in state.conventions.items()))
        case DealEvent(number=number, dealer=dealer):
            deal = state.match.deal
            first: Seat | str = deal.first if deal is not None else "?"
            lines += ["", f"Deal {number}: dealer {dealer}, {first} plays first"]
        case HintEvent(seat=seat, play=play):
            # The record names no card (see HintEvent): only who took one, and when.
            deal = state.match.deal
            made = deal.plays_made if deal is not None else 0
            lines.append(f"  {seat} took a hint for its card {play} of 8 "
                         f"(play {made + 1} of 32)")
        case ResultEvent(deal=number) if step.deal is not None and step.result is not None:
            lines += _scored(step.deal, step.result, number, state)
        case MatchEnd(winner=winner, scores=scores):
            lines += ["", f"Match over: {winner} wins, NS {scores[Team.NS]} EW {scores[Team.EW]}"]
        case RematchEvent():
            lines += ["", f"Rematch: match {state.rematches + 1} at this table, to "
                          f"{state.match.target} points"]
        case PlayEvent(seat=seat, card=card, by=by) if by in ("clock", "substitute"):
            why = ("by the clock: the player's time ran out" if by == "clock"
                   else "by the substitute: the player was away")
            lines.append(f"  {_play_number(state)}: {seat} {card} played {why}")
        case QuestionEvent(question=qid, asker=asker, seat=seat, index=index, text=text):
            about = f" about its card {index}" if index is not None else ""
            lines.append(f"  before {_play_number(state, upcoming=True)}: {asker} asked {seat}"
                         f"{about} ({qid}): {_quoted(text)}")
        case AnswerEvent(question=qid, seat=seat, by=by, text=text):
            who = " (a bot, from its card)" if by == "bot" else ""
            lines.append(f"  {seat} answered {qid}{who}: {_quoted(text)}")
        case Restored(table=table):
            renamed = f" as table {table}" if table is not None else ""
            deal = state.match.deal
            where = f" before play {deal.plays_made + 1} of 32 of deal " \
                    f"{state.match.deal_number}" if deal is not None else ""
            lines.append(f"  (the server restarted here{where} and restored the match"
                         f"{renamed})")
        case _:  # seats and conventions show at match_start; plays in the rows
            pass
    if step.implied:
        lines.append(_IMPLIED)
    return lines


def format_record(path: Path) -> list[str]:
    """The whole record as printable lines (raises RecordError/OSError on a bad record)."""
    read = read_record(path)
    lines: list[str] = []
    state: MatchReplay | None = None
    for step in replay(read.events):
        state = step.state
        lines += _step_lines(step)
    assert state is not None  # replay yields the header at least
    deal = state.match.deal
    if deal is not None:
        lines += [f"  {seat.value}: {format_cards(deal.row(seat))}" for seat in SEATS]
        lines.append(f"  (deal {state.match.deal_number} unfinished: "
                     f"{deal.plays_made} of 32 plays)")
    if read.torn_bytes:
        lines.append(f"(the last line was cut short, {read.torn_bytes} bytes: ignored)")
    if state.closed is not None:
        lines += ["", f"The table was closed before the match ended ({state.closed.reason})."]
    elif state.ended is None:
        lines += ["", "The match is not finished."]
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the record; exit status 2 if it cannot be read.

    Reads a record written by ``jackal serve --records DIR`` strictly (the format is
    ``jackal.server.records.events``) and runs it through the same replay loop the server
    restores crashed matches with (``jackal.server.records.replay``), which checks every
    deal, play and result against the game engine. It prints the table's options and
    players, then per deal the dealer, the hints taken (who, before which play), the four
    rows in play order, both teams' kept cards scored rank by rank, the winner and the
    running score. A match that has not finished is
    printed as far as it went; what the record's lines imply but lack (a torn final write)
    is printed and marked as such. Exit status 2 for a file that cannot be read or replayed.
    """
    try:
        lines = format_record(args.file)
    except (OSError, RecordError) as exc:
        print(escape_text(f"jackal replay: {args.file}: {exc}"), file=sys.stderr)
        return 2
    # A record holds what players sent; one written before the server checked text
    # (or by hand) may hold escape sequences: every line is escaped on its own.
    print(printable("\n".join(lines)))
    return 0
