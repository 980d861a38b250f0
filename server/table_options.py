"""What ``create_table`` chose for a table: the options it is made and restored with.

A record's first line is these options plus the table id (``records.events.TableEvent``
extends this Struct), so the fields and their bounds are written once, here; the fields
are docs/PROTOCOL.md's (``create_table``) and the record's (``table``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from ..game.seats import Seat
from ..protocol.messages import Name

__all__ = ["MatchSeed", "Seconds", "Strategy", "TableOptions", "TokenHash"]

# The same bounds as the wire (protocol/requests.py) where a value came from a client, so
# nothing read back from a record reaches the server that a client could not have sent;
# the creator's name is the wire's own ``Name`` type.
TableName = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Target = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
MatchSeed = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Seconds = Annotated[float, msgspec.Meta(ge=0, le=10_000_000)]
TurnSeconds = Annotated[float, msgspec.Meta(gt=0, le=86400)]
Strategy = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
TokenHash = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class TableOptions(msgspec.Struct, kw_only=True):
    """What ``create_table`` chose (and the records keep)."""

    name: TableName
    target: Target
    seed: MatchSeed
    bot_takeover: bool = True
    hold_seconds: Seconds = 120.0
    between_deals_seconds: Seconds = 30.0
    #: The substitute: the strategy that plays a human's seat while they are away, or
    #: one card for them when their clock runs out. None: the one
    #: ``bots.substitute_strategy`` names for the partnership's declared card.
    takeover_strategy: Strategy | None = None
    #: Per-play time limit of a human seat in seconds (None: no clock).
    turn_seconds: TurnSeconds | None = None
    #: The creator chose the seed, so the creator can know every hand (shown to everyone).
    seeded: bool = False
    #: Seated players may ask for a hint on their turn (shown to everyone).
    hints: bool = False
    #: The name of the connection that created the table (shown in the lobby).
    creator: Name | None = None
    #: Whether anyone may watch (a private table's creator chooses; public: yes).
    allow_spectators: bool = True
    #: A private table: each seat's invitation code, hashed like a token (never the code;
    #: None: a public table).
    invites: dict[Seat, TokenHash] | None = None

    @property
    def private(self) -> bool:
        return self.invites is not None

    def options(self) -> TableOptions:
        """Just the options (of a record's first line, say), sharing nothing mutable
        with this object."""
        return msgspec.convert(self, TableOptions, from_attributes=True)
