"""Load benchmark: N tables of four protocol clients against a real ``jackal serve``.

What it does, in one run:

1. starts ``jackal serve --port 0`` as a subprocess (``python -m jackal.cli.main serve``),
   reads the bound port from its ``listening on HOST:PORT`` log line, and notes its idle
   memory;
2. in ``--procs`` client processes (multiprocessing), opens four raw TCP connections per
   table; each table's first client creates a table (fixed seed, ``--target``), all four
   join, and once every table everywhere is seated a start signal makes them all send
   ``ready`` at the same moment; then each client answers its own ``turn`` with a ``play``
   as fast as it can, says ``ready`` between deals, and stops at ``match_ended``;
3. reports plays per second over the whole run (first ``ready`` to last ``match_ended``),
   the latency from sending ``play`` to receiving its ``played`` reply (median and 99th
   percentile), every error (``error`` messages, unexpected closes, timeouts), and the
   server's peak memory (``VmHWM`` from ``/proc``);
4. does the same with the bare trio line-broadcast server (``baseline_server.py``): the
   same number of connections in groups of four, the same number of plays per group,
   each "play" one line that the server relays to the group, the next client in turn
   answering as soon as the line arrives; and prints Jackal's plays per second divided
   by the baseline's as ``baseline_ratio``. The baseline moves bytes with Jackal's own
   transport; then the same again with the relay written the stock trio way (a writer
   task per connection, ``send_all``: ``baseline_server.py --stock``) as
   ``stock_relay_ratio``, the kind of relay issue 16 measured against.

The clients are deliberately cheap (a ``selectors`` loop over non-blocking sockets,
hand-written JSON lines out, ``msgspec`` in) so that on a small machine the measurement
is of the server, not of the load generator; the baseline pays the same client costs.

``python bench/server_load.py --tables 250 --json`` prints one JSON object; without
``--json`` it prints a short human summary. ``--server-arg=--max-connections=2000``
passes options through to ``jackal serve``; ``--profile FILE`` runs the server under
cProfile and leaves the stats in FILE. On a shared machine throughput swings with
whatever else runs: ``--rounds 3`` repeats everything and reports the median round, and
``baseline_cpu_ratio`` compares server CPU time per play, which swings less.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import math
import multiprocessing as mp
import os
import random
import re
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from benchkit.lineconn import HOST, Conn
from benchkit.server import stop_process
from benchkit.wsconn import WsConn

SEATS = ("N", "E", "S", "W")
BENCH_DIR = Path(__file__).resolve().parent
LISTENING = re.compile(r"listening on \S+?:(\d+)")
WEB_PAGE = re.compile(r"web page on http://\S+?:(\d+)/")
_decode = msgspec.json.Decoder().decode


# --------------------------------------------------------------------------- server process


class ServerProcess:
    """A server subprocess: started, its port read from its log, its output drained."""

    def __init__(self, argv: Sequence[str], *, startup_timeout: float = 30.0,
                 web: bool = False) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.argv = list(argv)
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        self.lines: list[str] = []
        #: With ``web``, the server's web port too (``--web 0``: its ``web page on`` line).
        self.web_port = 0
        self.port = self._read_port(startup_timeout, web)
        # Keep reading so that a chatty server never blocks on a full pipe.
        self._drain = threading.Thread(target=self._drain_output, daemon=True)
        self._drain.start()

    def _read_port(self, timeout: float, web: bool) -> int:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        found: list[int] = []

        def scan() -> None:
            assert self.proc.stdout is not None
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").rstrip()
                self.lines.append(line)
                match = LISTENING.search(line)
                if match:
                    found.append(int(match.group(1)))
                page = WEB_PAGE.search(line)
                if page:
                    self.web_port = int(page.group(1))
                if found and (self.web_port or not web):
                    return

        reader = threading.Thread(target=scan, daemon=True)
        reader.start()
        reader.join(max(0.0, deadline - time.monotonic()))
        if not found or (web and not self.web_port):
            self.stop()
            tail = "\n".join(self.lines[-20:])
            raise RuntimeError(f"server did not report its port: {self.argv}\n{tail}")
        return found[0]

    def _drain_output(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode("utf-8", "replace").rstrip())

    def status_kib(self, key: str) -> int:
        """A ``kB`` field of /proc/PID/status (VmRSS, VmHWM), 0 if unreadable."""
        try:
            text = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server has used so far."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return 0.0
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def problems(self) -> list[str]:
        """Log lines that show the server itself went wrong."""
        return [line for line in self.lines
                if "Traceback" in line or " ERROR " in line or "CRITICAL" in line]

    def stop(self) -> int:
        return stop_process(self.proc)


# --------------------------------------------------------------------------- client side


@dataclass
class WorkerResult:
    plays: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    end: float = 0.0
    done_tables: int = 0
    generator_lags: list[float] = field(default_factory=list)
    #: Deals ended, and the deal summary's expert figures delivered or declared
    #: unavailable (``expert_cost``), as the first seat of each table saw them.
    deals: int = 0
    expert_delivered: int = 0
    expert_unavailable: int = 0
    #: The client process's own CPU seconds from the start signal to its end: next to
    #: the server's, it tells whether the load generator kept up.
    client_cpu: float = 0.0


class JackalTable:
    """Four protocol clients sharing one table, driven by the server's events."""

    def __init__(self, index: int, seed: int, target: int, result: WorkerResult,
                 conn_type: type[Conn] | type[WsConn] = Conn) -> None:
        self.index = index
        self.seed = seed
        self.target = target
        self.result = result
        #: How the clients connect: ``Conn`` (TCP lines) or ``WsConn`` (``/ws`` frames).
        self.conn_type = conn_type
        self.table_id: str | None = None
        self.hello_done = 0
        self.joined = 0
        #: The server refused to create this table: it will never be seated.
        self.refused = False
        self.finished = 0
        self.join_sent = False
        self.conns: list[Conn | WsConn] = []
        self.hands: list[list[str]] = [[] for _ in SEATS]
        self.sent_at: list[float] = [0.0] * 4
        self.rng = random.Random(seed)

    @property
    def seated(self) -> bool:
        return self.joined == 4

    @property
    def done(self) -> bool:
        return self.finished == 4

    def connect(self, sel: selectors.BaseSelector, port: int) -> None:
        for seat in range(4):
            self.conns.append(self.conn_type(sel, port, self._handler(seat)))

    def go(self) -> None:
        for conn in self.conns:
            conn.send(b'{"type":"ready"}\n')

    def error(self, seat: int, text: str) -> None:
        self.result.errors.append(f"table {self.index} seat {SEATS[seat]}: {text}")

    def _handler(self, seat: int) -> Callable[[bytes], None]:
        def on_line(line: bytes) -> None:
            self.on_message(seat, line)

        return on_line

    def on_message(self, seat: int, line: bytes) -> None:
        try:
            msg: dict[str, Any] = _decode(line)
            kind = msg["type"]
        except (msgspec.DecodeError, KeyError, TypeError):
            self.error(seat, f"unreadable line {line[:200]!r}")
            return
        conn = self.conns[seat]
        me = SEATS[seat]
        if kind == "turn":
            if msg["seat"] == me:
                self.my_turn(seat)
        elif kind == "played":
            if msg["seat"] == me and msg.get("id") == 1:
                self.my_play_came_back(seat)
        elif kind == "deal_started":
            dealt: list[str] = msg.get("hand") or []
            if not dealt:
                self.error(seat, "deal_started without my hand")
            self.hands[seat] = list(dealt)
        elif kind == "deal_ended":
            self.result.deals += seat == 0
            if max(msg["scores"].values()) < self.target:
                conn.send(b'{"type":"ready"}\n')
        elif kind == "expert_cost" and seat == 0:
            if "unavailable" in msg:
                self.result.expert_unavailable += 1
            else:
                self.result.expert_delivered += 1
        elif kind == "match_ended":
            self.finished += 1
            if self.done:
                self.result.done_tables += 1
                self.result.end = time.monotonic()
        elif kind == "ping":
            conn.send(b'{"type":"pong"}\n')
        elif kind == "error":
            self.error(seat, f"error {msg.get('code')}: {msg.get('message')}")
            if seat == 0 and self.table_id is None:
                self.refused = True  # no use waiting for its seats (reported as an error)
        elif kind == "welcome":
            conn.send(b'{"type":"hello","name":"t%d%s"}\n' % (self.index, me.encode()))
        elif kind == "hello_ok":
            self.hello_done += 1
            if seat == 0:
                conn.send(json.dumps({"type": "create_table", "name": f"load{self.index}",
                                      "target": self.target, "seed": self.seed},
                                     separators=(",", ":")).encode() + b"\n")
            self._maybe_join()
        elif kind == "table_created":
            self.table_id = msg["table"]
            self._maybe_join()
        elif kind == "joined":
            self.joined += 1
        elif kind == "server_shutdown":
            self.error(seat, "server shut down")

    def my_turn(self, seat: int) -> None:
        """Our seat's turn: play at once (the paced mode waits for its slot instead)."""
        self.sent_at[seat] = time.monotonic()
        self.send_play(seat)

    def send_play(self, seat: int) -> None:
        """Play a random card of ``seat``'s hand, asking for the reply to carry id 1."""
        hand = self.hands[seat]
        if not hand:
            self.error(seat, "turn with an empty hand")
            return
        card = hand.pop(self.rng.randrange(len(hand)))
        self.conns[seat].send(b'{"type":"play","card":"%s","id":1}\n' % card.encode())

    def my_play_came_back(self, seat: int) -> None:
        self.result.latencies.append(time.monotonic() - self.sent_at[seat])
        self.result.plays += 1

    def _maybe_join(self) -> None:
        if self.table_id is None or self.hello_done < 4 or self.conns[0].closed:
            return
        if self.join_sent:
            return
        self.join_sent = True
        for seat, conn in enumerate(self.conns):
            conn.send(b'{"type":"join","table":%s,"seat":"%s"}\n'
                      % (json.dumps(self.table_id).encode(), SEATS[seat].encode()))


