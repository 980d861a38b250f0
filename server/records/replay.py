"""The one replay loop: a record's events, applied in order to a match.

Crash restore (:mod:`.restore`) and ``jackal replay`` both run :func:`replay` and differ
only in what they do with each :class:`Step`. Every event is checked against the engine,
so a record edited or damaged in the middle is refused with :class:`RecordError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ...bots.registry import STRATEGIES
from ...game.conventions import DEFAULT_CARD, ConventionCard, builtin_card
from ...game.deal import Deal
from ...game.errors import JackalError
from ...game.match import Match
from ...game.scoring import DealResult
from ...game.seats import SEATS, TEAMS, Seat, Team
from ...protocol.messages import BotPlayedBy, ChatLine
from .events import (
    AnswerEvent,
    ChatEvent,
    Closed,
    ConventionsEvent,
    DealEvent,
    ExpertEvent,
    HintEvent,
    MatchEnd,
    MatchStart,
    PlayEvent,
    QuestionEvent,
    ReadyEvent,
    RecordError,
    RecordEvent,
    RematchEvent,
    Restored,
    ResultEvent,
    SeatEvent,
    TableEvent,
    result_event,
)

__all__ = ["MatchReplay", "Step", "replay"]


@dataclass
class Step:
    """One event applied. ``deal`` and ``result`` are set for a ``result`` (the deal just
    scored); ``implied`` marks an event the record lacks but its lines imply."""

    event: RecordEvent
    state: MatchReplay
    deal: Deal | None = None
    result: DealResult | None = None
    implied: bool = False


@dataclass
class MatchReplay:
    """What a record's lines say, so far: the table's settings, seats and match."""

    header: TableEvent
    match: Match
    table_id: str
    conventions: dict[Team, ConventionCard]
    seats: dict[Seat, SeatEvent]
    started: bool = False
    last_deal: Deal | None = None
    #: The cards of the rows in play (or the last deal's) a bot played for a human's
    #: seat, by seat and place in its row (``play`` lines with ``by`` clock/substitute).
    bot_cards: dict[tuple[Seat, int], BotPlayedBy] = field(
        default_factory=dict)
    ended: MatchEnd | None = None
    closed: Closed | None = None
    restarts: int = 0
    #: Matches played at this table before the current one (one per ``rematch`` line).
    rematches: int = 0
    implied: list[RecordEvent] = field(default_factory=list)
    #: The seat and turn (deal number, plays made) of the last ``hint`` line.
    hint_told: tuple[Seat, tuple[int, int]] | None = None
    #: The chat lines, oldest first (at most the table's chat budget of them).
    chat: list[ChatLine] = field(default_factory=list)
    #: The current match's expert-pair figures (``expert`` lines), by deal number.
    expert: dict[int, dict[Team, int]] = field(default_factory=dict)
    #: The deal in play's questions and their answers (by question id), so a restart
    #: keeps what was asked, what is still open and how many each seat has asked.
    questions: list[QuestionEvent] = field(default_factory=list)
    answers: dict[str, AnswerEvent] = field(default_factory=dict)
    #: The highest question number (``q<n>``) of the table so far: ids go on from it.
    question_number: int = 0
    #: The seats whose person said ``ready`` for the next deal (or the match's start).
    ready: set[Seat] = field(default_factory=set)

    @classmethod
    def begin(cls, header: TableEvent) -> MatchReplay:
        if header.takeover_strategy is not None:
            _check_strategy(header.takeover_strategy, "takeover_strategy")
        if header.invites is not None and set(header.invites) != set(SEATS):
            raise RecordError("table: a private table's invites must name all four seats")
        default = builtin_card(DEFAULT_CARD)
        return cls(header=header, match=Match(header.seed, header.target), table_id=header.table,
                   conventions={team: default for team in TEAMS},
                   seats={seat: SeatEvent(seat=seat, kind="empty") for seat in SEATS})

    @property
    def finished(self) -> bool:
        """The table is done (its match ended or it was closed)."""
        return self.ended is not None or self.closed is not None

    @property
    def finished_in_record(self) -> bool:
        """The record itself says the table is done (not just its lines imply it)."""
        return self.closed is not None or (self.ended is not None
                                           and self.ended not in self.implied)

    def apply(self, event: RecordEvent) -> Step:
        """Apply one event (raises :class:`RecordError` if it contradicts the match)."""
        step = Step(event, self)
        match event:
            case TableEvent():
                raise RecordError("a second 'table' event")
            case ConventionsEvent(team=team, card=card):
                if self.match.deal is not None:
                    raise RecordError("conventions changed during a deal")
                self.conventions[team] = card
            case SeatEvent():
                _check_seat(event)
                self.seats[event.seat] = event
                self.ready.discard(event.seat)  # whoever sits there now has not said it
            case ReadyEvent(seat=seat):
                if self.match.deal is not None or self.seats[seat].kind != "human":
                    raise RecordError(f"{seat} ready during a deal, or not a person's seat")
                self.ready.add(seat)
            case MatchStart():
                if self.started:
                    raise RecordError("a second 'match_start'")
                if any(seat.kind == "empty" for seat in self.seats.values()):
                    raise RecordError("the match started with an empty seat")
                self.started = True
            case DealEvent():
                self._deal(event)
                self.ready.clear()  # each deal is asked for afresh
            case PlayEvent():
                self._play(event)
            case HintEvent():
                self._hint(event)
            case ResultEvent():
                step.deal, step.result = self._result(event)
            case MatchEnd():
                self._end(event)
            case RematchEvent(seed=seed, target=target):
                self._rematch(seed, target)
            case Restored(table=table):
                self.restarts += 1
                if table is not None:
                    self.table_id = table
            case Closed():
                self.closed = event
            case ExpertEvent(deal=deal, information_cost=cost):
                if not 1 <= deal <= len(self.match.results):
                    raise RecordError(f"an expert figure for deal {deal}, which is not over")
                self.expert[deal] = dict(cost)
            case ChatEvent():
                self.chat.append(ChatLine(channel=event.channel, name=event.name,
                                          text=event.text, seat=event.seat))
            case QuestionEvent(question=qid):
                self.questions.append(event)
                self._number(qid)
            case AnswerEvent(question=qid):
                self.answers[qid] = event
        return step

    def _number(self, qid: str) -> None:
        """Note question id ``qid``'s number (``q7``: 7), so new ones go on after it."""
        if qid.startswith("q") and qid[1:].isdigit():
            self.question_number = max(self.question_number, int(qid[1:]))

    def _deal(self, event: DealEvent) -> None:
        if not self.started or self.finished:
            raise RecordError(f"deal {event.number} outside a match")
        if event.number != self.match.deal_number + 1:
            raise RecordError(f"deal {event.number} follows deal {self.match.deal_number}")
        try:
            deal = self.match.start_deal()
        except JackalError as exc:
            raise RecordError(f"deal {event.number}: {exc}") from None
        if deal.seed != event.seed or deal.dealer is not event.dealer:
            raise RecordError(f"deal {event.number} does not match the match seed")
        self.questions, self.answers = [], {}  # each deal asks anew
        self.bot_cards = {}

    def _play(self, event: PlayEvent) -> None:
        deal = self.match.deal
        if deal is None:
            raise RecordError(f"a play ({event.seat} {event.card}) outside a deal")
        try:
            index = deal.play(event.card, event.seat)
        except JackalError as exc:
            raise RecordError(f"play {event.seat} {event.card}: {exc}") from None
        if index != event.index:
            raise RecordError(f"play {event.seat} {event.card}: recorded as card {event.index} "
                              f"of the row, but it is card {index}")
        if event.by == "clock" or event.by == "substitute":
            self.bot_cards[event.seat, index] = event.by

    def _hint(self, event: HintEvent) -> None:
        """A hint changes nothing, but it is only ever given to the seat on turn."""
        deal = self.match.deal
        if (deal is None or event.deal != self.match.deal_number or deal.turn is not event.seat
                or event.play != len(deal.row(event.seat)) + 1):
            raise RecordError(f"a hint for {event.seat} (deal {event.deal}, card "
                              f"{event.play}) when that was not its turn")
        self.hint_told = (event.seat, (event.deal, deal.plays_made))

    def _result(self, event: ResultEvent) -> tuple[Deal, DealResult]:
        deal = self.match.deal
        if deal is None or not deal.is_over:
            raise RecordError(f"a result for deal {event.deal}, which is not over")
        number = self.match.deal_number
        result = self.match.finish_deal()
        self.last_deal = deal
        expected = result_event(number, result, self.match.scores)
        if (event.deal, event.penalty, event.winner, event.points, event.scores) != (
                expected.deal, expected.penalty, expected.winner, expected.points,
                expected.scores):
            raise RecordError(f"the result of deal {event.deal} differs from its plays")
        return deal, result

    def _end(self, event: MatchEnd) -> None:
        if self.ended is not None or self.match.winner is not event.winner or (
                event.scores != self.match.scores):
            raise RecordError("'match_end' does not agree with the scores")
        self.ended = event

    def _rematch(self, seed: int, target: int | None) -> None:
        """A new match at the same table: what follows is that match's."""
        if self.ended is None or self.closed is not None:
            raise RecordError("a 'rematch' before the match ended")
        self.match = Match(seed, self.header.target if target is None else target)
        self.started, self.last_deal, self.ended, self.hint_told = False, None, None, None
        self.bot_cards = {}
        self.expert = {}
        self.rematches += 1

    def complete(self) -> Iterator[Step]:
        """The steps the lines imply but lack (torn final writes), applied as well.

        A record whose last lines were lost (the process died before writing them) is
        taken to the state the surviving lines imply: when a deal's 32 plays are there but
        its ``result`` is not, the deal is scored; when a team is past the target but
        ``match_end`` is missing, the match ends. Those steps have ``implied=True``, and
        restore writes them to the record, so the file then tells the whole story.
        """
        if self.finished:
            return
        deal = self.match.deal
        if deal is not None and deal.is_over:
            implied = result_event(self.match.deal_number, deal.result(),
                                   _after(self.match.scores, deal.result()))
            step = self.apply(implied)
            step.implied = True
            self.implied.append(implied)
            yield step
        winner = self.match.winner
        if winner is not None:
            end = MatchEnd(winner=winner, scores=dict(self.match.scores))
            step = self.apply(end)
            step.implied = True
            self.implied.append(end)
            yield step


