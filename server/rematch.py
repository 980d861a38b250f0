"""A finished match's rematch, a part the table owns: the target the next match is played
to and who asked for it. The new match starts when every seat is filled and every person
seated is connected and asked for the same target (docs/PROTOCOL.md, ``rematch``). Pure:
no I/O."""

from __future__ import annotations

from ..game.match import Match
from ..game.rng import derive_seed
from ..protocol.messages import RematchWanted
from .seating import Outbox, Seating, SeatSlot

__all__ = ["RematchTerms"]


class RematchTerms:
    """The terms of the next match at a table whose match is over."""

    __slots__ = ("target",)

    def __init__(self, target: int) -> None:
        #: The target of the next match (the last match's until a player asks another).
        self.target = target

    def ask(self, slot: SeatSlot, seating: Seating, target: int | None) -> tuple[Outbox, bool]:
        """The person at ``slot`` asks for a rematch (to ``target`` points, if given).
        Returns the news, and True if the terms changed: the others asked for the old
        ones, so they must ask again (and everyone needs a fresh view of the seats)."""
        if target is not None and target != self.target:
            self.target = target
            seating.unready(but=slot)
            return seating.broadcast(RematchWanted(seat=slot.seat, target=target)), True
        if not seating.mark_ready(slot):
            return [], False
        return seating.broadcast(RematchWanted(seat=slot.seat, target=self.target)), False

    def next_match(self, last: Match) -> Match:
        """The match the rematch plays. Its seed is derived from the last match's: as
        secret as it was, and a seeded table's rematches are as reproducible as its first
        match."""
        return Match(derive_seed(last.seed, 2) & (2**63 - 1), self.target)
