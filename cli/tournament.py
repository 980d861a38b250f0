"""``jackal tournament``: a duplicate tournament between bot programs and built-in strategies.

The options, the embedded server and the printing; the schedule and the scoring are
:mod:`jackal.arena.tournament`'s, how a table is played :mod:`jackal.arena.director`'s,
and the command's use docs/BOTS.md's ("A tournament between programs").
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..arena.program_output import ProgramOutput
from ..arena.reports import TournamentReport, TournamentSettings, encode
from ..arena.tournament import (
    PLACEHOLDERS,
    WAITING_TABLES,
    WAITING_TABLES_REMOTE,
    Entry,
    Standing,
    TableJob,
    TableResult,
    parse_entry,
    ranks,
    schedule,
    standings,
    tables_in_play,
)
from ..bots.registry import STRATEGIES
from ..client.sandbox import SandboxPlan, find_bwrap, sandbox_problem
from ..game.errors import MalformedInput
from ..protocol.text import escape_text
from ..server.config import BOT_FLOOR_SECONDS
from .program_clock import add_program_clock
from .terminal import configure_logging, counted, printable

#: Largest seed: board b's seed S+b must fit the protocol's 63-bit seed.
MAX_SEED = 2**62

EPILOG = f"""\
entries (NAME=SPEC; each entry plays both seats of its partnership):
  NAME=expert            a built-in strategy, played by the server: one of
                         {", ".join(STRATEGIES)}
  NAME=exec:COMMAND      a program run as 'jackal bot --exec' runs it: one your_turn JSON
                         line in on stdin, one card out on stdout, per move; each copy
                         in its own sandbox (see --sandbox); with --exec-events
                         NAME=all, every event and the whole cards as well
  NAME=cmd:COMMAND       a full protocol client that joins the seat itself with its
                         invitation code; the command may use
                         {" ".join(PLACEHOLDERS)}
                         (also in JACKAL_HOST, JACKAL_PORT, JACKAL_TABLE, JACKAL_SEAT,
                         JACKAL_NAME, JACKAL_PASSWORD, JACKAL_INVITE_FD: the code is
                         one line to read from that descriptor); they are put
                         into the words after the command is split, never given to a
                         shell, so do not wrap them in sh -c; {{host}}:{{port}} is a
                         loopback relay of the seat's own, not the server: a seat
                         taken by any other connection fails its table

