"""``jackal stats RECORDS...``: an evening's figures per player and per partnership.

Reads match records (files, or folders of them) with the record reader ``jackal replay``
uses; the figures are :mod:`jackal.server.records.stats`'. Exit status 2 when a record
could not be read (the others are still counted) or there was none.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import msgspec

from ..server.records.events import RecordError, read_record
from ..server.records.stats import HOW, Line, Stats
from .terminal import printable

__all__ = ["add_arguments", "format_stats", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal stats``."""
    parser.add_argument("records", type=Path, nargs="+", metavar="RECORD",
                        help="a match record (.jsonl) from serve --records, or a folder of "
                             "them (its *.jsonl files)")
    parser.add_argument("--json", action="store_true",
                        help="print the figures as one JSON object (players, partnerships)")
    parser.epilog = HOW


def record_files(paths: list[Path]) -> list[Path]:
    """The record files named: each file as given, each folder's ``*.jsonl`` in name order."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    return files


def _signals(line: Line) -> str:
    tally = line.figures.signals
    parts = []
    for kind, plays in tally.plays.items():
        avoidable = tally.avoidable[kind]
        parts.append(f"{kind} {tally.false[kind]} of {plays}"
                     + (f" ({avoidable} avoidable)" if avoidable else ""))
    return ", ".join(parts)


def _line(line: Line) -> list[str]:
    data = line.figures.report()
    if len(line.players) == 1:
        player = line.players[0]
        also = f", also {', '.join(player.names[1:])}" if len(player.names) > 1 else ""
        title = f"{player.name} ({player.kind}{also})"
    else:
        title = " & ".join(player.name for player in line.players)
    lines = [f"  {title}: {data.deals} deal{'s' if data.deals != 1 else ''}",
             f"    mean penalty {data.mean_penalty:.2f} (no signals "
             f"{data.baseline_penalty:.2f}, both hands known {data.optimum_penalty:.2f})"]
    eff, interval = data.information_efficiency, data.information_efficiency_ci95
    lines.append("    information efficiency " + (
        "undefined (nothing to gain over no signals)" if eff is None
        else f"{eff:.3f}" + (f" (95%: {interval[0]:.3f} to {interval[1]:.3f})"
                             if interval is not None else " (one deal: no interval)")))
    lines.append(f"    false signals: {_signals(line)}")
    lines.append(f"    hints taken: {data.hints}")
    median = data.median_move_seconds
    lines.append("    median time per move: " + (
        "no moves timed" if median is None
        else f"{median:.2f} s ({data.moves} moves)"))
    return lines


def format_stats(stats: Stats) -> list[str]:
    """The report as lines of text (names not yet escaped)."""
    lines = [f"{stats.records} record{'s' if stats.records != 1 else ''}, "
             f"{stats.deals} deal{'s' if stats.deals != 1 else ''} scored"]
    for title, group in (("Players", stats.players()), ("Partnerships", stats.partnerships())):
        lines += ["", title]
        for line in group:
            lines += _line(line)
        if not group:
            lines.append("  (none)")
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the figures; exit status 2 if a record could not be read or there was none."""
    stats = Stats()
    failed = False
    files = record_files(args.records)
    for path in files:
        try:
            stats.add_record(read_record(path).events)
        except (OSError, RecordError) as exc:
            print(printable(f"jackal stats: {path}: {exc} (left out)"), file=sys.stderr)
            failed = True
    if not files:
        print(printable(f"jackal stats: no records in {', '.join(map(str, args.records))}"),
              file=sys.stderr)
        failed = True
    # Names are what players typed: every line is escaped on its own (JSON escapes itself).
    # A reader gone early (| head) is cli/main.py's to end quietly, as for every command.
    # json.dumps, not msgspec: its ASCII-only text (\u escapes) is what --json has printed.
    print(json.dumps(msgspec.to_builtins(stats.report()), indent=2) if args.json
          else printable("\n".join(format_stats(stats))))
    return 2 if failed else 0
