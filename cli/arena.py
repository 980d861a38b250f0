"""``jackal arena``: play strategies against each other in-process (or on a Dask cluster) and
measure them: per side the mean team penalty, victory points per deal, the deal win rate
and the information efficiency, each with its 95% interval (the yardstick is
docs/BOTS.md's)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import IO

from ..arena.reports import ArenaReport, SidesReport, encode
from ..arena.run import ArenaConfig, DealOutcome, SideSummary, run_arena, summarise
from ..game.conventions import ConventionCard
from ..game.errors import MalformedInput


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``jackal arena``."""
    parser.add_argument("--ns", required=True, metavar="STRATEGY",
                        help="strategy for the first side (built-in name or module:Class)")
    parser.add_argument("--ew", required=True, metavar="STRATEGY",
                        help="strategy for the second side")
    parser.add_argument("--deals", type=int, default=100, metavar="N",
                        help="number of deals (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="run seed: same seed, same deals (default 0)")
    parser.add_argument("--jobs", type=int, metavar="N",
                        help="worker processes (default 1, or one per CPU with "
                             "--scheduler local; 0 = one per CPU)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="play the deals on a Dask cluster: its scheduler's address "
                             "(tcp://HOST:8786, trusted as Dask's configuration says: "
                             "see docs/BOTS.md), or 'local' to start one here with --jobs "
                             "workers, on TLS with a certificate only this run holds; "
                             "needs pip install 'jackal-game[cluster]'")
    parser.add_argument("--records", type=Path, metavar="FILE",
                        help="write one JSON line per deal played to FILE")
    parser.add_argument("--duplicate", action="store_true",
                        help="play every deal twice, the sides swapping seats")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--ns-conventions", metavar="CARD",
                        help="first side's convention card (name or file); "
                             "default: advanced for expert, beginner for beginner, else none")
    parser.add_argument("--ew-conventions", metavar="CARD",
                        help="second side's convention card")


def run(args: argparse.Namespace) -> int:
    """Play the run and print the summary; 2 on bad arguments.

        jackal arena --ns expert --ew greedy --deals 2000 --seed 1 --jobs 2
        jackal arena --ns expert --ew greedy --deals 100000 --scheduler tcp://host:8786

    Reports, per side, the mean team penalty, victory points per deal, the deal win rate
    with its 95% Wilson interval and the information efficiency with its 95% interval
    (the yardstick is defined in docs/BOTS.md). A progress bar is shown
    on a terminal; piped output gets a plain summary; ``--json`` prints one JSON object.
    """
    if args.deals < 1:
        print("jackal arena: --deals must be at least 1", file=sys.stderr)
        return 2
    config = ArenaConfig(ns=args.ns, ew=args.ew, deals=args.deals, seed=args.seed,
                         duplicate=args.duplicate, ns_conventions=args.ns_conventions,
                         ew_conventions=args.ew_conventions)
    if args.scheduler not in (None, "local") and args.jobs is not None:
        print("jackal arena: --jobs does not apply to a --scheduler address "
              "(the cluster's workers do the work)", file=sys.stderr)
        return 2
    jobs = _jobs(args)
    try:
        cards = config.cards()
        from ..bots.registry import load_strategy
        load_strategy(config.ns)
        load_strategy(config.ew)
    except (MalformedInput, OSError) as exc:
        print(f"jackal arena: {exc}", file=sys.stderr)
        return 2
    if args.scheduler is not None and importlib.util.find_spec("distributed") is None:
        print("jackal arena: --scheduler needs Dask: pip install 'jackal-game[cluster]'",
              file=sys.stderr)
        return 2
    records: IO[bytes] | None = None
    try:
        if args.records is not None:
            records = args.records.open("wb")
        started = time.perf_counter()
        ns_side, ew_side = _play(config, cards, jobs, records, args.scheduler,
                                 show_bar=sys.stdout.isatty() and not args.json)
        elapsed = time.perf_counter() - started
    except OSError as exc:  # the records file, or a cluster that cannot be reached
        print(f"jackal arena: {exc}", file=sys.stderr)
        return 2
    finally:
        if records is not None:
            records.close()
    played = ns_side.deals
    if args.json:
        report = ArenaReport(deals=config.deals, played=played, seed=config.seed,
                             duplicate=config.duplicate, jobs=jobs,
                             elapsed_s=round(elapsed, 3),
                             sides=SidesReport(ns=ns_side.report(), ew=ew_side.report()),
                             scheduler=args.scheduler)
        print(encode(report).decode())
    else:
        print(_as_text(config, ns_side, ew_side, played, elapsed))
    return 0