examples:
  jackal tournament --entry ex=expert --entry be=beginner \\
      --entry js=exec:"node examples/stdin_bot.js" --boards 4 --seed 1 --results r.json
  jackal tournament --entry me=cmd:"python3 examples/minimal_bot.py --host {{host}} \\
      --port {{port}} --table {{table}} --seat {{seat}} --invite-fd {{invite_fd}}" \\
      --entry gr=greedy --boards 2
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``jackal tournament``."""
    parser.epilog = EPILOG
    parser.add_argument("--entry", action="append", required=True, metavar="NAME=SPEC",
                        help="an entry: a built-in strategy, exec:COMMAND or cmd:COMMAND "
                             "(repeat; at least two)")
    parser.add_argument("--conventions", action="append", default=[], metavar="NAME=CARD",
                        help="the convention card entry NAME declares (a built-in name or "
                             "a file); default: a strategy's own card, none for programs")
    parser.add_argument("--exec-events", action="append", default=[], metavar="NAME=all",
                        help="exec: entry NAME's program gets every event of its seat and "
                             "the whole convention cards too, as jackal bot --exec-events "
                             "all (default your_turn: only the lines it answers)")
    parser.add_argument("--boards", type=int, default=4, metavar="N",
                        help="boards per pair of entries; board b is deal 1 of a match "
                             "with seed S+b, played once each way round (default 4)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="tournament seed, to play a run again (default: a fresh secret "
                             "one, printed and written to the results only once the last "
                             "board is scored)")
    parser.add_argument("--results", type=Path, metavar="FILE",
                        help="write the standings and every table as one JSON object")
    parser.add_argument("--records", type=Path, metavar="DIR",
                        help="the embedded server writes its match records here (one "
                             "file per table; the folder is made with mode 0700)")
    _add_running_arguments(parser)


def _add_running_arguments(parser: argparse.ArgumentParser) -> None:
    """How the tournament runs: where, how much at once, the programs' limits, output."""
    parser.add_argument("--jobs", type=int, default=2, metavar="J",
                        help="CPU work at once (default 2): programs thinking at once, the "
                             "embedded server's bot threads, and the tables in play when "
                             "there is no floor")
    parser.add_argument("--tables-at-once", type=int, default=None, metavar="T",
                        help="tables in play at once (default: --jobs without a floor, "
                             f"else {WAITING_TABLES}, or {WAITING_TABLES_REMOTE} on a "
                             "--server); waiting tables cost no CPU, and the two tables of "
                             "a board and pair always follow each other")
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="play on this server instead of one started here")
    parser.add_argument("--password", help="the --server's password, if it has one")
    add_program_clock(parser, prefix="", player="the substitute")
    parser.add_argument("--seat-seconds", type=float, default=15.0, metavar="S",
                        help="time a program has to take its seat and say ready before the "
                             "substitute sits in (default 15)")
    parser.add_argument("--substitute", default="random", metavar="STRATEGY",
                        help="the built-in strategy that plays every move a program does "
                             "not play itself: a no-show's, a crashed, hung or stopped "
                             "program's, an answer that is not a card "
                             f"({', '.join(STRATEGIES)}; default random: a failing entry "
                             "should not score better than it plays)")
    parser.add_argument("--sandbox", choices=("auto", "on", "off"), default="auto",
                        help="run each copy of an exec: program under bubblewrap (bwrap) "
                             "and a seccomp filter: a user namespace without capabilities, "
                             "no network, only the files it needs (read-only), its own "
                             "/tmp and /proc, no file locks; on: refuse to start without "
                             "it; auto (default): use it where it works, else say once "
                             "why not; off: never. Every program gets its own empty HOME "
                             "and TMPDIR and a clean environment either way")
    parser.add_argument("--bot-floor", type=float, default=BOT_FLOOR_SECONDS,
                        metavar="SECONDS",
                        help="the fixed time a move's card waits for, in whole floors, "
                             "whoever chose it: the embedded server's bots (jackal serve "
                             "--bot-floor) and every exec: program's copy (default "
                             f"{BOT_FLOOR_SECONDS:g}; none when every entry is a built-in "
                             "strategy)")
    parser.add_argument("--json", action="store_true",
                        help="print the results JSON instead of the table")
    parser.add_argument("--program-output", action="store_true",
                        help="show cmd: programs' stdout and stderr here (default: kept "
                             "only in the --results folder); every line is escaped and "
                             "labelled with entry, table and seat, as exec: programs' "
                             "stderr always is")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress line per table, warnings only")


def _fail(message: str) -> int:
    print(escape_text(f"jackal tournament: {message}"), file=sys.stderr)
    return 2


def parse_entries(specs: Sequence[str], cards: Sequence[str],
                  events: Sequence[str] = ()) -> list[Entry]:
    """The ``--entry`` options with their ``--conventions`` and ``--exec-events``; raises
    ``MalformedInput``.

    A card must pass the server's text rules (protocol/text.py), since it is sent inline:
    a bad one fails here, before anything runs, instead of as a refused table each time."""
    from ..game.conventions import resolve_card
    from ..protocol.text import TextRefused, check_card_text

    chosen: dict[str, str] = {}
    try:
        for text in cards:
            name, equals, card = text.partition("=")
            if not equals or not card:
                raise MalformedInput(f"--conventions is NAME=CARD, not {text!r}")
            check_card_text(f"--conventions {name.strip()}", resolve_card(card))
            chosen[name.strip()] = card.strip()
        entries = []
        for text in specs:
            name = text.partition("=")[0].strip()
            entry = parse_entry(text, chosen.pop(name, None))
            resolve_card(entry.conventions)
            entries.append(entry)
    except TextRefused as exc:
        raise MalformedInput(exc.message) from None
    if chosen:
        raise MalformedInput(f"--conventions for an unknown entry: {', '.join(chosen)}")
    return _with_events(entries, events)


def _with_events(entries: list[Entry], events: Sequence[str]) -> list[Entry]:
    """``entries`` with what their programs are sent (``--exec-events NAME=all``)."""
    kinds = {entry.name: entry.kind for entry in entries}
    opted: set[str] = set()
    for text in events:
        name, _, value = (part.strip() for part in text.partition("="))
        if value not in ("your_turn", "all"):
            raise MalformedInput(f"--exec-events is NAME=all (or NAME=your_turn), not {text!r}")
        if kinds.get(name) != "exec":
            raise MalformedInput(f"--exec-events {name}: not an exec: entry (only they are "
                                 "sent lines)")
        if value == "all":
            opted.add(name)
        else:
            opted.discard(name)
    return [dataclasses.replace(entry, events="all") if entry.name in opted else entry
            for entry in entries]


