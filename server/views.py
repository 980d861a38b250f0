"""Per-recipient messages: the ONE place hidden information is removed. Everything the
server tells a seat or a spectator about the cards is built here, from the recipient's
seat (``None`` for a spectator) and nothing else about who asks; the rules are below and
in docs/PROTOCOL.md ("Hidden information")."""

# The rules of disclosure, in one list:
#
# - rows (cards already played) are public: everyone at the table sees all four;
# - a seat's unplayed cards go only to that seat: in ``deal_started`` (its copy only), in
#   ``table_state`` (``hand`` is set only when the recipient sits there) and in
#   ``your_turn`` (built from that seat's own knowledge, sent to it alone);
# - ``deal_ended`` shows every seat's five kept cards and 13 dealt cards to everyone, and
#   the best keeps: the deal is over (no message before it carries a hand but its own);
# - spectators get exactly what an opponent of every seat would get: rows, never hands;
# - an open question goes to the asked seat and the asker only; nobody else learns of it
#   during the deal, not even that it was asked (``table_state.questions``, as the event
#   ``question`` does); ``deal_ended`` shows every question and answer to everyone.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..bots.yardstick import BestKeep, information_cost
from ..game.cards import RANK_NAMES, Card
from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.knowledge import SeatKnowledge, TableKnowledge
from ..game.scoring import DealResult, TeamScore
from ..game.seats import SEATS, TEAMS, Seat, Team
from ..protocol.messages import (
    AnsweredInfo,
    BestKeepInfo,
    BotCard,
    DealEnded,
    DealStarted,
    DealSummary,
    GroupInfo,
    MessageId,
    OpenQuestion,
    PauseInfo,
    RowInfo,
    SeatInfo,
    TableInfo,
    TableState,
    TableStatus,
    YourTurn,
)
from .chat import TableChat

__all__ = ["DealFacts", "TableSnapshot", "deal_ended", "deal_started", "history", "knowledge",
           "questions_for", "table_info", "table_state", "your_turn"]


@dataclass(frozen=True, slots=True)
class DealFacts:
    """What per-seat knowledge is cut from: the deal and the public facts around it (the
    table makes one with ``snapshot.deal_facts()``, cheaply: ``your_turn`` needs one on
    every play).

    ``deal`` is the live deal, or the last one between deals; it is the only part that
    holds secrets, and :func:`knowledge` is where they are cut.
    """

    deal: Deal | None
    #: True while ``deal`` is being played (hands are shown only then).
    live: bool
    deal_number: int
    conventions: Mapping[Team, ConventionCard]
    scores: Mapping[Team, int]
    target: int
    #: The seconds left on the current turn's clock (None: no clock runs).
    turn_left: float | None = None


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The facts of one table that views are built from (the table makes one with
    ``snapshot.table_snapshot()``); views never see the table itself."""

    facts: DealFacts
    table: str
    name: str
    status: TableStatus
    seats: tuple[SeatInfo, ...]
    spectators: int
    #: The cards the deal was played under, when a partnership has declared another since.
    deal_conventions: Mapping[Team, ConventionCard] | None = None
    #: The table's per-play clock.
    turn_seconds: float | None = None
    #: The creator chose the match seed (and so can know every hand).
    seeded: bool = False
    #: Seated players may ask for hints.
    hints: bool = False
    #: Seats are taken with invitation codes only.
    private: bool = False
    #: The name of whoever created the table.
    creator: str | None = None
    #: Whether anyone may watch.
    allow_spectators: bool = True
    #: The table's kept chat lines (each recipient gets those it may read).
    chat: TableChat | None = None
    #: A pause asked for or in force.
    pause: PauseInfo | None = None
    #: The match so far, every deal scored (public).
    history: tuple[DealSummary, ...] = ()
    #: Between deals and at the end: the last deal's ``deal_ended`` (public).
    last_ended: DealEnded | None = None
    #: Between deals: seconds until the next deal starts.
    next_deal_in: float | None = None
    #: Every open question, with its text: :func:`table_state` cuts them per recipient.
    questions: tuple[OpenQuestion, ...] = ()
    #: The clock of the seat to play waits for an answer to its question.
    clock_stopped: bool = False
    #: This deal's questions, answered or not, with their text (cut per recipient).
    asked: tuple[AnsweredInfo, ...] = ()
    #: Questions each seat may still ask this deal.
    questions_left: Mapping[Seat, int] | None = None
    #: The rows' cards a bot played for a human's seat (public, as ``played`` said).
    bot_cards: tuple[BotCard, ...] = ()


def questions_for(questions: tuple[OpenQuestion, ...], you: Seat | None
                  ) -> list[OpenQuestion]:
    """The open questions ``you`` may know of: asked of it or by it. Not its partner's:
    when a question is asked is the asker's choice. Spectators: none."""
    if you is None:
        return []
    return [q for q in questions if q.seat is you or q.asker is you]


