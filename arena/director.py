"""Playing a tournament's tables over the protocol (the engine room of ``jackal tournament``).

Each table is run by a *director*: one connection that creates the table (private), seats
the two entries, watches it through a :class:`~jackal.client.mirror.TableMirror` and has
the substitute play every move a program does not (docs/BOTS.md says what counts).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from ..bots.registry import make_strategy
from ..client.connection import (
    ClientError,
    Connection,
    ServerError,
    first_leaf,
    open_connection,
)
from ..client.exec_host import (
    EXEC_FEATURES,
    EXIT_GRACE,
    MOVE_SECONDS,
    START_SECONDS,
    ExecProgram,
    end_tree,
    play_exec_match,
)
from ..client.mirror import TableMirror
from ..client.sandbox import Sandbox, SandboxPlan
from ..client.session import SeatSession
from ..game.cards import Card
from ..game.conventions import BUILTIN_CARDS, ConventionCard, resolve_card
from ..game.seats import SEATS, Seat
from ..protocol.messages import (
    BotTakeover,
    DealEnded,
    DealStarted,
    MatchEnded,
    Played,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
    ServerMessage,
    TableCreated,
    Turn,
)
from ..protocol.requests import AddBot, CreateTable, Hello, Spectate
from .launch import launch_cmd, output_pipe, stop_launched
from .program_output import ProgramOutput
from .relay import SeatGuard, SeatRelay
from .tournament import Entry, TableJob, TableResult

__all__ = ["DirectorSettings", "TableFailed", "play_table", "play_tables", "safe_server_value"]

log = logging.getLogger("jackal.tournament")

#: What a value from the server (a table id, an invitation code) must look like before a
#: program's command line or environment gets it: letters, digits, ``_ . -``, not
#: starting with ``-`` (which a program would read as an option).
_SAFE_VALUE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")


class TableFailed(Exception):
    """A table could not be played to its end (the message says why)."""


def safe_server_value(what: str, value: str) -> str:
    """``value`` if it is a plain word a program may be given; else :class:`TableFailed`."""
    if not _SAFE_VALUE.fullmatch(value):
        raise TableFailed(f"the server gave a {what} that is not a plain word: {value!r}; "
                          "no program was started with it")
    return value


@dataclass(frozen=True)
class DirectorSettings:
    """Where the tables are played and how long anyone may take."""

    host: str
    port: int
    password: str | None = None
    move_seconds: float = MOVE_SECONDS
    #: Extra time for an ``exec:`` program's first answer after each start or restart,
    #: for its own start-up (as ``jackal bot --exec --start-seconds``).
    start_seconds: float = START_SECONDS
    #: How long the programs of a table have to take their seats and say ``ready``.
    seat_seconds: float = 15.0
    #: The strategy that plays every move a program does not play itself (a no-show's,
    #: a crashed, hung or stopped program's, an answer that is not a card).
    substitute: str = "random"
    #: How long the server holds a dropped seat before its substitute plays (to size
    #: the stall limit; the server decides the real hold).
    hold_seconds: float = 120.0
    #: The folder the server writes its records to, when the director can see it.
    records: Path | None = None
    #: Let programs write to this process's stdout/stderr (else they are silenced).
    program_output: bool = False
    #: How each copy of a program is sandboxed (a fresh sandbox per copy and table).
    sandbox: SandboxPlan = field(default_factory=SandboxPlan)
    #: Where the programs' stderr lines go (escaped, labelled, kept per entry); None:
    #: exec: programs write to ours as they are (jackal bot's way).
    output: ProgramOutput | None = None
    #: Every ``exec:`` program's card leaves a whole number of these after its turn
    #: (:mod:`jackal.client.release`), as the server's bot floor holds its bots' cards.
    floor_seconds: float = 0.0
    #: Bounds the ``exec:`` programs thinking at once, over all tables (``--jobs``); set
    #: by :func:`play_tables`.
    thinking: trio.CapacityLimiter | None = field(default=None, compare=False)


def card_spec(entry: Entry) -> str | ConventionCard:
    """The entry's card as ``create_table`` takes it: a built-in by name, else inline."""
    card = resolve_card(entry.conventions)
    return card.name if card.name in BUILTIN_CARDS else card


