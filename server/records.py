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
  happens when a record is restored, when its match ends, when its table is closed,
  and when the server stops. Not per play: a disk flush costs milliseconds and would
  stall every table on the server's one event loop for each card played. After a power
  cut a match can therefore come back a few plays (at most one match's worth) earlier
  than it was, with the tokens its players hold still valid.
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

from .record_events import Closed, MatchEnd, RecordEvent, encode_event

__all__ = ["RecordFile"]

log = logging.getLogger("jackal.server")

#: Events after which the record is fsync'ed (see the module notes).
_SYNC_AFTER = (MatchEnd, Closed)


class RecordFile:
    """Appends events to one record file: one ``write`` per event, no flush needed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._line = bytearray()

    @classmethod
    def create(cls, directory: Path, table_id: str) -> RecordFile:
        """A new file for table ``table_id`` with a name no other run can take."""
        directory.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        return cls(directory / f"{stamp}-{table_id}-{secrets.token_hex(3)}.jsonl")

    @property
    def closed(self) -> bool:
        return self._fd is None

    def __call__(self, event: RecordEvent) -> None:
        """Write one event (the table's recorder)."""
        fd = self._fd
        if fd is None:
            return
        line = self._line
        encode_event(event, line)
        try:
            written = os.write(fd, line)
            while written < len(line):  # a regular file writes short only when full
                written += os.write(fd, memoryview(line)[written:])
            if isinstance(event, _SYNC_AFTER):
                os.fsync(fd)
        except OSError as exc:
            # A full disk must not take the table down, and a record with a hole in it
            # would not replay: stop this record here (its prefix restores consistently).
            log.error("cannot write record %s (%s): no further events are recorded for it",
                      self.path, exc)
            self._close(sync=False)

    def sync(self) -> None:
        """Make everything written so far durable (fsync)."""
        if self._fd is not None:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                log.error("cannot sync record %s: %s", self.path, exc)

    def close(self) -> None:
        """Sync and close (idempotent)."""
        self._close(sync=True)

    def _close(self, *, sync: bool) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if sync:
                os.fsync(fd)
        except OSError as exc:
            log.error("cannot sync record %s: %s", self.path, exc)
        finally:
            os.close(fd)
