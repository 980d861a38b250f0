"""A table's held seats, a part the table owns: a dropped player's seat is held, its token
reclaims it (a newer connection wins), and a hold that runs out frees the seat, hands it
to the substitute, or just ends. During a deal the others learn of a drop or a return only
at the seat's turn boundaries, and reclaims are few: a seat must not time signals to its
partner. The rules are docs/PROTOCOL.md's ("Reconnecting with a token")."""

from __future__ import annotations

from typing import Protocol

from ..game.match import Match
from ..game.seats import Seat
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    BotTakeover,
    MatchEnded,
    PlayerBack,
    PlayerGone,
    PlayerLeft,
    ServerMessage,
)
from .records.recording import Recording
from .seating import Outbox, Peer, SeatSlot
from .snapshot import SnapshotTable, state_for
from .table_bots import substitute

__all__ = ["MAX_RECLAIMS", "HoldingTable", "SeatHolds"]

#: Times one seat may be reclaimed during a deal (more is ``too_many_reclaims``; the
#: count starts again with each deal).
MAX_RECLAIMS = 3


class HoldingTable(SnapshotTable, Protocol):
    """What the holds read of the table that owns them, and the table's methods a drop or
    a return calls (its clock and pause hear of it)."""

    spectators: dict[Peer, None]
    match: Match
    recording: Recording

    @property
    def in_match(self) -> bool: ...

    def arm_clock(self, grace: float = 0.0) -> float | None: ...

    def bot_plays(self, seat: Seat) -> None: ...

    def seat_went(self, seat: Seat) -> Outbox: ...


