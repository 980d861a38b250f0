"""Who can receive a table's messages and what one seat holds: the types a table and its
disclosure object share (kept apart from table.py so that neither imports the other)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ..game.seats import Seat
from ..protocol.messages import ServerMessage

__all__ = ["Outbox", "Peer", "SeatKind", "SeatSlot", "Status"]

Status = Literal["waiting", "playing", "between_deals", "over"]
SeatKind = Literal["empty", "human", "bot"]


class Peer(Protocol):
    """Whoever can receive messages: in the server, one client connection."""

    def deliver(self, msg: ServerMessage) -> None: ...


Outbox = list[tuple[Peer, ServerMessage]]


@dataclass
class SeatSlot:
    """One seat: who sits there, whether they are here, and who plays for them."""

    seat: Seat
    kind: SeatKind = "empty"
    name: str | None = None
    peer: Peer | None = None
    token_hash: str | None = None
    ready: bool = False
    #: Bot seats: the strategy; human seats: the takeover bot's, while it plays.
    strategy: str | None = None
    #: A disconnected human's seat is held until this time.
    held_until: float | None = None
    #: A server-side bot plays this human seat (the hold ran out).
    takeover: bool = False
    #: The network address (host) of the connection that took or last reclaimed this
    #: human seat (None: unknown, e.g. restored from a record).
    host: str | None = None

    @property
    def connected(self) -> bool:
        return self.kind == "bot" or self.peer is not None

    @property
    def bot_controlled(self) -> bool:
        return self.kind == "bot" or (self.kind == "human" and self.takeover)

    def clear(self) -> None:
        """Make the seat empty."""
        self.kind = "empty"
        self.name = self.peer = self.token_hash = self.strategy = self.held_until = None
        self.host = None
        self.ready = self.takeover = False
