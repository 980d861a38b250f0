"""What the plays of a partnership say, read from the public history: every meaningful play
is a :class:`Statement` about how many cards of one rank its player holds right after it.
:func:`statements` lists them for one seat; the beginner and the expert read partner
through it, and the expert also sees what its own plays told partner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..game.cards import Card
from ..game.conventions import Answer, ConventionCard, Promise
from ..game.explain import promise_of
from ..game.seats import Seat

__all__ = ["Statement", "is_fallback", "statements"]


@dataclass(frozen=True, slots=True)
class Statement:
    """``seat`` claimed, with its ``play``-th card (history index ``time``), to hold
    at least ``at_least`` cards of ``rank`` (``exactly_none`` for "none of it")."""

    seat: Seat
    play: int
    time: int
    card: Card
    rank: int
    at_least: int
    exactly_none: bool = False
    ambiguous: bool = False
    #: A promise play whose card promises no rank at all: "nothing to show" (rank 0).
    nothing: bool = False

    def thrown_since(self, history: Sequence[tuple[Seat, Card]]) -> int:
        """Cards of the statement's rank its seat has played after it in ``history``:
        what the seat said it held, it no longer holds."""
        return sum(1 for who, card in history[self.time + 1:]
                   if who is self.seat and card % 13 + 1 == self.rank)


def is_fallback(convention: ConventionCard, rule: Promise, card: Card) -> bool:
    """Whether ``card`` belongs to ``rule``'s "nothing to promise" class (high or low)."""
    low = convention.is_low(card % 13 + 1)
    return low if rule.fallback == "low" else not low


def statements(convention: ConventionCard, history: Sequence[tuple[Seat, Card]],
               seat: Seat) -> list[Statement]:
    """Every statement ``seat`` has made so far under ``convention``.

    Every meaningful play under a convention card is a statement about how many cards
    of one rank its player holds right after the play:

    - a promise says "at least ``count`` of rank p" (p = card's rank + offset); when the
      card is of the rule's fallback class it may instead mean "nothing to promise", so
      such a statement is marked ``ambiguous``;
    - a promise-play card whose offset lands outside A..K promises nothing: it says
      "no pair to show" (``nothing``, rank 0);
    - an answer to partner's promise of rank p says "at least one of p" (low card) or
      "none of p" (high card).

    ``statements`` lists them for one seat; both the beginner and the expert read
    partner through it, and the expert also uses it to see what its own plays told
    partner.
    """
    partner = seat.partner
    partner_row = [card for who, card in history if who is partner]
    found: list[Statement] = []
    play = 0
    for time, (who, card) in enumerate(history):
        if who is not seat:
            continue
        play += 1
        if play > len(convention.plays):
            break
        rule = convention.rule(play)
        if isinstance(rule, Promise):
            rank = rule.promised_rank(card % 13 + 1)
            if rank is not None:
                found.append(Statement(seat, play, time, card, rank, rule.count,
                                       ambiguous=is_fallback(convention, rule, card)))
            else:
                found.append(Statement(seat, play, time, card, 0, 0, nothing=True))
        elif isinstance(rule, Answer):
            if not 1 <= rule.play <= len(partner_row):
                continue
            asked = partner_row[rule.play - 1]
            rank = promise_of(convention, asked % 13 + 1, rule.play)
            if rank is None:
                continue
            if convention.is_low(card % 13 + 1):
                found.append(Statement(seat, play, time, card, rank, 1))
            else:
                found.append(Statement(seat, play, time, card, rank, 0, exactly_none=True))
    return found
