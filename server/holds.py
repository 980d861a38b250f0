"""A table's held seats, a part the table owns: a dropped player's seat is held, its token
reclaims it (a newer connection wins), and a hold that runs out frees the seat, hands it
to the substitute, or just ends. During a deal the others learn of a drop or a return only
at the seat's turn boundaries, and reclaims are few: a seat must not time signals to its
partner. The rules are docs/PROTOCOL.md's ("Reconnecting with a token")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..game.conventions import ConventionCard
from ..game.seats import Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    BotTakeover,
    PlayerBack,
    PlayerGone,
    PlayerLeft,
    ServerMessage,
    TableStatus,
)
from .records.recording import Recording
from .seating import Outbox, Peer, Seating, SeatSlot
from .table_bots import substitute
from .table_options import TableOptions

__all__ = ["MAX_RECLAIMS", "Expired", "SeatHolds"]

#: Times one seat may be reclaimed during a deal (more is ``too_many_reclaims``; the
#: count starts again with each deal).
MAX_RECLAIMS = 3


class Expired(NamedTuple):
    """What holds running out decided: the news, whether a seat changed hands, and the
    seats a substitute plays from now (the table stops a clock running for them)."""

    out: Outbox
    changed: bool
    substituted: list[Seat]


class SeatHolds:
    """The holds of one table's human seats. A hold's time is the seat's own
    (``SeatSlot.held_until``, which snapshots show); this part says what a drop, a
    return and a hold running out do.

    Like the table's other parts it holds the seating and the recording, never the table:
    each call is given the facts it reads (the table's status, options), changes seats
    through :class:`.seating.Seating` alone, and returns what the table must do besides
    sending the news (tell the pause, start a clock again, let a substitute play)."""

    __slots__ = ("_recording", "_seating", "reclaims")

    def __init__(self, seating: Seating, recording: Recording) -> None:
        self._seating, self._recording = seating, recording
        #: Reclaims of each seat during the current deal.
        self.reclaims: dict[Seat, int] = {}

    def new_deal(self) -> None:
        self.reclaims.clear()

    def check_reclaim(self, status: TableStatus, seat: Seat) -> None:
        """Refuse a reclaim of ``seat`` past the deal's allowance (before anything is
        changed or told): each would be a drop and a return the seat times."""
        if status != "playing":
            return
        made = self.reclaims.get(seat, 0)
        if made >= MAX_RECLAIMS:
            raise ProtocolError(ErrorCode.TOO_MANY_RECLAIMS,
                                f"seat {seat} was reclaimed {made} times this deal, the "
                                f"most allowed; it stays held until the next deal")

    def _news(self, status: TableStatus, slot: SeatSlot, before: tuple[bool, str | None],
              msgs: list[ServerMessage], skip: Peer | None = None) -> Outbox:
        """``msgs`` about ``slot`` for everyone now, or, during a deal, nothing yet: the
        seat's presence as it was (``before``) stays what the others see until
        :meth:`publish` at its next turn boundary."""
        if status == "playing":
            self._seating.keep_shown(slot, before)
            return []
        self._seating.take_shown(slot)
        return self._seating.broadcast(*msgs, skip=skip)

    def publish(self, seat: Seat, now: float, hold_seconds: float) -> Outbox:
        """Tell everyone how ``seat``'s presence changed since they were last told, if it
        did: called at the seat's turn boundaries (its turn starts, it plays) and when the
        deal ends, times the seat does not choose apart from its own play. Only the net
        change is told, so drops and returns in between carry nothing."""
        slot = self._seating.seats[seat]
        shown = self._seating.take_shown(slot)
        if shown is None:
            return []
        (was_here, was_sub), (here, sub) = shown, slot.presence
        msgs: list[ServerMessage] = []
        if here and not was_here:
            msgs.append(PlayerBack(seat=seat))
        elif not here:
            if was_here or (was_sub is not None and sub is None):
                left = hold_seconds if slot.held_until is None \
                    else max(0.0, slot.held_until - now)
                msgs.append(PlayerGone(seat=seat, seconds=left))
            if sub is not None and sub != was_sub:
                msgs.append(BotTakeover(seat=seat, strategy=sub))
        return self._seating.broadcast(*msgs, skip=slot.peer)

    def drop(self, status: TableStatus, peer: Peer, now: float,
             hold_seconds: float) -> tuple[Outbox, Seat | None]:
        """``peer``'s connection is gone: stop spectating, or hold its seat. Returns the
        news, and the seat whose player went before the match's end (the table's pause
        hears of it)."""
        self._seating.stop_watching(peer)
        seat = self._seating.seat_of(peer)
        if seat is None:
            return [], None
        slot = self._seating.seats[seat]
        before = slot.presence
        # After the end a seat is held a while too (a client starting again asks for the
        # rematch), then freed for a bot or a newcomer, so a rematch never waits for
        # someone gone for good (see :meth:`expire`).
        self._seating.hold(slot, now + hold_seconds, unready=status == "waiting")
        gone = PlayerGone(seat=slot.seat, seconds=hold_seconds)
        if status == "over":
            return self._seating.broadcast(gone), None
        return self._news(status, slot, before, [gone]), slot.seat

    def reclaim(self, status: TableStatus, peer: Peer, seat: Seat, host: str | None, *,
                in_match: bool, hold_seconds: float) -> tuple[Outbox, bool]:
        """``peer`` (from address ``host``) proved it owns ``seat``: give the seat back to
        it. Returns the news (the table adds ``peer``'s own view), and True if a
        substitute played the seat until now (its player gets a full clock)."""
        slot = self._seating.seats[seat]
        before = slot.presence
        if status == "playing":
            self.reclaims[seat] = self.reclaims.get(seat, 0) + 1
        old, from_substitute = self._seating.seat_back(slot, peer, host, in_match)
        out: Outbox = []
        msgs: list[ServerMessage] = []
        if old is not None and old is not peer:
            # The newer connection wins; the old one is told and loses the seat. To the
            # others it is a drop and a return, as when the old connection had died first.
            out.append((old, ProtocolError(ErrorCode.BAD_TOKEN,
                                           f"seat {seat} was reclaimed by another connection"
                                           ).to_message()))
            if status != "over":  # no player_gone after the end (see drop)
                msgs.append(PlayerGone(seat=seat, seconds=hold_seconds))
        msgs.append(PlayerBack(seat=seat))
        return out + self._news(status, slot, before, msgs, skip=peer), from_substitute

    def expire(self, status: TableStatus, now: float, options: TableOptions,
               conventions: Mapping[Team, ConventionCard]) -> Expired:
        """Every hold that has run out by ``now``: before and after the match the seat is
        free again, during it the substitute plays it (or, at a table without substitutes,
        it is held for good: the table waits)."""
        out: Outbox = []
        changed = False
        substituted: list[Seat] = []
        for slot in self._seating.seats.values():
            if slot.held_until is None or slot.takeover or slot.held_until > now:
                continue
            if status in ("waiting", "over"):
                self._seating.free(slot)
                changed = True
                self._recording.seat(slot)
                out += self._seating.broadcast(PlayerLeft(seat=slot.seat))
            elif options.bot_takeover:
                before = slot.presence
                strategy = substitute(options, conventions, slot.seat)
                self._seating.substitute(slot, strategy)
                substituted.append(slot.seat)
                changed = True
                out += self._news(status, slot, before,
                                  [BotTakeover(seat=slot.seat, strategy=strategy)])
            else:
                self._seating.hold_for_good(slot)  # the table waits
        return Expired(out, changed, substituted)
