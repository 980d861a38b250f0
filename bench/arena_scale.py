"""Arena throughput: one process, ``--jobs 2`` and a two-worker Dask LocalCluster.

All three play the same deals (same config and seed), and the script checks that they
produced the same records. Prints one JSON object: deals per second for each mode and
its ratio to the single process measured in the same run, plus the LocalCluster's
ratio to ``--jobs 2`` (the target is at least 0.85).

    python bench/arena_scale.py [--ns expert] [--ew greedy] [--deals 100] [--seed 1]
                                [--rounds 1] [--workers 2]

The LocalCluster is the one ``--scheduler local`` starts (``local_cluster``, with its
worker settings). It is started, and its workers have imported the strategies, before
its clock starts, as with ``jackal arena --scheduler ADDRESS`` against a running cluster;
that start-up is reported on its own as ``startup_s``. With ``--rounds`` above 1 each
mode keeps its best round, which damps other load on a shared machine; the 1-minute
load average before and after is in the output so a noisy figure shows as one, and
``cpu_ms_per_deal`` (CPU time of this process and its workers, best round) compares
the modes' efficiency even when other load makes the wall times noisy.
Needs the cluster extra: ``pip install 'jackal-game[cluster]'``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Iterable
from typing import Any

import psutil
from distributed import Client
from jackal.arena.cluster import job_count, local_cluster, run_batches
from jackal.arena.reports import encode
from jackal.arena.run import ArenaConfig, DealOutcome, run_arena, summarise
from jackal.bots.registry import load_strategy


def fingerprint(outcomes: Iterable[DealOutcome]) -> tuple[str, int]:
    """A digest of the records in deal order (whatever order they came in), and their count."""
    digests = sorted(((o.index, o.swapped),
                      hashlib.sha256(encode(o.record)).hexdigest())
                     for o in outcomes)
    whole = hashlib.sha256("".join(d for _, d in digests).encode()).hexdigest()
    return whole, len(digests)


def cpu_seconds() -> float:
    """CPU time of this process and all its children, live (cluster workers) or reaped
    (pool workers): on a shared machine this, unlike wall time, ignores other load."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            times = child.cpu_times()
            total += times.user + times.system
    return total


def timed(config: ArenaConfig,
          outcomes: Iterable[DealOutcome]) -> tuple[float, float, str]:
    """Consume a run as the CLI does (through summarise): wall and CPU seconds, fingerprint."""
    kept: list[DealOutcome] = []

    def keep(stream: Iterable[DealOutcome]) -> Iterable[DealOutcome]:
        for outcome in stream:
            kept.append(outcome)
            yield outcome

    started, cpu = time.perf_counter(), cpu_seconds()
    summarise(config, keep(outcomes))
    seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    digest, count = fingerprint(kept)
    if count != job_count(config):
        raise RuntimeError(f"{count} deals came back, expected {job_count(config)}")
    return seconds, cpu, digest


def warm(ns: str, ew: str) -> None:
    """Import both strategies in a worker, as a long run would have long since done."""
    load_strategy(ns)
    load_strategy(ew)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="expert")
    parser.add_argument("--ew", default="greedy")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2,
                        help="--jobs for the pool and worker processes for the cluster")
    args = parser.parse_args(argv)
    config = ArenaConfig(ns=args.ns, ew=args.ew, deals=args.deals, seed=args.seed)
    deals = job_count(config)
    load_before = os.getloadavg()[0]
    best: dict[str, float] = {}
    cpu: dict[str, float] = {}
    digests: set[str] = set()

    def note(mode: str, seconds: float, cpu_s: float, digest: str) -> None:
        best[mode] = min(best.get(mode, float("inf")), seconds)
        cpu[mode] = min(cpu.get(mode, float("inf")), cpu_s)
        digests.add(digest)

    started = time.perf_counter()
    with local_cluster(args.workers) as cluster, Client(cluster) as client:
        client.wait_for_workers(args.workers)
        client.run(warm, args.ns, args.ew)
        startup = time.perf_counter() - started
        for _ in range(args.rounds):
            note("single", *timed(config, run_arena(config, jobs=1)))
            note("jobs", *timed(config, run_arena(config, jobs=args.workers)))
            note("cluster", *timed(config, run_batches(client, config)))

    def rate(mode: str) -> float:
        return deals / best[mode]

    report: dict[str, Any] = {
        "ns": args.ns, "ew": args.ew, "deals": deals, "seed": args.seed,
        "rounds": args.rounds,
        "single": {"seconds": round(best["single"], 3),
                   "deals_per_s": round(rate("single"), 2),
                   "cpu_ms_per_deal": round(cpu["single"] / deals * 1000, 2)},
        f"jobs_{args.workers}": {"seconds": round(best["jobs"], 3),
                                 "deals_per_s": round(rate("jobs"), 2),
                                 "cpu_ms_per_deal": round(cpu["jobs"] / deals * 1000, 2),
                                 "ratio_to_single": round(rate("jobs") / rate("single"), 3)},
        "local_cluster": {
            "workers": args.workers,
            "startup_s": round(startup, 3),
            "seconds": round(best["cluster"], 3),
            "deals_per_s": round(rate("cluster"), 2),
            "cpu_ms_per_deal": round(cpu["cluster"] / deals * 1000, 2),
            "ratio_to_single": round(rate("cluster") / rate("single"), 3),
            "ratio_to_jobs": round(rate("cluster") / rate("jobs"), 3),
            "deals_per_s_with_startup": round(deals / (best["cluster"] + startup), 2),
        },
        "same_results": len(digests) == 1,
        "load_1m_before": round(load_before, 2),
        "load_1m_after": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    print(json.dumps(report))
    return 0 if report["same_results"] else 1


if __name__ == "__main__":
    sys.exit(main())
