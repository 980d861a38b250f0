"""What a hanging ``exec:`` entry costs a tournament, in wall time.

    .venv/bin/python bench/tournament_hang.py [--boards 1] [--jobs 2] [-- OPTIONS...]

Runs ``jackal tournament`` (of the Python running this script) with ``greedy``,
``random`` and a program that never answers (``hang``), at the default time limits
unless OPTIONS say otherwise (``-- --start-seconds 15``), and prints JSON: the
tournament's wall time, its tables, and each entry's faults. The hanging program's
seats are what take the time: each wait is ``--move-seconds`` plus ``--start-seconds``
(every answer it owes is its first since a start).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("options", nargs="*", help="more jackal tournament options")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        hang = Path(folder) / "hang.py"
        hang.write_text("import time\ntime.sleep(3600)\n")
        results = Path(folder) / "results.json"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "jackal.cli.main", "tournament", "--entry", "gr=greedy",
             "--entry", "ra=random", "--entry", f"hang=exec:{sys.executable} -I -S {hang}",
             "--boards", str(args.boards), "--seed", str(args.seed), "--jobs",
             str(args.jobs), "--sandbox", "off", "--results", str(results), "-q",
             *args.options], check=True, capture_output=True)
        wall = time.perf_counter() - started
        report = json.loads(results.read_text())
    print(json.dumps({
        "wall_s": round(wall, 1),
        "tables": len(report["tables"]),
        "options": args.options,
        "faults": {row["name"]: row["fault_kinds"] for row in report["standings"]},
    }))


if __name__ == "__main__":
    main()
