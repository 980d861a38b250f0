"""The chat lines a client keeps of one table: :class:`ChatLog`, with no I/O. A snapshot
after a reconnect repeats lines the client has; :meth:`ChatLog.reset` says which are new,
so a screen shows each line once."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ..protocol.messages import ChatLine, ChatMessage

__all__ = ["KEEP", "ChatLog", "line_of"]

#: Lines kept (the server's snapshot holds up to 20 of each channel).
KEEP = 40


def line_of(msg: ChatMessage) -> ChatLine:
    """The line a ``chat`` event carries."""
    return ChatLine(channel=msg.channel, name=msg.name, text=msg.text, seat=msg.seat)


class ChatLog:
    """The newest :data:`KEEP` chat lines of the table, oldest first.

    A table's ``table_state`` carries its last lines, and each ``chat`` event adds one. A
    snapshot after a reconnect repeats lines the client already has: :meth:`ChatLog.reset`
    says which of its lines are new (those after the longest run of the old lines' end it
    starts with), so a screen shows each line once without counting anything itself.
    """

    def __init__(self) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=KEEP)

    def add(self, line: ChatLine) -> tuple[ChatLine, ...]:
        """Keep ``line``; returns it as the one new line."""
        self.lines.append(line)
        return (line,)

    def reset(self, lines: Sequence[ChatLine]) -> tuple[ChatLine, ...]:
        """Keep a snapshot's ``lines``; returns those not already kept."""
        old = list(self.lines)
        overlap = 0
        for size in range(min(len(old), len(lines)), 0, -1):
            if old[-size:] == list(lines[:size]):
                overlap = size
                break
        self.lines = deque(lines, maxlen=KEEP)
        return tuple(lines[overlap:])

    def clear(self) -> None:
        self.lines.clear()
