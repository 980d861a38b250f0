"""The hub's record of one connection: its address group and its quotas, kept in one
place (the greeter and the hub read and count them here, never on the edge's session)."""

from __future__ import annotations

from dataclasses import dataclass

from .net.ratelimit import TokenBucket
from .net.session import Session

__all__ = ["Member"]


@dataclass(eq=False, slots=True)  # one per connection: thousands at once
class Member:
    """One connection as the hub knows it: its address group and its quotas. Its name is
    its session's, its seat the lobby's, and the tables it created are those whose
    seating names it their creator (counted from the lobby, never kept twice)."""

    session: Session
    #: Its address group (see :func:`.net.ratelimit.address_group`).
    host: str
    #: Hints it may still have worked out, and chat lines it may still send (each made
    #: at its first use).
    hints: TokenBucket | None = None
    chat: TokenBucket | None = None
    #: Wrong passwords it has sent (at ``MAX_BAD_PASSWORDS`` the greeter closes it).
    bad_passwords: int = 0
