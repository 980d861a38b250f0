"""One deal as a state machine: four hands of 13, four public rows, whose turn. Every
transition goes through :meth:`Deal.play`, which asks :mod:`.rules`: an illegal play
raises :class:`IllegalAction` with its ``code`` and changes nothing. After 32 plays (8 a
seat) each hand keeps 5 cards and ``result()`` scores the deal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import DECK, Card, format_cards
from .errors import ErrorCode, IllegalAction, MalformedInput
from .rng import SplitMix64
from .rules import (
    HAND_SIZE,
    KEEP,
    PLAYS_PER_DEAL,
    PLAYS_PER_SEAT,
    play_order,
    play_refusal,
)
from .scoring import DealResult, score_hands
from .seats import SEATS, Seat

__all__ = ["HAND_SIZE", "KEEP", "PLAYS_PER_DEAL", "PLAYS_PER_SEAT", "Deal", "deal_hands"]


#: Each dealer's order of play (the rules' :func:`~.rules.play_order`), each seat with
#: its index into the hands and rows. Deal.play reads its next mover here, so a play
#: costs no ``Seat.ordinal`` lookup (hot path, see bench/engine.py).
_PLAN: dict[Seat, tuple[tuple[Seat, int], ...]] = {
    dealer: tuple((seat, seat.ordinal) for seat in play_order(dealer)) for dealer in SEATS}


def deal_hands(seed: int) -> tuple[tuple[Card, ...], ...]:
    """Shuffle a fresh deck with ``seed`` and deal 13 cards to N, E, S, W.

    Cards are dealt in blocks of 13 off the shuffled deck and each hand is sorted,
    so the result does not depend on who the dealer is.
    """
    deck = list(DECK)
    SplitMix64(seed).shuffle(deck)
    return tuple(tuple(sorted(deck[i * 13:(i + 1) * 13])) for i in range(4))


class Deal:
    """The state of one deal. Create with :meth:`from_seed` or from explicit hands."""

    __slots__ = ("_count", "_dealt", "_hands", "_history", "_index", "_mover", "_plan", "_rows",
                 "dealer", "seed")

    def __init__(self, hands: Sequence[Iterable[Card]], dealer: Seat,
                 seed: int | None = None) -> None:
        # Typed loosely on purpose: callers outside the type checker may pass anything.
        given: tuple[tuple[object, ...], ...] = tuple(tuple(hand) for hand in hands)
        if len(given) != 4 or any(len(hand) != HAND_SIZE for hand in given):
            raise MalformedInput("a deal needs four hands of 13 cards")
        if any(isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52
               for hand in given for card in hand):
            raise MalformedInput("every card of a deal must be a Card (an int from 0 to 51)")
        if len({card for hand in given for card in hand}) != 52:
            raise MalformedInput("the four hands must hold 52 different cards")
        # Store the canonical Card objects so rows and logs print as "7H", not as ints.
        dealt = tuple(tuple(DECK[card] for card in hand if isinstance(card, int))
                      for hand in given)
        self._setup(dealt, dealer, seed)

    def _setup(self, dealt: tuple[tuple[Card, ...], ...], dealer: Seat, seed: int | None) -> None:
        self.dealer = dealer
        self.seed = seed
        self._dealt = dealt
        self._hands = [list(hand) for hand in dealt]
        self._rows: list[list[Card]] = [[], [], [], []]
        self._history: list[tuple[Seat, Card]] = []
        self._count = 0
        #: The order of play; ``_plan[count & 3]`` is who moves after ``count`` plays.
        self._plan = _PLAN[dealer]
        #: The seat to move (None once the deal is over) and its hand's index, kept
        #: from play to play for the engine reads them several times a play.
        self._mover: Seat | None
        self._mover, self._index = self._plan[0]

    @classmethod
    def from_seed(cls, seed: int, dealer: Seat = Seat.N) -> Deal:
        """The deal that ``seed`` shuffles, with ``dealer`` dealing."""
        deal = cls.__new__(cls)
        # A shuffled deck needs none of the checks that hands from outside get.
        deal._setup(deal_hands(seed), dealer, seed)
        return deal

    # -- reading the state -------------------------------------------------------

    @property
    def first(self) -> Seat:
        """The seat that plays first: clockwise after the dealer."""
        return self.dealer.next

    @property
    def turn(self) -> Seat | None:
        """The seat to move, or None once the deal is over."""
        return self._mover

    @property
    def plays_made(self) -> int:
        return self._count

    @property
    def is_over(self) -> bool:
        return self._count == PLAYS_PER_DEAL

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` still holds (private to that seat until the deal ends)."""
        return tuple(self._hands[seat.ordinal])

    def dealt_hand(self, seat: Seat) -> tuple[Card, ...]:
        """The 13 cards ``seat`` was dealt."""
        return self._dealt[seat.ordinal]

    def row(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` has played, in order (public)."""
        return tuple(self._rows[seat.ordinal])

    @property
    def history(self) -> tuple[tuple[Seat, Card], ...]:
        """Every play so far in order, as (seat, card)."""
        return tuple(self._history)

    def legal_plays(self) -> tuple[Card, ...]:
        """The cards the seat to move may play: any card it holds."""
        # What rules.legal_plays(turn, turn, hand) answers, inlined: this runs before
        # every play (hot path, see bench/engine.py).
        if self._mover is None:
            return ()
        return tuple(self._hands[self._index])

    # -- changing it --------------------------------------------------------------

    def play(self, card: Card, seat: Seat | None = None) -> int:
        """Play ``card`` for the seat to move (checked against ``seat`` if given).

        Returns the card's place in that seat's row, 1..8.
        """
        # Hot path (bench/engine.py): the legal play is told apart inline, by the same
        # tests as rules.play_refusal, and only a refused play asks the rules, which
        # word the refusal (code, message, which check comes first) for every caller.
        mover = self._mover
        if mover is None or (seat is not None and seat is not mover):
            raise self._refusal(seat, card)
        index = self._index
        hand = self._hands[index]
        try:
            hand.remove(card)  # one scan of the hand: removing is also the "held?" check
        except ValueError:
            raise self._refusal(seat, card) from None
        if type(card) is not Card:  # e.g. a plain int equal to a held card
            card = DECK[int(card)]
        row = self._rows[index]
        row.append(card)
        self._history.append((mover, card))
        count = self._count + 1
        self._count = count
        if count == PLAYS_PER_DEAL:
            self._mover = None
        else:
            self._mover, self._index = self._plan[count & 3]
        return len(row)

    def _refusal(self, seat: Seat | None, card: Card) -> IllegalAction:
        """The rules' refusal of a play :meth:`play` found illegal (nothing changed)."""
        mover = self._mover
        hand = None if mover is None else self._hands[self._index]
        refusal = play_refusal(mover, seat, card, hand=hand)
        assert refusal is not None  # play found it illegal by the rules' own tests
        return refusal

    # -- the end ----------------------------------------------------------------------

    def kept(self, seat: Seat) -> tuple[Card, ...]:
        """The five cards ``seat`` keeps (only meaningful once the deal is over)."""
        return tuple(sorted(self._hands[seat.ordinal]))

    def result(self) -> DealResult:
        """Score the finished deal."""
        if self._count != PLAYS_PER_DEAL:
            raise IllegalAction(ErrorCode.NO_DEAL,
                                f"the deal is not over yet ({self._count} of 32 plays made)")
        hands = self._hands
        return score_hands(hands[0] + hands[2], hands[1] + hands[3])

    def copy(self) -> Deal:
        """An independent copy (for search)."""
        other = Deal.__new__(Deal)
        other.dealer = self.dealer
        other.seed = self.seed
        other._dealt = self._dealt
        other._hands = [list(hand) for hand in self._hands]
        other._rows = [list(row) for row in self._rows]
        other._history = list(self._history)
        other._count = self._count
        other._plan = self._plan
        other._mover = self._mover
        other._index = self._index
        return other

    def __repr__(self) -> str:
        rows = "; ".join(f"{seat}: {format_cards(self._rows[seat.ordinal])}" for seat in SEATS)
        return f"<Deal dealer={self.dealer.value} plays={self._count} {rows}>"
