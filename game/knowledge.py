"""What a place at the table may know: :class:`TableKnowledge` (a spectator's: the deal's
public facts) and :class:`SeatKnowledge` (one seat's: those and its own cards). Both are
frozen; :meth:`~TableKnowledge.apply_play` returns the next value and what changed, and
refuses a play the rules forbid by asking :mod:`.rules`, as the engine does."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Self

from .cards import Card
from .conventions import ConventionCard
from .deal import Deal
from .errors import IllegalAction
from .rules import (
    PLAYS_PER_SEAT,
    legal_plays,
    play_order,
    play_refusal,
    plays_before,
    seat_to_move,
)
from .seats import SEATS, Seat, Team

#: The card of a (seat, card) play: ``row`` maps it over a slice of the history in C.
_card_of = operator.itemgetter(1)

__all__ = ["PlayApplied", "SeatKnowledge", "TableKnowledge", "history_from_rows"]


@dataclass(frozen=True, slots=True)
class PlayApplied:
    """What one play changed: ``card`` went to the end of ``seat``'s row at ``index``
    (1..8), and ``turn`` moves next (None once the deal is over)."""

    seat: Seat
    card: Card
    index: int
    turn: Seat | None


def history_from_rows(dealer: Seat, rows: Mapping[Seat, tuple[Card, ...] | list[Card]]
                      ) -> tuple[tuple[Seat, Card], ...]:
    """Every play of a deal in order, from its four rows (play goes clockwise from the
    seat after the dealer, one card each per round)."""
    order = play_order(dealer)
    plays: list[tuple[Seat, Card]] = []
    for turn in range(PLAYS_PER_SEAT):
        for seat in order:
            row = rows.get(seat, ())
            if turn >= len(row):
                return tuple(plays)
            plays.append((seat, row[turn]))
    return tuple(plays)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableKnowledge:
    """The public picture of one deal at a table: who dealt (and so who led), every play
    in order (hence the four rows and whose turn it is), the deal number, both declared
    convention cards, the scores and the target. Nothing in it is secret."""

    dealer: Seat
    #: Every play of this deal so far, in order, as (seat, card).
    history: tuple[tuple[Seat, Card], ...] = ()
    deal_number: int = 1
    conventions: Mapping[Team, ConventionCard] = field(default_factory=dict)
    scores: Mapping[Team, int] = field(default_factory=dict)
    target: int = 300

    @classmethod
    def of_deal(cls, deal: Deal, *, deal_number: int = 1,
                conventions: Mapping[Team, ConventionCard] | None = None,
                scores: Mapping[Team, int] | None = None, target: int = 300
                ) -> TableKnowledge:
        """The public picture of the live ``deal``: its dealer and plays, with the facts
        around it. Everyone who holds a real deal (the server's views, the arena, the
        demo, tests) cuts a seat's picture from this one with :meth:`with_hand`."""
        return TableKnowledge(dealer=deal.dealer, history=deal.history,
                              deal_number=deal_number, conventions=dict(conventions or {}),
                              scores=dict(scores or {}), target=target)

    @property
    def first(self) -> Seat:
        """The seat that led this deal: clockwise after the dealer."""
        return self.dealer.next

    @property
    def plays_made(self) -> int:
        return len(self.history)

    @property
    def is_over(self) -> bool:
        """All 32 plays are made: every hand holds its five kept cards."""
        return self.turn is None

    @property
    def turn(self) -> Seat | None:
        """The seat to move, or None once the deal is over."""
        return seat_to_move(self.dealer, len(self.history))

    @property
    def play_order(self) -> tuple[Seat, Seat, Seat, Seat]:
        """The four seats in the order they play this deal, ``first`` first."""
        return play_order(self.dealer)

    def places(self) -> list[tuple[Seat, int]]:
        """Where each play of the deal lies, in the order played: (seat, index 1..8 in
        its row). Play goes round one card each, so the ``i``-th play is in round
        ``i // 4``."""
        return [(seat, i // 4 + 1) for i, (seat, _) in enumerate(self.history)]

    @property
    def newest(self) -> tuple[Seat, int] | None:
        """Where the latest play of the deal lies, as in :meth:`places`; None before
        the first."""
        if not self.history:
            return None
        return self.history[-1][0], (len(self.history) - 1) // 4 + 1

    def _offset(self, seat: Seat) -> int:
        """Where ``seat``'s plays start in ``history``: play goes round clockwise from
        ``first``, one card each, so a seat's plays are every fourth entry from here."""
        return plays_before(self.dealer, seat)

    def row(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` has played this deal, in order."""
        return tuple(map(_card_of, self.history[self._offset(seat)::4]))

    def plays_by(self, seat: Seat) -> int:
        """How many cards ``seat`` has played this deal."""
        return len(self.history[self._offset(seat)::4])

    @property
    def rows(self) -> dict[Seat, tuple[Card, ...]]:
        return {seat: self.row(seat) for seat in SEATS}

    def with_hand(self, seat: Seat, hand: tuple[Card, ...]) -> SeatKnowledge:
        """This picture as ``seat`` knows it, holding ``hand``."""
        return SeatKnowledge(seat=seat, hand=hand, dealer=self.dealer, history=self.history,
                             deal_number=self.deal_number, conventions=self.conventions,
                             scores=self.scores, target=self.target)

    def check_play(self, seat: Seat, card: Card) -> IllegalAction | None:
        """Why ``seat`` may not play ``card`` now (the rules' refusal, as the engine would
        give it), or None if it may as far as this picture tells: a spectator sees no
        hand, only the cards already played."""
        return play_refusal(self.turn, seat, card, history=self.history)

    def apply_play(self, seat: Seat, card: Card) -> tuple[Self, PlayApplied]:
        """The picture after ``seat`` plays ``card``, and what changed.

        Raises :class:`IllegalAction` (``no_deal``, ``not_your_turn``, ``not_in_hand``)
        when the play cannot be the next one; nothing changes then.
        """
        problem = self.check_play(seat, card)
        if problem is not None:
            raise problem
        return self._played(seat, card)

    def _played(self, seat: Seat, card: Card) -> tuple[Self, PlayApplied]:
        history = (*self.history, (seat, card))
        after = dataclasses.replace(self, history=history)
        return after, PlayApplied(seat=seat, card=card, index=after.plays_by(seat),
                                  turn=after.turn)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatKnowledge(TableKnowledge):
    """What ``seat`` knows: the public picture plus its own unplayed cards. It is what a
    strategy reads, what the server's per-recipient views build from the real deal (the
    one place other seats' hands are left out) and what the client's mirror keeps.

    Strategies get one when it is their turn (as ``jackal.bots.View``); ``hand`` is in
    the order dealt minus what was played (sorted, as the server deals).
    """

    seat: Seat
    hand: tuple[Card, ...]

    @classmethod
    def from_deal(cls, deal: Deal, seat: Seat, *, deal_number: int = 1,
                  conventions: Mapping[Team, ConventionCard] | None = None,
                  scores: Mapping[Team, int] | None = None, target: int = 300
                  ) -> SeatKnowledge:
        """What ``seat`` may know of the live ``deal``: its own hand and the public plays.

        For whoever holds the real deal in process (the arena, the demo, tests); the
        server builds its seats' pictures in ``jackal.server.views``.
        """
        public = TableKnowledge.of_deal(deal, deal_number=deal_number,
                                        conventions=conventions, scores=scores, target=target)
        return public.with_hand(seat, deal.hand(seat))

    @property
    def partner(self) -> Seat:
        return self.seat.partner

    @property
    def play_number(self) -> int:
        """Which of this seat's eight plays is next (1..8)."""
        return self.plays_by(self.seat) + 1

    @property
    def our_card(self) -> ConventionCard | None:
        """Our partnership's declared convention card, if we know it."""
        return self.conventions.get(self.seat.team)

    @property
    def my_turn(self) -> bool:
        return self.turn is self.seat

    def legal_plays(self) -> tuple[Card, ...]:
        """The cards this seat may play now: its whole hand on its turn, else none."""
        return legal_plays(self.turn, self.seat, self.hand)

    def check_play(self, seat: Seat, card: Card) -> IllegalAction | None:
        """As :meth:`TableKnowledge.check_play`, and a card of this seat's own that it
        does not hold is refused too."""
        return play_refusal(self.turn, seat, card, history=self.history,
                            hand=self.hand if seat is self.seat else None)

    def _played(self, seat: Seat, card: Card) -> tuple[Self, PlayApplied]:
        after, change = TableKnowledge._played(self, seat, card)
        if seat is self.seat:
            hand = list(self.hand)
            hand.remove(card)
            after = dataclasses.replace(after, hand=tuple(hand))
        return after, change

    def public(self) -> TableKnowledge:
        """The same picture without the seat's own cards: what a spectator may see."""
        return TableKnowledge(dealer=self.dealer, history=self.history,
                              deal_number=self.deal_number, conventions=self.conventions,
                              scores=self.scores, target=self.target)