class BaselineGroup:
    """Four clients of the bare relay server passing ``plays`` lines round the group."""

    def __init__(self, index: int, plays: int, result: WorkerResult) -> None:
        self.index = index
        self.plays = plays
        self.result = result
        self.started = 0
        self.refused = False
        self.finished = 0
        self.conns: list[Conn] = []
        self.sent_at: list[float] = [0.0] * 4

    @property
    def seated(self) -> bool:
        return self.started == 4

    @property
    def done(self) -> bool:
        return self.finished == 4

    def connect(self, sel: selectors.BaseSelector, port: int) -> None:
        for seat in range(4):
            conn = Conn(sel, port, self._handler(seat))
            conn.send(b"join g%d\n" % self.index)
            self.conns.append(conn)

    def go(self) -> None:
        self.sent_at[0] = time.monotonic()
        self.conns[0].send(b"0 0\n")

    def _handler(self, seat: int) -> Callable[[bytes], None]:
        def on_line(line: bytes) -> None:
            self.on_message(seat, line)

        return on_line

    def on_message(self, seat: int, line: bytes) -> None:
        if line == b"start":
            self.started += 1
            return
        sender_text, _, number_text = line.partition(b" ")
        sender, number = int(sender_text), int(number_text)
        if sender == seat:
            self.result.latencies.append(time.monotonic() - self.sent_at[seat])
            self.result.plays += 1
        following = number + 1
        if following == self.plays:
            self.finished += 1
            if self.done:
                self.result.done_tables += 1
                self.result.end = time.monotonic()
        elif following % 4 == seat:
            self.sent_at[seat] = time.monotonic()
            self.conns[seat].send(b"%d %d\n" % (seat, following))