@dataclass
class _Seat:
    """What the director keeps about one seat beyond the mirror: who plays it and why a
    substitute does, its program, and the moves blamed on it."""

    entry: Entry
    #: Why a substitute plays it now (a fault kind), or None while the entry does.
    substitute: str | None = None
    #: The fault a takeover of this seat will be blamed on (set when we stop a program).
    cause: str = "crash"
    process: trio.Process | None = None
    sandbox: Sandbox | None = None
    faults: Counter[str] = field(default_factory=Counter)
    #: A ``cmd:`` program's relay to the server (:mod:`jackal.arena.relay`).
    relay: SeatRelay | None = None


async def play_tables(options: DirectorSettings, jobs: Sequence[TableJob],
                      entries: Sequence[Entry], concurrency: int,
                      progress: Callable[[TableResult], None] | None = None,
                      tables_at_once: int | None = None
                      ) -> tuple[list[TableResult], list[str]]:
    """Play every table of ``jobs``: the results in schedule order, and a line for each
    table that could not be finished (one broken table does not end the tournament).
    ``progress`` is called as each table ends.

    ``concurrency`` (``--jobs``) bounds the CPU work: the ``exec:`` programs thinking at
    once. ``tables_at_once`` bounds the tables in play (default ``concurrency``), which
    may be many more, since a table under a release floor mostly waits
    (:func:`~jackal.arena.tournament.tables_in_play`); the two tables of one board and
    pair never overlap.
    """
    by_name = {entry.name: entry for entry in entries}
    results: list[TableResult] = []
    failures: list[str] = []
    options = dataclasses.replace(options, thinking=trio.CapacityLimiter(concurrency))
    slots = trio.Semaphore(tables_at_once or concurrency)

    async def one(unit: list[TableJob]) -> None:
        try:
            for job in unit:
                try:
                    result = await play_table(options, job, by_name)
                except Exception as exc:  # one broken table must not end it all
                    failures.append(f"table {job.number} (board {job.board}, {job.ns} v "
                                    f"{job.ew}) not finished: {_describe(exc)}")
                else:
                    results.append(result)
                    if progress is not None:
                        progress(result)
        finally:
            slots.release()

    async with trio.open_nursery() as tables:
        for unit in _units(jobs):
            await slots.acquire()
            tables.start_soon(one, unit)
    results.sort(key=lambda result: result.job.number)
    return results, failures


def _units(jobs: Sequence[TableJob]) -> list[list[TableJob]]:
    """The tables grouped by board and pair (both ways round), in schedule order: a unit's
    tables are played one after the other, so nobody plays a board from one side while it
    is being played from the other."""
    units: dict[tuple[int, frozenset[str]], list[TableJob]] = {}
    for job in jobs:
        units.setdefault((job.board, frozenset((job.ns, job.ew))), []).append(job)
    return list(units.values())


def _describe(exc: BaseException) -> str:
    """What went wrong, without the nursery wrapping (the first leaf of a group)."""
    leaf = first_leaf(exc)
    return str(leaf) or type(leaf).__name__


async def play_table(options: DirectorSettings, job: TableJob,
                     entries: Mapping[str, Entry]) -> TableResult:
    """Create ``job``'s table, seat its entries, watch it to the end and return the board.

    The table has target 1, the board's seed and both entries' convention cards; it is
    private (one invitation code per seat, so only the seats' own programs can sit there)
    and has no spectators but the director, since another pair plays the same board at
    the same time. Everything scored comes from what the director sees as a spectator
    (the plays, and ``deal_ended`` with every seat's kept cards and the result), so it
    works the same against a remote ``--server``. A seat's moves played by a substitute
    are its faults, by kind; the exec host reports its own fallbacks.

    Raises :class:`TableFailed` (or a ``ClientError``) when the table cannot finish.
    """
    started = trio.current_time()
    async with open_connection(options.host, options.port) as conn:
        result = await _direct(conn, options, job, entries)
    result.started, result.ended = started, trio.current_time()
    return result