def _after(scores: dict[Team, int], result: DealResult) -> dict[Team, int]:
    after = dict(scores)
    if result.winner is not None:
        after[result.winner] += result.points
    return after


def _check_strategy(name: str, what: str) -> None:
    if name not in STRATEGIES:
        raise RecordError(f"{what}: unknown strategy {name!r}")


def _check_seat(event: SeatEvent) -> None:
    """A seat line is consistent with its kind (as the table writes it)."""
    if event.kind == "human" and (event.name is None or event.token_hash is None):
        raise RecordError(f"seat {event.seat}: a human seat needs a name and a token hash")
    if event.kind == "bot":
        if event.name is None or event.strategy is None or event.token_hash is not None:
            raise RecordError(f"seat {event.seat}: a bot seat needs a name and a strategy only")
        _check_strategy(event.strategy, f"seat {event.seat}")
    if event.kind == "empty" and (event.name, event.token_hash, event.strategy) != (
            None, None, None):
        raise RecordError(f"seat {event.seat}: an empty seat with a player")


def replay(events: Iterable[RecordEvent]) -> Iterator[Step]:
    """Apply ``events`` one by one, then the implied ones; the last step's ``state`` is
    where the record leaves the table. Raises :class:`RecordError` on a bad record.

    Restore keeps the final :class:`MatchReplay` and builds a live table from it; the
    command prints each step. Checking every event (a deal's seed and dealer, each play's
    legality and place in the row, each result and the match's end must all agree) keeps
    a damaged record from being replayed into a state the game never had.
    """
    iterator = iter(events)
    header = next(iterator, None)
    if not isinstance(header, TableEvent):
        raise RecordError("a record must start with a 'table' event")
    state = MatchReplay.begin(header)
    yield Step(header, state)
    for event in iterator:
        yield state.apply(event)
    yield from state.complete()
