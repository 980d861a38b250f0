"""The rules of play as pure functions: whose turn it is after how many plays, which cards
a seat may play, and why a play may not be made (an :class:`IllegalAction` with its
:class:`ErrorCode`). :class:`~.deal.Deal` (the real hands) and
:class:`~.knowledge.TableKnowledge` (a seat's or a spectator's picture) both ask these
functions, so the engine and every picture of a deal judge a play alike."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .cards import Card
from .errors import ErrorCode, IllegalAction
from .seats import SEATS, Seat

__all__ = ["HAND_SIZE", "KEEP", "PLAYS_PER_DEAL", "PLAYS_PER_SEAT", "legal_plays",
           "play_order", "play_refusal", "plays_before", "seat_to_move"]

HAND_SIZE = 13
#: Cards each hand keeps when the deal ends; they are what is scored.
KEEP = 5
PLAYS_PER_SEAT = HAND_SIZE - KEEP
PLAYS_PER_DEAL = 4 * PLAYS_PER_SEAT

#: Each dealer's order of play, worked out once: the engine asks it at every play.
_ORDER: dict[Seat, tuple[Seat, Seat, Seat, Seat]] = {
    dealer: dealer.next.clockwise_from() for dealer in SEATS}


def play_order(dealer: Seat) -> tuple[Seat, Seat, Seat, Seat]:
    """The four seats in the order they play a deal ``dealer`` dealt: the seat after the
    dealer leads, then clockwise, one card each, round after round."""
    return _ORDER[dealer]


def seat_to_move(dealer: Seat, plays_made: int) -> Seat | None:
    """The seat whose turn it is once ``plays_made`` plays are made; None when the deal
    is over (every seat has made its 8 plays)."""
    if plays_made >= PLAYS_PER_DEAL:
        return None
    return _ORDER[dealer][plays_made & 3]


def plays_before(dealer: Seat, seat: Seat) -> int:
    """How many plays of each round come before ``seat``'s (0 for the leader): ``seat``'s
    plays are every fourth of the deal's, from this one on."""
    return (seat.ordinal - dealer.ordinal - 1) & 3


def legal_plays(turn: Seat | None, seat: Seat, hand: Iterable[Card]) -> tuple[Card, ...]:
    """The cards ``seat``, holding ``hand``, may play when ``turn`` is to move: any card it
    holds on its turn (the game has no suit to follow), none otherwise."""
    return tuple(hand) if turn is not None and seat is turn else ()


def play_refusal(turn: Seat | None, seat: Seat | None, card: Card, *,
                 hand: Collection[Card] | None = None,
                 history: Sequence[tuple[Seat, Card]] = ()) -> IllegalAction | None:
    """Why ``seat`` (None: whoever is to move) may not play ``card`` when ``turn`` is to
    move, or None if it may as far as the caller can tell.

    ``hand`` is the seat's unplayed cards when the caller knows them (the engine; a seat
    for itself); without it a card already in ``history`` (the deal's plays so far) is
    all that shows it is not held. The checks go in a fixed order, so every caller gives
    the same refusal: ``no_deal``, then ``not_your_turn``, then ``not_in_hand``.
    """
    if turn is None:
        return IllegalAction(ErrorCode.NO_DEAL,
                             "the deal is over: every hand already holds 5 cards")
    if seat is not None and seat is not turn:
        return IllegalAction(ErrorCode.NOT_YOUR_TURN,
                             f"it is {turn.value}'s turn, not {seat.value}'s")
    if history and any(played == card for _, played in history):
        return IllegalAction(ErrorCode.NOT_IN_HAND, f"{card} has already been played")
    if hand is not None and card not in hand:
        return IllegalAction(ErrorCode.NOT_IN_HAND, f"{turn.value} does not hold {card}")
    return None