Group = JackalTable | BaselineGroup


def _service(sel: selectors.BaseSelector, groups: Sequence[Group], timeout: float,
             result: WorkerResult) -> None:
    """One selector round: flush what can be written, read what came, note early closes."""
    for key, mask in sel.select(timeout):
        conn: Conn | WsConn = key.data
        if mask & selectors.EVENT_WRITE:
            conn.flush()
        if mask & selectors.EVENT_READ and not conn.readable():
            owner = next((g for g in groups if conn in g.conns), None)
            if owner is not None and not owner.done:
                result.errors.append(f"group {owner.index}: connection closed early")


def _pump(sel: selectors.BaseSelector, groups: Sequence[Group], until: Callable[[], bool],
          deadline: float, result: WorkerResult) -> None:
    """Run the selector loop until ``until()`` holds or the deadline passes."""
    while not until():
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            return
        _service(sel, groups, min(timeout, 1.0), result)


def worker_main(kind: str, port: int, indices: list[int], options: dict[str, Any],
                ready_q: Any, go: Any, results_q: Any) -> None:
    """One client process: connect its groups, wait for the start signal, play to the end."""
    _raise_fd_limit()
    result = WorkerResult()
    sel = selectors.DefaultSelector()
    groups: list[Group] = []
    conn_type = WsConn if options.get("transport") == "ws" else Conn
    try:
        for index in indices:
            group: Group
            if kind == "jackal":
                group = JackalTable(index, options["seed"] + index, options["target"], result,
                                    conn_type)
            else:
                group = BaselineGroup(index, options["plays"], result)
            group.connect(sel, port)
            groups.append(group)
        setup_deadline = time.monotonic() + options["timeout"]
        _pump(sel, groups, lambda: all(g.seated or g.refused for g in groups),
              setup_deadline, result)
        unseated = sum(1 for g in groups if not g.seated)
        if unseated:
            result.errors.append(f"{unseated} groups never got seated")
        ready_q.put(("ready", os.getpid()))
        go.wait(options["timeout"])
        cpu_from = time.process_time()
        for group in groups:
            if group.seated:
                group.go()
        deadline = time.monotonic() + options["timeout"]
        _pump(sel, groups, lambda: all(g.done or not g.seated for g in groups), deadline, result)
        result.client_cpu = time.process_time() - cpu_from
        late = sum(1 for g in groups if g.seated and not g.done)
        if late:
            result.errors.append(f"{late} groups did not finish within {options['timeout']} s")
    except Exception as exc:  # a benchmark must report, not die silently
        result.errors.append(f"client process failed: {exc!r}")
        ready_q.put(("ready", os.getpid()))
    finally:
        for group in groups:
            for conn in group.conns:
                conn.close()
    results_q.put(result)


@dataclass
class RunStats:
    plays: int
    seconds: float
    latencies: list[float]
    errors: list[str]
    done: int
    #: Deals ended, expert figures delivered, declared unavailable (see WorkerResult).
    expert: tuple[int, int, int] = (0, 0, 0)
    #: CPU seconds of every client process together, from the start signal to its end.
    client_cpu: float = 0.0

    @property
    def plays_per_s(self) -> float:
        return self.plays / self.seconds if self.seconds > 0 else 0.0

    def percentile_ms(self, q: float) -> float:
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
        return ordered[rank] * 1000.0


def run_clients(kind: str, port: int, groups: int, procs: int, options: dict[str, Any],
                on_go: Callable[[], None] | None = None) -> RunStats:
    """Spread ``groups`` over ``procs`` client processes and collect their figures;
    ``on_go`` is called as the start signal is given (every group seated)."""
    ctx = mp.get_context("fork")
    ready_q = ctx.Queue()
    results_q = ctx.Queue()
    go = ctx.Event()
    procs = max(1, min(procs, groups))
    workers = []
    for number in range(procs):
        indices = list(range(number, groups, procs))
        worker = ctx.Process(target=worker_main, daemon=True,
                             args=(kind, port, indices, options, ready_q, go, results_q))
        worker.start()
        workers.append(worker)
    for _ in workers:
        ready_q.get(timeout=options["timeout"] + 30)
    if on_go is not None:
        on_go()
    start = time.monotonic()
    go.set()
    results = [results_q.get(timeout=options["timeout"] * 2 + 30) for _ in workers]
    for worker in workers:
        worker.join(10)
    end = max((r.end for r in results if r.end), default=start)
    return RunStats(
        plays=sum(r.plays for r in results),
        seconds=end - start,
        latencies=[x for r in results for x in r.latencies],
        errors=[e for r in results for e in r.errors],
        done=sum(r.done_tables for r in results),
        expert=_expert_counts(results),
        client_cpu=sum(r.client_cpu for r in results),
    )


def _expert_counts(results: Sequence[WorkerResult]) -> tuple[int, int, int]:
    return (sum(r.deals for r in results), sum(r.expert_delivered for r in results),
            sum(r.expert_unavailable for r in results))


