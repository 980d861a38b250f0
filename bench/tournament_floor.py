"""What the fair-play floor costs a tournament: its wall time with and without it.

    .venv/bin/python bench/tournament_floor.py [--boards 12] [--floor 0.2] [-- OPTIONS]

Runs ``jackal tournament`` (of the Python running this script) with the example stdin bot
as an exec entry, ``expert`` and ``greedy``, once with ``--bot-floor FLOOR`` and once
with ``--bot-floor 0``, and prints both wall times and their ratio. Extra arguments go to
both runs (e.g. ``--jobs 1`` or ``--tables-at-once 2``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(boards: int, floor: float, extra: list[str]) -> float:
    """Wall seconds of one tournament; raises when it fails."""
    program = f"{sys.executable} -I -S {ROOT / 'examples' / 'stdin_bot.py'}"
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "jackal.cli.main", "tournament",
                   "--entry", f"p=exec:{program}", "--entry", "ex=expert",
                   "--entry", "gr=greedy", "--boards", str(boards), "--seed", "1",
                   "--bot-floor", str(floor), "--sandbox", "off", "-q",
                   "--results", str(Path(tmp) / "results.json"), *extra]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the tournament failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=12)
    parser.add_argument("--floor", type=float, default=0.2)
    parser.add_argument("extra", nargs="*", help="extra jackal tournament options (after --)")
    args = parser.parse_args()
    floored = run(args.boards, args.floor, args.extra)
    free = run(args.boards, 0.0, args.extra)
    print(f"3 entries, {args.boards} boards ({args.boards * 6} tables): floor "
          f"{args.floor:g} s {floored:.1f} s, no floor {free:.1f} s, ratio "
          f"{floored / free:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