async def _direct(conn: Connection, options: DirectorSettings, job: TableJob,
                  entries: Mapping[str, Entry]) -> TableResult:
    await conn.request(Hello(name="tournament", client="jackal-tournament",
                             password=options.password))
    ns, ew = entries[job.ns], entries[job.ew]
    created = await conn.request(CreateTable(
        name=f"board {job.board} table {job.number}"[:32], target=1, seed=job.seed,
        conventions_ns=card_spec(ns), conventions_ew=card_spec(ew), private=True,
        allow_spectators=False))
    assert isinstance(created, TableCreated)
    table = safe_server_value("table id", created.table)
    invitations = created.invitations or {}
    if set(invitations) != set(SEATS):
        raise TableFailed(f"table {table}: the server made no private table (it gave "
                          f"invitations for {sorted(invitations) or 'no seat'})")
    codes = {seat: safe_server_value("invitation code", invitations[seat]) for seat in SEATS}
    watch = _Watch(conn, options, job, table, {seat: _Seat(entries[job.entry_at(seat)])
                                               for seat in SEATS})
    watch.mirror.apply(await conn.request(Spectate(table=table)))
    exec_faults: dict[Seat, Counter[str]] = {}
    try:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                await nursery.start(watch.guard.run)
                for seat in SEATS:
                    await _seat_entry(nursery, watch, seat, codes[seat], exec_faults)
                nursery.start_soon(watch.watch_exits)
                await watch.run()
                watch.exits.cancel()
                watch.guard.stop()
                _close_relays(watch.seats)
                # The exec hosts end by themselves after match_ended, once their program
                # has had its grace to exit; past that they are cut short.
                scope.deadline = trio.current_time() + 2 * EXIT_GRACE + 1
    finally:
        with trio.CancelScope(shield=True):
            await _stop_processes(watch.seats)
    faults: dict[Seat, Counter[str]] = {}
    for seat, slot in watch.seats.items():
        faults[seat] = slot.faults + exec_faults.get(seat, Counter())
    assert watch.mirror.deals, "run() returns only after deal 1 was scored"
    ended = watch.mirror.deals[0]
    return TableResult(job=job, table=table, plays=watch.plays, penalty=dict(ended.penalty),
                       winner=ended.winner, points=ended.victory_points, faults=faults,
                       record=_record_of(options.records, table))


async def _seat_entry(nursery: trio.Nursery, watch: _Watch, seat: Seat, invite: str,
                      exec_faults: dict[Seat, Counter[str]]) -> None:
    """Seat ``seat``'s entry: a built-in strategy as a server-side bot (``add_bot``); an
    ``exec:`` program hosted here (:func:`_host_exec`); a ``cmd:`` program as a process of
    its command, told where to sit (and with which invitation) by the placeholders of
    :data:`jackal.arena.tournament.PLACEHOLDERS`, substituted into the split argument
    list, and by ``JACKAL_*`` environment variables. The values that come from the
    server (the table id and the codes) were checked by :func:`safe_server_value`.

    A ``cmd:`` client plays over its own connection, so the director enforces its move
    limit from outside (:class:`_Watch`): it kills the process, the server holds the seat
    for its hold time and hands it to its takeover bot (the substitute), which plays the
    rest of the board. A client that disconnects by itself (a crash, or the server closed
    it for garbage) is substituted the same way. Every program runs in a process group of
    its own, killed whole when its table ends (:func:`_stop_processes`).
    """
    options, table, slot = watch.options, watch.table, watch.seats[seat]
    entry = slot.entry
    if entry.kind == "builtin":
        await watch.conn.request(AddBot(table=table, seat=seat, strategy=entry.spec))
        return
    slot.sandbox = options.sandbox.new()
    if entry.kind == "exec":
        nursery.start_soon(_host_exec, watch, seat, invite, slot.sandbox, exec_faults,
                           output_pipe(nursery, options.output, entry.name,
                                       f"{entry.name} {table} {seat.value}", True))
        return
    relay = slot.relay = SeatRelay(options.host, options.port, watch.guard.logs[seat])
    await nursery.start(relay.serve)
    values = {"host": "127.0.0.1", "port": str(relay.port), "table": table,
              "seat": seat.value, "name": entry.name, "password": options.password or ""}
    stderr = output_pipe(nursery, options.output, entry.name,
                         f"{entry.name} {table} {seat.value}", options.program_output)
    try:
        slot.process = await launch_cmd(entry.spec, values, invite, slot.sandbox.root,
                                        options.sandbox, stderr, options.program_output)
    except OSError as exc:
        log.warning("table %s seat %s: cannot run %r: %s", table, seat, entry.spec, exc)
        await watch.gone(seat)
    finally:
        if stderr is not None:
            os.close(stderr)


