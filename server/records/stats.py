"""An evening's figures from match records, per player and per partnership (``jackal stats``).

Each record goes through the server's own replay loop (:mod:`.replay`), so only a
record that agrees with the engine counts, and a deal counts once it is scored. What is
counted, and whose it is, is said in :data:`HOW` (the command's help prints it).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from ...bots.yardstick import EfficiencySums, baseline_penalty, optimum_penalty
from ...game.honesty import Tally, judged
from ...game.seats import SEATS, TEAMS, Seat, Team
from ...protocol.messages import SeatKind
from ..names import name_keys
from .events import DealEvent, HintEvent, PlayEvent, RecordEvent, Restored, ResultEvent
from .replay import replay

__all__ = ["HOW", "Figures", "FiguresReport", "Line", "PairReport", "Player", "PlayerReport",
           "ScoredDeal", "SeatDeal", "SignalsReport", "Stats", "StatsReport", "scored_deals"]

HOW = """\
What is counted:
  A deal counts once it is scored; an unfinished deal counts for nothing.
  Deals are credited to the names in the seats when the deal was dealt. A player is a
  name as the server compares names (upper and lower case and look-alike letters are
  one name); 'anonymous' is everyone who gave no name. A partnership is its two names,
  whichever seats they sat in. A name at two seats of one deal (the server's bots are
  named after their strategy) counts that deal once per seat.
  Penalty: the partnership's penalty for the deal (a player's is their partnership's).
  Information efficiency: (baseline - penalty) / (baseline - optimum) over the deals, as
  jackal arena measures it: the baseline keeps without signals, the optimum with both
  hands known; 1 is perfect information, 0 no better than no signals. Its 95% interval
  (delta method) needs two deals or more.
  False signals: each card played under a rule that gives it a meaning (a promise or an
  answer) is judged against the hand by the convention card in force; 'avoidable' ones
  were played while an honest card was in hand. A card played by the substitute or by
  the clock was chosen by nobody at the table and is not counted.
  Hints: the hints the seat took (the record names when, not which card).
  Time per move: the wall-clock time from the line that put the seat on turn (the
  previous card, or the deal) to its card, hints and questions included. A card played
  by the substitute is not counted, nor one across a server restart."""

#: Plays that no one at the table chose: not judged as anyone's signals.
NOT_CHOSEN = ("substitute", "clock")


@dataclass
class SeatDeal:
    """One seat in one scored deal."""

    name: str
    kind: SeatKind
    signals: Tally = field(default_factory=Tally.empty)
    hints: int = 0
    #: Seconds each of this seat's moves took (see :data:`HOW`).
    moves: list[float] = field(default_factory=list)


@dataclass
class ScoredDeal:
    """One scored deal: its seats and each partnership's penalty and references."""

    seats: dict[Seat, SeatDeal]
    penalty: dict[Team, int]
    baseline: dict[Team, int]
    optimum: dict[Team, int]


def scored_deals(events: Iterable[RecordEvent]) -> Iterator[ScoredDeal]:
    """Every scored deal of one record, in order (raises RecordError on a bad record)."""
    seats: dict[Seat, SeatDeal] = {}
    by: list[str | None] = []  # who played each card of the deal so far
    turn_began: float | None = None
    for step in replay(events):
        event, state = step.event, step.state
        match event:
            case DealEvent(time=time):
                seats = {seat: SeatDeal(name=state.seats[seat].name or "",
                                        kind=state.seats[seat].kind) for seat in SEATS}
                by, turn_began = [], time
            case Restored():
                turn_began = None  # the server was down: that wait is nobody's move
            case HintEvent(seat=seat):
                seats[seat].hints += 1
            case PlayEvent(seat=seat, by=who, time=time):
                by.append(who)
                if who != "substitute" and turn_began is not None and time >= turn_began:
                    seats[seat].moves.append(time - turn_began)
                turn_began = time
            case ResultEvent() if step.deal is not None and step.result is not None:
                deal, result = step.deal, step.result
                dealt = {seat: deal.dealt_hand(seat) for seat in SEATS}
                for index, seat, played, found in judged(dealt, deal.history,
                                                         state.conventions):
                    if by[index] not in NOT_CHOSEN:
                        seats[seat].signals.record(found, played)
                yield ScoredDeal(
                    seats=seats,
                    penalty={team: result.penalty(team) for team in TEAMS},
                    baseline={team: baseline_penalty(*(dealt[s] for s in team.seats))
                              for team in TEAMS},
                    optimum={team: optimum_penalty(*(dealt[s] for s in team.seats))
                             for team in TEAMS})
                seats, by = {}, []
            case _:
                pass