def _cards(cards: tuple[Card, ...] | list[Card]) -> list[Card]:
    return list(cards)


def knowledge(facts: DealFacts, you: Seat | None) -> TableKnowledge | None:
    """What ``you`` (a spectator: ``None``) may know of the cards, or None before the
    first deal. THE cut: a seat gets its own hand while the deal is live, nobody else's;
    between deals the hands are not resent (``deal_ended`` showed the kept ones)."""
    deal = facts.deal
    if deal is None:
        return None
    public = TableKnowledge.of_deal(deal, deal_number=facts.deal_number,
                                    conventions=facts.conventions, scores=facts.scores,
                                    target=facts.target)
    if you is None:
        return public
    return public.with_hand(you, deal.hand(you) if facts.live else ())


def table_state(snap: TableSnapshot, you: Seat | None, *,
                id: MessageId | None = None) -> TableState:
    """A full snapshot for one recipient; ``hand`` only for the recipient's own seat."""
    facts = snap.facts
    known = knowledge(facts, you)
    hand: list[Card] | None = None
    if isinstance(known, SeatKnowledge) and facts.live:
        hand = _cards(known.hand)
    rows = {seat: _cards(known.row(seat)) if known else [] for seat in SEATS}
    turn = known.turn if known is not None and facts.live else None
    return TableState(
        id=id,
        table=snap.table,
        name=snap.name,
        target=facts.target,
        status=snap.status,
        # Your own seat as it is (the others may not have been told of a return yet).
        seats=[info if info.seat is not you else SeatInfo(
            seat=info.seat, name=info.name, kind=info.kind, connected=True,
            ready=info.ready) for info in snap.seats],
        conventions={team: facts.conventions[team] for team in TEAMS},
        scores={team: facts.scores[team] for team in TEAMS},
        deal=facts.deal_number,
        dealer=known.dealer if known is not None else None,
        first=known.first if known is not None else None,
        turn=turn,
        rows=rows,
        you=you,
        hand=hand,
        deal_conventions=None if snap.deal_conventions is None else {
            team: snap.deal_conventions[team] for team in TEAMS},
        turn_seconds=snap.turn_seconds,
        turn_left=facts.turn_left,
        seeded=snap.seeded,
        hints=snap.hints,
        chat=snap.chat.lines_for(you) if snap.chat is not None else [],
        pause=snap.pause,
        history=list(snap.history),
        last_deal=snap.last_ended,
        next_deal_in=snap.next_deal_in,
        questions=questions_for(snap.questions, you) or None,
        answered=[q for q in snap.asked if q.answer is not None and you in (q.asker, q.seat)]
        or None if you is not None and facts.live else None,
        questions_left=snap.questions_left.get(you) if snap.questions_left is not None
        and you is not None and facts.live else None,
        bot_cards=list(snap.bot_cards) or None,
        clock_stopped=snap.clock_stopped or None,
    )


def your_turn(facts: DealFacts, you: Seat) -> YourTurn | None:
    """Everything ``you`` may know when it is its turn, from its own knowledge (so it
    cannot show more than ``table_state`` would); None when it is not ``you``'s turn."""
    known = knowledge(facts, you)
    if not isinstance(known, SeatKnowledge) or not facts.live or known.turn is not you:
        return None
    first = known.first
    return YourTurn(
        seat=you,
        deal=known.deal_number,
        play=known.play_number,
        dealer=known.dealer,
        first=first,
        hand=sorted(known.hand),
        rows=[RowInfo(seat=seat, cards=_cards(known.row(seat))) for seat in known.play_order],
        conventions={team: known.conventions[team].name for team in TEAMS},
        scores={team: known.scores[team] for team in TEAMS},
        target=known.target,
        deadline=facts.turn_left,
    )