async def _host_exec(watch: _Watch, seat: Seat, invite: str, sandbox: Sandbox,
                     exec_faults: dict[Seat, Counter[str]], stderr: int | None) -> None:
    """One seat of an ``exec:`` entry, as ``jackal bot --exec`` plays it
    (:func:`jackal.client.exec_host.play_exec_match`): one copy of the program per seat,
    in a sandbox of its own (:mod:`jackal.client.sandbox`), but with the tournament's
    substitute (not the fallback card), run here on the seat's own view, for the moves it
    times out on, crashes on or answers with something that is not a card of its hand."""
    options, table, entry = watch.options, watch.table, watch.seats[seat].entry
    # Named in its log lines: many copies of many programs log side by side here.
    program = ExecProgram(entry.spec, startup_seconds=options.start_seconds, sandbox=sandbox,
                          where=f"table {table} seat {seat.value} ({entry.name}): ")
    program.stderr = stderr
    try:
        await _play_hosted(watch, seat, invite, program, exec_faults)
    finally:
        if stderr is not None:
            os.close(stderr)


async def _play_hosted(watch: _Watch, seat: Seat, invite: str, program: ExecProgram,
                       exec_faults: dict[Seat, Counter[str]]) -> None:
    options, table, entry = watch.options, watch.table, watch.seats[seat].entry
    try:
        await program.start()
    except OSError as exc:
        log.warning("table %s seat %s: cannot run %r: %s", table, seat, entry.spec, exc)
        await watch.gone(seat)  # the seat stays empty: the substitute sits in (no_show)
        return
    # Seeded as the server seeds its own bots: nobody can replay its randomness.
    substitute = make_strategy(options.substitute, secrets.randbits(128))
    session = SeatSession(options.host, options.port, name=entry.name, table=table,
                          seat=seat, password=options.password, client="jackal-tournament",
                          features=EXEC_FEATURES, invite=invite)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)
            if session.seat is not None:  # the seat this connection of ours was given
                watch.guard.logs[seat].joined(session.seat)
            result = await play_exec_match(session, program, move_seconds=options.move_seconds,
                                           events=entry.events, substitute=substitute,
                                           floor_seconds=options.floor_seconds,
                                           thinking=options.thinking)
            exec_faults[seat] = result.deal_faults.get(1, Counter())  # deal 1 is scored
            nursery.cancel_scope.cancel()
    except ClientError as exc:
        if not watch.guard.logs[seat].seats:
            watch.guard.logs[seat].refuse()  # no join of ours is coming any more
        log.warning("table %s seat %s: %s", table, seat, exc)
    finally:
        await program.kill()


def _close_relays(seats: Mapping[Seat, _Seat]) -> None:
    """End the ``cmd:`` programs' relays (the match is over, or the table failed)."""
    for slot in seats.values():
        if slot.relay is not None:
            slot.relay.close()


async def _stop_processes(seats: Mapping[Seat, _Seat]) -> None:
    """Give every ``cmd:`` process :data:`EXIT_GRACE` to exit after the match, then kill
    its whole process group; remove every sandbox folder."""
    with trio.move_on_after(EXIT_GRACE):
        for slot in seats.values():
            if slot.process is not None:
                await slot.process.wait()
    for slot in seats.values():
        if slot.process is not None:
            await end_tree(slot.process, launched=True)
        if slot.sandbox is not None:
            slot.sandbox.remove()


