"""Cards and their notation: a card is an ``int`` subclass in ``0..51`` (suit-major, aces
low), cheap to hash, compare and count in the hot loops of the engine, bots and arena,
with rank/suit accessors and the text form ("7H", "TS"). Only the 52 instances of
``DECK`` exist; ``Card.parse`` and ``Card.of`` return those."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import MalformedInput

__all__ = [
    "DECK",
    "RANKS",
    "RANK_NAMES",
    "SUITS",
    "Card",
    "format_cards",
    "parse_card",
    "parse_hand",
    "rank_name",
]

SUITS = "SHDC"
RANKS = tuple(range(1, 14))
#: Index = rank (1..13); the canonical one-character rank names.
RANK_NAMES = "?A23456789TJQK"

_RANK_INPUT = {name: rank for rank, name in enumerate(RANK_NAMES) if rank}
_RANK_INPUT["10"] = 10
_SUIT_INPUT = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
               "♤": 0, "♡": 1, "♢": 2, "♧": 3}


class Card(int):
    """One of the 52 cards. Immutable; ``str(card)`` is the canonical notation."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (ace) to 13 (king)."""
        return int(self) % 13 + 1

    @property
    def suit(self) -> str:
        """One of ``S H D C``."""
        return SUITS[int(self) // 13]

    @property
    def value(self) -> int:
        """Scoring value of a single: ace 1, two to ten face value, J 11, Q 12, K 13."""
        return int(self) % 13 + 1

    @classmethod
    def of(cls, rank: int, suit: str) -> Card:
        """The card of ``rank`` (1..13) and ``suit`` (one of ``SHDC``)."""
        if not 1 <= rank <= 13 or suit not in _SUIT_INPUT or len(suit) != 1:
            raise MalformedInput(f"no card of rank {rank!r} and suit {suit!r}")
        return DECK[_SUIT_INPUT[suit] * 13 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read "7H", "th", "10s", "Q♠" and the like (case-insensitive)."""
        return parse_card(text)

    def __str__(self) -> str:
        return RANK_NAMES[int(self) % 13 + 1] + SUITS[int(self) // 13]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))

# Every accepted spelling of every card in upper case, built once: parsing is then
# one ``upper()`` and one dict lookup.
_PARSED: dict[str, Card] = {
    rank_text + suit_text: DECK[suit * 13 + rank - 1]
    for rank_text, rank in _RANK_INPUT.items()
    for suit_text, suit in _SUIT_INPUT.items()
}


def parse_card(text: str) -> Card:
    """Parse one card; raise :class:`MalformedInput` quoting the text if it is not one."""
    card = _PARSED.get(text.strip().upper())
    if card is None:
        raise MalformedInput(f"{text!r} is not a card (expected rank A 2-9 T/10 J Q K, "
                             f"then suit S H D C, e.g. '7H' or 'TS')")
    return card


_SEPARATORS = re.compile(r"[\s,]+")


def parse_hand(text: str) -> list[Card]:
    """Parse cards separated by spaces and/or commas, keeping their order."""
    return [parse_card(part) for part in _SEPARATORS.split(text.strip()) if part]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical notation, separated by spaces."""
    return " ".join(str(card) for card in cards)


def rank_name(rank: int) -> str:
    """The one-character name of a rank (1 -> "A", 10 -> "T")."""
    return RANK_NAMES[rank]
