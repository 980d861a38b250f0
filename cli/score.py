"""``jackal score``: the scoring calculator for games played with a real deck: one team's
ten kept cards give their groups and penalty, both teams' the winner and the victory
points too. Bad input ends with exit status 2, one line on stderr and nothing on stdout.
The table layout helpers here are shared with ``jackal demo``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Literal

import msgspec

from ..game.cards import Card, format_cards, parse_hand, rank_name
from ..game.errors import MalformedInput
from ..game.scoring import (
    PAIR_PENALTY,
    SINGLE_BASE,
    WIN_BASE,
    ZERO_BONUS,
    TeamScore,
    compare_teams,
    score_team,
)
from ..game.seats import Team
from ..protocol.codec import card_enc_hook

__all__ = ["GroupReport", "HandReport", "ScoreReport", "add_arguments", "format_team",
           "format_verdict", "run", "score_json"]

TEN = 10
LABELS = ("A", "B")


class UsageError(Exception):
    """Input the calculator cannot score; the message is shown as is."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal score``."""
    parser.epilog = (
        "Cards: rank A 2-9 T (or 10) J Q K, then suit S H D C (or the suit symbols);\n"
        "case does not matter. Separate cards with spaces or commas and quote each hand.\n"
        f"Scoring per rank: three or four of a kind 0, a pair {PAIR_PENALTY}, a single "
        f"{SINGLE_BASE} + value (A=1 ... K=13).\n"
        f"The lower penalty wins {WIN_BASE} + the difference, {ZERO_BONUS} more at zero "
        "penalty; a tie scores nothing."
    )
    parser.add_argument("hands", nargs="+", metavar="HAND",
                        help="ten cards, e.g. \"AS AH AD 7C 7D 9H 9S KC KD KH\"; "
                             "give a second hand (team B) to get the winner and points")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of the table")


def run(args: argparse.Namespace) -> int:
    """Score the hands; exit status 0, or 2 with one line on stderr for bad input.

    Give one team's ten kept cards to see their groups and penalty, or both teams' to
    see the winner and the victory points as well::

        jackal score "AS AH AD 7C 7D 9H 9S KC KD KH" "2C 3C 4C 5C 6C 8C 9C TC JC QC"

    Bad input (a malformed card, a hand that is not ten cards, a card given twice)
    ends with exit status 2 and one line on stderr; nothing goes to stdout then, so
    scripts using ``--json`` never see half an answer.

    The table layout helpers here are shared with ``jackal demo``.
    """
    try:
        hands = read_hands(args.hands)
    except UsageError as exc:
        print(f"jackal score: {exc}", file=sys.stderr)
        return 2
    scores = [score_team(hand) for hand in hands]
    if args.json:
        # json.dumps writes the spaced JSON that --json has always printed.
        print(json.dumps(msgspec.to_builtins(score_json(hands, scores),
                                             enc_hook=card_enc_hook)))
    else:
        lines: list[str] = []
        for label, hand, score in zip(LABELS, hands, scores, strict=False):
            lines.extend(format_team(f"Team {label}" if len(hands) == 2 else "Hand",
                                     hand, score))
            lines.append("")
        if len(scores) == 2:
            lines.append(format_verdict(scores[0].penalty, scores[1].penalty, LABELS))
        else:
            lines.pop()
        print("\n".join(lines))
    return 0


def read_hands(texts: Sequence[str]) -> list[list[Card]]:
    """Parse and check one or two hands of exactly ten distinct cards."""
    if len(texts) > 2:
        raise UsageError(f"give one or two hands, each quoted as one argument "
                         f"(got {len(texts)} arguments)")
    hands: list[list[Card]] = []
    seen: dict[Card, str] = {}
    for label, text in zip(LABELS, texts, strict=False):
        where = f"hand {label}" if len(texts) == 2 else "the hand"
        try:
            hand = parse_hand(text)
        except MalformedInput as exc:
            raise UsageError(f"{where}: {exc}") from None
        if len(hand) != TEN:
            raise UsageError(f"{where} has {len(hand)} cards, expected exactly {TEN}: {text!r}")
        for card in hand:
            if card in seen:
                if seen[card] == label:
                    raise UsageError(f"{card} appears twice in {where}")
                raise UsageError(f"{card} appears in both hands")
            seen[card] = label
        hands.append(hand)
    return hands


def format_team(title: str, cards: Sequence[Card], score: TeamScore) -> list[str]:
    """A team's cards as a small table: one line per rank, then the penalty."""
    lines = [f"{title}: {format_cards(cards)}",
             "  rank  cards         count  points"]
    for group in score.groups:
        lines.append(f"  {rank_name(group.rank):<4}  {format_cards(group.cards):<12}  "
                     f"{group.count:>5}  {group.points:>6}  {_why(group.rank, group.count)}")
    lines.append(f"  penalty{score.penalty:>26}")
    return lines


def _why(rank: int, count: int) -> str:
    if count == 1:
        return f"(single: {SINGLE_BASE} + {rank})"
    if count == 2:
        return "(pair)"
    return "(three of a kind)" if count == 3 else "(four of a kind)"


def format_verdict(first: int, second: int, labels: Sequence[str]) -> str:
    """One line saying who wins and how the victory points add up."""
    winner, points = compare_teams(first, second)
    if winner is None:
        return f"Tie at {first} penalty points: nobody scores."
    win, lose = (first, second) if winner is Team.NS else (second, first)
    label = labels[0] if winner is Team.NS else labels[1]
    bonus = f" + {ZERO_BONUS} for zero penalty" if win == 0 else ""
    return (f"{label} wins: {WIN_BASE} + ({lose} - {win}){bonus} = "
            f"{points} victory points.")


class GroupReport(msgspec.Struct):
    """One rank of a hand: its cards and what they cost."""

    rank: str
    #: The rank as a number (A=1 ... K=13).
    value: int
    cards: list[Card]
    count: int
    points: int


class HandReport(msgspec.Struct):
    """One hand ("A" or "B"): its cards, penalty and groups."""

    label: str
    cards: list[Card]
    penalty: int
    groups: list[GroupReport]


class ScoreReport(msgspec.Struct):
    """``jackal score --json``: the penalties, and with two hands the winner ("A", "B" or
    null on a tie) and the victory points (absent with one hand), then each hand."""

    penalty: list[int]
    winner: Literal["A", "B"] | msgspec.UnsetType | None = msgspec.UNSET
    points: int | msgspec.UnsetType = msgspec.UNSET
    hands: list[HandReport] = []


def score_json(hands: Sequence[Sequence[Card]], scores: Sequence[TeamScore]) -> ScoreReport:
    """The ``--json`` object: penalties, winner ("A", "B" or null), points, breakdown."""
    out = ScoreReport(penalty=[score.penalty for score in scores])
    if len(scores) == 2:
        winner, points = compare_teams(scores[0].penalty, scores[1].penalty)
        out.winner = None if winner is None else ("A" if winner is Team.NS else "B")
        out.points = points
    out.hands = [
        HandReport(label=label, cards=list(hand), penalty=score.penalty, groups=[
            GroupReport(rank=rank_name(group.rank), value=group.rank, cards=list(group.cards),
                        count=group.count, points=group.points)
            for group in score.groups])
        for label, hand, score in zip(LABELS, hands, scores, strict=False)
    ]
    return out
