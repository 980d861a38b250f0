"""Disclosure at a table: convention cards, explanations and private questions, held by the
table's :class:`Disclosure` part, given the deal and cards it explains by the table.
Everything here is public information: an explanation comes from the declared card and the
plays, and a bot's answer is its card's explanation, never its hand (docs/PROTOCOL.md)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..bots.host import answer_question
from ..game.cards import Card
from ..game.conventions import ConventionCard, builtin_card, validate_card
from ..game.deal import Deal
from ..game.errors import MalformedInput
from ..game.explain import Meaning, explain_play
from ..game.seats import SEATS, Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    AnsweredInfo,
    AnswerMessage,
    ConventionsChanged,
    MessageId,
    Ok,
    OpenQuestion,
    Question,
    TableStatus,
)
from .records.events import AnswerEvent, ChosenBy, ConventionsEvent, QuestionEvent
from .records.recording import Recording
from .seating import Outbox, Peer, Seating

__all__ = ["MAX_CONVENTION_CHANGES", "MAX_QUESTIONS", "Disclosure",
           "PendingQuestion", "resolve_conventions"]

#: Times a partnership may change its card in one match (each change is recorded whole,
#: so this bounds what one player can make the record grow by).
MAX_CONVENTION_CHANGES = 3

#: Questions one seat may ask in a deal, whoever answers (more is
#: ``too_many_questions``): a bot answers at once, so a cap on open questions alone
#: would not bound them. Unanswered ones expire when the deal ends.
MAX_QUESTIONS = 3


#: Question and answer text a table's record keeps, at most (the events stay, textless).
QA_RECORD_BUDGET = 64 * 1024

@dataclass
class PendingQuestion:
    asker: Seat
    target: Seat
    #: The question as asked: the answer repeats it to the asking side.
    text: str
    #: Which of ``target``'s cards it is about (1..8), if one.
    index: int | None = None


def resolve_conventions(spec: str | ConventionCard, field: str = "card") -> ConventionCard:
    """A card from the wire: a built-in name or an inline card (never a file path)."""
    try:
        if isinstance(spec, str):
            return builtin_card(spec)
        validate_card(spec)
        return spec
    except (MalformedInput, KeyError, ValueError) as exc:
        raise ProtocolError(ErrorCode.BAD_CONVENTIONS, f"field '{field}': {exc}") from None


class Disclosure:
    """Convention cards, explanations and questions at one table.

    It keeps the table's seating and record (which keep nothing of it) and is given the
    rest: never the table itself, since a reference back would make the two a cycle, which
    only the garbage collector could free, and the server freezes what survives the
    collector (server/net/gctune.py).
    """

    def __init__(self, conventions: dict[Team, ConventionCard], seating: Seating,
                 recording: Recording) -> None:
        self._seating, self._recording = seating, recording
        #: The cards declared for the next deal (``deal_conventions`` on the table: in force).
        self.conventions = conventions
        self.questions: dict[str, PendingQuestion] = {}
        #: Questions each seat asked this deal (see MAX_QUESTIONS).
        self.asked: dict[Seat, int] = {}
        #: This deal's questions and answers, for everyone once it ends (``deal_ended``).
        self.asked_log: dict[str, AnsweredInfo] = {}
        #: The last finished deal's (a snapshot between deals repeats its ``deal_ended``).
        self.last_asked: list[AnsweredInfo] = []
        #: Cards each partnership has declared this match (after the table's presets).
        self.changes: dict[Team, int] = {}
        self._question_ids = itertools.count(1)
        #: Bytes of question and answer text the record may still keep (as for chat: a
        #: table's questions take a small, fixed part of the record's cap).
        self.record_budget = QA_RECORD_BUDGET

    def set_conventions(self, status: TableStatus, peer: Peer, spec: str | ConventionCard,
                        req_id: MessageId | None = None) -> tuple[Outbox, bool]:
        """The sender declares its partnership's convention card (the table's ``status``
        says whether it may now); True if it changed."""
        slot = self._seating.require_seat(peer)
        if status == "playing":  # after a match: for the rematch
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                "conventions may change only before the first deal, "
                                "between deals or after the match")
        card = resolve_conventions(spec)
        team = slot.seat.team
        ok: Outbox = [(peer, Ok(id=req_id, request="conventions"))]
        if card == self.conventions[team]:
            return ok, False  # nothing changes: nothing to record or tell
        made = self.changes.get(team, 0)
        if made >= MAX_CONVENTION_CHANGES:
            raise ProtocolError(ErrorCode.TOO_MANY_CHANGES,
                                f"your partnership has changed its card {made} times this "
                                f"match, the most allowed")
        self.changes[team] = made + 1
        self.conventions[team] = card
        self._recording.write(ConventionsEvent(team=team, card=card))
        return ok + self._seating.broadcast(ConventionsChanged(team=team, card=card)), True

    def explain(self, deal: Deal | None, deal_conventions: Mapping[Team, ConventionCard],
                seat: Seat, index: int) -> tuple[Card, str, Meaning]:
        """The meaning of ``seat``'s ``index``-th card in ``deal`` (the one in play, else
        the last) under its partnership's card of ``deal_conventions``."""
        if deal is None:
            raise ProtocolError(ErrorCode.NO_DEAL, "no deal has been played yet")
        row = deal.row(seat)
        if not 1 <= index <= len(row):
            # One code whether or not anyone has played yet: the card is simply not there.
            raise ProtocolError(ErrorCode.NOT_PLAYED,
                                f"field 'index': {seat} has played {len(row)} card(s), "
                                f"not {index}")
        # Under the card in force when it was played: between deals a partnership may
        # already have declared a new one for the next deal.
        meaning = explain_play(deal_conventions[seat.team], deal.history, seat, index)
        return row[index - 1], meaning.text, meaning.data

    def ask(self, deal: Deal | None, deal_conventions: Mapping[Team, ConventionCard],
            peer: Peer, target: Seat, text: str, index: int | None,
            req_id: MessageId | None = None) -> Outbox:
        """A free-text question from a seated player to an opponent (about ``deal`` as
        :meth:`explain` reads it)."""
        asker = self._seating.require_seat(peer).seat
        if target.team is asker.team:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you may only ask an opponent")
        slot = self._seating.seats[target]
        if not slot.bot_controlled and slot.peer is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the player at {target} is away")
        if index is not None:
            # Only a card on the table can be asked about: an index of a card not yet
            # played would be a number the asker picks freely, a symbol for someone.
            self.explain(deal, deal_conventions, target, index)
        asked = self.asked.get(asker, 0)
        if asked >= MAX_QUESTIONS:
            raise ProtocolError(ErrorCode.TOO_MANY_QUESTIONS,
                                f"you have asked {asked} questions this deal, the most "
                                f"allowed (whoever answers)")
        self.asked[asker] = asked + 1
        qid = f"q{next(self._question_ids)}"
        self._recording.write(QuestionEvent(question=qid, asker=asker, seat=target, index=index,
                                            text=self._kept(text)))
        self.asked_log[qid] = AnsweredInfo(question=qid, asker=asker, seat=target, text=text,
                                           index=index)
        receipt = Question(id=req_id, question=qid, seat=target, text=text, asker=asker,
                           index=index)
        # The question goes to the asked seat and back to the asker, nowhere else: not
        # even that one was asked reaches the asker's partner before the deal ends (its
        # time is the asker's to choose), nor the asked seat's partner.
        out: Outbox = [(peer, receipt)]
        pending = PendingQuestion(asker=asker, target=target, text=text, index=index)
        if slot.bot_controlled:
            history = deal.history if deal is not None else ()
            return out + self._answer_asker(pending, qid, answer_question(
                self.conventions[target.team], target, history, index))
        assert slot.peer is not None
        self.questions[qid] = pending
        question = Question(question=qid, seat=target, text=text, asker=asker, index=index)
        return [*out, (slot.peer, question)]

    def _answer_asker(self, pending: PendingQuestion, qid: str, text: str) -> Outbox:
        """The answer, to the asker alone (its partner reads it in ``deal_ended``)."""
        seats = self._seating.seats
        by: ChosenBy = "bot" if seats[pending.target].bot_controlled \
            else "player"
        self._recording.write(AnswerEvent(question=qid, seat=pending.target, by=by,
                                          text=self._kept(text)))
        logged = self.asked_log.get(qid)
        if logged is not None:
            logged.answer = text
        peer = seats[pending.asker].peer
        if peer is None:
            return []
        return [(peer, AnswerMessage(question=qid, seat=pending.target, text=text,
                                     question_text=pending.text))]

    def answer(self, peer: Peer, qid: str, text: str,
               req_id: MessageId | None = None) -> Outbox:
        """The asked player answers; only the asking side hears it."""
        seat = self._seating.seat_of(peer)
        pending = self.questions.get(qid)
        if seat is None or pending is None or pending.target is not seat:
            raise ProtocolError(ErrorCode.NO_SUCH_QUESTION,
                                f"no open question {qid!r} for you")
        del self.questions[qid]
        out: Outbox = [(peer, Ok(id=req_id, request="answer"))]
        return out + self._answer_asker(pending, qid, text)

    def _kept(self, text: str) -> str | None:
        """``text`` for the record while the table's question budget lasts, else None."""
        size = len(text.encode())
        if size > self.record_budget:
            return None
        self.record_budget -= size
        return text

    def open_questions(self) -> tuple[OpenQuestion, ...]:
        """Every question waiting for an answer, text included (``views`` cuts them per
        recipient for ``table_state``)."""
        return tuple(OpenQuestion(question=qid, seat=q.target, asker=q.asker, index=q.index,
                                  text=q.text) for qid, q in self.questions.items())

    def restore(self, asked: Iterable[QuestionEvent], answers: Mapping[str, AnswerEvent],
                last_number: int) -> None:
        """After a restart, the deal in play's questions as its record has them: the
        answered ones (for the snapshot and the deal's end), those still open (to answer
        now) and each seat's count; new ids go on after ``last_number``."""
        for event in asked:
            answer = answers.get(event.question)
            text = event.text if event.text is not None else "(text not kept)"
            self.asked[event.asker] = self.asked.get(event.asker, 0) + 1
            self.asked_log[event.question] = AnsweredInfo(
                question=event.question, asker=event.asker, seat=event.seat, text=text,
                index=event.index, answer=None if answer is None else
                answer.text if answer.text is not None else "(text not kept)")
            if answer is None:
                self.questions[event.question] = PendingQuestion(
                    asker=event.asker, target=event.seat, text=text, index=event.index)
        self._question_ids = itertools.count(last_number + 1)

    def questions_left(self) -> dict[Seat, int]:
        """The questions each seat may still ask this deal."""
        return {seat: MAX_QUESTIONS - self.asked.get(seat, 0) for seat in SEATS}

    def waiting(self, seat: Seat) -> bool:
        """``seat`` waits for an answer to a question it asked a person."""
        return any(q.asker is seat for q in self.questions.values())

    def expire_questions(self) -> list[AnsweredInfo]:
        """The deal is over: questions about it that were not answered expire, and the
        count starts again. Returns the deal's questions and answers (public now)."""
        self.questions.clear()
        self.asked.clear()
        self.last_asked, self.asked_log = list(self.asked_log.values()), {}
        return self.last_asked

    def drop_questions(self, seat: Seat) -> None:
        """Forget the open questions ``seat`` asked or was asked (it left the table)."""
        for qid in [q for q, p in self.questions.items() if seat in (p.asker, p.target)]:
            del self.questions[qid]