def run(args: argparse.Namespace) -> int:
    """Check the options, play every table, print and write the results."""
    # Warnings quote servers and programs (reasons, errors): escaped.
    configure_logging(logging.WARNING)
    args.seed_secret = args.seed is None
    if args.seed is None:
        # Secret: nobody can work out a board from it; it is told only once the last
        # board is scored (in the results), so --seed can play the same boards again.
        args.seed = secrets.randbelow(MAX_SEED)
    elif not 0 <= args.seed <= MAX_SEED:
        return _fail(f"--seed must be between 0 and {MAX_SEED}")
    try:
        entries = parse_entries(args.entry, args.conventions, args.exec_events)
        jobs = schedule([entry.name for entry in entries], args.boards, args.seed)
    except MalformedInput as exc:
        return _fail(str(exc))
    sandbox = _sandbox(args, entries)
    if sandbox is None:
        return _fail(f"--sandbox on: no program can be sandboxed here: {sandbox_problem()}")
    problem = _bad_options(args)
    if problem:
        return _fail(problem)
    try:
        address = _where(args)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    try:
        output = program_output(args, entries)
    except OSError as exc:
        return _fail(f"--results: cannot keep the programs' output beside it: {exc}")
    progress = None if args.quiet or args.json else _progress(len(jobs))
    started = time.perf_counter()
    before = adopt_orphans()
    try:
        results, failures = _play(args, entries, jobs, address, progress, sandbox, output)
    except OSError as exc:
        return _fail(str(exc))
    finally:
        output.close()
        end_strays(before)
    args.program_logs = {name: str(path) for name, path in output.files.items()}
    return _report(args, entries, results, failures, time.perf_counter() - started)


def _bad_options(args: argparse.Namespace) -> str:
    """What is wrong with the numeric and strategy options, or ""."""
    if args.jobs < 1:
        return "--jobs must be at least 1"
    if args.tables_at_once is not None and args.tables_at_once < 1:
        return "--tables-at-once must be at least 1"
    if args.move_seconds <= 0 or args.seat_seconds <= 0:
        return "--move-seconds and --seat-seconds must be positive"
    if args.start_seconds < 0:
        return "--start-seconds must not be negative"
    if args.substitute not in STRATEGIES:
        return f"--substitute must be a built-in strategy ({', '.join(STRATEGIES)})"
    return ""


def _where(args: argparse.Namespace) -> tuple[str, int] | None:
    """The ``--server`` address (None: the embedded server), with ``--records`` made
    ready for it; raises ``ValueError`` or ``OSError`` with the message to print."""
    from ..client.connection import parse_address

    address = None
    if args.server is not None:
        if args.records is not None:
            raise ValueError("--records is for the embedded server; a --server keeps its "
                             "own records (jackal serve --records DIR)")
        address = parse_address(args.server)
    if args.records is not None:
        try:  # the records hold every hand: only the organizer may read them
            args.records.mkdir(mode=0o700, parents=True, exist_ok=True)
            args.records.chmod(0o700)
        except OSError as exc:
            raise OSError(f"--records: {exc}") from None
    return address


def _report(args: argparse.Namespace, entries: list[Entry], results: list[TableResult],
            failures: list[str], elapsed: float) -> int:
    """Print (and write, with ``--results``) the standings; the exit status."""
    ranked = standings(entries, results)
    report = results_report(args, entries, ranked, results, failures, elapsed)
    if args.results is not None:
        try:
            args.results.write_bytes(encode(report, indent=1) + b"\n")
        except OSError as exc:
            return _fail(f"--results: {exc}")
    if args.json:
        print(encode(report).decode())
    else:
        print(printable(as_text(ranked, len(results), args.boards, args.seed, elapsed)))
    for failure in failures:
        print(escape_text(f"jackal tournament: {failure}"), file=sys.stderr)
    return 1 if failures else 0


