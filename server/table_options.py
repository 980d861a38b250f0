"""What ``create_table`` chose for a table, and its record's first line keeps: the options
a table is made with and restored from. The fields are docs/PROTOCOL.md's
(``create_table``) and the record's (``table``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..game.seats import Seat
from .record_events import TableEvent

__all__ = ["TableOptions"]


@dataclass
class TableOptions:
    """What ``create_table`` chose (and the records keep)."""

    name: str
    target: int
    seed: int
    bot_takeover: bool = True
    hold_seconds: float = 120.0
    between_deals_seconds: float = 30.0
    #: The substitute: the strategy that plays a human's seat while they are away, or
    #: one card for them when their clock runs out. None: the one
    #: ``bots.substitute_strategy`` names for the partnership's declared card.
    takeover_strategy: str | None = None
    #: Per-play time limit of a human seat in seconds (None: no clock).
    turn_seconds: float | None = None
    #: The creator chose the seed, so the creator can know every hand (shown to everyone).
    seeded: bool = False
    #: Seated players may ask for a hint on their turn (shown to everyone).
    hints: bool = False
    #: The name of the connection that created the table (shown in the lobby).
    creator: str | None = None
    #: Whether anyone may watch (a private table's creator chooses; public: yes).
    allow_spectators: bool = True
    #: A private table: each seat's invitation code, hashed (None: a public table).
    invites: dict[Seat, str] | None = None

    @property
    def private(self) -> bool:
        return self.invites is not None

    def event(self, table_id: str) -> TableEvent:
        """The record's first line. It has the same fields (and ``table``): they are
        passed by name, so a field added to one and not the other fails at once."""
        return TableEvent(table=table_id, **dataclasses.asdict(self))

    @classmethod
    def from_event(cls, head: TableEvent) -> TableOptions:
        """The options a record's first line kept."""
        options = cls(**{field.name: getattr(head, field.name)
                         for field in dataclasses.fields(cls)})
        if options.invites is not None:
            options.invites = dict(options.invites)
        return options