# --------------------------------------------------------------------------- paced mode
#
# Open loop: every table has a fixed timeline, play k due at ``start + phase + k / rate``
# (a random phase per table spreads the tables evenly). The client whose turn it is sends
# its play at the due time, or as soon as its turn arrives if the server is late, and the
# latency is measured from the DUE time to the play's own ``played`` reply. So a slow
# server cannot slow the offered load down, and its slowness is not hidden by plays that
# were simply sent later (no coordinated omission). Only plays due inside the measuring
# window (after ``--warmup``, for ``--duration`` seconds) are counted.


@dataclass
class PacedWindow:
    """When a paced run starts, and which due times it measures."""

    start: float
    rate: float
    warmup: float
    duration: float

    @property
    def measure_from(self) -> float:
        return self.start + self.warmup

    @property
    def stop(self) -> float:
        return self.start + self.warmup + self.duration

    def counts(self, due: float) -> bool:
        return self.measure_from <= due < self.stop


class Timeline:
    """One table's play slots, and the seat waiting for the next one."""

    __slots__ = ("due", "lags", "slot", "start", "step", "waiting")

    def __init__(self, window: PacedWindow, phase: float) -> None:
        self.start = window.start + phase
        self.step = 1.0 / window.rate
        self.slot = 0
        self.due = self.start
        #: The seat whose turn has come but whose slot is not yet due.
        self.waiting: int | None = None
        #: How late the load generator itself was at each timer (its own accuracy).
        self.lags: list[float] = []

    def take(self) -> float:
        """Use the current slot (returns its due time) and move on to the next."""
        due = self.due
        self.slot += 1
        self.due = self.start + self.slot * self.step
        return due


Timers = list[tuple[float, int, "Paced"]]


class Paced:
    """What both kinds of paced group share: the timeline, waiting for a due slot, and
    the latency of a play measured from its slot."""

    window: PacedWindow
    timeline: Timeline
    timers: Timers
    due_of: list[float]
    outstanding: int
    result: WorkerResult

    def _paced_init(self, window: PacedWindow, phase: float, timers: Timers) -> None:
        self.window = window
        self.timeline = Timeline(window, phase)
        self.timers = timers
        self.due_of = [0.0] * 4
        self.outstanding = 0

    @property
    def paced_done(self) -> bool:
        return self.outstanding == 0 and self.timeline.due >= self.window.stop

    def turn_came(self, seat: int) -> None:
        """``seat`` may play: at once if its slot is due, else when it is."""
        line = self.timeline
        if line.due >= self.window.stop:
            return  # the run is over for this group
        line.waiting = seat
        now = time.monotonic()
        if now >= line.due:
            self.fire(now, from_timer=False)
        else:
            heapq.heappush(self.timers, (line.due, id(self), self))

    def fire(self, now: float, *, from_timer: bool = True) -> None:
        line = self.timeline
        seat = line.waiting
        if seat is None or now < line.due:
            return
        if from_timer:
            line.lags.append(now - line.due)
        line.waiting = None
        self.due_of[seat] = line.take()
        self.outstanding += 1
        self.send_paced_play(seat)

    def send_paced_play(self, seat: int) -> None:
        raise NotImplementedError

    def play_came_back(self, seat: int) -> None:
        self.outstanding -= 1
        due = self.due_of[seat]
        if self.window.counts(due):
            self.result.latencies.append(time.monotonic() - due)
            self.result.plays += 1


class PacedJackalTable(Paced, JackalTable):
    """A Jackal table whose plays follow a fixed timeline instead of going at once."""

    def __init__(self, index: int, seed: int, result: WorkerResult, window: PacedWindow,
                 timers: Timers) -> None:
        # A target nobody reaches: the run ends by the clock, not by the match.
        JackalTable.__init__(self, index, seed, 1_000_000, result)
        self._paced_init(window, self.rng.random() / window.rate, timers)

    @property
    def done(self) -> bool:
        return self.paced_done

    def my_turn(self, seat: int) -> None:
        self.turn_came(seat)

    def send_paced_play(self, seat: int) -> None:
        self.send_play(seat)

    def my_play_came_back(self, seat: int) -> None:
        self.play_came_back(seat)


class PacedBaselineGroup(Paced, BaselineGroup):
    """Four bare-relay clients passing lines round the group on the same timelines."""

    def __init__(self, index: int, result: WorkerResult, window: PacedWindow,
                 timers: Timers) -> None:
        BaselineGroup.__init__(self, index, 0, result)
        self._paced_init(window, random.Random(index).random() / window.rate, timers)
        self.next_number = 0

    @property
    def done(self) -> bool:
        return self.paced_done

    def go(self) -> None:
        self.turn_came(0)

    def on_message(self, seat: int, line: bytes) -> None:
        if line == b"start":
            self.started += 1
            return
        sender_text, _, number_text = line.partition(b" ")
        sender, number = int(sender_text), int(number_text)
        if sender == seat:
            self.play_came_back(seat)
        if (number + 1) % 4 == seat:
            self.next_number = number + 1
            self.turn_came(seat)

    def send_paced_play(self, seat: int) -> None:
        self.conns[seat].send(b"%d %d\n" % (seat, self.next_number))


def _pump_paced(sel: selectors.BaseSelector, groups: Sequence[Group], timers: Timers,
                until: Callable[[], bool], deadline: float, result: WorkerResult) -> None:
    """The selector loop of the paced mode: sockets, and the tables' due plays."""
    while not until():
        now = time.monotonic()
        if now >= deadline:
            return
        while timers and timers[0][0] <= now:
            _, _, group = heapq.heappop(timers)
            group.fire(now)
        timeout = min(1.0, deadline - now)
        if timers:
            timeout = max(0.0, min(timeout, timers[0][0] - time.monotonic()))
        _service(sel, groups, timeout, result)


