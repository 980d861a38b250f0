"""Crash recovery: every unfinished match in the records folder, live again. Each record
without an end (known by its last line alone) goes through the one replay loop
(:mod:`.replay`) and is reopened for appending; what becomes of torn, damaged, unreadable
and duplicate-id files is docs/PROTOCOL.md's ("Records and crash recovery")."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ..table import Table
from .events import (
    Closed,
    MatchEnd,
    RecordError,
    Restored,
    last_complete_event,
    read_record,
)
from .files import RecordFile
from .replay import MatchReplay, replay

__all__ = ["CORRUPT_SUFFIX", "restore_tables"]

log = logging.getLogger("jackal.server")

CORRUPT_SUFFIX = ".corrupt"


def restore_tables(directory: Path, now: float, hold_seconds: float | None = None
                   ) -> list[tuple[Table, RecordFile]]:
    """Every unfinished match in ``directory``, restored and ready to go on.

    Human seats are held for ``hold_seconds`` (the table's own setting if None) from
    ``now``; between deals the next deal waits the usual time.
    """
    restored: list[tuple[Table, RecordFile]] = []
    if not directory.is_dir():
        return restored
    owners: dict[str, Path] = {}
    for path in sorted(directory.glob("*.jsonl")):
        found = _replayed(path)
        if found is None:
            continue
        state, complete_size = found
        table_id = _unique_id(state.table_id, owners)
        if table_id != state.table_id:
            log.warning("record %s: table id %s is already restored from %s; this one is "
                        "restored as %s", path, state.table_id, owners[state.table_id].name,
                        table_id)
        try:
            record = _reopen(path, state, table_id, complete_size)
        except OSError as exc:
            log.error("record %s: cannot append to it (%s): not restored", path, exc)
            continue
        owners[table_id] = path
        hold = state.header.hold_seconds if hold_seconds is None else hold_seconds
        restored.append((Table.restored(table_id, state, record, now, hold), record))
    return restored


def _replayed(path: Path) -> tuple[MatchReplay, int | None] | None:
    """The state ``path`` leaves its match in and where to cut a torn tail off, or None
    (finished, or moved aside)."""
    try:
        if isinstance(last_complete_event(path), MatchEnd | Closed):
            return None
        # Data from outside: its text obeys the wire's rules, or it is moved aside.
        read = read_record(path, text_rules=True)
        state: MatchReplay | None = None
        for step in replay(read.events):
            state = step.state
        assert state is not None  # replay yields at least the header
    except OSError as exc:  # not damaged, just unreadable here: leave it for the operator
        log.error("record %s is not restored: cannot read it (%s)", path, exc)
        return None
    except Exception as exc:  # one bad file must never stop the server, whatever it holds
        _move_aside(path, exc)
        return None
    if state.finished_in_record:
        return None
    if read.torn_bytes:
        log.warning("record %s: its last line was cut short (%d bytes), dropped", path,
                    read.torn_bytes)
        return state, read.complete_size
    return state, None


def _move_aside(path: Path, exc: BaseException) -> None:
    why = str(exc) if isinstance(exc, RecordError) else f"{type(exc).__name__}: {exc}"
    why = why if len(why) <= 300 else why[:300] + "..."
    target = path.with_name(path.name + CORRUPT_SUFFIX)
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}{CORRUPT_SUFFIX}{number}")
    try:
        path.rename(target)
    except OSError as move_exc:
        log.error("record %s is not restored (%s); cannot move it aside: %s", path, why,
                  move_exc)
        return
    log.error("record %s is not restored (%s); moved aside to %s", path, why, target.name)


def _unique_id(table_id: str, owners: dict[str, Path]) -> str:
    # Lobby ids are "t<n>": a "-<k>" suffix never collides with a table made later.
    number = 1
    candidate = table_id
    while candidate in owners:
        number += 1
        candidate = f"{table_id}-{number}"
    return candidate


def _reopen(path: Path, state: MatchReplay, table_id: str, cut_at: int | None
            ) -> RecordFile:
    """Open the record for appending and write the restart and what the lines implied."""
    if cut_at is not None:
        # Appending after a torn fragment would glue the next event onto it.
        os.truncate(path, cut_at)
    record = RecordFile(path)
    record(Restored(table=table_id if table_id != state.table_id else None))
    for event in state.implied:
        record(event)
    record.sync()
    return record