def _jobs(args: argparse.Namespace) -> int:
    """Worker processes: ``--jobs``, where 0 means one per core (the default on a local
    Dask cluster, 1 without one)."""
    jobs = args.jobs if args.jobs is not None else 0 if args.scheduler == "local" else 1
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def _play(config: ArenaConfig, cards: tuple[ConventionCard, ConventionCard], jobs: int,
          records: IO[bytes] | None, scheduler: str | None,
          show_bar: bool) -> tuple[SideSummary, SideSummary]:
    # The outcomes stream through the records file and the bar into summarise, which
    # keeps only sums: memory stays flat however many deals the run has.
    def written(outcomes: Iterator[DealOutcome]) -> Iterator[DealOutcome]:
        for outcome in outcomes:
            if records is not None:
                records.write(encode(outcome.record) + b"\n")
            yield outcome

    if scheduler is None:
        outcomes = run_arena(config, jobs)
    else:
        from ..arena.cluster import run_on_cluster  # the optional cluster extra

        outcomes = run_on_cluster(config, scheduler, workers=jobs)
    # closing: an interrupted run still shuts down its worker pool or cluster at once.
    with closing(outcomes) as source:
        if not show_bar:
            return summarise(config, written(source), cards)
        from prompt_toolkit.shortcuts import ProgressBar

        total = config.deals * (2 if config.duplicate else 1)
        with ProgressBar(title=f"{config.ns} vs {config.ew}") as bar:
            return summarise(config, bar(written(source), label="deals", total=total), cards)


def _as_text(config: ArenaConfig, ns_side: SideSummary, ew_side: SideSummary, played: int,
             elapsed: float) -> str:
    mode = ", duplicate" if config.duplicate else ""
    lines = [f"{played} deals played (seed {config.seed}{mode}) in {elapsed:.1f} s", ""]
    lines.append(f"{'':30}{'mean pen':>9}{'VP/deal':>9}{'win rate (95% CI)':>24}"
                 f"{'baseline':>9}{'optimum':>9}{'info eff (95% CI)':>22}")
    for label, side in (("--ns", ns_side), ("--ew", ew_side)):
        name = f"{label} {side.strategy} [{side.conventions}]"
        low, high = side.win_rate_ci95
        eff = "n/a"
        if side.efficiency is not None:
            interval = side.efficiency_ci95
            eff = f"{side.efficiency:.3f} " + ("(n/a)" if interval is None
                                                 else f"({interval[0]:.3f}-{interval[1]:.3f})")
        lines.append(f"{name[:30]:30}{side.mean_penalty:9.2f}"
                     f"{side.victory_points_per_deal:9.2f}"
                     f"{side.win_rate:>10.3f} ({low:.3f}-{high:.3f})"
                     f"{side.baseline_penalty:9.2f}{side.optimum_penalty:9.2f}{eff:>22}")
    for label, side in (("--ns", ns_side), ("--ew", ew_side)):
        said = ", ".join(f"{side.signals.avoidable[kind]} of {side.signals.plays[kind]} {kind}s"
                         for kind in side.signals.plays if side.signals.plays[kind])
        if said:
            lines.append(f"{label} avoidable false signals: {said}")
    lines.append(f"(ties: {ns_side.ties}; efficiency = (baseline - side) / (baseline - optimum), "
                 f"means over the same hands; see docs/BOTS.md)")
    return "\n".join(lines)