class SeatHolds:
    """The holds of one table's human seats. A hold's time is the seat's own
    (``SeatSlot.held_until``, which snapshots show); this part says what a drop, a
    return and a hold running out do.

    The table passes itself to each call rather than being kept here (no reference
    cycle; see :class:`.disclosure.Disclosure`).
    """

    __slots__ = ("reclaims",)

    def __init__(self) -> None:
        #: Reclaims of each seat during the current deal.
        self.reclaims: dict[Seat, int] = {}

    def new_deal(self) -> None:
        self.reclaims.clear()

    def check_reclaim(self, table: HoldingTable, seat: Seat) -> None:
        """Refuse a reclaim of ``seat`` past the deal's allowance (before anything is
        changed or told): each would be a drop and a return the seat times."""
        if table.status != "playing":
            return
        made = self.reclaims.get(seat, 0)
        if made >= MAX_RECLAIMS:
            raise ProtocolError(ErrorCode.TOO_MANY_RECLAIMS,
                                f"seat {seat} was reclaimed {made} times this deal, the "
                                f"most allowed; it stays held until the next deal")

    def _news(self, table: HoldingTable, slot: SeatSlot, before: tuple[bool, str | None],
              msgs: list[ServerMessage], skip: Peer | None = None) -> Outbox:
        """``msgs`` about ``slot`` for everyone now, or, during a deal, nothing yet: the
        seat's presence as it was (``before``) stays what the others see until
        :meth:`publish` at its next turn boundary."""
        if table.status == "playing":
            if slot.shown is None:
                slot.shown = before
            return []
        slot.shown = None
        out: Outbox = []
        for msg in msgs:
            out += table.seating.broadcast(msg, skip=skip)
        return out

    def publish(self, table: HoldingTable, seat: Seat, now: float) -> Outbox:
        """Tell everyone how ``seat``'s presence changed since they were last told, if it
        did: called at the seat's turn boundaries (its turn starts, it plays) and when the
        deal ends, times the seat does not choose apart from its own play. Only the net
        change is told, so drops and returns in between carry nothing."""
        slot = table.seats[seat]
        shown = slot.shown
        if shown is None:
            return []
        slot.shown = None
        (was_here, was_sub), (here, sub) = shown, slot.presence
        msgs: list[ServerMessage] = []
        if here and not was_here:
            msgs.append(PlayerBack(seat=seat))
        elif not here:
            if was_here or (was_sub is not None and sub is None):
                left = table.options.hold_seconds if slot.held_until is None \
                    else max(0.0, slot.held_until - now)
                msgs.append(PlayerGone(seat=seat, seconds=left))
            if sub is not None and sub != was_sub:
                msgs.append(BotTakeover(seat=seat, strategy=sub))
        out: Outbox = []
        for msg in msgs:
            out += table.seating.broadcast(msg, skip=slot.peer)
        return out

    def drop(self, table: HoldingTable, peer: Peer, now: float) -> Outbox:
        """``peer``'s connection is gone: stop spectating, or hold its seat."""
        table.spectators.pop(peer, None)
        seat = table.seating.seat_of(peer)
        if seat is None:
            return []
        slot = table.seats[seat]
        before = slot.presence
        slot.peer = None
        hold = table.options.hold_seconds
        if table.status == "over":
            # After the end: held a while (a client starting again asks for the rematch),
            # then free for a bot or a newcomer, so a rematch never waits for someone
            # gone for good (see :meth:`expire`).
            slot.held_until = now + hold
            return table.seating.broadcast(PlayerGone(seat=seat, seconds=hold))
        slot.held_until = now + hold
        if table.status == "waiting":
            slot.ready = False
        return self._news(table, slot, before, [PlayerGone(seat=seat, seconds=hold)]
                          ) + table.seat_went(seat)

    def reclaim(self, table: HoldingTable, peer: Peer, seat: Seat,
                host: str | None = None) -> Outbox:
        """``peer`` (from address ``host``) proved it owns ``seat``: give the seat back to
        it (a player back from a substitute on their own turn gets a full clock). The
        table then starts a rematch if this player was the last one it waited for."""
        slot = table.seats[seat]
        before = slot.presence
        out: Outbox = []
        old = slot.peer
        if table.status == "playing":
            self.reclaims[seat] = self.reclaims.get(seat, 0) + 1
        msgs: list[ServerMessage] = []
        if old is not None and old is not peer:
            # The newer connection wins; the old one is told and loses the seat. To the
            # others it is a drop and a return, as when the old connection had died first.
            out.append((old, ProtocolError(ErrorCode.BAD_TOKEN,
                                           f"seat {seat} was reclaimed by another connection"
                                           ).to_message()))
            if table.status != "over":  # no player_gone after the end (see drop)
                msgs.append(PlayerGone(seat=seat, seconds=table.options.hold_seconds))
        table.spectators.pop(peer, None)
        was_bot = slot.takeover
        slot.peer, slot.held_until, slot.takeover = peer, None, False
        if host is not None:
            slot.host = host
            table.seating.remember_host(slot, table.in_match)
        if was_bot:
            slot.strategy = None
            # Back from a substitute on their own turn: a fresh clock for the player.
            table.arm_clock()
        out += state_for(table, peer, seat)
        winner = table.match.winner
        if table.status == "over" and winner is not None:
            # Back to see the end (after a drop, or a restart that finished the match).
            out.append((peer, MatchEnded(winner=winner, scores=dict(table.match.scores))))
        msgs.append(PlayerBack(seat=seat))
        return out + self._news(table, slot, before, msgs, skip=peer)

    def expire(self, table: HoldingTable, now: float) -> tuple[Outbox, bool]:
        """Every hold that has run out by ``now``: before and after the match the seat is
        free again, during it the substitute plays it (or, at a table without substitutes,
        it is held for good: the table waits). True if a seat changed hands."""
        out: Outbox = []
        changed = False
        for slot in table.seats.values():
            if slot.held_until is None or slot.takeover or slot.held_until > now:
                continue
            if table.status in ("waiting", "over"):
                seat = slot.seat
                slot.clear()
                changed = True
                table.recording.seat(slot)
                out += table.seating.broadcast(PlayerLeft(seat=seat))
            elif table.options.bot_takeover:
                before = slot.presence
                slot.takeover = True
                slot.strategy = substitute(table.options, table.conventions, slot.seat)
                table.bot_plays(slot.seat)
                changed = True
                out += self._news(table, slot, before,
                                  [BotTakeover(seat=slot.seat, strategy=slot.strategy)])
            else:
                slot.held_until = None  # keep holding for good: the table waits
        return out, changed
