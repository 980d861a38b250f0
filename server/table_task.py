"""Each table's own task: it sleeps until the table has something to do (a timer, a bot's
turn), plays the server-side bots' cards, and takes the table out of the lobby when its
match is over and nobody is left, or nobody attends it. The hub starts one per table and
wakes it; when it ends are docs/PROTOCOL.md's rules."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import trio

from ..game.seats import Seat
from ..protocol.errors import ErrorCode
from ..protocol.messages import Error
from .bots import BotPool
from .config import ServerConfig
from .hints import HintDesk
from .lobby import Lobby
from .records.desk import RecordDesk
from .seating import Outbox
from .snapshot import bot_turn, bot_view, deal_facts
from .table import Table
from .table_bots import substitute
from .views import your_turn

__all__ = ["TableTasks"]

log = logging.getLogger("jackal.server")

#: Delivers an outbox.
Deliver = Callable[[Outbox], None]
#: A table acted: delivers its outbox and wakes its task (the hub's ``table_acted``).
Acted = Callable[[Outbox, Table], None]


class TableTasks:
    """The tasks of every open table, and the events that wake them."""

    def __init__(self, config: ServerConfig, lobby: Lobby, bots: BotPool, hints: HintDesk,
                 records: RecordDesk, deliver: Deliver, acted: Acted,
                 creator_here: Callable[[Table], bool]) -> None:
        self.config = config
        self.lobby = lobby
        self.bots = bots
        self.hints = hints
        self.records = records
        self._deliver = deliver
        self._acted = acted
        #: Whether the connection that created a table is still open.
        self._creator_here = creator_here
        self._wake: dict[str, trio.Event] = {}
        self._status_seen: dict[str, tuple[str, int]] = {}

    def start(self, nursery: trio.Nursery, table: Table, *, restored: bool = False) -> None:
        """Start ``table``'s task (a ``restored`` table's deal was logged before)."""
        if restored:
            self._status_seen[table.id] = (table.status, table.match.deal_number)
        nursery.start_soon(self.run, table)

    def wake(self, table: Table) -> None:
        """Something happened at ``table``: log news, and let its task look again if it
        may have something to do."""
        seen = self._status_seen.get(table.id)
        if seen != (table.status, table.match.deal_number):
            self._status_seen[table.id] = (table.status, table.match.deal_number)
            if table.status == "playing":
                log.info("table %s: deal %d started", table.id, table.match.deal_number)
        # The task acts on bot turns, deadlines and status changes only. While humans play
        # a deal with no timer running none of those is due, so leave it asleep: this is
        # the hot path of a busy server. (A deadline it already sleeps on that was since
        # cancelled, e.g. by a player coming back, wakes it for a tick that does nothing.)
        if (table.status == "playing" and bot_turn(table) is None
                and table.next_deadline() is None):
            return
        self.poke(table)

    def poke(self, table: Table) -> None:
        """Wake ``table``'s task whatever it waits for (its timers changed)."""
        event = self._wake.get(table.id)
        if event is not None:
            event.set()

    async def run(self, table: Table) -> None:
        """The table's own task: timers and server-side bots; then it leaves the lobby.

        A table is removed from the lobby when its match is over, nobody is left at
        it and no seat is held for a player who was away at the end, or when nobody has
        attended it for ``unattended_seconds``. A bug in one table is logged and closes
        that table only.
        """
        table.limit_unseated_deals(self.config.max_unseated_deals)
        try:
            while True:
                abandoned = await self._play(table)
                if abandoned is not None:
                    break
                log.info("table %s: match over, %s wins", table.id, table.match.winner)
                await self._linger(table)
                if table.status == "over":
                    break
                log.info("table %s: rematch", table.id)  # its players play again
            if abandoned is not None:
                log.info("table %s: %s, removed", table.id, abandoned)
                table.close(abandoned)
                why = _CLOSED_BECAUSE.get(abandoned)
                if why is not None:
                    self._deliver(table.seating.broadcast(Error(code=ErrorCode.TABLE_CLOSED,
                                                            message=why)))
        except Exception:
            log.exception("table %s failed and is closed", table.id)
            self._deliver(table.fail())
        finally:
            self._wake.pop(table.id, None)
            self._status_seen.pop(table.id, None)
            self.bots.forget(table.id)
            self.hints.forget(table)
            self.lobby.remove(table)
            self.records.drop(table)

    def _new_wake(self, table: Table) -> trio.Event:
        wake = self._wake[table.id] = trio.Event()
        return wake

    async def _play(self, table: Table) -> str | None:
        """Run the match to its end (None), or until nobody has attended the table for
        long enough: ``idle`` (nobody ever took a seat, not even a bot, and nobody watches:
        ``idle_table_seconds``, or ``orphan_table_seconds`` once its creator has left)
        or ``unattended`` (seats taken, but no person connected and nobody watching:
        ``unattended_seconds``, whatever the status)."""
        alone_since: float | None = None
        while table.status != "over":
            if self.records.full(table):
                return "record_full"
            if self.records.settle_hold(table):
                self._acted(_turn_again(table), table)
            if table.halted is not None:
                return table.halted
            now = trio.current_time()
            stop: float | None = None
            if table.seating.attended:
                alone_since = None
            else:
                alone_since = now if alone_since is None else alone_since
                idle = table.status == "waiting" and table.seating.is_empty
                if not idle:
                    wait = self.config.unattended_seconds
                elif self._creator_here(table):
                    wait = self.config.idle_table_seconds
                else:
                    wait = min(self.config.idle_table_seconds,
                               self.config.orphan_table_seconds)
                stop = alone_since + wait
                if now >= stop:
                    return "idle" if idle else "unattended"
            wake = self._new_wake(table)
            seat = bot_turn(table)
            if seat is not None:
                await self._bot_move(table, seat)
                continue
            deadline = table.next_deadline()
            if stop is not None:
                deadline = stop if deadline is None else min(deadline, stop)
            with trio.move_on_at(deadline if deadline is not None else math.inf):
                await wake.wait()
            self._acted(table.tick(trio.current_time()), table)
        return None

    async def _linger(self, table: Table) -> None:
        """Keep a finished table listed while anyone is still at it, or while a player
        who was away at the end may still reclaim the seat to see it (a held seat); until
        a rematch starts a new match there."""
        while table.status == "over" and (table.seating.audience()
                                          or table.next_deadline() is not None):
            wake = self._new_wake(table)
            deadline = table.next_deadline()
            with trio.move_on_at(deadline if deadline is not None else math.inf):
                await wake.wait()
            self._acted(table.tick(trio.current_time()), table)

    async def _bot_move(self, table: Table, seat: Seat) -> None:
        slot = table.seats[seat]
        strategy = slot.strategy or substitute(table.options, table.conventions, seat)
        version = table.version
        pause = 0.0
        if table.clock.due is not seat and any(s.peer is not None for s in table.seating.humans):
            # A pause so the people at the table can follow the round card by card. The
            # bot thinks during it, and its card leaves when the pause (or the floor, if
            # longer) is over, never when the thinking ends: that time would show the hand.
            pause = self.config.bot_pause_seconds
        card = await self.bots.choose(table.id, seat, strategy, bot_view(table, seat),
                                      attended=table.seating.people_playing, at_least=pause)
        # What fell due while the bot thought (a pause vote on its grid time) comes
        # first: a pause it starts makes this card stale.
        self._acted(table.tick(trio.current_time()), table)
        if table.version != version or bot_turn(table) is not seat:
            return  # the table moved on while the bot thought (e.g. its player came back)
        self._acted(table.bot_play(seat, card, trio.current_time()), table)


#: What everyone at a table the server closes is told (``table_closed``), by reason.
_CLOSED_BECAUSE = {
    "record_full": "this table's match record reached its size cap: the table is closed",
    "deal_limit": "no person sits at this table and its bots have played the most deals "
                  "allowed: the table is closed",
}


def _turn_again(table: Table) -> Outbox:
    """``your_turn`` again to the person whose turn it is, when a hold of the table ends:
    a card they sent meanwhile was refused (``paused``), and a program waits for a turn."""
    deal = table.match.deal
    if table.status != "playing" or deal is None or deal.turn is None:
        return []
    peer = table.seats[deal.turn].peer
    private = None if peer is None else your_turn(deal_facts(table), deal.turn)
    return [] if peer is None or private is None else [(peer, private)]