def _sandbox(args: argparse.Namespace, entries: list[Entry]) -> SandboxPlan | None:
    """How programs run (exec: fully sandboxed, cmd: in their own user and process
    namespaces); None when ``--sandbox on`` cannot be had."""
    if args.sandbox == "off" or all(entry.kind == "builtin" for entry in entries):
        return SandboxPlan()
    bwrap = find_bwrap()
    if bwrap is None:
        if args.sandbox == "on":
            return None
        print(escape_text(f"jackal tournament: {sandbox_problem()}; so programs run "
                          "with only their own empty HOME and TMPDIR and a clean "
                          "environment: they can reach the network, any file you can "
                          "and each other (file locks, /proc); --sandbox off silences "
                          "this"), file=sys.stderr)
        return SandboxPlan()
    hidden = [] if args.records is None else [args.records.resolve()]
    return SandboxPlan(bwrap, tuple(hidden))


def program_output(args: argparse.Namespace, entries: list[Entry]) -> ProgramOutput:
    """Where the programs' stderr goes: escaped and labelled to ours, and with
    ``--results FILE`` also to ``FILE``'s folder, one ``STEM.ENTRY.stderr.log`` per entry."""
    programs = [entry.name for entry in entries if entry.kind != "builtin"]
    if args.results is None or not programs:
        return ProgramOutput(None, "", programs)
    results: Path = args.results
    return ProgramOutput(results.parent, results.stem, programs)


def end_strays(before: frozenset[int]) -> None:
    """Kill whatever a program left behind after killing its own launcher: this process
    is a child subreaper (:func:`adopt_orphans`), so such processes are its children
    now, and once the run is over no child it did not have ``before`` may run on."""
    from ..client.reaper import kill_children

    kill_children(before)


def adopt_orphans() -> frozenset[int]:
    """Become a child subreaper, so no program's process escapes to init; our children
    now (which are none of the run's business)."""
    import ctypes

    from ..client.reaper import children

    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    return frozenset(children())


def _floor(args: argparse.Namespace, entries: list[Entry]) -> float:
    """The embedded server's bot floor: none when only built-in strategies play, since
    then no program sits at any table to time the bots (and nobody else may watch)."""
    if all(entry.kind == "builtin" for entry in entries):
        return 0.0
    floor: float = args.bot_floor
    return max(0.0, floor)


def _play(args: argparse.Namespace, entries: list[Entry], jobs: list[TableJob],
          address: tuple[str, int] | None,
          progress: Callable[[TableResult], None] | None, sandbox: SandboxPlan,
          output: ProgramOutput) -> tuple[list[TableResult], list[str]]:
    """Play every table, on ``address`` or on a server started here for the run."""
    import trio

    from ..arena.director import DirectorSettings, play_tables
    from ..server.config import ServerConfig
    from ..server.net.listener import serve

    floor = _floor(args, entries)
    limits = DirectorSettings("", 0, move_seconds=args.move_seconds,
                          start_seconds=args.start_seconds, seat_seconds=args.seat_seconds,
                          substitute=args.substitute, program_output=args.program_output,
                          sandbox=sandbox, output=output, floor_seconds=floor)
    at_once: int = args.tables_at_once or tables_in_play(args.jobs, floor, address is not None)

    async def main() -> tuple[list[TableResult], list[str]]:
        if address is not None:
            options = dataclasses.replace(limits, host=address[0], port=address[1],
                                          password=args.password)
            return await play_tables(options, jobs, entries, args.jobs, progress, at_once)
        async with trio.open_nursery() as server:
            # On 127.0.0.1, a free port. Seats of stopped programs go to the substitute
            # after a second (nobody here comes back to a seat); between deals (only
            # after a tied board) nobody waits long for a program's ready. Every seat
            # connects from this machine, table after table, and a program may take any
            # loopback address: the lobby's address rule would only stop the director.
            config = ServerConfig(host="127.0.0.1", port=0, records_dir=args.records,
                                  hold_seconds=1.0, between_deals_seconds=1.0,
                                  lobby_closed_in_deals=False,
                                  takeover_strategy=args.substitute,
                                  bot_floor_seconds=floor, bot_threads=args.jobs,
                                  # Every seat connects from here, and a finished
                                  # table stays open while its seats are held (a
                                  # second): the per-address limits, there for
                                  # strangers sharing a server, would only stop us.
                                  max_tables_per_address=4 * at_once + 10,
                                  # The summary's expert figure in a thread, not worker
                                  # processes: nobody here reads it, and this process
                                  # kills every child it has left when the run ends.
                                  expert_workers=0,
                                  max_per_address=20 * at_once + 50)
            port: int = await server.start(serve, config)
            options = dataclasses.replace(limits, host="127.0.0.1", port=port,
                                          hold_seconds=1.0, records=args.records)
            played = await play_tables(options, jobs, entries, args.jobs, progress, at_once)
            server.cancel_scope.cancel()
        return played

    return trio.run(main)


