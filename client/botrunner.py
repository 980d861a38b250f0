"""Run a bot strategy at a seat on a server: what ``jackal bot`` does. The runner owns
nothing but decisions: a :class:`~jackal.client.session.SeatSession` keeps the seat and
its mirror; on this seat's turn the runner asks the strategy for a card in a worker thread
(:func:`play_match`), so the connection keeps answering pings however long it thinks."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import trio

from ..bots.base import Strategy
from ..bots.host import answer_question, decide
from ..game.cards import Card, format_cards
from ..game.seats import TEAMS, Seat, Team
from ..protocol import messages as m
from ..protocol.messages import (
    ConventionsChanged,
    DealEnded,
    DealStarted,
    MatchEnded,
    Question,
    ServerMessage,
    TableState,
    YourTurn,
)
from ..protocol.requests import AnswerQuestion
from .connection import ClientError, ConnectionLost, ServerError
from .handlers import Handlers
from .mirror import TableMirror
from .session import SeatSession

__all__ = ["BOT_HANDLERS", "BotResult", "TurnChooser", "answer_text", "choose_card", "play_match"]

log = logging.getLogger("jackal.bot")


@dataclass(frozen=True)
class BotResult:
    """How the match ended for the bot."""

    seat: Seat
    table: str
    winner: Team | None
    scores: Mapping[Team, int]
    deals: int
    plays: int

    @property
    def won(self) -> bool:
        return self.winner is self.seat.team


async def choose_card(strategy: Strategy, session: SeatSession) -> Card:
    """Ask ``strategy`` for a card from the mirror's view, in a worker thread; always legal
    (the host's fallback when the strategy fails)."""
    view = session.mirror.view()
    decision = await trio.to_thread.run_sync(decide, strategy, view, abandon_on_cancel=True)
    if decision.problem is not None:
        log.error("the strategy %s (hand %s); playing %s instead", decision.problem,
                  format_cards(view.hand), decision.card)
    return decision.card


def answer_text(mirror: TableMirror, index: int | None) -> str:
    """What the bot says when an opponent asks about its play ``index`` (or in general):
    the host's answer from the partnership's declared card."""
    seat = mirror.you
    if seat is None:
        return answer_question(None, Seat.N, (), index)
    return answer_question(mirror.conventions.get(seat.team), seat, mirror.history(), index)


async def _answer(session: SeatSession, question: Question) -> None:
    text = answer_text(session.mirror, question.index)
    log.info("asked by %s: %r; answering %r", question.asker, question.text, text)
    try:
        await session.request(AnswerQuestion(question=question.question, text=text[:1000]))
    except ClientError as exc:
        log.warning("could not answer question %s: %s", question.question, exc)


#: Chooses the card for a ``your_turn`` (``jackal bot --exec``): the card, and a note for
#: the play's log line ("" when there is nothing to say).
TurnChooser = Callable[[YourTurn], Awaitable[tuple[Card, str]]]


async def play_match(session: SeatSession, strategy: Strategy | None = None, *,
                     on_event: Callable[[ServerMessage], Awaitable[None] | None] | None = None,
                     on_your_turn: TurnChooser | None = None) -> BotResult:
    """Play every turn of ``session``'s seat until the match ends, with ``strategy`` (asked
    when the mirror says it is our turn) or ``on_your_turn`` (given each ``your_turn``).

    ``session.run`` must already be running (and seated). ``on_event`` (if given) sees
    every event, with ``session.mirror`` as of that event, before the turn is played; a
    coroutine it returns is awaited (``jackal bot --exec-events all`` passes each event
    on to its program). Raises
    :class:`~jackal.client.session.SessionLost` if the seat is lost for good.

    Decisions:

    - The runner acts on ``session.my_turn``, which is True at most once per turn (deal
      number, plays made so far) and is reset by a reclaim's ``table_state`` (whose rows show
      whether a play sent just before a drop arrived), so no play is lost or doubled.
    - A strategy that returns a card not in its hand, or raises, is a bug in the strategy: the
      runner logs it and plays the fallback of ``jackal.bots.host`` (the first card of its
      hand, as server-side bots do) so the table is never stalled.
    - An opponent's question to this seat is answered at once from the partnership's declared
      card (``jackal.bots.host.answer_question``, as server-side bots do), since the bot has
      no other agreements.
    - Log lines (logger ``jackal.bot``) are one per deal start, own play, deal end and match
      end, plus the convention cards in force (on every snapshot and change); the session
      logs connection status changes (logger ``jackal.client``).
    """
    if (strategy is None) == (on_your_turn is None):
        raise ValueError("give exactly one of strategy and on_your_turn")
    mirror = session.mirror
    plays = 0
    async for event in session.events():
        handler = BOT_HANDLERS.get(event)
        if handler is not None:
            await handler(session, event)
        if on_event is not None:
            pending = on_event(event)
            if pending is not None:
                await pending
        if not session.my_turn:
            continue
        # The mirror only moves when this loop takes the next event, so the view the
        # strategy gets is still the table's state when the card is sent.
        note = ""
        if on_your_turn is not None:
            if not isinstance(event, YourTurn):
                continue  # it follows the turn (or the snapshot) at once
            card, note = await on_your_turn(event)
        else:
            assert strategy is not None
            card = await choose_card(strategy, session)
        if await _play(session, card, note):
            plays += 1
    assert mirror.you is not None and mirror.table is not None
    return BotResult(seat=mirror.you, table=mirror.table, winner=mirror.winner,
                     scores=dict(mirror.scores), deals=mirror.deal, plays=plays)


async def _play(session: SeatSession, card: Card, note: str) -> bool:
    """Play ``card``; whether the server took it."""
    try:
        reply = await session.play(card)
    except ServerError as exc:
        log.warning("play %s refused: %s", card, exc)
        return False
    except ConnectionLost:
        return False  # the session reclaims the seat; its table_state decides
    log.info("deal %d play %d: %s%s", session.mirror.deal, reply.index, card, note)
    return True


async def _on_table_state(_session: SeatSession, msg: TableState) -> None:
    cards = msg.conventions
    log.info("convention cards: %s", ", ".join(
        f"{team} {cards[team].name}" for team in TEAMS if team in cards))


async def _on_conventions(_session: SeatSession, msg: ConventionsChanged) -> None:
    log.info("convention card of %s is now %s", msg.team, msg.card.name)


async def _on_question(session: SeatSession, msg: Question) -> None:
    if msg.id is None and msg.seat == session.mirror.you:  # an opponent asks us
        await _answer(session, msg)


async def _on_deal_started(session: SeatSession, msg: DealStarted) -> None:
    log.info("deal %d: dealer %s, %s leads; hand %s", msg.deal, msg.dealer, msg.first,
             format_cards(sorted(session.mirror.hand, key=lambda c: (c.rank, c.suit))))


async def _on_deal_ended(_session: SeatSession, msg: DealEnded) -> None:
    penalty, scores = msg.penalty, msg.scores
    outcome = f"{msg.winner} +{msg.points}" if msg.winner else "tie, nobody scores"
    log.info("deal %d ended: penalty NS %d, EW %d; %s; scores NS %d, EW %d", msg.deal,
             penalty.get(Team.NS, 0), penalty.get(Team.EW, 0), outcome,
             scores.get(Team.NS, 0), scores.get(Team.EW, 0))


async def _on_match_ended(_session: SeatSession, msg: MatchEnded) -> None:
    log.info("match over: %s wins, NS %d, EW %d", msg.winner, msg.scores.get(Team.NS, 0),
             msg.scores.get(Team.EW, 0))


#: What ``jackal bot`` does with each event besides playing its turn (a test checks every
#: type is here): a log line, or an answer to an opponent's question. The turn itself
#: comes from the session's ``my_turn`` (or ``your_turn`` for ``--exec``), whatever the
#: event; the rest the mirror holds or nobody reads.
BOT_HANDLERS: Handlers[Callable[[SeatSession, Any], Awaitable[None]]] = Handlers({
    TableState: _on_table_state,
    ConventionsChanged: _on_conventions,
    Question: _on_question,
    DealStarted: _on_deal_started,
    DealEnded: _on_deal_ended,
    MatchEnded: _on_match_ended,
}, ignored=(
    m.AnswerMessage, m.BotTakeover, m.ChatMessage, m.Clock, m.Error, m.ExpertCost,
    m.Explanation, m.HelloOk, m.HelpReply, m.HintReply, m.HintTaken, m.Joined, m.Ok,
    m.PauseState, m.Played, m.PlayerBack, m.PlayerGone, m.PlayerJoined, m.PlayerLeft,
    m.PlayerReady, m.QuestionAsked, m.RematchStarted, m.RematchWanted, m.ServerPing,
    m.ServerPong, m.ServerShutdown, m.TableCreated, m.Tables, m.Turn, m.Welcome, m.YourTurn,
))
