"""Line framing: bytes in, complete lines out, with a hard cap on line length.

trio has no readline, and a peer that never sends a newline must not make us buffer
without bound, so the cap is checked on the *unterminated* tail after every feed: the
error is raised as soon as the partial line passes ``max_line``, not when it ends.
"""

from __future__ import annotations

from typing import Protocol

from .errors import ErrorCode, RemoteProtocolError

__all__ = ["DEFAULT_MAX_LINE", "LineBuffer"]


class _Appendable(Protocol):
    def append(self, line: bytes, /) -> None: ...


DEFAULT_MAX_LINE = 65536


class LineBuffer:
    """Split a byte stream into lines ending in ``\\n`` (``\\r\\n`` accepted).

    Blank (whitespace-only) lines are skipped, and counted in :attr:`blank_lines` (a
    server charges them to the sender's rate limit: no input is free). A line longer than
    ``max_line`` bytes (not counting its terminator) raises a fatal ``line_too_long``
    :class:`RemoteProtocolError`; the buffer is then dead (the stream has lost its framing)
    and every later feed raises again.
    """

    __slots__ = ("_buf", "_failed", "blank_lines", "max_line")

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        if max_line < 1:
            raise ValueError(f"max_line must be positive, not {max_line}")
        self.max_line = max_line
        self._buf = bytearray()
        self._failed: RemoteProtocolError | None = None
        #: Blank lines skipped so far (the caller may reset it).
        self.blank_lines = 0

    @property
    def pending(self) -> int:
        """Bytes held for a line whose end has not arrived yet."""
        return len(self._buf)

    def _fail(self) -> RemoteProtocolError:
        self._buf.clear()  # free the memory now: the connection is going away
        self._failed = RemoteProtocolError(
            ErrorCode.LINE_TOO_LONG, f"line longer than {self.max_line} bytes", fatal=True)
        return self._failed

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Add received bytes; return the lines they completed (without terminators)."""
        lines: list[bytes] = []
        self.feed_into(data, lines)
        return lines

    def feed_into(self, data: bytes | bytearray, out: _Appendable) -> None:
        """Like :meth:`feed`, appending each completed line to ``out`` as it is found.

        If a line is too long, the lines before it are already in ``out`` when the error
        is raised, so a caller can still answer them in order.
        """
        if self._failed is not None:
            raise self._failed
        buf = self._buf
        cap = self.max_line
        if b"\n" not in data:
            # The common case for a slow or hostile sender: no line ends here. Check the cap
            # before copying, so a huge chunk is never appended at all.
            if self._too_long(len(buf) + len(data), data[-1:] or buf[-1:]):
                raise self._fail()
            buf += data
            return
        if not data.strip() and not buf.strip():
            # Nothing but blank lines (a newline flood): count them without a loop in
            # Python, and keep only the whitespace after the last newline.
            self.blank_lines += data.count(b"\n")
            buf.clear()
            buf += data[data.rfind(b"\n") + 1:]
            if self._too_long(len(buf), buf[-1:]):
                raise self._fail()
            return
        buf += data
        start = 0
        while (nl := buf.find(b"\n", start)) >= 0:
            end = nl - 1 if nl > start and buf[nl - 1] == 0x0D else nl
            if end - start > cap:
                del buf[:start]
                raise self._fail()
            line = bytes(buf[start:end])
            if line.strip():
                out.append(line)
            else:
                self.blank_lines += 1
            start = nl + 1
        del buf[:start]
        if self._too_long(len(buf), buf[-1:]):
            raise self._fail()

    def _too_long(self, size: int, last: bytes | bytearray) -> bool:
        # A trailing "\r" may be the first half of a "\r\n" that arrives in the next chunk;
        # it is not part of the line, so whether we fail never depends on where chunks split.
        return size > self.max_line and not (size == self.max_line + 1 and last == b"\r")

    def feed_eof(self) -> list[bytes]:
        """The peer closed: return its last line if it did not end in a newline."""
        if self._failed is not None:
            return []
        line = bytes(self._buf).removesuffix(b"\r")
        self._buf.clear()
        return [line] if line.strip() else []