def paced_worker_main(kind: str, port: int, indices: list[int], options: dict[str, Any],
                      ready_q: Any, go: Any, start_at: Any, results_q: Any) -> None:
    """One client process of the paced mode: connect, wait for the start, play on time."""
    _raise_fd_limit()
    result = WorkerResult()
    sel = selectors.DefaultSelector()
    groups: list[Group] = []
    timers: Timers = []
    try:
        window = PacedWindow(0.0, options["rate"], options["warmup"], options["duration"])
        for index in indices:
            group: Group
            if kind == "jackal":
                group = PacedJackalTable(index, options["seed"] + index, result, window, timers)
            else:
                group = PacedBaselineGroup(index, result, window, timers)
            group.connect(sel, port)
            groups.append(group)
        setup_deadline = time.monotonic() + options["timeout"]
        _pump(sel, groups, lambda: all(g.seated or g.refused for g in groups),
              setup_deadline, result)
        unseated = sum(1 for g in groups if not g.seated)
        if unseated:
            result.errors.append(f"{unseated} groups never got seated")
        ready_q.put(("ready", os.getpid()))
        go.wait(options["timeout"])
        window.start = start_at.value  # CLOCK_MONOTONIC is one clock for every process
        for group in groups:
            assert isinstance(group, Paced)
            group.timeline = Timeline(window, group.timeline.start)  # phase kept
            if group.seated:
                group.go()
        deadline = window.stop + options["timeout"]
        _pump_paced(sel, groups, timers, lambda: all(g.done or not g.seated for g in groups),
                    deadline, result)
        late = sum(1 for g in groups if g.seated and not g.done)
        if late:
            result.errors.append(f"{late} groups still waited for replies at the end")
        lags = [x for g in groups if isinstance(g, Paced) for x in g.timeline.lags]
        result.generator_lags = lags
    except Exception as exc:  # a benchmark must report, not die silently
        result.errors.append(f"client process failed: {exc!r}")
        ready_q.put(("ready", os.getpid()))
    finally:
        for group in groups:
            for conn in group.conns:
                conn.close()
    results_q.put(result)


def run_paced_clients(kind: str, server: ServerProcess, groups: int, procs: int,
                      options: dict[str, Any]) -> dict[str, Any]:
    """Spread ``groups`` over client processes, run the paced window, and gather figures
    (the server's CPU and memory are read from /proc at the window's edges)."""
    ctx = mp.get_context("fork")
    ready_q = ctx.Queue()
    results_q = ctx.Queue()
    go = ctx.Event()
    start_at = ctx.Value("d", 0.0)
    procs = max(1, min(procs, groups))
    idle_kib = server.status_kib("VmRSS")
    workers = []
    for number in range(procs):
        indices = list(range(number, groups, procs))
        worker = ctx.Process(target=paced_worker_main, daemon=True,
                             args=(kind, server.port, indices, options, ready_q, go, start_at,
                                   results_q))
        worker.start()
        workers.append(worker)
    for _ in workers:
        ready_q.get(timeout=options["timeout"] + 30)
    seated_kib = server.status_kib("VmRSS")
    window = PacedWindow(time.monotonic() + 0.5, options["rate"], options["warmup"],
                         options["duration"])
    start_at.value = window.start
    go.set()
    # The server's memory every ``--rss-every`` seconds from the start: flat or growing?
    rss: list[tuple[float, int]] = []
    every = options.get("rss_every") or math.inf

    def sleep_until(when: float) -> None:
        while (now := time.monotonic()) < when:
            due = window.start + len(rss) * every
            if due <= now:
                rss.append((round(now - window.start, 1), server.status_kib("VmRSS")))
                continue
            time.sleep(min(when, due) - now)

    sleep_until(window.measure_from)
    cpu_from = server.cpu_seconds()
    sleep_until(window.stop)
    cpu = server.cpu_seconds() - cpu_from
    steady_kib = server.status_kib("VmRSS")
    results = [results_q.get(timeout=options["timeout"] * 2 + 30) for _ in workers]
    for worker in workers:
        worker.join(10)
    stats = RunStats(plays=sum(r.plays for r in results), seconds=options["duration"],
                     latencies=[x for r in results for x in r.latencies],
                     errors=[e for r in results for e in r.errors], done=0)
    lags = sorted(x for r in results for x in r.generator_lags)
    connections = groups * 4
    return {
        "plays": stats.plays,
        "plays_per_s": round(stats.plays_per_s, 1),
        "p50_ms": round(stats.percentile_ms(0.5), 3),
        "p99_ms": round(stats.percentile_ms(0.99), 3),
        "p999_ms": round(stats.percentile_ms(0.999), 3),
        "max_ms": round(stats.percentile_ms(1.0), 3),
        "errors": stats.errors,
        "server_cpu_s": round(cpu, 3),
        "server_cpu_us_per_play": round(cpu / stats.plays * 1e6, 1) if stats.plays else None,
        "server_idle_kib": idle_kib,
        "server_steady_kib": steady_kib,
        "server_kib_per_connection": round((max(seated_kib, steady_kib) - idle_kib)
                                           / connections, 1),
        "server_rss_kib_over_time": rss,
        "deals": sum(r.deals for r in results),
        "expert_delivered": sum(r.expert_delivered for r in results),
        "expert_unavailable": sum(r.expert_unavailable for r in results),
        # The load generator's own timer accuracy: if this is large, the figures above
        # measure the clients, not the server.
        "generator_lag_p99_ms": round(lags[min(len(lags) - 1, math.ceil(0.99 * len(lags)) - 1)]
                                      * 1000.0, 3) if lags else None,
    }


