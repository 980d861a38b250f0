"""Saved seats: the secret tokens of seats this user holds, kept on disk so that a client
restart does not lose the seat (``jackal play --server`` takes it back), and the
invitation codes of the private tables this user created (:class:`SeatStore`). The file
is private (0600), replaced whole on each change and locked against a second client."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from filelock import FileLock

__all__ = ["FILE_NAME", "MAX_INVITATIONS", "SavedInvitations", "SavedSeat", "SeatStore",
           "server_key"]

log = logging.getLogger("jackal.client")

FILE_NAME = "seats.json"
_FORMAT: Literal[1] = 1
#: Invitation codes kept, the newest first: enough for an evening's tables.
MAX_INVITATIONS = 20


def server_key(host: str, port: int) -> str:
    """How a server is named in the store: ``host:port`` (``[v6]:port`` for IPv6)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


#: A field that must be there and not empty.
_Given = Annotated[str, msgspec.Meta(min_length=1)]


class SavedSeat(msgspec.Struct, frozen=True):
    """One held seat: where it is, and the token that reclaims it."""

    server: _Given
    table: _Given
    seat: _Given
    token: _Given
    #: The name the player sat down with (shown when the seat is offered back).
    name: str = ""
    #: Wall-clock time of saving; the newest seat is offered first.
    saved_at: float = 0.0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.server, self.table, self.seat)


class SavedInvitations(msgspec.Struct, frozen=True):
    """The seat codes of a private table we created (``codes``: seat letter -> code)."""

    server: _Given
    table: _Given
    #: The table's name, so a table id that a restarted server gave to another table
    #: (a server without records starts again at t1) is not taken for ours.
    name: _Given
    codes: dict[str, str]
    saved_at: float = 0.0


class _SeatFile(msgspec.Struct):
    """The whole file (other fields are left alone: a newer client may add some)."""

    format: Literal[1]
    seats: list[SavedSeat]
    #: Absent in a file from before invitation codes were kept.
    invitations: list[SavedInvitations] = []


_read_file = msgspec.json.Decoder(_SeatFile)


class SeatStore:
    """The saved seats in ``folder``: one entry per (server, table, seat) in a small JSON
    file, removed when the match ends, when the player leaves or when the server no longer
    knows the token.

    How it is kept safe and sound:

    - the file holds secrets: it is created with mode 0600 (never wider, not even for an
      instant: the temporary file is opened with that mode) in a folder made with 0700;
    - every change writes a new temporary file next to it and renames it over the old one
      (``os.replace``), so a crash mid-write leaves either the old file or the new one;
    - two clients of the same user (two terminals at one table) may change it at once:
      each read-change-write holds an exclusive OS lock (filelock) on a lock file beside it;
    - a file that cannot be read or parsed counts as empty (it is logged, and replaced by
      the next save): a corrupt file must never stop anybody from playing.

    The invitation codes of a private table are sent to its creator once and the server keeps
    only their hashes, so the same file keeps them too (the newest few, with the table's name)
    so that a creator whose client was restarted can still pass them on.

    The folder is chosen by the caller (``jackal play`` uses the XDG state folder,
    ``$XDG_STATE_HOME/jackal`` or ``~/.local/state/jackal``), so tests and other front ends
    can point it anywhere.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / FILE_NAME
        self._lock_path = folder / (FILE_NAME + ".lock")

    # ------------------------------------------------------------------ reading

    def seats(self, server: str | None = None, table: str | None = None) -> list[SavedSeat]:
        """Saved seats, newest first; only ``server``'s (and ``table``'s) when given."""
        found = [seat for seat in self._read()
                 if (server is None or seat.server == server)
                 and (table is None or seat.table == table)]
        return sorted(found, key=lambda seat: -seat.saved_at)

    def find(self, server: str, table: str, seat: str | None = None) -> SavedSeat | None:
        """The newest saved seat at ``server``'s ``table`` (that ``seat`` when given)."""
        for saved in self.seats(server, table):
            if seat is None or saved.seat == seat:
                return saved
        return None

    def invitations(self, server: str) -> list[SavedInvitations]:
        """The invitation codes saved for ``server``'s tables, newest first."""
        found = [entry for entry in self._load()[1] if entry.server == server]
        return sorted(found, key=lambda entry: -entry.saved_at)

    # ------------------------------------------------------------------ changing

    def save_invitations(self, server: str, table: str, name: str,
                         codes: dict[str, str]) -> None:
        """Keep a private table's codes (only the newest :data:`MAX_INVITATIONS`)."""
        entry = SavedInvitations(server=server, table=table, name=name, codes=dict(codes),
                                 saved_at=time.time())
        with self._locked():
            seats, invites = self._load()
            kept = [old for old in invites if (old.server, old.table) != (server, table)]
            kept = sorted(kept, key=lambda old: -old.saved_at)[:MAX_INVITATIONS - 1]
            self._write(seats, [entry, *kept])

    def save(self, server: str, table: str, seat: str, token: str, name: str = "") -> SavedSeat:
        """Remember a seat (replacing an older entry for the same server, table and seat)."""
        entry = SavedSeat(server=server, table=table, seat=seat, token=token, name=name,
                          saved_at=time.time())
        with self._locked():
            seats, invites = self._load()
            kept = [old for old in seats if old.key != entry.key]
            self._write([*kept, entry], invites)
        return entry

    def forget(self, server: str, table: str, seat: str | None = None) -> None:
        """Drop the saved seat(s) at ``server``'s ``table`` (only ``seat`` when given)."""
        with self._locked():
            seats, invites = self._load()
            kept = [old for old in seats
                    if not (old.server == server and old.table == table
                            and (seat is None or old.seat == seat))]
            if len(kept) != len(seats):
                self._write(kept, invites)

    # ------------------------------------------------------------------ the file

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self._make_folder()
        # filelock: an OS lock on every platform (flock on POSIX, msvcrt on Windows).
        with FileLock(self._lock_path, mode=0o600):
            yield

    def _make_folder(self) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Ours even when it already existed (``jackal serve`` of an older version made the
        # state folder 0755): the tokens and the records in it are nobody else's business.
        if stat.S_IMODE(self.folder.stat().st_mode) != 0o700:
            with contextlib.suppress(PermissionError):  # not ours after all: leave it
                os.chmod(self.folder, 0o700)

    def _read(self) -> list[SavedSeat]:
        return self._load()[0]

    def _load(self) -> tuple[list[SavedSeat], list[SavedInvitations]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return [], []
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("cannot read saved seats %s (%s); treating it as empty", self.path, exc)
            return [], []
        try:
            data = _read_file.decode(text)
            return data.seats, data.invitations
        except msgspec.DecodeError as exc:
            log.warning("saved seats %s are corrupt (%s); treating them as none", self.path,
                        exc)
            return [], []

    def _write(self, seats: list[SavedSeat], invites: list[SavedInvitations]) -> None:
        # json.dump, not msgspec: the same text as ever (one-space indent, ASCII only).
        data = msgspec.to_builtins(_SeatFile(format=_FORMAT, seats=seats, invitations=invites))
        # mkstemp opens the file with mode 0600 (O_EXCL): the token is never readable by
        # anyone else, not even between creating and renaming.
        fd, temp = tempfile.mkstemp(prefix=".seats-", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

