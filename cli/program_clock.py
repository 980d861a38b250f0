"""The options for the two time limits of a hosted program, one meaning and one default
wherever a program is hosted (``jackal bot --exec`` and ``jackal tournament``'s ``exec:``
entries; the tournament's move limit also times ``cmd:`` clients). The defaults live with
the host, :mod:`jackal.client.exec_host`, which the tournament's tables use too."""

from __future__ import annotations

import argparse

from ..client.exec_host import MOVE_SECONDS, START_SECONDS

__all__ = ["add_program_clock"]


def add_program_clock(parser: argparse.ArgumentParser, *, prefix: str, player: str) -> None:
    """``--move-seconds`` and ``--start-seconds``; ``prefix`` says when they apply
    (``"with --exec: "``), ``player`` who plays a move the program does not."""
    parser.add_argument("--move-seconds", type=float, default=MOVE_SECONDS, metavar="S",
                        help=f"{prefix}time the program has for each move before {player} "
                             f"plays it (default {MOVE_SECONDS:g})")
    parser.add_argument("--start-seconds", type=float, default=START_SECONDS, metavar="S",
                        help=f"{prefix}extra time for an exec program's first answer after "
                             "it is started or restarted, for its own start-up (default "
                             f"{START_SECONDS:g})")