class SignalsReport(msgspec.Struct):
    """One kind of signal's plays, the false ones and the avoidable false ones."""

    plays: int
    false: int
    avoidable_false: int


class FiguresReport(msgspec.Struct, kw_only=True):
    """The figures of one line of ``jackal stats --json`` (rounded for print; the means
    are None over no deals)."""

    deals: int
    mean_penalty: float | None
    baseline_penalty: float | None
    optimum_penalty: float | None
    information_efficiency: float | None
    #: None without an efficiency, and with one deal (its bounds are infinite).
    information_efficiency_ci95: tuple[float, float] | None
    #: Per kind of signal ("promise", "answer").
    signals: dict[str, SignalsReport]
    hints: int
    moves: int
    median_move_seconds: float | None


# A line names who it is about before its figures: the fields below are positional, and a
# Struct puts those before the keyword-only ones of its base.


class PlayerReport(FiguresReport):
    """A player's line: the most used spelling of the name, every spelling, the kind."""

    name: str
    names: list[str]
    kind: SeatKind


class PairReport(FiguresReport):
    """A partnership's line: its two players' names."""

    players: list[str]


class StatsReport(msgspec.Struct):
    """``jackal stats --json``: how many records and deals, then the lines."""

    records: int
    deals: int
    players: list[PlayerReport]
    partnerships: list[PairReport]


@dataclass
class Figures:
    """The sums behind one line of the report (a player's or a partnership's)."""

    deals: int = 0
    penalty: int = 0
    baseline: int = 0
    optimum: int = 0
    yardstick: EfficiencySums = field(default_factory=EfficiencySums)
    signals: Tally = field(default_factory=Tally.empty)
    hints: int = 0
    moves: list[float] = field(default_factory=list)

    def add_deal(self, penalty: int, baseline: int, optimum: int) -> None:
        self.deals += 1
        self.penalty += penalty
        self.baseline += baseline
        self.optimum += optimum
        self.yardstick.add(penalty, baseline, optimum)

    def add_seat(self, seat: SeatDeal) -> None:
        self.signals.add(seat.signals)
        self.hints += seat.hints
        self.moves += seat.moves

    def merge(self, other: Figures) -> None:
        self.deals += other.deals
        self.penalty += other.penalty
        self.baseline += other.baseline
        self.optimum += other.optimum
        self.yardstick.merge(other.yardstick)
        self.signals.add(other.signals)
        self.hints += other.hints
        self.moves += other.moves

    def report(self) -> FiguresReport:
        """These figures as ``--json`` prints them."""
        n = self.deals
        eff = self.yardstick.result()
        # A single deal has no interval (its bounds are infinite, which JSON cannot say).
        interval = None if eff is None or not math.isfinite(eff.low) else (
            round(eff.low, 4), round(eff.high, 4))
        return FiguresReport(
            deals=n,
            mean_penalty=round(self.penalty / n, 3) if n else None,
            baseline_penalty=round(self.baseline / n, 3) if n else None,
            optimum_penalty=round(self.optimum / n, 3) if n else None,
            information_efficiency=None if eff is None else round(eff.value, 4),
            information_efficiency_ci95=interval,
            signals={kind: SignalsReport(plays=self.signals.plays[kind],
                                         false=self.signals.false[kind],
                                         avoidable_false=self.signals.avoidable[kind])
                     for kind in self.signals.plays},
            hints=self.hints,
            moves=len(self.moves),
            median_move_seconds=(round(statistics.median(self.moves), 3)
                                 if self.moves else None))


@dataclass
class Player:
    """One player: the spellings of their name seen, the first the most used."""

    names: list[str]
    kind: SeatKind

    @property
    def name(self) -> str:
        return self.names[0]


