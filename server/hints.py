"""Hints: the card the expert bot would play for a seat on its turn, and why, in words.

Worked out from the seat's own view (:meth:`Table.bot_view`) by the strategy that would
stand in for it, in a worker thread behind the bots' shared slots; the reasons come from
:func:`jackal.game.advice.advise`. Who is told what is docs/PROTOCOL.md's (``hint``)."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

import msgspec

from ..bots.registry import make_strategy, substitute_strategy
from ..game.advice import advise
from ..game.seats import Seat
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import Error, HintReply, HintTaken, MessageId
from .bots import BotPool
from .records.events import HintEvent
from .seating import Outbox, Peer
from .snapshot import bot_view, hint_turn
from .table import Table

__all__ = ["HintDesk"]

log = logging.getLogger("jackal.server")


@dataclass
class _Hint:
    """One seat's hint for one turn: the requests waiting for it, then the answer."""

    #: (deal number, plays made): the turn it is for.
    turn: tuple[int, int]
    waiting: list[tuple[Peer, MessageId | None]] = field(default_factory=list)
    answer: HintReply | None = None


class HintDesk:
    """Every table's hints of the current turns, and the work of finding them."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self._hints: dict[tuple[Table, Seat], _Hint] = {}

    def request(self, table: Table, peer: Peer, req_id: MessageId | None
                ) -> tuple[Outbox, Seat | None]:
        """A ``hint`` from ``peer``: the reply when this turn's hint is known already, and
        the seat whose hint must be worked out now (then :meth:`work` answers), if any.
        Raises :class:`ProtocolError` for a refused request."""
        slot = table.seating.require_seat(peer)
        if not table.options.hints:
            raise ProtocolError(ErrorCode.HINTS_OFF, f"table {table.id} does not allow hints")
        turn = hint_turn(table, slot.seat)
        if turn is None:
            if table.status != "playing":
                raise ProtocolError(ErrorCode.NO_DEAL, "no deal is in progress")
            raise ProtocolError(ErrorCode.NOT_YOUR_TURN, "hints are for your own turn")
        key = (table, slot.seat)
        known = self._hints.get(key)
        if known is not None and known.turn == turn:
            if known.answer is None:
                known.waiting.append((peer, req_id))
                return [], None
            return [(peer, msgspec.structs.replace(known.answer, id=req_id))], None
        self._hints[key] = _Hint(turn, [(peer, req_id)])
        return [], slot.seat

    def forget(self, table: Table) -> None:
        """Drop the hints of a table that is gone."""
        for key in [key for key in self._hints if key[0] is table]:
            del self._hints[key]

    async def work(self, table: Table, seat: Seat) -> Outbox:
        """Work out ``seat``'s hint for the turn it was asked on; the messages to send."""
        hint = self._hints[(table, seat)]
        try:
            reply = await self._find(table, seat, hint.turn)
        except ProtocolError as exc:
            problem = exc
        except Exception:
            log.exception("hint for %s at table %s failed", seat, table.id)
            problem = ProtocolError(ErrorCode.INTERNAL, "the hint could not be worked out")
        else:
            hint.answer = reply
            waiting, hint.waiting = hint.waiting, []
            out: Outbox = [(peer, msgspec.structs.replace(reply, id=req_id))
                           for peer, req_id in waiting]
            if not table.hint_told_now(seat, hint.turn):
                return out  # told before a restart, which forgot the answer: not again
            # Recorded before anyone is told, like every event (the card is not: see
            # HintEvent). Still this seat's turn: nothing awaited since _find checked it.
            table.recording.write(HintEvent(seat=seat, deal=reply.deal, play=reply.play))
            return out + table.seating.broadcast(HintTaken(seat=seat, deal=reply.deal,
                                                           play=reply.play))
        if self._hints.get((table, seat)) is hint:
            del self._hints[(table, seat)]  # the next request starts afresh
        return [(peer, Error(id=req_id, code=problem.code, message=problem.message))
                for peer, req_id in hint.waiting]

    async def _find(self, table: Table, seat: Seat, turn: tuple[int, int]) -> HintReply:
        view = bot_view(table, seat)
        name = substitute_strategy(view.our_card)
        # A strategy of its own for each hint, seeded unpredictably like every server bot.
        decision = await self.pool.think(make_strategy(name, secrets.randbits(128)), view,
                                         attended=True, hint=True)
        if decision.problem is not None:
            raise ProtocolError(ErrorCode.INTERNAL,
                                f"the {name} bot could not suggest a card ({decision.problem})")
        if hint_turn(table, seat) != turn:
            raise ProtocolError(ErrorCode.NOT_YOUR_TURN,
                                "your turn passed before the hint was ready")
        advice = advise(view, decision.card, name)
        return HintReply(seat=seat, deal=turn[0], play=advice.play, card=advice.card,
                         strategy=name, text=advice.text, meaning=advice.meaning,
                         honest=advice.honest)