def deal_started(deal: Deal, number: int, you: Seat | None) -> DealStarted:
    """The start of a deal as ``you`` sees it: its own 13 cards, nobody else's."""
    hand = _cards(deal.hand(you)) if you is not None else None
    return DealStarted(deal=number, dealer=deal.dealer, first=deal.first, hand=hand)


def _groups(score: TeamScore) -> list[GroupInfo]:
    return [GroupInfo(rank=RANK_NAMES[group.rank], cards=_cards(group.cards),
                      count=group.count, points=group.points, penalty=group.points)
            for group in score.groups]


def deal_ended(deal: Deal, number: int, result: DealResult,
               scores: Mapping[Team, int], next_deal_in: float | None = None,
               best: Mapping[Team, BestKeep] | None = None,
               questions: Sequence[AnsweredInfo] = ()) -> DealEnded:
    """The end of a deal, the same for everyone: every kept and dealt hand is shown now,
    with each partnership's ``best`` keep and its information cost when given, and every
    question asked during the deal with its answer."""
    dealt: dict[Seat, list[Card]] | None = None
    kept_best: dict[Team, BestKeepInfo] | None = None
    cost: dict[Team, int] | None = None
    if best is not None:
        dealt = {seat: _cards(deal.dealt_hand(seat)) for seat in SEATS}
        kept_best = {team: BestKeepInfo(hands={team.seats[0]: list(best[team].first),
                                               team.seats[1]: list(best[team].second)},
                                        penalty=best[team].penalty) for team in TEAMS}
        cost = {team: information_cost(result.penalty(team), best[team].penalty)
                for team in TEAMS}
    return DealEnded(
        deal=number,
        hands={seat: _cards(deal.kept(seat)) for seat in SEATS},
        penalty={team: result.penalty(team) for team in TEAMS},
        winner=result.winner,
        points=result.points,
        victory_points=result.points,
        scores={team: scores[team] for team in TEAMS},
        breakdown={team: _groups(result.scores[i]) for i, team in enumerate(TEAMS)},
        next_deal_in=next_deal_in,
        dealt=dealt,
        best=kept_best,
        information_cost=cost,
        questions=list(questions) or None,
    )


def history(results: Sequence[DealResult], first_dealer: Seat,
            information: Sequence[Mapping[Team, int]] = (),
            expert: Mapping[int, Mapping[Team, int]] | None = None,
            unavailable: Mapping[int, str] | None = None) -> tuple[DealSummary, ...]:
    """The match so far from its results (public: scores and who won, no cards); the
    deal passes clockwise from ``first_dealer``. ``information``: each deal's information
    cost (in order), ``expert``: the expert pair's, by deal number, where known, and
    ``unavailable``: why it will not come, by deal number, where the server was busy."""
    out: list[DealSummary] = []
    scores = {team: 0 for team in TEAMS}
    dealer = first_dealer
    for number, result in enumerate(results, 1):
        if result.winner is not None:
            scores[result.winner] += result.points
        out.append(DealSummary(deal=number, dealer=dealer,
                               penalty={team: result.penalty(team) for team in TEAMS},
                               winner=result.winner, victory_points=result.points,
                               scores=dict(scores),
                               information_cost=dict(information[number - 1])
                               if number <= len(information) else None,
                               expert_cost=dict(expert[number])
                               if expert is not None and number in expert else None,
                               expert_unavailable=unavailable.get(number)
                               if unavailable is not None else None))
        dealer = dealer.next
    return tuple(out)


def table_info(snap: TableSnapshot) -> TableInfo:
    """One lobby line: seats by name, no cards at all."""
    return TableInfo(
        table=snap.table,
        name=snap.name,
        target=snap.facts.target,
        seats={info.seat: info.name for info in snap.seats},
        kinds={info.seat: "held" if info.kind == "human" and not info.connected else info.kind
               for info in snap.seats},
        status=snap.status,
        spectators=snap.spectators,
        seeded=snap.seeded,
        hints=snap.hints,
        private=snap.private,
        creator=snap.creator,
        allow_spectators=snap.allow_spectators,
        turn_seconds=snap.turn_seconds,
    )
