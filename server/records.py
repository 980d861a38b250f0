"""Writing match records: one JSON-lines file per table, one line per event.

The format is :mod:`server.record_events`; reading back and crash recovery are
:mod:`server.restore`. What is durable when (docs/PROTOCOL.md says the same):

- Every event is encoded into one buffer and handed to the kernel with one ``write``
  (an ``O_APPEND`` file descriptor, no Python-level buffering) before the table's
  messages about it are queued for anyone. So if the *server process* dies (a crash,
  SIGKILL, the OOM killer) nothing a client was told is missing from the record: the
  kernel still writes it out. At worst the line being written when the process died is
  cut short; reading drops that torn tail.
- ``fsync`` (the data reaching the disk itself, surviving a power cut or an OS crash)
  happens when a record is restored (at start-up, before the server accepts
  connections), when its match ends, when its table is closed, and when the server
  stops. Not per play: a disk flush costs milliseconds and would stall every table for
  each card played. After a power cut a match can therefore come back a few plays (at
  most one match's worth) earlier than it was, with the tokens its players hold still
  valid.
- In a running server those fsyncs happen in a worker thread, not on the event loop (an
  fsync can take tens of milliseconds on a real disk, and every table would wait): the
  table's ``match_end`` or ``closed`` line is written at once as usual, and the hub's
  :class:`RecordSyncer` fsyncs the file shortly after, while play goes on (so players
  may hear of a match's end a moment before it is on the disk; only a power cut in that
  moment loses it). The syncer also closes records, after their last fsync, so a
  descriptor is never closed (and its number reused) while a thread still fsyncs it. The
  server's shutdown waits until every record is synced and closed.
- If a write fails (a full disk), that record stops: one error is logged and no later
  event is written, so the file stays a consistent prefix of the match rather than a
  match with a hole in it. The table itself plays on.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from pathlib import Path

import trio

from .record_events import Closed, MatchEnd, RecordEvent, encode_event

__all__ = ["RecordFile", "RecordSyncer", "private_folder"]

log = logging.getLogger("jackal.server")

#: Events after which the record is fsync'ed (see the module notes).
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


class RecordFile:
    """Appends events to one record file: one ``write`` per event, no flush needed.

    Without a :attr:`syncer` it fsyncs and closes inline (restore at start-up, tests);
    with one, those are handed to the syncer and happen in a worker thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # Readable by the server's user alone: a record holds every deal's seed. fchmod
        # also tightens a record an older server wrote (0644) when a restart reopens it.
        self._fd: int | None = os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.fchmod(self._fd, 0o600)
        self._line = bytearray()
        #: Where fsyncs and the close go (None: done inline).
        self.syncer: RecordSyncer | None = None
        #: No more events are written (closing, or a write failed).
        self._stopped = False
        #: An fsync is due (a sync point was written, or the record is closing).
        self._sync_due = False

    @classmethod
    def create(cls, directory: Path, table_id: str) -> RecordFile:
        """A new file for table ``table_id`` with a name no other run can take."""
        private_folder(directory)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        return cls(directory / f"{stamp}-{table_id}-{secrets.token_hex(3)}.jsonl")

    @property
    def closed(self) -> bool:
        """The file is closed (a close handed to the syncer may still be pending)."""
        return self._fd is None

    def __call__(self, event: RecordEvent) -> None:
        """Write one event (the table's recorder)."""
        fd = self._fd
        if fd is None or self._stopped:
            return
        line = self._line
        encode_event(event, line)
        try:
            written = os.write(fd, line)
            while written < len(line):  # a regular file writes short only when full
                written += os.write(fd, memoryview(line)[written:])
        except OSError as exc:
            # A full disk must not take the table down, and a record with a hole in it
            # would not replay: stop this record here (its prefix restores consistently).
            log.error("cannot write record %s (%s): no further events are recorded for it",
                      self.path, exc)
            self._stop(sync=False)
            return
        if isinstance(event, _SYNC_AFTER):
            self._sync_due = True
            if self.syncer is None:
                self.sync()
            else:
                self.syncer.want(self)

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
        self._sync_due = self._sync_due or sync  # a sync point's fsync is still done
        if self.syncer is not None:
            self.syncer.want(self)
            return
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                if sync:
                    _fsync(fd, self.path)
            finally:
                os.close(fd)

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
            self._fd = None
            os.close(fd)


def _fsync(fd: int, path: Path) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        log.error("cannot sync record %s: %s", path, exc)


class RecordSyncer:
    """Fsyncs and closes the server's records in a worker thread, one record at a time.

    Records ask with :meth:`want`; the hub runs :meth:`run` as a task, and its shutdown
    awaits :meth:`drain`. Everything is on the event loop but the fsync itself.
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
