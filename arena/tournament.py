"""A duplicate tournament on paper: entries, the schedule of tables, and the standings.

What ``jackal tournament`` decides without any I/O, so it can be tested and reused on its
own; playing the tables over the protocol is :mod:`.director`. The rules (boards, the
duplicate schedule, standings, faults) are docs/BOTS.md's ("A tournament between programs").
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from ..bots.cards import default_conventions
from ..bots.registry import STRATEGIES
from ..bots.yardstick import Efficiency, EfficiencySums, baseline_penalty, optimum_penalty
from ..game.cards import Card
from ..game.deal import Deal
from ..game.errors import MalformedInput
from ..game.match import deal_seed, first_dealer
from ..game.seats import Seat, Team
from .reports import EntryReport, StandingReport, TableReport, rounded
from .run import wilson_interval

__all__ = [
    "PLACEHOLDERS",
    "WAITING_TABLES",
    "WAITING_TABLES_REMOTE",
    "Entry",
    "Standing",
    "TableJob",
    "TableResult",
    "board_deal",
    "command_argv",
    "parse_entry",
    "ranks",
    "schedule",
    "standings",
    "tables_in_play",
]

EntryKind = Literal["builtin", "exec", "cmd"]

#: The placeholders a ``cmd:`` entry's command may contain, and what replaces them.
PLACEHOLDERS = {
    "{host}": "the server's host",
    "{port}": "the server's port",
    "{table}": "the table id to join",
    "{seat}": "the seat to take (N, E, S or W)",
    "{name}": "the entry's name",
    "{password}": "the server password (empty if none)",
    "{invite_fd}": "a descriptor to read the seat's invitation code from (one line)",
}

#: Longest entry name: a player name on the wire is at most 32 characters.
MAX_NAME = 32
_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")


@dataclass(frozen=True)
class Entry:
    """One competitor: a built-in strategy or a program, and its convention card."""

    name: str
    kind: EntryKind
    #: The strategy name (builtin) or the command (exec, cmd).
    spec: str
    #: The convention card the entry's partnership declares (a built-in name or a file).
    conventions: str
    #: What an ``exec:`` program is sent, as ``jackal bot --exec-events``: ``your_turn``
    #: lines only, or every event and the whole cards too.
    events: Literal["your_turn", "all"] = "your_turn"

    def report(self) -> EntryReport:
        """The entry as the results name it (``events`` only for an ``exec:`` one)."""
        return EntryReport(name=self.name, kind=self.kind, spec=self.spec,
                           conventions=self.conventions,
                           events=self.events if self.kind == "exec" else msgspec.UNSET)


def parse_entry(text: str, conventions: str | None = None) -> Entry:
    """``NAME=SPEC`` as an :class:`Entry`; raises ``MalformedInput`` saying what is wrong.

    ``conventions`` overrides the card; by default a built-in strategy plays the card it
    was built for (as in the arena) and a program plays ``none`` (its plays promise
    nothing), since the tournament cannot know what a program means by its cards.
    """
    name, equals, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not equals or not name or not spec:
        raise MalformedInput(f"an entry is NAME=SPEC, not {text!r}")
    if len(name) > MAX_NAME or not _NAME.match(name):
        raise MalformedInput(f"entry name {name!r}: use up to {MAX_NAME} letters, digits "
                             "and . _ + -")
    kind: EntryKind
    for prefix in ("exec:", "cmd:"):
        if spec.startswith(prefix):
            kind = "exec" if prefix == "exec:" else "cmd"
            spec = spec[len(prefix):].strip()
            if not spec:
                raise MalformedInput(f"entry {name!r}: an empty command")
            if kind == "cmd" and "{invite}" in spec:
                # Arguments and environment are readable by other programs in /proc.
                raise MalformedInput(f"entry {name!r}: {{invite}} is no longer given on the "
                                     "command line; read the code from the descriptor "
                                     "{invite_fd} (also in JACKAL_INVITE_FD)")
            return Entry(name, kind, spec, conventions or "none")
    if spec not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        raise MalformedInput(f"entry {name!r}: {spec!r} is not a built-in strategy ({known}) "
                             "nor exec:COMMAND or cmd:COMMAND")
    return Entry(name, "builtin", spec, conventions or default_conventions(spec))


@dataclass(frozen=True)
class TableJob:
    """One table of the tournament: a board, and which entry sits at N/S and at E/W."""

    number: int
    board: int
    seed: int
    ns: str
    ew: str

    def entry_at(self, seat: Seat) -> str:
        return self.ns if seat.team is Team.NS else self.ew


def schedule(names: Sequence[str], boards: int, seed: int) -> list[TableJob]:
    """Every pair of ``names`` on boards 1..``boards``, each board once each way round.

    Board ``b`` is deal 1 of a match with seed ``seed + b`` (``seed`` secret until the
    end, see :mod:`jackal.cli.tournament`), so it has the same hands and dealer wherever
    it is played, and each pair (A, B) plays it once with A at N/S and once with A at
    E/W: both get the same cards against each other. Board by board, so that a run
    stopped early has played whole boards for everyone.
    """
    if len(set(names)) != len(names):
        raise MalformedInput("entry names must differ")
    if len(names) < 2:
        raise MalformedInput("a tournament needs at least two entries")
    if boards < 1:
        raise MalformedInput("a tournament needs at least one board")
    jobs: list[TableJob] = []
    for board in range(1, boards + 1):
        for first, second in itertools.combinations(names, 2):
            for ns, ew in ((first, second), (second, first)):
                jobs.append(TableJob(len(jobs) + 1, board, seed + board, ns, ew))
    return jobs


def command_argv(command: str, values: Mapping[str, str]) -> list[str]:
    """``command`` split as a shell would, then each ``{placeholder}`` replaced in every
    word: a value stays inside the one word it was put in, whatever it holds, and no
    shell ever reads it (a command that runs ``sh -c`` on a word does, which is why the
    values from a server are checked first: see ``director.safe_server_value``).

    Plain replacement rather than ``str.format``, so braces elsewhere (say, JSON on the
    command line) are left alone.
    """
    argv = []
    for word in shlex.split(command):
        for key, value in values.items():
            word = word.replace("{" + key + "}", value)
        argv.append(word)
    return argv


def board_deal(job: TableJob) -> Deal:
    """The deal of ``job``'s board, before any play (deal 1 of a match with its seed).

    The table's match has target 1, so it ends with the first deal anyone wins, and only
    deal 1 counts: after a tied deal 1 (equal penalties, no points) the table plays on so
    that the match ends as every match does, and those extra deals are not counted.
    """
    return Deal.from_seed(deal_seed(job.seed, 1), first_dealer(job.seed))


@dataclass
class TableResult:
    """What happened at one table: the board's plays and result, and each seat's faults."""

    job: TableJob
    #: The server's id of the table (``t4``), as its record file and log name it.
    table: str
    plays: list[tuple[Seat, Card]]
    penalty: dict[Team, int]
    winner: Team | None
    points: int
    #: Moves of each seat that its entry did not choose, by fault kind.
    faults: dict[Seat, Counter[str]] = field(default_factory=dict)
    #: The server's record file of this table, when known.
    record: str | None = None
    #: When the director began and ended the table (trio's clock): what shows that
    #: tables overlapped, and that a board's two tables did not.
    started: float = 0.0
    ended: float = 0.0

    def team_of(self, name: str) -> Team:
        return Team.NS if self.job.ns == name else Team.EW

    def report(self) -> TableReport:
        return TableReport(
            table=self.table,
            board=self.job.board,
            seed=self.job.seed,
            ns=self.job.ns,
            ew=self.job.ew,
            plays=list(self.plays),
            penalty=dict(self.penalty),
            winner=self.winner,
            points=self.points,
            faults={seat: dict(kinds) for seat, kinds in self.faults.items() if kinds},
            record=self.record,
        )


def _references(result: TableResult, team: Team) -> tuple[int, int]:
    """The yardstick's references for ``team`` on this board: (baseline, optimum)."""
    deal = board_deal(result.job)
    first, second = (deal.dealt_hand(seat) for seat in team.seats)
    return baseline_penalty(first, second), optimum_penalty(first, second)


