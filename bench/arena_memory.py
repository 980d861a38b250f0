"""Arena memory: does ``jackal arena --jobs N`` stay flat as the number of deals grows?

Runs the local arena (``run_arena`` with a worker pool, the outcomes streamed into
``summarise`` as the CLI does) for growing numbers of deals and prints one JSON object:
for each run, the main process's resident memory at its start, its peak during the run
(sampled after every outcome), the growth between them, and the deals per second. A
consumer that is slower than the workers is simulated with ``--consumer-ms`` (each
outcome costs that long in the main process, as a slow records disk or a busy terminal
would), since that is when results would pile up if nothing bounded them.

    python bench/arena_memory.py [--ns random] [--ew random] [--jobs 2]
                                 [--deals 2000 8000 32000] [--consumer-ms 0.5]

Cheap strategies are the default: they make results arrive fastest, the worst case for
a backlog. Each run is a fresh process, so one run's peak does not hide the next's.

Measured on 2 shared cores (random against random, ``--jobs 2``), before and after the
bound in ``run_arena``:

| consumer | deals | growth before | growth after |
|---|---|---|---|
| 20 ms per outcome | 1,000 | 14.1 MiB | 2.1 MiB |
| 20 ms per outcome | 4,000 | 50.3 MiB | 2.1 MiB |
| 0.5 ms per outcome | 2,000 / 8,000 | 1.9 / 2.5 MiB | 1.6 / 1.4 MiB |
| 0.5 ms per outcome | 32,000 | 5.1 MiB | (not run) |

With the slow consumer, ``Pool.imap`` kept every result the workers finished ahead of
it; with the fast one, the list of every deal's job still grew with the run. Throughput
is unchanged: 338 deals/s before and 333 after, 8,000 deals, the same minute.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import psutil
from jackal.arena.reports import encode
from jackal.arena.run import ArenaConfig, DealOutcome, run_arena, summarise


def one_run(ns: str, ew: str, deals: int, jobs: int, consumer_ms: float) -> dict[str, Any]:
    """Play ``deals`` deals in this process; resident memory before and at the peak."""
    me = psutil.Process()
    config = ArenaConfig(ns=ns, ew=ew, deals=deals, seed=1)
    start_rss = peak_rss = me.memory_info().rss

    def watched(outcomes: Iterator[DealOutcome]) -> Iterator[DealOutcome]:
        nonlocal peak_rss
        for outcome in outcomes:
            if consumer_ms > 0:
                end = time.perf_counter() + consumer_ms / 1000
                while time.perf_counter() < end:
                    pass
            encode(outcome.record)  # what --records costs per deal
            peak_rss = max(peak_rss, me.memory_info().rss)
            yield outcome

    started = time.perf_counter()
    source = run_arena(config, jobs)
    try:
        ns_side, _ = summarise(config, watched(source))
    finally:
        source.close()
    elapsed = time.perf_counter() - started
    return {
        "deals": ns_side.deals,
        "start_mib": round(start_rss / 2**20, 1),
        "peak_mib": round(peak_rss / 2**20, 1),
        "growth_mib": round((peak_rss - start_rss) / 2**20, 1),
        "deals_per_s": round(ns_side.deals / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ns", default="random")
    parser.add_argument("--ew", default="random")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--deals", type=int, nargs="+", default=[2000, 8000, 32000])
    parser.add_argument("--consumer-ms", type=float, default=0.5)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child: one run, its figures on stdout
        print(json.dumps(one_run(args.ns, args.ew, args.deals[0], args.jobs,
                                 args.consumer_ms)))
        return
    runs = []
    for deals in args.deals:
        done = subprocess.run(
            [sys.executable, __file__, "--one", "--ns", args.ns, "--ew", args.ew,
             "--jobs", str(args.jobs), "--deals", str(deals),
             "--consumer-ms", str(args.consumer_ms)],
            check=True, capture_output=True, text=True)
        runs.append(json.loads(done.stdout))
    print(json.dumps({
        "bench": "arena_memory",
        "ns": args.ns, "ew": args.ew, "jobs": args.jobs, "consumer_ms": args.consumer_ms,
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
        "runs": runs,
    }))


if __name__ == "__main__":
    main()
