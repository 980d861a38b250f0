"""Does a server bot's think time show its hand? The measurement of tests/server/test_bot_timing.py.

    .venv/bin/python bench/bot_timing.py [--tables 6] [--moves 540] [-- SERVE OPTIONS]

Starts ``jackal serve --bot-pause 0`` (of the Python running this script, so another
checkout's venv measures that checkout), watches tables of four expert bots with known
seeds, started a second apart, and prints the correlation between the distinct ranks
the moving bot holds and its ``turn`` -> ``played`` time, with the times' spread and the
wall time. Extra arguments go to ``jackal serve`` (e.g. ``--bot-floor 0``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

# The measurement is the one tests/server/test_bot_timing.py takes, from bench/benchkit.
from benchkit.bot_timing import STAGGER, Sample, correlation, watch
from benchkit.server import ServerProcess


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--moves", type=int, default=540)
    parser.add_argument("serve", nargs="*", help="extra jackal serve options (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--bot-pause", "0", "--between-deals", "0",
                               *args.serve)
        try:
            samples: list[Sample] = []
            lock = threading.Lock()
            started = time.perf_counter()
            for n in range(args.tables):
                threading.Thread(target=watch, args=(server.port, 1000 + n, samples,
                                                      args.moves, lock), daemon=True).start()
                time.sleep(STAGGER)
            while len(samples) < args.moves:
                time.sleep(0.2)
            wall = time.perf_counter() - started
        finally:
            server.stop()
    times = sorted(seconds * 1000 for _, seconds in samples)
    print(f"{len(samples)} bot moves on {args.tables} tables: correlation(distinct ranks, "
          f"turn->played) = {correlation(samples):.3f}; p50 {times[len(times) // 2]:.1f} ms,"
          f" p99 {times[len(times) * 99 // 100]:.1f} ms, max {times[-1]:.1f} ms; "
          f"wall {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
