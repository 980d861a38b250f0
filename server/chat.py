"""Chat at a table, a part the table owns: who may say what when, who reads it (see
docs/PROTOCOL.md's ``chat``), and the lines kept: the last :data:`KEEP` of each channel
for snapshots, and at most :data:`RECORD_BUDGET` bytes written to the record, so chat can
never close a table by filling its record. Pure: no I/O."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable

from ..game.seats import Seat
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import ChatLine, ChatMessage, MessageId, TableStatus
from .records.recording import Recording
from .seating import Outbox, Peer, Seating

__all__ = ["KEEP", "RECORD_BUDGET", "TableChat", "chat_message", "line_bytes"]

#: Lines of each channel a snapshot carries.
KEEP = 20
#: Bytes of chat a table's record takes at most (its cap is 4 MiB by default).
RECORD_BUDGET = 64 * 1024


def line_bytes(line: ChatLine) -> int:
    """What ``line`` costs a record: its texts as UTF-8 and room for the rest of the line."""
    return len(line.text.encode()) + len(line.name.encode()) + 100


class TableChat:
    """The lines a table keeps, and what is left of its record's chat budget. It holds the
    table's seating (who reads a line) and recording (which keeps it), never the table."""

    def __init__(self, seating: Seating, recording: Recording,
                 budget: int | None = None) -> None:
        self._seating = seating
        self._recording = recording
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

    def say(self, status: TableStatus, peer: Peer, name: str, text: str,
            req_id: MessageId | None = None) -> Outbox:
        """A chat line from ``peer`` at a table in ``status``: a seat's goes to the
        ``table`` channel (everyone at the table reads it), a spectator's to the
        ``spectators`` one (only spectators read it: a spectator could be a player's
        partner's friend)."""
        seating = self._seating
        seat = seating.seat_of(peer)
        if seat is None:
            if peer not in seating.spectators:
                raise ProtocolError(ErrorCode.NOT_SEATED,
                                    f"you are not at table {self._seating.table_id}")
            line = ChatLine(channel="spectators", name=name, text=text)
            readers = list(seating.spectators)
        else:
            if status == "playing":
                raise ProtocolError(ErrorCode.CHAT_CLOSED,
                                    "no chat while a deal is being played: partners talk "
                                    "only through their cards (chat opens when it ends)")
            line = ChatLine(channel="table", name=seating.seats[seat].name or name, text=text,
                            seat=seat)
            readers = [each for each, _ in seating.audience()]
        if self.add(line):
            self._recording.chat("table" if seat is not None else "spectators", line)
        public, own = chat_message(line), chat_message(line, req_id)
        return [(each, own if each is peer else public) for each in readers]


def chat_message(line: ChatLine, id: MessageId | None = None) -> ChatMessage:
    """The ``chat`` event of ``line`` (with ``id``: the sender's copy, the reply)."""
    return ChatMessage(id=id, channel=line.channel, name=line.name, text=line.text,
                       seat=line.seat)
