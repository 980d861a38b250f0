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
    legal_plays,
    play_refusal,
    seat_to_move,
)
from .scoring import DealResult, score_hands
from .seats import SEATS, Seat

__all__ = ["HAND_SIZE", "KEEP", "PLAYS_PER_DEAL", "PLAYS_PER_SEAT", "Deal", "deal_hands"]


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

    __slots__ = ("_count", "_dealt", "_hands", "_history", "_mover", "_rows", "dealer", "seed")

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
        #: The seat to move, as the rules say after ``_count`` plays: asked once a play
        #: and kept, for the engine reads it several times a play.
        self._mover = seat_to_move(dealer, 0)

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
        turn = self._mover
        if turn is None:
            return ()
        return legal_plays(turn, turn, self._hands[turn.ordinal])

    # -- changing it --------------------------------------------------------------

    def play(self, card: Card, seat: Seat | None = None) -> int:
        """Play ``card`` for the seat to move (checked against ``seat`` if given).

        Returns the card's place in that seat's row, 1..8.
        """
        count = self._count
        mover = self._mover
        problem = play_refusal(mover, seat, card)
        if problem is not None:
            raise problem
        assert mover is not None  # play_refusal said no_deal otherwise
        index = mover.ordinal
        hand = self._hands[index]
        try:
            hand.remove(card)  # one scan of the hand: removing is also the "held?" check
        except ValueError:
            refusal = play_refusal(mover, seat, card, hand=hand)
            assert refusal is not None  # not held: the rules say not_in_hand
            raise refusal from None
        if type(card) is not Card:  # e.g. a plain int equal to a held card
            card = DECK[int(card)]
        row = self._rows[index]
        row.append(card)
        self._history.append((mover, card))
        self._count = count + 1
        self._mover = seat_to_move(self.dealer, count + 1)
        return len(row)

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
        other._mover = self._mover
        return other

    def __repr__(self) -> str:
        rows = "; ".join(f"{seat}: {format_cards(self._rows[seat.ordinal])}" for seat in SEATS)
        return f"<Deal dealer={self.dealer.value} plays={self._count} {rows}>"
