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

    #: The share of a capped records folder that the open records of one address group,
    #: or of one name, may hold before its new tables are refused.
    QUOTA = 0.25

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
        #: Tables held while their record's memory budget waits for the disk, and those
        #: of them this desk stopped itself (not paused by their players already).
        self.held: set[Table] = set()
        self.froze: set[Table] = set()

    def start(self, nursery: trio.Nursery) -> None:
        """Start syncing and retrying (only with a records folder)."""
        assert self.config.records_dir is not None
        nursery.start_soon(self.syncer.run)
        nursery.start_soon(self._retry)
        self.folder = RecordsFolder(self.config.records_dir, self.config.records_max_bytes)

    def new(self, table_id: str, owners: tuple[str, ...] = ()) -> RecordFile | None:
        """A record file for a new table (None without a records folder) created by
        ``owners`` (its address group and name); refused with ``records_unavailable``
        while records cannot be written, or while an owner's open records hold their
        quota (:attr:`QUOTA` of a capped folder)."""
        directory = self.config.records_dir
        if directory is None:
            return None
        if self.failing:
            raise records_unavailable("the server cannot write match records now")
        if self.folder is not None and not self.folder.room_for_new_table():
            raise records_unavailable("the server's records folder is full of matches "
                                      "in progress")
        self._check_quota(owners)
        try:
            record = RecordFile.create(directory, table_id, self.config.record_max_bytes,
                                       self.folder)
        except OSError as exc:
            log.error("cannot create a record in %s: %s", directory, exc)
            raise records_unavailable("the server cannot write match records now") from None
        record.syncer = self.syncer
        record.owners = owners
        record.budget = self.config.record_memory_bytes
        return record

    def _check_quota(self, owners: tuple[str, ...]) -> None:
        """Open records are never rotated: one address group or one name may hold at
        most a :attr:`QUOTA` of a capped folder in them, so nobody's matches in progress
        can fill it for everyone."""
        limit = None if self.folder is None else self.folder.limit
        if limit is None:
            return
        for owner in owners:
            held = sum(record.size for record in self.records.values()
                       if owner in record.owners)
            if held >= limit * self.QUOTA:
                raise ProtocolError(
                    ErrorCode.RECORDS_UNAVAILABLE,
                    "the records of the tables your address (or name) opened hold their "
                    "share of the server's records folder: finish or leave one first")

    def keep(self, table: Table, record: RecordFile) -> None:
        self.records[table] = record
        record.on_trouble = self._trouble

    def adopt(self, table: Table, record: RecordFile) -> None:
        """Keep the record of a table restored from it (counted in the folder, and never
        rotated while its table writes it)."""
        record.syncer = self.syncer
        record.budget = self.config.record_memory_bytes
        if self.folder is not None:
            record.folder = self.folder
            self.folder.live.add(record.path)
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
        self.held.discard(table)
        self.froze.discard(table)
        record = self.records.pop(table, None)
        if record is not None:
            record.close()

    async def close_all(self) -> None:
        """Close every record; returns once each is synced and closed."""
        for record in self.records.values():
            record.close()
        await self.syncer.drain()  # every record synced and closed (also tables gone before)

    def _trouble(self, record: RecordFile) -> None:
        """A record started or stopped failing, passed its memory budget, or is full:
        tell its table."""
        table = next((t for t, r in self.records.items() if r is record), None)
        if table is None:
            return
        if record.held != (table in self.held):
            self._poke(table)  # its task holds or releases it (:meth:`settle_hold`)
        if record.full:
            self._poke(table)  # its task closes it
        elif record.failing and record not in self.failing:
            self.failing[record] = table
            self._send(table.seating.broadcast(Error(
                code=ErrorCode.RECORDS_FAILING,
                message="the server cannot write this table's record now (its disk is full "
                        "or read-only); play goes on, but if the server stopped before the "
                        "record is written again, the match would come back as it was when "
                        "this began")))
        elif not record.failing:
            self.failing.pop(record, None)

    def settle_hold(self, table: Table) -> bool:
        """Hold ``table`` while its record's memory budget waits for the disk, release it
        once the disk took it (True then). Run by the table's task between events, never
        in the middle of a table's own change (a play that ends a deal sets clocks after
        it is recorded)."""
        record = self.records.get(table)
        held = record is not None and record.held
        if held and table not in self.held:
            self._hold(table)
        elif held and table.freeze():
            # A pause lifted meanwhile (its players ended their own, or everyone left and
            # bots play every seat): held again, since the disk still refuses its lines.
            self.froze.add(table)
        elif not held and table in self.held:
            self._release(table)
            return True
        return False

    def _hold(self, table: Table) -> None:
        """``table``'s record has a memory budget's worth waiting for the disk: stop the
        table (no card, no deal, clocks stopped) and tell everyone at it."""
        self.held.add(table)
        if table.freeze(trio.current_time()):  # the clocks stop at this moment
            self.froze.add(table)
        self._send(table.seating.broadcast(Error(
            code=ErrorCode.RECORDS_PAUSED,
            message="the server's disk is full: this table is paused until its record can "
                    "be written again (no card is played meanwhile)")))
        self._poke(table)

    def _release(self, table: Table) -> None:
        """The disk took ``table``'s record again: the table goes on where it stopped."""
        self.held.discard(table)
        if table in self.froze:
            self.froze.discard(table)
            table.thaw(trio.current_time())
        self._send(table.seating.broadcast(Error(
            code=ErrorCode.RECORDS_RESUMED,
            message="the server writes this table's record again: play goes on")))
        self._poke(table)

    async def _retry(self) -> None:
        """Every second, try again to write what records could not write."""
        while True:
            await trio.sleep(1.0)
            for record in list(self.failing):
                if record.closed or record.retry():
                    self.failing.pop(record, None)
