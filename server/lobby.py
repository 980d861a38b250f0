"""The lobby: every table of this server by id, which table each connection is at, and the
seat tokens that find a seat again (:class:`Lobby`)."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator

from ..game.conventions import ConventionCard
from ..game.seats import Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import MessageId, TableInfo
from . import views
from .records.recording import Recorder
from .seating import Outbox, Peer
from .snapshot import table_snapshot
from .table import Table
from .table_options import TableOptions
from .tokens import hash_token

__all__ = ["Lobby"]


class Lobby:
    """Tables by id, and the table each connection is at.

    Who sits where is kept once: each table holds its seats and spectators, the lobby
    which table each connection is at, so a message finds its table without a search;
    both change only through these methods and the table's own. A connection holds at
    most one seat in the whole server and watches at most one table. A seat token is
    found by its hash in one lookup (a wrong token costs the same whatever the number of
    tables) and then checked against the table's seats, so an entry left by a seat that
    changed hands finds nothing. Table ids (``t1``, ``t2``, ...) skip those restored
    tables keep, so they are never reused within one records directory.
    """

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self._ids = itertools.count(1)
        self._at: dict[Peer, Table] = {}
        #: Seat token hash -> table holding it (checked against its seats on lookup).
        self._by_token: dict[str, Table] = {}
        #: The hashes each table has in ``_by_token`` (so a table's entries can be dropped).
        self._hashes: dict[Table, set[str]] = {}

    def new_id(self) -> str:
        while True:
            table_id = f"t{next(self._ids)}"
            if table_id not in self.tables:
                return table_id

    def create(self, options: TableOptions, conventions: dict[Team, ConventionCard] | None = None,
               recorder: Recorder | None = None, table_id: str | None = None,
               creator: Peer | None = None) -> Table:
        """Make a table (not seating anyone) for ``creator``'s connection and list it."""
        table = Table(table_id or self.new_id(), options, conventions, recorder, creator)
        self.tables[table.id] = table
        return table

    def add(self, table: Table) -> None:
        """List an existing table (one restored from its records)."""
        self.tables[table.id] = table
        self._index_tokens(table)

    def remove(self, table: Table) -> None:
        """The table leaves the lobby (its tokens reclaim nothing any more, and whoever
        was still at it is at no table now)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        for peer, _seat in table.seating.audience():
            if self._at.get(peer) is table:
                del self._at[peer]
        for token_hash in self._hashes.pop(table, ()):
            if self._by_token.get(token_hash) is table:
                del self._by_token[token_hash]

    def _index_tokens(self, table: Table) -> None:
        """Index the tokens of ``table``'s seats now, forgetting those it no longer has
        (so a table's entries never outnumber its seats plus one)."""
        current = {slot.token_hash for slot in table.seats.values()
                   if slot.token_hash is not None}
        known = self._hashes.setdefault(table, set())
        for token_hash in known - current:
            if self._by_token.get(token_hash) is table:
                del self._by_token[token_hash]
        for token_hash in current:
            self._by_token[token_hash] = table
        self._hashes[table] = current

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        return table

    def listing(self, offset: int = 0, limit: int | None = None) -> list[TableInfo]:
        """The lobby, or the page of it from ``offset`` with at most ``limit`` tables
        (tables in the order they were created)."""
        stop = None if limit is None else offset + limit
        return [views.table_info(table_snapshot(table, full=False))
                for table in itertools.islice(self.tables.values(), offset, stop)]

    def find_token(self, token: str) -> tuple[Table, Seat] | None:
        """The table and seat a token belongs to: one lookup by its hash, then that
        table's seats compared in constant time."""
        token_hash = hash_token(token)
        table = self._by_token.get(token_hash)
        if table is None:
            return None
        seat = table.seating.find_token(token_hash)
        return None if seat is None else (table, seat)

    def held_names(self) -> Iterator[tuple[str, str | None]]:
        """The name and address of each person whose seat is held while they are away."""
        for table in self.tables.values():
            for slot in table.seats.values():
                if slot.kind == "human" and slot.peer is None and slot.name is not None:
                    yield slot.name, slot.host

    @staticmethod
    def random_seed() -> int:
        return secrets.randbits(63)

    # ------------------------------------------------------------------ who sits where

    def table_of(self, peer: Peer) -> Table | None:
        """The table ``peer`` sits at or watches, if any."""
        return self._at.get(peer)

    def current(self, peer: Peer) -> Table:
        """The table ``peer`` is at (``not_seated`` if none)."""
        table = self._at.get(peer)
        if table is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "you are not at a table")
        return table

    def seated(self, peer: Peer) -> tuple[Table, Seat]:
        """The table and seat ``peer`` holds (``not_seated`` if none)."""
        table = self._at.get(peer)
        seat = table.seating.seat_of(peer) if table is not None else None
        if table is None or seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "you have no seat")
        return table, seat

    def _stop_watching(self, peer: Peer, unless: Table | None = None) -> None:
        table = self._at.get(peer)
        if table is not None and table is not unless and table.seating.seat_of(peer) is None:
            table.seating.stop_watching(peer)
            del self._at[peer]

    def join(self, peer: Peer, name: str, table_id: str, seat: Seat | None,
             req_id: MessageId | None = None, invite: str | None = None,
             host: str | None = None) -> tuple[Table, Outbox]:
        """Seat ``peer`` (from address ``host``) at a table (it stops watching any other)."""
        at = self._at.get(peer)
        if at is not None and at.seating.seat_of(peer) is not None:
            raise ProtocolError(ErrorCode.ALREADY_SEATED, f"you already sit at table {at.id}")
        table = self.get(table_id)
        _token, out = table.join(peer, name, seat, req_id, invite, host)
        self._index_tokens(table)
        self._stop_watching(peer, unless=table)
        self._at[peer] = table
        return table, out

    def spectate(self, peer: Peer, table_id: str,
                 req_id: MessageId | None = None) -> tuple[Table, Outbox]:
        """Watch a table (and stop watching any other)."""
        at = self._at.get(peer)
        if at is not None and at.seating.seat_of(peer) is not None:
            raise ProtocolError(ErrorCode.ALREADY_SEATED, "you have a seat; leave it first")
        table = self.get(table_id)
        out = table.spectate(peer, req_id)
        self._stop_watching(peer, unless=table)
        self._at[peer] = table
        return table, out

    def leave(self, peer: Peer, req_id: MessageId | None = None,
              now: float | None = None) -> tuple[Table, Outbox]:
        """Give up the seat or stop watching (at ``now``: a pause vote the leaver's
        going casts waits for the grid time after it)."""
        table = self.current(peer)
        out = table.leave(peer, req_id, now)
        del self._at[peer]
        return table, out

    def reclaim(self, peer: Peer, table: Table, seat: Seat,
                now: float | None = None, host: str | None = None) -> Outbox:
        """``peer`` proved it owns ``seat`` (by its token); a connection holding the seat
        until now loses it and is at no table any more."""
        old = table.seats[seat].peer
        if old is not None and old is not peer:
            self._at.pop(old, None)
        self._stop_watching(peer, unless=table)
        out = table.reclaim(peer, seat, now, host)
        self._at[peer] = table
        return out

    def disconnect(self, peer: Peer, now: float) -> tuple[Table, Outbox] | None:
        """``peer``'s connection is gone: its seat is held, its watching ends."""
        table = self._at.pop(peer, None)
        if table is None:
            return None
        return table, table.disconnect(peer, now)