def _progress(total: int) -> Callable[[TableResult], None]:
    done = 0

    def show(result: TableResult) -> None:
        nonlocal done
        done += 1
        job = result.job
        if result.winner is None:
            outcome = "tied"
        else:
            outcome = f"{job.entry_at(result.winner.seats[0])} +{result.points}"
        faults = sum(sum(kinds.values()) for kinds in result.faults.values())
        note = f", {faults} fault(s)" if faults else ""
        print(escape_text(f"[{done}/{total}] board {job.board}: {job.ns} (NS) v {job.ew} (EW): "
                        f"{outcome}{note}"), file=sys.stderr, flush=True)

    return show


def results_report(args: argparse.Namespace, entries: list[Entry], ranked: list[Standing],
                   results: list[TableResult], failures: list[str],
                   elapsed: float) -> TournamentReport:
    """The results file: settings, standings (best first), every table, failures."""
    settings = TournamentSettings(
        # Secret until now unless --seed chose it; --seed plays the same boards again.
        seed=args.seed,
        seed_secret=args.seed_secret,
        boards=args.boards,
        entries=[entry.report() for entry in entries],
        jobs=args.jobs,
        move_seconds=args.move_seconds,
        start_seconds=args.start_seconds,
        seat_seconds=args.seat_seconds,
        substitute=args.substitute,
        sandbox=args.sandbox,
        bot_floor_seconds=_floor(args, entries) if args.server is None else None,
        server=args.server,
        records=None if args.records is None else str(args.records),
        elapsed_s=round(elapsed, 3),
        program_logs=getattr(args, "program_logs", {}),
    )
    return TournamentReport(
        tournament=settings,
        standings=[standing.report(rank)
                   for rank, standing in zip(ranks(ranked), ranked, strict=True)],
        tables=[result.report() for result in results],
        failures=failures,
    )


def as_text(ranked: list[Standing], tables: int, boards: int, seed: int,
            elapsed: float) -> str:
    """The standings as a table for people: every column at least two spaces from the
    next, whatever its numbers (negative ones, wide ones)."""
    lines = [f"{len(ranked)} entries, {counted(boards, 'board')} each way round: "
             f"{counted(tables, 'table')} in "
             f"{elapsed:.1f} s; seed {seed} (--seed {seed} plays the same boards again)", ""]
    header = ["#", "entry", "kind", "boards", "tables", "VP/table", "net",
              "win rate [95% CI]", "info eff [95% CI]", "faults"]
    rows = [header]
    for rank, standing in zip(ranks(ranked), ranked, strict=True):
        efficiency = standing.efficiency
        rows.append([
            str(rank), standing.entry.name, standing.entry.kind, str(standing.boards),
            str(standing.tables), f"{standing.vp_per_table:.2f}",
            f"{standing.net_per_table:+.2f}",
            _with_interval(standing.win_rate, standing.win_interval),
            "n/a" if efficiency is None else _with_interval(
                efficiency.value, None if efficiency.deals < 2
                else (efficiency.low, efficiency.high)),
            str(sum(standing.faults.values()))])
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    left = {1, 2}  # names and kinds read from the left; numbers line up on the right
    for row in rows:
        cells = [cell.ljust(width) if column in left else cell.rjust(width)
                 for column, (cell, width) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.append("boards: distinct boards played; tables: each a board against one opponent "
                 "from one side;")
    lines.append("VP/table: victory points won per table; net: won minus conceded; info eff: "
                 "(baseline")
    lines.append("- penalty) / (baseline - optimum) on the same hands, as in jackal arena; "
                 "[n/a]: no")
    lines.append("interval with one board; equal VP and net share a rank; faults: moves the "
                 "substitute played")
    return "\n".join(lines)


def _with_interval(value: float, interval: tuple[float, float] | None) -> str:
    """``0.667 [0.391, 0.862]``, or ``0.667 [n/a]`` without an interval (one board)."""
    if interval is None:
        return f"{value:.3f} [n/a]"
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"