def measure_paced(args: argparse.Namespace) -> dict[str, Any]:
    """The paced mode: Jackal and then the bare relay on the same timelines."""
    options: dict[str, Any] = {"seed": args.seed, "timeout": args.timeout, "rate": args.rate,
                               "warmup": args.warmup, "duration": args.duration,
                               "rss_every": args.rss_every}
    server = ServerProcess(jackal_argv([*server_capacity_args(args.tables), *args.server_arg],
                                       args.profile))
    try:
        time.sleep(0.2)
        jackal = run_paced_clients("jackal", server, args.tables, args.procs, options)
    finally:
        code = server.stop()
    server_errors = server.problems()
    if code not in (0, None, -signal.SIGTERM):
        server_errors.append(f"jackal serve exited with status {code}")
    errors = jackal.pop("errors") + server_errors
    report: dict[str, Any] = {
        "mode": "paced", "rate_per_table": args.rate, "tables": args.tables,
        "connections": args.tables * 4, "client_procs": args.procs,
        "warmup_s": args.warmup, "duration_s": args.duration, **jackal,
        "errors": len(errors), "error_samples": errors[:10],
    }
    if args.no_baseline:
        return report
    baseline_server = ServerProcess(baseline_argv())
    try:
        time.sleep(0.2)
        baseline = run_paced_clients("baseline", baseline_server, args.tables, args.procs,
                                     options)
    finally:
        baseline_server.stop()
    report["baseline_errors"] = len(baseline.pop("errors"))
    for key in ("server_rss_kib_over_time", "deals", "expert_delivered", "expert_unavailable"):
        baseline.pop(key)
    for key in ("plays", "p50_ms", "p99_ms", "p999_ms", "max_ms", "server_cpu_us_per_play",
                "server_kib_per_connection", "generator_lag_p99_ms"):
        report[f"baseline_{key}"] = baseline[key]
    return report


def server_capacity_args(tables: int) -> list[str]:
    """``jackal serve`` options that let one load generator hold ``tables`` tables.

    Every client comes from 127.0.0.1, one address group, so each limit per address is
    lifted where the server has it, and the capacity is four times what the run holds:
    a group's share only shrinks past half the capacity (and the last tenth is kept for
    newcomers), so the run never reaches the fair-share rules it is not measuring."""
    connections = tables * 4
    capacity = ["--max-connections", str(connections * 4 + 100),
                "--max-tables", str(tables * 4 + 10)]
    options = serve_help()
    for flag, value in (("--max-per-address", connections + 100),
                        ("--max-tables-per-address", tables + 10)):
        if flag in options:
            capacity += [flag, str(value)]
    return capacity


def serve_help() -> str:
    """``jackal serve --help`` (which options this version of the server has)."""
    return subprocess.run([sys.executable, "-m", "jackal.cli.main", "serve", "--help"],
                          capture_output=True, text=True, check=False).stdout


def _raise_fd_limit() -> None:
    """Four sockets per table: lift the soft limit on open files to the hard one (the
    server subprocess inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --------------------------------------------------------------------------- main


#: The per-connection rate limit is there to stop floods, and clients playing as fast as
#: they can at a few tables would trip it: lift it, as a server for bots would.
SERVER_DEFAULTS = ("--rate", "1000000", "--quiet")


#: Every server of a run keeps its match records (as ``jackal serve`` does by default) in
#: a folder of its own under this one, removed when the benchmark exits: never in the
#: user's records folder, where the next server started would restore them all.
_RECORDS_ROOT: tempfile.TemporaryDirectory[str] | None = None


def fresh_records_dir() -> str:
    global _RECORDS_ROOT
    if _RECORDS_ROOT is None:
        _RECORDS_ROOT = tempfile.TemporaryDirectory(prefix="jackal-bench-")
    return tempfile.mkdtemp(dir=_RECORDS_ROOT.name)


def jackal_argv(extra: Sequence[str], profile: str | None) -> list[str]:
    head = [sys.executable]
    if profile:
        head += ["-m", "cProfile", "-o", profile]
    return [*head, "-m", "jackal.cli.main", "serve", "--host", HOST, "--port", "0",
            "--records", fresh_records_dir(), *SERVER_DEFAULTS, *extra]


def baseline_argv(stock: bool = False) -> list[str]:
    argv = [sys.executable, str(BENCH_DIR / "baseline_server.py"), "--host", HOST, "--port", "0"]
    return [*argv, "--stock"] if stock else argv


@dataclass
class JackalRun:
    """One run of the Jackal clients against a fresh server, and the server's figures."""

    stats: RunStats
    idle_kib: int
    peak_kib: int
    server_cpu: float
    server_errors: list[str]
    #: The server's CPU seconds from the start signal on (connecting and seating excluded).
    play_cpu: float = 0.0

    def per_play_us(self, seconds: float) -> float | None:
        return round(seconds / self.stats.plays * 1e6, 1) if self.stats.plays else None

    def kib_per_connection(self, connections: int) -> float:
        return round((self.peak_kib - self.idle_kib) / connections, 1)

    @property
    def errors(self) -> list[str]:
        return self.stats.errors + self.server_errors