@dataclass
class Standing:
    """One entry's figures over the tournament."""

    entry: Entry
    #: Tables played (each a board against one opponent, from one side).
    tables: int = 0
    vp: int = 0
    vp_against: int = 0
    wins: int = 0
    ties: int = 0
    penalty: int = 0
    baseline: int = 0
    optimum: int = 0
    #: Per board: the sums of (penalty, baseline, optimum) over its tables, so that the
    #: yardstick's interval takes a board, not a table, as one sample.
    per_board: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    faults: Counter[str] = field(default_factory=Counter)

    @property
    def boards(self) -> int:
        """The distinct boards played."""
        return len(self.per_board)

    @property
    def vp_per_table(self) -> float:
        return self.vp / self.tables if self.tables else 0.0

    @property
    def net_per_table(self) -> float:
        return (self.vp - self.vp_against) / self.tables if self.tables else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.tables if self.tables else 0.0

    @property
    def win_interval(self) -> tuple[float, float] | None:
        """The win rate's 95% Wilson interval; None with fewer than two boards."""
        return wilson_interval(self.wins, self.tables) if self.boards >= 2 else None

    @property
    def efficiency(self) -> Efficiency | None:
        """The yardstick's efficiency over the boards played; None if undefined. Its
        ``deals`` are the boards: with one, its interval is unbounded."""
        sums = EfficiencySums()
        for penalty, baseline, optimum in self.per_board.values():
            sums.add(penalty, baseline, optimum)
        return sums.result()

    def add(self, result: TableResult) -> None:
        team = result.team_of(self.entry.name)
        self.tables += 1
        if result.winner is team:
            self.wins += 1
            self.vp += result.points
        elif result.winner is None:
            self.ties += 1
        else:
            self.vp_against += result.points
        penalty = result.penalty[team]
        baseline, optimum = _references(result, team)
        self.penalty += penalty
        self.baseline += baseline
        self.optimum += optimum
        board = self.per_board.get(result.job.board, (0, 0, 0))
        self.per_board[result.job.board] = (board[0] + penalty, board[1] + baseline,
                                            board[2] + optimum)
        for seat in team.seats:
            self.faults.update(result.faults.get(seat, Counter()))

    def report(self, rank: int) -> StandingReport:
        """The entry's line of the results, ranked ``rank``, rounded."""
        interval = self.win_interval
        tables = self.tables or 1
        efficiency = self.efficiency
        return StandingReport(
            **msgspec.structs.asdict(self.entry.report()),
            rank=rank,
            boards=self.boards,
            tables=self.tables,
            vp=self.vp,
            vp_per_table=round(self.vp_per_table, 4),
            net_vp_per_table=round(self.net_per_table, 4),
            wins=self.wins,
            ties=self.ties,
            losses=self.tables - self.wins - self.ties,
            win_rate=round(self.win_rate, 4),
            win_rate_ci95=None if interval is None else rounded(interval),
            mean_penalty=round(self.penalty / tables, 3),
            baseline_penalty=round(self.baseline / tables, 3),
            optimum_penalty=round(self.optimum / tables, 3),
            efficiency=None if efficiency is None else round(efficiency.value, 4),
            efficiency_ci95=(None if efficiency is None or efficiency.deals < 2
                             else rounded((efficiency.low, efficiency.high))),
            faults=sum(self.faults.values()),
            fault_kinds=dict(sorted(self.faults.items())),
        )


