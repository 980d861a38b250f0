"""Chat at a table: who may say what when, who reads it, and what is kept.

Partners talk only through their cards, so the rules are about channels, not words:

- a seated player's line goes to the ``table`` channel, which everyone at the table
  reads (seats and spectators); it is refused with ``chat_closed`` while a deal is being
  played, and allowed before the match, between deals and after it;
- a spectator's line goes to the ``spectators`` channel, which only spectators read: a
  spectator could be a player's partner's friend, watching the rows;
- the lobby channel (connections at no table) is the hub's: it keeps nothing.

The table keeps the last :data:`KEEP` lines of each channel for its snapshots, and
writes lines to its record until :data:`RECORD_BUDGET` bytes of chat are spent (beyond,
lines are still delivered but not recorded), so chat can take only a small, fixed part
of a record's cap and never closes a table by filling its record. Pure: no I/O.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable

from ..game.seats import Seat
from ..protocol.messages import ChatLine, ChatMessage, MessageId

__all__ = ["KEEP", "RECORD_BUDGET", "TableChat", "chat_message", "line_bytes"]

#: Lines of each channel a snapshot carries.
KEEP = 20
#: Bytes of chat a table's record takes at most (its cap is 4 MiB by default).
RECORD_BUDGET = 64 * 1024


def line_bytes(line: ChatLine) -> int:
    """What ``line`` costs a record: its texts as UTF-8 and room for the rest of the line."""
    return len(line.text.encode()) + len(line.name.encode()) + 100


class TableChat:
    """The lines a table keeps, and what is left of its record's chat budget."""

    def __init__(self, budget: int | None = None) -> None:
        self._order = itertools.count()
        self._table: deque[tuple[int, ChatLine]] = deque(maxlen=KEEP)
        self._spectators: deque[tuple[int, ChatLine]] = deque(maxlen=KEEP)
        #: Bytes of chat the record may still take.
        self.budget = RECORD_BUDGET if budget is None else budget

    def add(self, line: ChatLine) -> bool:
        """Keep ``line``; True when it fits the record's budget (and is to be written)."""
        kept = self._spectators if line.channel == "spectators" else self._table
        kept.append((next(self._order), line))
        cost = line_bytes(line)
        if cost > self.budget:
            self.budget = 0  # spent: later lines, even short ones, are not recorded
            return False
        self.budget -= cost
        return True

    def restore(self, lines: Iterable[ChatLine]) -> None:
        """Lines read back from the record (oldest first), as if said again."""
        for line in lines:
            self.add(line)

    def lines_for(self, seat: Seat | None) -> list[ChatLine]:
        """The kept lines a recipient may read, oldest first: a seat reads the table
        channel, a spectator (``None``) that and the spectators' one."""
        if seat is not None:
            return [line for _, line in self._table]
        both = sorted((*self._table, *self._spectators), key=lambda kept: kept[0])
        return [line for _, line in both[-KEEP:]]


def chat_message(line: ChatLine, id: MessageId | None = None) -> ChatMessage:
    """The ``chat`` event of ``line`` (with ``id``: the sender's copy, the reply)."""
    return ChatMessage(id=id, channel=line.channel, name=line.name, text=line.text,
                       seat=line.seat)
