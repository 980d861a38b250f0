"""Which bot sits where at a table: a server-side bot put in an empty seat on request
(by whom, with which strategy), and the substitute strategy that stands in for a person
who left or is away. Functions over the seating and options they are handed; no I/O."""

from __future__ import annotations

from collections.abc import Mapping

from ..bots.registry import STRATEGIES, substitute_strategy
from ..game.conventions import ConventionCard
from ..game.seats import Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import MessageId, Ok, PlayerJoined
from .seating import Outbox, Peer, Seating
from .table_options import TableOptions

__all__ = ["seat_bot", "substitute"]


def substitute(options: TableOptions, conventions: Mapping[Team, ConventionCard],
               seat: Seat) -> str:
    """The strategy of a bot that stands in at ``seat``: the table's takeover strategy,
    else the one that fits its partnership's declared card (of ``conventions``)."""
    return options.takeover_strategy or substitute_strategy(conventions[seat.team])


def seat_bot(seating: Seating, options: TableOptions,
             conventions: Mapping[Team, ConventionCard], requester: Peer, seat: Seat,
             strategy: str | None, req_id: MessageId | None = None,
             invite: str | None = None) -> Outbox:
    """Put a server-side bot in an empty seat (no ``strategy``: :func:`substitute`).
    Only its creator or a player seated here may; at a private table also a holder of
    the seat's code. The caller records the seat, then starts the match if the seats are
    full."""
    if requester is not seating.creator and seating.seat_of(requester) is None:
        # A bot can fill the last seat and start the match: a stranger must not start
        # one that people are still gathering for.
        if options.invites is None:
            raise ProtocolError(ErrorCode.NOT_AT_TABLE,
                                f"only a player seated at table {seating.table_id} or its "
                                f"creator may add a bot there")
        seating.invited_seat(seat, invite)
    if strategy is None:
        strategy = substitute(options, conventions, seat)
    if strategy not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        raise ProtocolError(ErrorCode.UNKNOWN_STRATEGY,
                            f"field 'strategy': unknown strategy {strategy!r} (known: {known})")
    slot = seating.seats[seat]
    if slot.kind != "empty":
        raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken")
    # A bot is always ready (after a match: for the rematch, whose empty seat it fills).
    name = seating.seat_bot(slot, strategy)
    # The requester gets its reply first and then, if it is at this table, the same
    # event as everyone else there: its view of the table stays event-driven.
    out: Outbox = [(requester, Ok(id=req_id, request="add_bot"))]
    return out + seating.broadcast(PlayerJoined(seat=seat, name=name, kind="bot"))
