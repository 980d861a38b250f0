"""Per-recipient messages: the ONE place hidden information is removed.

Everything the server tells a seat or a spectator about the cards is built here.
The rules of disclosure, in one list:

- rows (cards already played) are public: everyone at the table sees all four;
- a seat's unplayed cards go only to that seat: in ``deal_started`` (its copy only) and
  in ``table_state`` (``hand`` is set only when the recipient sits there);
- ``deal_ended`` shows every seat's five kept cards to everyone: the deal is over;
- spectators get exactly what an opponent of every seat would get: rows, never hands.

Callers pass the recipient's seat (``None`` for a spectator); nothing else here looks
at who is asking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game.cards import RANK_NAMES, Card
from ..game.deal import Deal
from ..game.scoring import DealResult, TeamScore
from ..game.seats import SEATS, TEAMS, Seat, Team
from ..protocol.messages import (
    DealEnded,
    DealStarted,
    GroupInfo,
    MessageId,
    SeatInfo,
    TableInfo,
    TableState,
)

if TYPE_CHECKING:
    from .table import Table

__all__ = ["deal_ended", "deal_started", "table_info", "table_state"]


def _cards(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [str(card) for card in cards]


def seat_infos(table: Table) -> list[SeatInfo]:
    """The public facts about each seat: who sits there and whether they are here."""
    return [
        SeatInfo(seat=slot.seat.value, name=slot.name, kind=slot.kind,
                 connected=slot.connected, ready=slot.ready)
        for slot in (table.seats[seat] for seat in SEATS)
    ]


def table_state(table: Table, you: Seat | None, *, id: MessageId | None = None) -> TableState:
    """A full snapshot for one recipient; ``hand`` only for the recipient's own seat."""
    deal = table.match.deal if table.match.deal is not None else table.last_deal
    rows = {seat.value: _cards(deal.row(seat)) if deal else [] for seat in SEATS}
    hand: list[str] | None = None
    if you is not None and table.match.deal is not None:
        hand = _cards(table.match.deal.hand(you))
    turn = table.match.deal.turn if table.match.deal is not None else None
    return TableState(
        id=id,
        table=table.id,
        name=table.name,
        target=table.match.target,
        status=table.status,
        seats=seat_infos(table),
        conventions={team.value: table.conventions[team] for team in TEAMS},
        scores={team.value: table.match.scores[team] for team in TEAMS},
        deal=table.match.deal_number,
        dealer=deal.dealer.value if deal is not None else None,
        turn=turn.value if turn is not None else None,
        rows=rows,
        you=you.value if you is not None else None,
        hand=hand,
    )


def deal_started(deal: Deal, number: int, you: Seat | None) -> DealStarted:
    """The start of a deal as ``you`` sees it: its own 13 cards, nobody else's."""
    hand = _cards(deal.hand(you)) if you is not None else None
    return DealStarted(deal=number, dealer=deal.dealer.value,
                       first=deal.first.value, hand=hand)


def _groups(score: TeamScore) -> list[GroupInfo]:
    return [GroupInfo(rank=RANK_NAMES[group.rank], cards=_cards(group.cards),
                      count=group.count, points=group.points) for group in score.groups]


def deal_ended(deal: Deal, number: int, result: DealResult,
               scores: dict[Team, int]) -> DealEnded:
    """The end of a deal, the same for everyone: every kept hand is shown now."""
    return DealEnded(
        deal=number,
        hands={seat.value: _cards(deal.kept(seat)) for seat in SEATS},
        penalty={team.value: result.penalty(team) for team in TEAMS},
        winner=result.winner.value if result.winner is not None else None,
        points=result.points,
        scores={team.value: scores[team] for team in TEAMS},
        breakdown={team.value: _groups(result.scores[i]) for i, team in enumerate(TEAMS)},
    )


def table_info(table: Table) -> TableInfo:
    """One lobby line: seats by name, no cards at all."""
    return TableInfo(
        table=table.id,
        name=table.name,
        target=table.match.target,
        seats={seat.value: table.seats[seat].name for seat in SEATS},
        status=table.status,
        spectators=len(table.spectators),
    )