def standings(entries: Iterable[Entry], results: Iterable[TableResult]) -> list[Standing]:
    """Every entry's :class:`Standing` over ``results``, best first."""
    table: Mapping[str, Standing] = {entry.name: Standing(entry) for entry in entries}
    for result in results:
        for name in (result.job.ns, result.job.ew):
            table[name].add(result)
    return sorted(table.values(), key=lambda s: (*_merit(s), s.entry.name))


def _merit(standing: Standing) -> tuple[float, float]:
    """What the ranking orders by (smaller is better)."""
    return -standing.vp_per_table, -standing.net_per_table


def ranks(ranked: Sequence[Standing]) -> list[int]:
    """The rank of each of ``ranked`` (best first): entries equal in merit share one,
    the next rank skipping as many (1, 2, 2, 4): a name decides the order, not the rank."""
    out: list[int] = []
    for index, standing in enumerate(ranked):
        tied = index > 0 and _merit(standing) == _merit(ranked[index - 1])
        out.append(out[-1] if tied else index + 1)
    return out


#: Tables in play at once under a release floor, per ``jackal tournament`` run: enough
#: that 12 boards of three entries (36 board-and-pair units) mostly wait side by side.
WAITING_TABLES = 40
#: The same against a ``--server``, whose per-address limits (50 connections, 20 tables
#: by default) a table's director and four seats must fit in.
WAITING_TABLES_REMOTE = 8


def tables_in_play(jobs: int, floor: float, remote: bool) -> int:
    """How many tables to play at once: ``jobs`` when nothing waits on a floor (every
    table is CPU work then), else enough for the waits to overlap."""
    if floor <= 0:
        return jobs
    return max(jobs, WAITING_TABLES_REMOTE if remote else WAITING_TABLES)