@dataclass
class Line:
    """One line of the report: a player, or a partnership of two."""

    players: tuple[Player, ...]
    figures: Figures

    def player_report(self) -> PlayerReport:
        """A player's line as ``--json`` prints it."""
        player, = self.players
        return PlayerReport(player.name, list(player.names), player.kind,
                            **msgspec.structs.asdict(self.figures.report()))

    def pair_report(self) -> PairReport:
        """A partnership's line as ``--json`` prints it."""
        return PairReport([player.name for player in self.players],
                          **msgspec.structs.asdict(self.figures.report()))


class Stats:
    """Figures summed over records: :meth:`add_record` each, then :meth:`players` and
    :meth:`partnerships`. Sums are kept per spelling of a name, and spellings the server
    takes for one name (:func:`server.names.name_keys`) are joined when asked."""

    def __init__(self) -> None:
        self.records = 0
        self.deals = 0
        self._players: dict[str, Figures] = {}
        self._kinds: dict[str, SeatKind] = {}
        self._pairs: dict[tuple[str, str], Figures] = {}

    def add_record(self, events: Iterable[RecordEvent]) -> None:
        """One record's scored deals (raises RecordError on a bad record, adding nothing)."""
        deals = list(scored_deals(events))
        self.records += 1
        for deal in deals:
            self.add_deal(deal)

    def add_deal(self, deal: ScoredDeal) -> None:
        self.deals += 1
        for seat, held in deal.seats.items():
            team = seat.team
            self._kinds.setdefault(held.name, held.kind)
            mine = self._players.setdefault(held.name, Figures())
            mine.add_deal(deal.penalty[team], deal.baseline[team], deal.optimum[team])
            mine.add_seat(held)
        for team in TEAMS:
            first, second = (deal.seats[seat] for seat in team.seats)
            pair = (first.name, second.name) if first.name <= second.name \
                else (second.name, first.name)
            ours = self._pairs.setdefault(pair, Figures())
            ours.add_deal(deal.penalty[team], deal.baseline[team], deal.optimum[team])
            ours.add_seat(first)
            ours.add_seat(second)

    def _people(self) -> dict[str, Player]:
        """Each spelling's player: spellings whose keys meet, joined transitively."""
        group: dict[str, int] = {}  # key -> group number
        members: dict[int, set[str]] = {}
        for number, spelling in enumerate(self._players):
            found = {group[key] for key in name_keys(spelling) if key in group}
            joined = {spelling}.union(*(members.pop(g) for g in found))
            members[number] = joined
            for other in joined:
                for key in name_keys(other):
                    group[key] = number
        people: dict[str, Player] = {}
        for joined in members.values():
            names = sorted(joined, key=lambda n: (-self._players[n].deals, n))
            player = Player(names, self._kinds[names[0]])
            for spelling in joined:
                people[spelling] = player
        return people

    def players(self) -> list[Line]:
        """One line per player, by name."""
        people = self._people()
        lines: dict[int, Line] = {}
        for spelling, figures in self._players.items():
            player = people[spelling]
            line = lines.setdefault(id(player), Line((player,), Figures()))
            line.figures.merge(figures)
        return sorted(lines.values(), key=lambda line: _order(line.players))

    def partnerships(self) -> list[Line]:
        """One line per partnership (its two players, in name order), by names."""
        people = self._people()
        lines: dict[tuple[int, int], Line] = {}
        for (first, second), figures in self._pairs.items():
            pair = sorted((people[first], people[second]), key=lambda p: _order((p,)))
            line = lines.setdefault((id(pair[0]), id(pair[1])), Line(tuple(pair), Figures()))
            line.figures.merge(figures)
        return sorted(lines.values(), key=lambda line: _order(line.players))

    def report(self) -> StatsReport:
        """The figures as ``jackal stats --json`` prints them."""
        return StatsReport(records=self.records, deals=self.deals,
                           players=[line.player_report() for line in self.players()],
                           partnerships=[line.pair_report() for line in self.partnerships()])


def _order(players: tuple[Player, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((p.name.casefold(), p.name) for p in players)
