"""``jackal review RECORD [--deal N] [--text]``: step through a recorded deal card by card.

The record is read and checked as ``jackal replay`` reads it; what is shown at each point
comes from :mod:`.review_model`, the full-screen view from :mod:`.review_app` (loaded
only when it is used). ``--text`` prints every point of the deal(s) for a pipe.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..protocol.text import escape_text
from ..server.records.events import RecordError
from .review_model import EXPERT_SEED, ExpertCache, Review, load_review, point_lines, text_of
from .terminal import printable

__all__ = ["add_arguments", "run"]

EPILOG = f"""\
At each point of a deal the review shows:
  - all four hands as they stand then (the dealt hands at the start, the kept
    five at the end), and each seat's row of played cards;
  - the card just played and what it meant under its partnership's convention
    card in force for that deal (the one everyone at the table was shown);
  - whether that statement was true of the player's hand, and if it was false
    whether an honest card was in the hand (marked ! in the rows);
  - what the expert bot would have played in that seat at that moment, seeing
    only what that seat saw (its hand and the public rows), marked * where it
    chose another rank. Its sampling seed comes from the point alone (base
    {EXPERT_SEED}), so a record always reviews the same.

Keys: Left/Right a card, Home/End the start/end of the deal, PageUp/PageDown the
deal before/after, q (or Escape, Ctrl-Q) quits.

Records come from 'jackal serve --records DIR' (restored matches included; a
restart shows where it happened). Exit status 2 for a record that cannot be read
or replayed, or a deal it does not hold."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal review``."""
    parser.epilog = EPILOG
    parser.add_argument("record", type=Path, metavar="RECORD",
                        help="a match record (.jsonl) from serve --records")
    parser.add_argument("--deal", type=int, default=None, metavar="N",
                        help="start at the record's Nth deal (counted through the whole "
                             "record, rematches included); with --text print only it")
    parser.add_argument("--text", action="store_true",
                        help="print every point as plain text instead of the full-screen "
                             "review (for a pipe or a file)")


def _print_text(review: Review, deals: list[int]) -> None:
    experts = ExpertCache()
    for index in deals:
        deal = review.deals[index]
        for point in range(deal.plays + 1):
            if point:
                experts.compute(deal, point)
            # Names and questions are what people typed: each line escaped on its own.
            text = printable(text_of(point_lines(review, deal, point, experts)))
            sys.stdout.write(text + "\n\n")
            sys.stdout.flush()


def _fail(text: str) -> int:
    """Say what is wrong on standard error (escaped: it may quote the record); status 2."""
    print(escape_text(f"jackal review: {text}"), file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Review the record; exit status 2 if it cannot be read or lacks the deal."""
    try:
        review = load_review(args.record)
    except (OSError, RecordError) as exc:
        return _fail(f"{args.record}: {exc}")
    count = len(review.deals)
    if count == 0:
        return _fail(f"{args.record}: the record holds no deal ({review.ending})")
    if args.deal is not None and not 1 <= args.deal <= count:
        return _fail(f"--deal {args.deal}: the record holds deals 1 to {count}")
    start = 0 if args.deal is None else args.deal - 1
    if not args.text:
        from .review_app import run_review  # prompt_toolkit only for the screen

        run_review(review, start)
        return 0
    # A reader that goes away (``| head``) ends it as every command ends (cli/main.py).
    _print_text(review, [start] if args.deal is not None else list(range(count)))
    return 0