def run_jackal(args: argparse.Namespace, options: dict[str, Any], transport: str) -> JackalRun:
    """A fresh ``jackal serve`` and the clients over ``transport`` (``tcp`` or ``ws``). In
    the WebSocket comparison both runs' servers serve the web port, so that both start
    from the same idle memory."""
    web = args.transport == "ws"
    extra = [*server_capacity_args(args.tables), *args.server_arg,
             *(["--web", "0"] if web else [])]
    server = ServerProcess(jackal_argv(extra, args.profile), web=web)
    try:
        time.sleep(0.2)
        idle_kib = server.status_kib("VmRSS")
        cpu_before = server.cpu_seconds()
        port = server.web_port if transport == "ws" else server.port
        cpu_at_go = [cpu_before]
        stats = run_clients("jackal", port, args.tables, args.procs,
                            {**options, "transport": transport},
                            on_go=lambda: cpu_at_go.append(server.cpu_seconds()))
        peak_kib = server.status_kib("VmHWM")
        cpu_after = server.cpu_seconds()
    finally:
        code = server.stop()
    server_errors = server.problems()
    if code not in (0, None, -signal.SIGTERM):
        server_errors.append(f"jackal serve exited with status {code}")
    return JackalRun(stats, idle_kib, peak_kib, cpu_after - cpu_before, server_errors,
                     cpu_after - cpu_at_go[-1])


def measure_round(args: argparse.Namespace) -> dict[str, Any]:
    """Run both servers under the same client pattern and gather the report (with
    ``--transport ws``: Jackal over TCP, then over the WebSocket, instead of the relays)."""
    options: dict[str, Any] = {"seed": args.seed, "target": args.target,
                               "timeout": args.timeout, "plays": 0}
    connections = args.tables * 4
    run = run_jackal(args, options, "tcp")
    jackal = run.stats
    report: dict[str, Any] = {
        "tables": args.tables,
        "connections": connections,
        "target": args.target,
        "client_procs": args.procs,
        "matches": jackal.done,
        "plays": jackal.plays,
        "seconds": round(jackal.seconds, 3),
        "plays_per_s": round(jackal.plays_per_s, 1),
        "p50_ms": round(jackal.percentile_ms(0.5), 3),
        "p99_ms": round(jackal.percentile_ms(0.99), 3),
        "p999_ms": round(jackal.percentile_ms(0.999), 3),
        "max_ms": round(jackal.percentile_ms(1.0), 3),
        "errors": len(run.errors) + (args.tables - jackal.done),
        "error_samples": run.errors[:10],
        "server_idle_kib": run.idle_kib,
        "server_peak_kib": run.peak_kib,
        "server_kib_per_connection": run.kib_per_connection(connections),
        "server_cpu_s": round(run.server_cpu, 2),
        "server_cpu_us_per_play": run.per_play_us(run.server_cpu),
        "client_cpu_us_per_play": run.per_play_us(jackal.client_cpu),
        # The deal summary's expert figure: deals ended, figures delivered, declared
        # unavailable (the rest came after the clients left, or never).
        "deals": jackal.expert[0], "expert_delivered": jackal.expert[1],
        "expert_unavailable": jackal.expert[2],
    }
    if args.transport == "ws":
        ws = run_jackal(args, options, "ws")
        report.update(ws_report(args, run, ws))
        report["errors"] += report["ws_errors"]
        report["error_samples"] = (report["error_samples"] + ws.errors)[:10]
        return report
    if args.no_baseline:
        report["baseline_ratio"] = None
        return report

    options["plays"] = max(4, round(jackal.plays / max(1, jackal.done))) if jackal.done else 256
    report["baseline_plays_per_group"] = options["plays"]
    # The bare relay on Jackal's own transport (``baseline_*``: what everything above moving
    # bytes costs), and the same relay written the stock trio way (``stock_relay_*``: the
    # kind of relay issue 16 was measured against).
    for prefix, stock in (("baseline", False), ("stock_relay", True)):
        report.update(relay_report(prefix, stock, args, options, jackal,
                                   report["server_cpu_us_per_play"]))
    return report


def ws_report(args: argparse.Namespace, tcp: JackalRun, ws: JackalRun) -> dict[str, Any]:
    """The WebSocket run's figures (``ws_*``) beside the TCP run's: ``ws_ratio`` is its
    plays per second over TCP's, ``ws_cpu_ratio`` TCP's server CPU per play over its own
    while playing (``*_play_cpu_us_per_play``: from the start signal on, so connecting
    and seating are left out); both 1.0 when the WebSocket costs nothing more."""
    stats, connections = ws.stats, args.tables * 4
    cpu_per_play = ws.per_play_us(ws.play_cpu)
    tcp_cpu_per_play = tcp.per_play_us(tcp.play_cpu)
    return {
        "tcp_play_cpu_us_per_play": tcp_cpu_per_play,
        "ws_play_cpu_us_per_play": cpu_per_play,
        "ws_matches": stats.done,
        "ws_plays": stats.plays,
        "ws_plays_per_s": round(stats.plays_per_s, 1),
        "ws_p50_ms": round(stats.percentile_ms(0.5), 3),
        "ws_p99_ms": round(stats.percentile_ms(0.99), 3),
        "ws_max_ms": round(stats.percentile_ms(1.0), 3),
        "ws_errors": len(ws.errors) + (args.tables - stats.done),
        "ws_server_idle_kib": ws.idle_kib,
        "ws_server_peak_kib": ws.peak_kib,
        "ws_server_kib_per_connection": ws.kib_per_connection(connections),
        "ws_server_cpu_us_per_play": ws.per_play_us(ws.server_cpu),
        "ws_client_cpu_us_per_play": ws.per_play_us(stats.client_cpu),
        "ws_ratio": round(stats.plays_per_s / tcp.stats.plays_per_s, 3)
        if tcp.stats.plays_per_s else None,
        "ws_cpu_ratio": round(tcp_cpu_per_play / cpu_per_play, 3)
        if cpu_per_play and tcp_cpu_per_play else None,
    }


