"""Writing match records: one JSON-lines file per table, one ``write`` per event.

:class:`RecordFile` appends to one table's record, :class:`RecordSyncer` does the fsyncs
off the event loop and :class:`RecordsFolder` keeps the folder's cap. The format is
:mod:`.events`; what is durable when is docs/PROTOCOL.md's ("Records and crash recovery").
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import trio

from .events import Closed, MatchEnd, RecordEvent, encode_event

__all__ = ["RecordFile", "RecordSyncer", "RecordsFolder", "private_folder"]

log = logging.getLogger("jackal.server")

#: Events after which the record is fsync'ed (see :class:`RecordFile`).
_SYNC_AFTER = (MatchEnd, Closed)


def private_folder(directory: Path) -> None:
    """Make ``directory`` and any missing parents, each 0700 whatever the umask (a folder
    that exists already is left as its owner set it)."""
    missing: list[Path] = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)


class RecordsFolder:
    """The bytes the server's records take in their folder, against an optional cap.

    Past the cap, finished records are rotated: removed oldest first (by modification
    time) down to :attr:`LOW_WATER` of the cap. A record a table still writes is
    :attr:`live` and never removed, so the cap is never a lasting lockout, only a bound.
    """

    #: New tables are refused once the folder holds this share of its cap: the matches
    #: being played keep room to go on.
    NEW_TABLES_UP_TO = 0.9
    #: Rotation frees down to this share of the cap (not just one file's worth, so it
    #: runs rarely).
    LOW_WATER = 0.7
    #: What rotation may remove: finished records and damaged ones set aside at start-up.
    ROTATED = (".jsonl", ".jsonl.corrupt")

    def __init__(self, directory: Path, limit: int | None) -> None:
        self.directory = directory
        self.limit = limit
        self.used = 0
        #: Records open for writing (a match in progress, or a table still listed).
        self.live: set[Path] = set()
        #: The last rotation found nothing it may remove: no need to list the folder again
        #: (at each event of a table near the cap) until a record is finished.
        self._nothing_to_rotate = False
        if limit is not None and directory.is_dir():
            for path in directory.iterdir():
                try:
                    if path.is_file():
                        self.used += path.stat().st_size
                except OSError:
                    continue

    def room_for_new_table(self) -> bool:
        if self.limit is not None and self.used >= self.limit * self.NEW_TABLES_UP_TO:
            self.rotate()
        return self.limit is None or self.used < self.limit * self.NEW_TABLES_UP_TO

    def room_for(self, size: int) -> bool:
        if self.limit is not None and self.used + size > self.limit:
            self.rotate()
        return self.limit is None or self.used + size <= self.limit

    def finished(self, path: Path) -> None:
        """Nothing more is written to the record at ``path``: rotation may take it."""
        self.live.discard(path)
        self._nothing_to_rotate = False

    def rotate(self) -> int:
        """Remove finished records, oldest first, until the folder holds at most
        :attr:`LOW_WATER` of its cap; returns how many bytes went."""
        if self.limit is None or self._nothing_to_rotate:
            return 0
        finished: list[tuple[float, str, Path, int]] = []
        try:
            for path in self.directory.iterdir():
                if path in self.live or not path.name.endswith(self.ROTATED):
                    continue
                try:
                    info = path.stat()
                except OSError:
                    continue
                if path.is_file():
                    finished.append((info.st_mtime, path.name, path, info.st_size))
        except OSError as exc:
            log.error("cannot list records folder %s: %s", self.directory, exc)
            return 0
        freed = 0
        self._nothing_to_rotate = not finished
        for _mtime, _name, path, size in sorted(finished):
            if self.used <= self.limit * self.LOW_WATER:
                break
            try:
                path.unlink()
            except OSError as exc:
                log.error("cannot remove old record %s: %s", path, exc)
                continue
            self.used -= size
            freed += size
        if freed:
            log.warning("records folder at its cap: removed %d bytes of the oldest finished "
                        "records", freed)
        return freed


class RecordFile:
    """Appends events to one record file: one ``write`` per event, no flush needed.

    Each event is encoded into one buffer and handed to the kernel with one ``write`` (an
    ``O_APPEND`` descriptor, no Python-level buffering) before the table's messages about
    it are queued for anyone. So if the server *process* dies (a crash, SIGKILL, the OOM
    killer), nothing a client was told is missing: the kernel still writes it out. At
    worst the line being written is cut short, and reading drops that torn tail.

    ``fsync`` (surviving a power cut or an OS crash) comes after a ``match_end`` or
    ``closed`` line, at :meth:`close` and, through restore, at start-up; not per play, as
    a disk flush costs milliseconds and would stall every table for each card. So after a
    power cut a match can come back a few plays (at most one match's worth) earlier, with
    the tokens its players hold still valid. Without a :attr:`syncer` it fsyncs and
    closes inline (restore at start-up, tests); with one, those are handed to the syncer
    and happen in a worker thread.

    A failed write (a full or read-only disk) loses nothing from the file: what was not
    written (the rest of the line, and every later event) waits in memory, in order, and
    goes at the next event or :meth:`retry` (the hub tries every second). Meanwhile the
    file is a consistent prefix of the match. One error is logged when the trouble starts
    and one line when it ends, and :attr:`on_trouble` is told both times. At its cap
    (``cap``, or the folder's) the event that would pass it is not written and
    :attr:`on_trouble` is told, so the hub closes the table; its ``closed`` line is always
    written.
    """

    def __init__(self, path: Path, cap: int | None = None,
                 folder: RecordsFolder | None = None) -> None:
        self.path = path
        # Readable by the server's user alone: a record holds every deal's seed. fchmod
        # also tightens a record an older server wrote (0644) when a restart reopens it.
        self._fd: int | None = os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.fchmod(self._fd, 0o600)
        self._line = bytearray()
        #: Bytes in the file, and the most it may hold (None: no cap).
        self.size = os.fstat(self._fd).st_size
        self.cap = cap
        self.folder = folder
        #: Bytes not written yet because the disk refused them (oldest first).
        self._unwritten = bytearray()
        #: The last write failed (what is left waits in ``_unwritten``).
        self.failing = False
        #: The cap (the record's or the folder's) was reached: only ``closed`` is written.
        self.full = False
        #: Called when the record starts failing, stops failing or becomes full.
        self.on_trouble: Callable[[RecordFile], None] | None = None
        #: Where fsyncs and the close go (None: done inline).
        self.syncer: RecordSyncer | None = None
        #: No more events are written (closing, or a write failed).
        self._stopped = False
        #: An fsync is due (a sync point was written, or the record is closing).
        self._sync_due = False
        #: The address group and name that created the table (records quota), if known.
        self.owners: tuple[str, ...] = ()
        #: Most bytes that may wait in memory for the disk before the table is held
        #: (None: no budget); :attr:`held` says it was passed and the disk is still full.
        self.budget: int | None = None
        self.held = False
        if folder is not None:
            folder.live.add(path)

    @classmethod
    def create(cls, directory: Path, table_id: str, cap: int | None = None,
               folder: RecordsFolder | None = None) -> RecordFile:
        """A new file for table ``table_id`` with a name no other run can take."""
        private_folder(directory)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        return cls(directory / f"{stamp}-{table_id}-{secrets.token_hex(3)}.jsonl", cap,
                   folder)

    @property
    def closed(self) -> bool:
        """The file is closed (a close handed to the syncer may still be pending)."""
        return self._fd is None

    def __call__(self, event: RecordEvent) -> None:
        """Write one event (the table's recorder)."""
        fd = self._fd
        if fd is None or self._stopped or (self.full and not isinstance(event, Closed)):
            return
        line = self._line
        encode_event(event, line)
        if not isinstance(event, Closed) and not self._room_for(len(line)):
            log.warning("record %s reached its cap (%d bytes): no further events",
                        self.path, self.size)
            self.full = True
            self._tell()
            return
        if self.failing:
            self._unwritten += line  # after what is still waiting, never before it
            self.retry()
        else:
            self._write(fd, line)
        if self.failing and not self.held and self.budget is not None \
                and len(self._unwritten) > self.budget:
            self.held = True
            log.error("record %s: %d bytes wait for the disk, past the budget: its table "
                      "is held", self.path, len(self._unwritten))
            self._tell()
        if isinstance(event, _SYNC_AFTER):
            self._sync_due = True
            if self.syncer is None:
                self.sync()
            else:
                self.syncer.want(self)

    def _room_for(self, size: int) -> bool:
        pending = self.size + len(self._unwritten) + size
        folder = self.folder
        return (self.cap is None or pending <= self.cap) and (
            folder is None or folder.room_for(len(self._unwritten) + size))

    def _write(self, fd: int, data: bytes | bytearray) -> bool:
        """Write ``data`` (whole, or keep what was not written for later); True if it
        all went."""
        written = 0
        problem: str | None = None
        try:
            while written < len(data):  # a regular file writes short only when full
                # (Copies, not memoryviews, of a short write's rest: an export would pin
                # the reused line buffer.)
                written += os.write(fd, data if not written else data[written:])
        except OSError as exc:
            problem = str(exc)
        self._count(written)
        if problem is not None:
            # A full disk must not take the table down, and a record with a hole in it
            # would not replay: keep the rest, in order, for when the disk takes it.
            self._unwritten[:0] = data[written:]
            if not self.failing:
                self.failing = True
                log.error("cannot write record %s (%s): its events wait in memory until "
                          "the disk takes them", self.path, problem)
                self._tell()
            return False
        return True

    def _count(self, written: int) -> None:
        self.size += written
        if self.folder is not None:
            self.folder.used += written

    def retry(self) -> bool:
        """Try to write what waits; True once nothing does."""
        fd = self._fd
        if fd is None or not self._unwritten:
            return not self._unwritten
        waiting, self._unwritten = self._unwritten, bytearray()
        if not self._write(fd, waiting):
            return False
        if self.failing:
            self.failing = self.held = False
            log.warning("record %s is written again (%d bytes caught up)", self.path,
                        len(waiting))
            self._tell()
        return True

    def _tell(self) -> None:
        if self.on_trouble is not None:
            self.on_trouble(self)

    def sync(self) -> None:
        """Make everything written so far durable (fsync), here and now: only for a
        record without a syncer (on the event loop it would stall every table)."""
        assert self.syncer is None, "a record with a syncer is synced by it"
        fd = self._fd
        if fd is not None:
            self._sync_due = False
            _fsync(fd, self.path)

    def close(self) -> None:
        """Sync and close (idempotent); with a syncer, soon, in its worker thread."""
        self._stop(sync=True)

    def _stop(self, *, sync: bool) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.folder is not None:
            # Nothing more is written to it: a finished record, rotated like any other
            # (a pending fsync works on as well on a removed file).
            self.folder.finished(self.path)
        self._sync_due = self._sync_due or sync  # a sync point's fsync is still done
        if self.syncer is not None:
            self.syncer.want(self)
            return
        if self._unwritten:
            self.retry()
        fd, self._fd = self._fd, None
        if fd is not None:
            self._closing_unwritten()
            try:
                if sync:
                    _fsync(fd, self.path)
            finally:
                self._closed_fd(fd)

    async def settle(self) -> None:
        """Do the due fsync in a worker thread and the close, if asked (the syncer's
        work: it runs this for one record at a time, so nothing closes a descriptor
        that a thread is fsyncing)."""
        fd = self._fd
        if fd is None:
            return
        if self._sync_due:
            self._sync_due = False
            # Not abandoned on cancellation: trio waits for the thread, so the close
            # below never races it.
            try:
                await trio.to_thread.run_sync(_fsync, fd, self.path)
            except BaseException:
                self._sync_due = True  # cancelled before the thread started: still due
                raise
        if self._stopped and not self._sync_due:  # (a sync point written meanwhile: again)
            self.retry()
            self._closing_unwritten()
            self._fd = None
            self._closed_fd(fd)

    def _closed_fd(self, fd: int) -> None:
        """Close the descriptor: the record is finished, and may be rotated."""
        os.close(fd)
        if self.folder is not None:
            self.folder.finished(self.path)

    def discard(self) -> None:
        """Close and delete a record whose header could not be written (its table is
        refused, so nothing of it must come back after a restart)."""
        self._stopped = True
        self._unwritten = bytearray()
        fd, self._fd = self._fd, None
        if fd is not None:
            self._closed_fd(fd)
        if self.folder is not None:
            self.folder.used -= self.size
        try:
            self.path.unlink()
        except OSError as exc:
            log.error("cannot remove record %s (%s)", self.path, exc)

    def _closing_unwritten(self) -> None:
        if self._unwritten:
            log.error("record %s closed with %d bytes it could not write: a restart "
                      "restores its match as it was at the last line written", self.path,
                      len(self._unwritten))
            self._unwritten = bytearray()


def _fsync(fd: int, path: Path) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        log.error("cannot sync record %s: %s", path, exc)


class RecordSyncer:
    """Fsyncs and closes the server's records in a worker thread, one record at a time.

    Records ask with :meth:`want`; the hub runs :meth:`run` as a task, and its shutdown
    awaits :meth:`drain`, so a stopping server returns only once every record is synced
    and closed. Everything is on the event loop but the fsync itself: an fsync can take
    tens of milliseconds on a real disk, and every table would wait. A ``match_end`` or
    ``closed`` line is written at once as usual and synced shortly after, while play goes
    on (so players may hear of a match's end a moment before it is on the disk; only a
    power cut in that moment loses it). Closing comes after the last fsync, so a
    descriptor is never closed (and its number reused) while a thread still fsyncs it.
    """

    def __init__(self) -> None:
        #: Records with an fsync or a close due, oldest first.
        self._pending: dict[RecordFile, None] = {}
        self._wanted = trio.Event()
        #: Held while one record is settled (the task and a drain take turns).
        self._lock = trio.Lock()

    def want(self, record: RecordFile) -> None:
        """``record`` has an fsync or a close due (called from the event loop)."""
        self._pending[record] = None
        self._wanted.set()

    async def run(self) -> None:
        """The syncer's task: settle records as they ask, until cancelled."""
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            await self.drain()

    async def drain(self) -> None:
        """Return once every record that asked has been settled (the server's shutdown
        awaits it after closing its records). Settles them itself if the task is busy or
        gone."""
        while True:
            async with self._lock:
                if not self._pending:
                    return
                record = next(iter(self._pending))
                del self._pending[record]
                try:
                    await record.settle()
                except BaseException:
                    self._pending[record] = None  # left undone: whoever drains next
                    raise
