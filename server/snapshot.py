"""A table's snapshot: its facts as :mod:`.views` reads them, built from the table it is
handed (views never see the table itself). ``deal_facts`` is the cheap part that every
``your_turn`` needs; a full snapshot adds the match so far and what waits on the clock."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.match import first_dealer
from ..game.seats import Seat, Team
from ..protocol.messages import BotCard, BotPlayedBy
from . import views
from .chat import TableChat
from .deal_summary import DealSummaries
from .pause import PauseVote
from .seating import Peer
from .turn_clock import ClockedTable, TurnClock

__all__ = ["SnapshotTable", "deal_facts", "table_snapshot"]


class SnapshotTable(ClockedTable, Protocol):
    """What a snapshot reads of the table."""

    id: str
    name: str
    clock: TurnClock
    last_deal: Deal | None
    bot_cards: dict[tuple[Seat, int], BotPlayedBy]
    between_deadline: float | None
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
        turn_left=table.clock.turn_left(table))


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
    if table.pausing.paused:
        return table.pausing.between_left
    if table.between_deadline is None:
        return None
    return max(0.0, table.between_deadline - table.now)


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