def relay_report(prefix: str, stock: bool, args: argparse.Namespace, options: dict[str, Any],
                 jackal: RunStats, server_cpu_us_per_play: float | None) -> dict[str, Any]:
    """Run the same clients against a bare relay; its figures under ``prefix``."""
    relay_server = ServerProcess(baseline_argv(stock))
    try:
        cpu_before = relay_server.cpu_seconds()
        relay = run_clients(prefix, relay_server.port, args.tables, args.procs, options)
        relay_cpu = relay_server.cpu_seconds() - cpu_before
    finally:
        relay_server.stop()
    cpu_per_play = round(relay_cpu / relay.plays * 1e6, 1) if relay.plays else None
    return {
        f"{prefix}_plays_per_s": round(relay.plays_per_s, 1),
        f"{prefix}_p50_ms": round(relay.percentile_ms(0.5), 3),
        f"{prefix}_p99_ms": round(relay.percentile_ms(0.99), 3),
        f"{prefix}_max_ms": round(relay.percentile_ms(1.0), 3),
        f"{prefix}_errors": len(relay.errors) + (args.tables - relay.done),
        f"{prefix}_cpu_us_per_play": cpu_per_play,
        f"{prefix}_ratio": round(jackal.plays_per_s / relay.plays_per_s, 3)
        if relay.plays_per_s else None,
        # The same comparison by server CPU per play: less sensitive to whatever else the
        # machine is doing while the benchmark runs.
        f"{prefix}_cpu_ratio": round(cpu_per_play / server_cpu_us_per_play, 3)
        if cpu_per_play and server_cpu_us_per_play else None,
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One round, or ``--rounds`` of them (each with fresh servers, the two kinds taking
    turns, so a busy moment on the machine hits both): the median round by ratio is
    reported, with every round's figures under ``rounds`` and errors summed over all."""
    reports = [measure_round(args) for _ in range(max(1, args.rounds))]
    if len(reports) == 1:
        return reports[0]
    by = "ws_ratio" if args.transport == "ws" else "baseline_ratio"
    ordered = sorted(reports, key=lambda r: r.get(by) or 0.0)
    report = dict(ordered[len(ordered) // 2])
    report["errors"] = sum(r["errors"] for r in reports)
    report["error_samples"] = [e for r in reports for e in r["error_samples"]][:10]
    report["server_peak_kib"] = max(r["server_peak_kib"] for r in reports)
    keys: tuple[str, ...] = (
        "plays_per_s", "p50_ms", "p99_ms", "server_cpu_us_per_play", "baseline_plays_per_s",
        "baseline_ratio", "baseline_cpu_ratio", "stock_relay_plays_per_s", "stock_relay_ratio",
        "stock_relay_cpu_ratio")
    if args.transport == "ws":
        keys = ("plays_per_s", "tcp_play_cpu_us_per_play", "ws_plays_per_s",
                "ws_play_cpu_us_per_play", "ws_ratio", "ws_cpu_ratio")
    report["rounds"] = [{key: r.get(key) for key in keys} for r in reports]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=250, help="tables of four clients")
    parser.add_argument("--target", type=int, default=300, help="match target (victory points)")
    parser.add_argument("--seed", type=int, default=1, help="table i uses seed SEED+i")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per phase")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline server")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="extra argument for jackal serve (repeatable)")
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the whole measurement; report the median round")
    parser.add_argument("--transport", choices=("tcp", "ws"), default="tcp",
                        help="ws: play over TCP, then over the WebSocket of jackal serve "
                             "--web (wsproto clients), and compare them (ws_ratio, memory "
                             "a connection) instead of running the bare relays")
    parser.add_argument("--rate", type=float, metavar="PLAYS",
                        help="paced mode: each table plays PLAYS plays a second on a fixed "
                             "timeline (open loop); without it, tables play flat out")
    parser.add_argument("--duration", type=float, default=30.0,
                        help="paced mode: seconds measured (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="paced mode: seconds played before measuring (default 5)")
    parser.add_argument("--rss-every", type=float, default=10.0, metavar="SECONDS",
                        help="paced mode: read the server's memory this often (default 10)")
    args = parser.parse_args(argv)
    _raise_fd_limit()
    if args.rate and args.transport == "ws":
        parser.error("--transport ws measures at saturation: it takes no --rate")
    report = measure_paced(args) if args.rate else measure(args)
    if args.json:
        print(json.dumps(report))
    else:
        width = max(len(key) for key in report)
        for key, value in report.items():
            print(f"{key:<{width}}  {value}")
    return _verdict(report)


def _verdict(report: dict[str, Any]) -> int:
    """0 for a clean run; else say loudly on stderr what went wrong (a refused table
    means a server limit this bench does not lift: its figures measure nothing)."""
    if report["errors"] == 0:
        return 0
    samples: list[str] = report.get("error_samples") or []
    refused = [s for s in samples if "server_full" in s or "not_allowed" in s]
    print(f"server_load: FAILED with {report['errors']} errors; the figures above are not "
          f"a measurement", file=sys.stderr)
    if refused:
        print("server_load: the server refused tables or connections: a limit that "
              "server_capacity_args() does not lift (add it there)", file=sys.stderr)
    for sample in samples[:5]:
        print(f"  {sample}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
