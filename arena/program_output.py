"""What the tournament's programs write to stderr (:class:`ProgramOutput`): each line
escaped (no control character or escape sequence reaches a terminal), labelled with its
entry, table and seat, bounded in volume, and kept in one file per entry beside the
results (docs/BOTS.md, "A tournament between programs")."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

import trio

from ..protocol.text import escape_text

__all__ = ["FILE_BYTES", "LINE_CHARS", "TERMINAL_LINES", "ProgramOutput"]

#: Longest line kept; the rest is cut (and the cut said).
LINE_CHARS = 500
#: Lines of one entry shown on the organizer's terminal; the rest go to its file only.
TERMINAL_LINES = 200
#: Bytes kept in one entry's file; past that its lines are counted, not kept.
FILE_BYTES = 4 << 20


class ProgramOutput:
    """The stderr of every program of a run: :meth:`pipe` gives a copy a descriptor to
    write to, :meth:`pump` reads it until the copy and everything it started are gone."""

    def __init__(self, folder: Path | None, stem: str, entries: list[str]) -> None:
        self.files: dict[str, Path] = {}
        self._out: dict[str, IO[str]] = {}
        self._bytes: dict[str, int] = dict.fromkeys(entries, 0)
        self._shown: dict[str, int] = dict.fromkeys(entries, 0)
        self._cut: dict[str, int] = dict.fromkeys(entries, 0)
        if folder is not None:
            for entry in entries:
                path = folder / f"{stem}.{entry}.stderr.log"
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                self._out[entry] = os.fdopen(fd, "w", encoding="utf-8")
                self.files[entry] = path

    def pipe(self) -> tuple[int, int]:
        """A fresh pipe: (read end, write end); the write end is the program's stderr."""
        read, write = os.pipe()
        return read, write

    def line(self, entry: str, label: str, raw: bytes, terminal: bool) -> None:
        """Keep (and maybe show) one line ``raw`` of ``entry``'s program."""
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if len(text) > LINE_CHARS:
            text = text[:LINE_CHARS] + f" [cut: {len(text) - LINE_CHARS} more characters]"
        shown = f"[{label}] {escape_text(text)}"
        out = self._out.get(entry)
        if out is not None:
            if self._bytes[entry] < FILE_BYTES:
                self._bytes[entry] += len(shown) + 1
                out.write(shown + "\n")
                out.flush()
            else:
                self._cut[entry] += 1
        if terminal:
            self._shown[entry] += 1
            if self._shown[entry] <= TERMINAL_LINES:
                print(shown, file=sys.stderr, flush=True)
            elif self._shown[entry] == TERMINAL_LINES + 1:
                where = self.files.get(entry)
                print(f"[{entry}] more stderr lines are not shown here"
                      + (f" (see {where})" if where else ""), file=sys.stderr, flush=True)

    async def pump(self, read_fd: int, entry: str, label: str, terminal: bool) -> None:
        """Read ``read_fd`` line by line until its end (or cancellation); close it."""
        stream = trio.lowlevel.FdStream(read_fd)
        buffer = b""
        try:
            while chunk := await stream.receive_some(65536):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for raw in lines:
                    self.line(entry, label, raw, terminal)
                if len(buffer) > 4 * LINE_CHARS:  # no newline for a long time
                    self.line(entry, label, buffer, terminal)
                    buffer = b""
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            if buffer:
                self.line(entry, label, buffer, terminal)
            await stream.aclose()

    def close(self) -> None:
        for entry, out in self._out.items():
            if self._cut[entry]:
                out.write(f"[{entry}] {self._cut[entry]} more lines not kept (limit "
                          f"{FILE_BYTES} bytes)\n")
            out.close()