def _record_of(directory: Path | None, table: str) -> str | None:
    """The newest record file of ``table`` in ``directory`` (named ``STAMP-TABLE-HEX``)."""
    if directory is None:
        return None
    found = sorted(directory.glob(f"*-{table}-*.jsonl"), key=lambda path: path.stat().st_mtime)
    return found[-1].name if found else None


class _Watch:
    """The spectator side of a director: follows the table through a mirror until
    ``match_ended``, and keeps the clocks a mirror has no business with (the start and a
    ``cmd:`` client's move).

    A program that does not take its seat within ``seat_seconds`` (never says ``ready``)
    is stopped and the substitute sits in for it (fault ``no_show`` for every move of
    that seat); one that cannot be run, or exits before its seat is taken, gets it at once
    (:meth:`gone`). So every move an entry's program does not play itself, whatever the
    fault, is played by the same strategy: on the server for a no-show or a stopped
    ``cmd:`` client, in :func:`_host_exec` for an ``exec:`` program's move. A table where
    nothing happens for much longer than a move, a hold and a start allow is given up
    (:class:`TableFailed`).
    """

    def __init__(self, conn: Connection, options: DirectorSettings, job: TableJob, table: str,
                 seats: dict[Seat, _Seat]) -> None:
        self.conn = conn
        self.options = options
        self.job = job
        self.table = table
        self.seats = seats
        self.mirror = TableMirror()
        #: Deal 1's plays (the mirror keeps only the current deal's; its results it keeps).
        self.plays: list[tuple[Seat, Card]] = []
        now = trio.current_time()
        self.start_deadline: float | None = now + options.seat_seconds
        #: Cancelled once the seats are taken: until then a program that exits is a
        #: no-show at once (:meth:`watch_exits`).
        self.exits = trio.CancelScope()
        #: The cmd: seat whose move the director is timing, and until when.
        self._watched: Seat | None = None
        self.move_deadline: float | None = None
        # Nothing at all for this long means the table is stuck for good.
        self.stall_limit = (options.seat_seconds + options.start_seconds
                            + options.hold_seconds + 4 * options.move_seconds + 30.0)
        self.last_news = now
        self.guard = SeatGuard(table, {seat: slot.entry.name for seat, slot in seats.items()
                                       if slot.entry.kind != "builtin"})

    async def run(self) -> None:
        while True:
            deadline = min(d for d in (self.start_deadline, self.move_deadline,
                                       self.last_news + self.stall_limit) if d is not None)
            with trio.move_on_at(deadline):
                event = await self.conn.next_event()
                self.last_news = trio.current_time()
                if isinstance(event, MatchEnded):
                    if not self.mirror.deals:
                        raise TableFailed(f"table {self.table}: the match ended without "
                                          "deal 1")
                    return
                await self._on(event)
                continue
            await self._on_deadline(trio.current_time())

    async def _on(self, event: ServerMessage) -> None:
        mirror = self.mirror
        if isinstance(event, DealEnded) and event.deal == 1:
            # Deal 1's plays, as the mirror holds them until the next deal starts.
            self.plays = list(mirror.history())
        change = mirror.apply(event)
        match event:
            case PlayerLeft(seat=seat):
                # A program stopped for missing the start, or gone before it: once its
                # hold has ended, the substitute sits in. (During the match the server's
                # takeover bot does.)
                slot = self.seats[seat]
                if not mirror.deal and (self.start_deadline is None
                                        or slot.cause == "no_show"):
                    await self._sit_in(seat, slot.cause)
            case BotTakeover(seat=seat, strategy=strategy):
                slot = self.seats[seat]
                slot.substitute = slot.cause
                if strategy != self.options.substitute:  # a --server's own takeover bot
                    log.warning("table %s seat %s (%s): the server's substitute is %s, not "
                                "%s", self.table, seat, slot.entry.name, strategy,
                                self.options.substitute)
            case PlayerBack(seat=seat):
                self.seats[seat].substitute = None
            case PlayerJoined(seat=seat, kind=kind):
                self.guard.claimed(seat, kind)
            case DealStarted():
                self.start_deadline = None
                self.exits.cancel()
            case Turn(seat=seat):
                self._turn(seat)
            case _ if change.play is not None:
                seat = change.play.seat
                slot = self.seats[seat]
                if isinstance(event, Played) and event.by == "substitute" \
                        and slot.substitute is None:
                    # The server's takeover bot plays the seat: its bot_takeover comes
                    # only at the end of this turn (seat news waits for the seat's turn).
                    slot.substitute = slot.cause
                if mirror.deal == 1 and slot.substitute is not None:
                    slot.faults[slot.substitute] += 1
                if seat is self._watched:
                    self._watched = self.move_deadline = None
            case _:
                pass

    def _turn(self, seat: Seat) -> None:
        slot = self.seats[seat]
        # Only a cmd: client needs the director's clock: the exec host times its own
        # program, and the server times its own bots.
        watched = slot.entry.kind == "cmd" and slot.substitute is None and (
            slot.process is not None and slot.process.returncode is None)
        self._watched = seat if watched else None
        self.move_deadline = trio.current_time() + self.options.move_seconds if watched \
            else None

    async def _on_deadline(self, now: float) -> None:
        if now >= self.last_news + self.stall_limit:
            raise TableFailed(f"table {self.table}: nothing happened for "
                              f"{self.stall_limit:g}s")
        if self.move_deadline is not None and now >= self.move_deadline:
            seat = self._watched
            assert seat is not None
            slot = self.seats[seat]
            log.warning("table %s seat %s (%s): no move within %gs; stopping it, the "
                        "substitute plays the seat", self.table, seat, slot.entry.name,
                        self.options.move_seconds)
            self.move_deadline = self._watched = None
            slot.cause = "timeout"
            if slot.process is not None:
                stop_launched(slot.process)
        if self.start_deadline is not None and now >= self.start_deadline:
            self.start_deadline = None
            for seat, slot in self.seats.items():
                info = self.mirror.seats[seat]
                if slot.entry.kind == "builtin" or slot.substitute is not None or (
                        info.kind != "empty" and info.ready):
                    continue
                log.warning("table %s seat %s (%s): did not take its seat within %gs; a "
                            "substitute sits in", self.table, seat, slot.entry.name,
                            self.options.seat_seconds)
                slot.cause = "no_show"
                if slot.process is not None and slot.process.returncode is None:
                    stop_launched(slot.process)  # when its hold ends, player_left seats one
                if info.kind == "empty":
                    await self._sit_in(seat, "no_show")

    async def watch_exits(self) -> None:
        """Until the seats are taken (:attr:`exits` is cancelled then), a ``cmd:``
        program that exits is a no-show at once, instead of at the seat deadline."""
        with self.exits:
            async with trio.open_nursery() as nursery:
                for seat, slot in self.seats.items():
                    if slot.process is not None:
                        nursery.start_soon(self._exited, seat, slot.process)

    async def _exited(self, seat: Seat, process: trio.Process) -> None:
        await process.wait()
        await self.gone(seat)

    async def gone(self, seat: Seat) -> None:
        """``seat``'s program could not run or ended before the match began: the
        substitute sits in now if the seat is empty, else once its hold ends."""
        if self.start_deadline is None:
            return  # the match began: the server's hold and takeover see to it
        slot = self.seats[seat]
        slot.cause = "no_show"
        if self.mirror.seats[seat].kind == "empty":
            await self._sit_in(seat, "no_show")

    async def _sit_in(self, seat: Seat, why: str) -> None:
        """Seat the substitute in an empty seat for good; its moves are ``why`` faults."""
        self.guard.bots_asked.add(seat)
        try:
            await self.conn.request(AddBot(table=self.table, seat=seat,
                                           strategy=self.options.substitute))
        except ServerError as exc:  # e.g. the program took the seat after all
            log.warning("table %s seat %s: no substitute: %s", self.table, seat, exc)
            return
        self.seats[seat].substitute = why

