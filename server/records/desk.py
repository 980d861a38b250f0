"""The hub's records: each table's record file, the folder's cap, and the records the
disk refuses now (retried every second; their tables are told, and no new tables or
seats are taken meanwhile). Writing one record is :mod:`.files`' business."""

from __future__ import annotations

import logging
from collections.abc import Callable

import trio

from ...protocol.errors import ErrorCode, ProtocolError
from ...protocol.messages import Error
from ..config import ServerConfig
from ..seating import Outbox
from ..table import Table
from .files import RecordFile, RecordsFolder, RecordSyncer

__all__ = ["RecordDesk", "records_unavailable"]

log = logging.getLogger("jackal.server")


def records_unavailable(why: str) -> ProtocolError:
    return ProtocolError(ErrorCode.RECORDS_UNAVAILABLE,
                         f"{why}: no new tables or seats until it can")


class RecordDesk:
    """Each table's own record (only the table that owns a record writes or closes it)."""

    def __init__(self, config: ServerConfig, send: Callable[[Outbox], None],
                 poke: Callable[[Table], None]) -> None:
        self.config = config
        self._send = send
        self._poke = poke
        self.records: dict[Table, RecordFile] = {}
        #: The records folder's size against its cap (``records_max_bytes``).
        self.folder: RecordsFolder | None = None
        #: Records the disk refuses now (each table's record: see :mod:`.files`).
        self.failing: dict[RecordFile, Table] = {}
        #: Fsyncs and closes the records off the event loop (see :class:`.files.RecordSyncer`).
        self.syncer = RecordSyncer()

    def start(self, nursery: trio.Nursery) -> None:
        """Start syncing and retrying (only with a records folder)."""
        assert self.config.records_dir is not None
        nursery.start_soon(self.syncer.run)
        nursery.start_soon(self._retry)
        self.folder = RecordsFolder(self.config.records_dir, self.config.records_max_bytes)

    def new(self, table_id: str) -> RecordFile | None:
        """A record file for a new table (None without a records folder); refused with
        ``records_unavailable`` while records cannot be written."""
        directory = self.config.records_dir
        if directory is None:
            return None
        if self.failing:
            raise records_unavailable("the server cannot write match records now")
        if self.folder is not None and not self.folder.room_for_new_table():
            raise records_unavailable("the server's records folder is at its cap")
        try:
            record = RecordFile.create(directory, table_id, self.config.record_max_bytes,
                                       self.folder)
        except OSError as exc:
            log.error("cannot create a record in %s: %s", directory, exc)
            raise records_unavailable("the server cannot write match records now") from None
        record.syncer = self.syncer
        return record

    def keep(self, table: Table, record: RecordFile) -> None:
        self.records[table] = record
        record.on_trouble = self._trouble

    def adopt(self, table: Table, record: RecordFile) -> None:
        """Keep the record of a table restored from it."""
        record.syncer = self.syncer
        self.keep(table, record)
        if record.failing:  # its restart line waits for the disk like any event
            self._trouble(record)

    def full(self, table: Table) -> bool:
        record = self.records.get(table)
        return record is not None and record.full

    def check_writable(self, table: Table) -> None:
        """``records_unavailable`` if ``table``'s record cannot be written now (a seat
        taken now could not be reclaimed after a restart)."""
        record = self.records.get(table)
        if record is not None and record.failing:
            raise records_unavailable("this table's record cannot be written now, so a "
                                      "seat taken now could not be reclaimed after a "
                                      "restart")

    def drop(self, table: Table) -> None:
        """``table`` is gone: close its record."""
        record = self.records.pop(table, None)
        if record is not None:
            record.close()

    async def close_all(self) -> None:
        """Close every record; returns once each is synced and closed."""
        for record in self.records.values():
            record.close()
        await self.syncer.drain()  # every record synced and closed (also tables gone before)

    def _trouble(self, record: RecordFile) -> None:
        """A record started or stopped failing, or is full: tell its table."""
        table = next((t for t, r in self.records.items() if r is record), None)
        if table is None:
            return
        if record.full:
            self._poke(table)  # its task closes it
        elif record.failing and record not in self.failing:
            self.failing[record] = table
            self._send(table.seating.broadcast(Error(
                code=ErrorCode.RECORDS_FAILING.value,
                message="the server cannot write this table's record now (its disk is full "
                        "or read-only); play goes on, but if the server stopped before the "
                        "record is written again, the match would come back as it was when "
                        "this began")))
        elif not record.failing:
            self.failing.pop(record, None)

    async def _retry(self) -> None:
        """Every second, try again to write what records could not write."""
        while True:
            await trio.sleep(1.0)
            for record in list(self.failing):
                if record.closed or record.retry():
                    self.failing.pop(record, None)
