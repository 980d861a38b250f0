"""The lobby: every table of this server by id, and finding a seat by its token.

Table ids are short (``t1``, ``t2``, ...) and never reused within one records
directory, because restored tables keep theirs and new ids skip them.
"""

from __future__ import annotations

import itertools
import secrets

from ..game.conventions import ConventionCard
from ..game.seats import Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import TableInfo
from . import views
from .table import Recorder, Table, TableOptions
from .tokens import hash_token

__all__ = ["Lobby"]


class Lobby:
    """Tables by id."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self._ids = itertools.count(1)

    def new_id(self) -> str:
        while True:
            table_id = f"t{next(self._ids)}"
            if table_id not in self.tables:
                return table_id

    def create(self, options: TableOptions, conventions: dict[Team, ConventionCard] | None = None,
               recorder: Recorder | None = None, table_id: str | None = None) -> Table:
        """Make a table (not seating anyone) and list it."""
        table = Table(table_id or self.new_id(), options, conventions, recorder)
        self.tables[table.id] = table
        return table

    def add(self, table: Table) -> None:
        """List an existing table (one restored from its records)."""
        self.tables[table.id] = table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        return table

    def listing(self) -> list[TableInfo]:
        return [views.table_info(table.snapshot()) for table in self.tables.values()]

    def find_token(self, token: str) -> tuple[Table, Seat] | None:
        """The table and seat a token belongs to (every seat is checked in constant time)."""
        found: tuple[Table, Seat] | None = None
        token_hash = hash_token(token)
        for table in self.tables.values():
            seat = table.find_token(token_hash)
            if seat is not None:
                found = (table, seat)
        return found

    @staticmethod
    def random_seed() -> int:
        return secrets.randbits(63)
