"""What the arena and the tournament write, one msgspec Struct per JSON object.

``jackal arena --json`` prints an :class:`ArenaReport` and ``--records`` writes one
:class:`DealRecord` a line; ``jackal tournament --results`` (and ``--json``) writes a
:class:`TournamentReport`. Each field is named once, here; an unknown field fails to decode.
"""

from __future__ import annotations

from typing import Literal, TypeVar

import msgspec

from ..game.cards import Card
from ..game.seats import Seat, Team
from ..protocol.codec import card_dec_hook, card_enc_hook

__all__ = [
    "ArenaReport",
    "DealRecord",
    "EntryReport",
    "SideReport",
    "SidesReport",
    "SignalCount",
    "StandingReport",
    "TableReport",
    "TournamentReport",
    "TournamentSettings",
    "decode",
    "encode",
    "rounded",
]

#: A 95% interval, (low, high).
Interval = tuple[float, float]


def rounded(interval: tuple[float, float]) -> Interval:
    """An interval as the reports give it: four decimals."""
    return round(interval[0], 4), round(interval[1], 4)


class _Report(msgspec.Struct, forbid_unknown_fields=True):
    """A JSON object of ours: a field it does not know is an error, not silence."""


class DealRecord(_Report):
    """One arena deal, a line of ``--records``: enough to replay and rescore it."""

    deal: int
    swapped: bool
    #: The shuffle seed (``Deal.from_seed``).
    seed: int
    dealer: Seat
    strategies: dict[Team, str]
    conventions: dict[Team, str]
    #: Each seat's dealt cards (written as the wire writes cards: "7H").
    hands: dict[Seat, list[Card]]
    #: Every play in order: (seat, card).
    plays: list[tuple[Seat, Card]]
    kept: dict[Seat, list[Card]]
    penalties: dict[Team, int]
    winner: Team | None
    points: int
    #: Per team and kind ("promise", "answer"): the avoidable false signals.
    false_signals: dict[Team, dict[str, int]]


class SignalCount(_Report):
    """A side's meaningful plays of one kind, and the avoidable false ones among them."""

    plays: int
    avoidable_false: int


class SideReport(_Report):
    """One side's figures over an arena run (rounded for print)."""

    strategy: str
    conventions: str
    deals: int
    mean_penalty: float
    victory_points_per_deal: float
    wins: int
    ties: int
    win_rate: float
    win_rate_ci95: Interval
    baseline_penalty: float
    optimum_penalty: float
    #: None when there was nothing to gain (baseline already optimal on every deal).
    information_efficiency: float | None
    #: None with it, and with one deal (no interval then).
    information_efficiency_ci95: Interval | None
    #: Per kind of signal ("promise", "answer").
    signals: dict[str, SignalCount]


class SidesReport(_Report):
    """The two sides: ``ns`` is the ``--ns`` strategy, wherever it sat."""

    ns: SideReport
    ew: SideReport


class ArenaReport(_Report):
    """``jackal arena --json``: the run's settings and both sides' figures."""

    deals: int
    played: int
    seed: int
    duplicate: bool
    jobs: int
    elapsed_s: float
    sides: SidesReport
    #: The ``--scheduler`` (a Dask address or ``local``), None for a run in this process.
    scheduler: str | None


class EntryReport(_Report):
    """A tournament entry as it was given."""

    name: str
    kind: Literal["builtin", "exec", "cmd"]
    spec: str
    conventions: str
    #: What an ``exec:`` program is sent; absent for other kinds.
    events: Literal["your_turn", "all"] | msgspec.UnsetType = msgspec.UNSET


class StandingReport(EntryReport, kw_only=True):
    """One entry's line of the standings."""

    rank: int
    boards: int
    tables: int
    vp: int
    vp_per_table: float
    net_vp_per_table: float
    wins: int
    ties: int
    losses: int
    win_rate: float
    #: None with fewer than two boards.
    win_rate_ci95: Interval | None
    mean_penalty: float
    baseline_penalty: float
    optimum_penalty: float
    efficiency: float | None
    #: None without an efficiency, and with fewer than two boards.
    efficiency_ci95: Interval | None
    faults: int
    fault_kinds: dict[str, int]


class TableReport(_Report):
    """One table: its board, who sat where, the board's plays and result, and faults."""

    #: The server's id of the table (``t4``), as the server's log and record files name it.
    table: str
    board: int
    #: The board's match seed (S + board).
    seed: int
    ns: str
    ew: str
    plays: list[tuple[Seat, Card]]
    penalty: dict[Team, int]
    winner: Team | None
    points: int
    #: Per seat with any: moves its entry did not choose, by fault kind.
    faults: dict[Seat, dict[str, int]]
    #: The server's record file of the table, when known.
    record: str | None


class TournamentSettings(_Report):
    """How the tournament was run; ``seed`` is told here once the last board is scored."""

    seed: int
    seed_secret: bool
    boards: int
    entries: list[EntryReport]
    jobs: int
    move_seconds: float
    start_seconds: float
    seat_seconds: float
    substitute: str
    sandbox: Literal["auto", "on", "off"]
    #: The embedded server's bot floor; None on a ``--server``.
    bot_floor_seconds: float | None
    server: str | None
    records: str | None
    elapsed_s: float
    #: Each program entry's stderr file (escaped, labelled lines), beside the results.
    program_logs: dict[str, str] = {}


class TournamentReport(_Report):
    """``jackal tournament --results``: settings, standings (best first), every table, and
    the tables that could not be finished."""

    tournament: TournamentSettings
    standings: list[StandingReport]
    tables: list[TableReport]
    failures: list[str]


_ENCODER = msgspec.json.Encoder(enc_hook=card_enc_hook)
_Report_T = TypeVar("_Report_T", bound=msgspec.Struct)


def encode(report: msgspec.Struct, indent: int = 0) -> bytes:
    """``report`` as JSON, with no newline at the end; ``indent`` > 0 for people to read."""
    data = _ENCODER.encode(report)
    return msgspec.json.format(data, indent=indent) if indent else data


def decode(data: bytes | str, kind: type[_Report_T]) -> _Report_T:
    """A report (or one line of ``--records``) read back strictly as ``kind``, its cards
    as the wire reads them."""
    return msgspec.json.decode(data, type=kind, strict=True, dec_hook=card_dec_hook)
