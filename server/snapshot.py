"""A table's snapshot: its facts as :mod:`.views` reads them, built from the table it is
handed (views never see the table itself). ``deal_facts`` is the cheap part that every
``your_turn`` needs; a full snapshot adds the match so far and what waits on the clock."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from ..bots.base import View
from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.match import Match, first_dealer
from ..game.seats import Seat, Team
from ..protocol.messages import BotCard, BotPlayedBy, MatchEnded, MessageId, TableStatus
from . import views
from .chat import TableChat
from .deal_summary import DealSummaries
from .disclosure import Disclosure
from .pause import PauseVote
from .seating import Outbox, Peer, Seating, SeatSlot
from .table_options import TableOptions
from .turn_clock import TurnClock

__all__ = ["SnapshotTable", "back_at_seat", "bot_turn", "bot_view", "deal_facts", "hint_turn",
           "shown_deal", "state_for", "table_snapshot", "turn_to_play"]


class SnapshotTable(Protocol):
    """What a snapshot reads of the table."""

    status: TableStatus
    match: Match
    options: TableOptions
    now: float
    seating: Seating
    seats: dict[Seat, SeatSlot]
    disclosure: Disclosure
    id: str
    name: str
    clock: TurnClock
    last_deal: Deal | None
    bot_cards: dict[tuple[Seat, int], BotPlayedBy]
    deal_conventions: dict[Team, ConventionCard]
    spectators: dict[Peer, None]
    chat: TableChat

    @property
    def pausing(self) -> PauseVote: ...

    @property
    def conventions(self) -> dict[Team, ConventionCard]: ...

    @property
    def summaries(self) -> DealSummaries: ...


def deal_facts(table: SnapshotTable) -> views.DealFacts:
    """The deal and the public facts around it, as views cut knowledge from them."""
    live = table.match.deal
    return views.DealFacts(
        deal=live if live is not None else table.last_deal, live=live is not None,
        deal_number=table.match.deal_number, conventions=table.conventions,
        scores=table.match.scores, target=table.match.target,
        turn_left=table.clock.turn_left(table.now, paused=table.pausing.paused))


def shown_deal(table: SnapshotTable) -> Deal | None:
    """The deal in play, else the last one: what explanations and questions are about."""
    return table.match.deal if table.match.deal is not None else table.last_deal


def turn_to_play(table: SnapshotTable) -> Seat | None:
    """The seat to play in a deal being played (None between deals, or at its end)."""
    deal = table.match.deal
    return deal.turn if table.status == "playing" and deal is not None else None


def bot_turn(table: SnapshotTable) -> Seat | None:
    """The seat a server-side bot must play for now, if any (a bot seat, a seat its
    substitute plays, or a seat whose clock ran out)."""
    turn = turn_to_play(table)
    if turn is None or table.pausing.paused:
        return None
    return turn if table.seats[turn].bot_controlled or table.clock.due is turn else None


def hint_turn(table: SnapshotTable, seat: Seat) -> tuple[int, int] | None:
    """The turn (deal number, plays made) a hint for ``seat`` is about: its turn in a
    deal being played; None when it is not ``seat``'s turn."""
    deal = table.match.deal
    if turn_to_play(table) is not seat or deal is None:
        return None
    return table.match.deal_number, deal.plays_made


def bot_view(table: SnapshotTable, seat: Seat) -> View:
    """What a bot playing ``seat`` may see: its own hand and public facts."""
    known = views.knowledge(deal_facts(table), seat)
    assert isinstance(known, View) and table.match.deal is not None
    return known


def state_for(table: SnapshotTable, peer: Peer, seat: Seat | None,
              req_id: MessageId | None = None) -> Outbox:
    """A fresh ``table_state`` for ``peer`` (sitting at ``seat``, or watching), then its
    ``your_turn`` if it is that seat's turn: on joining, on a reclaim and on ``sync``."""
    snap = table_snapshot(table)
    out: Outbox = [(peer, views.table_state(snap, seat, id=req_id))]
    turn = views.your_turn(snap.facts, seat) if seat is not None else None
    return out if turn is None else [*out, (peer, turn)]


def back_at_seat(table: SnapshotTable, peer: Peer, seat: Seat) -> Outbox:
    """What a player back at ``seat`` (a reclaim) is sent: :func:`state_for`, and after
    the end the match's result (back after a drop, or after a restart that found the
    match finished)."""
    out = state_for(table, peer, seat)
    winner = table.match.winner
    if table.status == "over" and winner is not None:
        out.append((peer, MatchEnded(winner=winner, scores=dict(table.match.scores))))
    return out


def table_snapshot(table: SnapshotTable, full: bool = True) -> views.TableSnapshot:
    """The table's facts as views read them; without ``full``, only what a lobby line
    needs (not the match so far)."""
    if not full:
        return _lobby_line(table)
    results = table.match.results
    last_ended = None
    if table.status in ("between_deals", "over") and table.last_deal is not None \
            and results:
        last_ended = views.deal_ended(table.last_deal, len(results), results[-1],
                                      table.match.scores, _next_deal_in(table),
                                      table.summaries.best(len(results)),
                                      table.disclosure.last_asked)
    summaries = table.summaries
    information = [summaries.information_cost(number, result)
                   for number, result in enumerate(results, 1)]
    return dataclasses.replace(
        _lobby_line(table), history=views.history(results, first_dealer(table.match.seed),
                                                  information, summaries.expert,
                                                  summaries.unavailable),
        last_ended=last_ended, next_deal_in=_next_deal_in(table),
        questions=table.disclosure.open_questions(),
        asked=tuple(table.disclosure.asked_log.values()),
        questions_left=table.disclosure.questions_left(),
        bot_cards=tuple(BotCard(seat=seat, index=index, by=by)
                        for (seat, index), by in sorted(table.bot_cards.items())),
        clock_stopped=table.clock.stopped is not None)


def _next_deal_in(table: SnapshotTable) -> float | None:
    if table.status != "between_deals":
        return None
    return table.clock.next_deal_in(table.now, paused=table.pausing.paused)


def _lobby_line(table: SnapshotTable) -> views.TableSnapshot:
    options = table.options
    return views.TableSnapshot(
        facts=deal_facts(table), table=table.id, name=table.name, status=table.status,
        seats=table.seating.infos(),
        spectators=len(table.spectators),
        deal_conventions=None if table.deal_conventions == table.conventions
        else dict(table.deal_conventions),
        turn_seconds=options.turn_seconds, seeded=options.seeded,
        hints=options.hints, private=options.private,
        creator=options.creator, allow_spectators=options.allow_spectators,
        chat=table.chat, pause=table.pausing.info())
