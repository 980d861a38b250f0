"""The part of the terminal client's state that chooses a card: :class:`Composer` owns the
hand cursor, the typed text, a card waiting for its confirmation or for the server, and
says why a card cannot be played (the seat's knowledge judges; it only words the answer).
It reaches the rest of the state through the callables it is built with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...game.cards import Card, parse_card
from ...game.errors import ErrorCode, MalformedInput
from ...game.seats import Seat
from ...protocol import requests
from ..mirror import TableMirror

__all__ = ["Composer", "sort_hand"]

SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}
#: Characters that may start or continue a typed card ("7h", "th", "10s", "q♠").
RANK_CHARS = frozenset("a23456789tjqk1")
SUIT_CHARS = frozenset("shdc♠♥♦♣♤♡♢♧")


def sort_hand(cards: list[Card]) -> list[Card]:
    """By rank, then suit (spades, hearts, diamonds, clubs): the order the hand is drawn."""
    return sorted(cards, key=lambda c: (c.rank, SUIT_ORDER[c.suit]))


@dataclass
class Composer:
    """The card being chosen at the table, and the play on its way."""

    #: The table as it stands (the state's mirror, which a seat session replaces).
    table: Callable[[], TableMirror]
    #: The message line, the network task's queue, and how a seat is named.
    say: Callable[[str, str], None]
    send: Callable[[requests.ClientMessage], None]
    seat_label: Callable[[Seat], str]
    #: Ask "Play 7H?" and wait for a second Enter before a card is sent (``--confirm``).
    confirm: bool = False
    #: Position of the cursor in the sorted hand.
    cursor: int = 0
    typed: str = ""
    #: The last typed character was refused: Enter then plays nothing.
    rejected: bool = False
    #: The card waiting for that second Enter.
    confirming: Card | None = None
    #: The card sent and not yet answered.
    awaiting_play: Card | None = None

    def hand(self) -> list[Card]:
        return sort_hand(self.table().hand)

    def forget_play(self) -> None:
        """A new table state or deal: no card is waiting for its confirmation or for the
        server any more."""
        self.awaiting_play = None
        self.confirming = None

    def clamp_cursor(self) -> None:
        self.cursor = max(0, min(self.cursor, len(self.table().hand) - 1))

    def move_cursor(self, step: int) -> None:
        """Move the hand cursor by ``step`` cards (wrapping round)."""
        size = len(self.table().hand)
        if size:
            self.cursor = (self.cursor + step) % size
            self.typed = ""
            self.rejected = False

    def select(self, position: int) -> None:
        """Put the cursor on the ``position``-th card of the sorted hand."""
        if 0 <= position < len(self.table().hand):
            self.cursor = position
            self.typed = ""
            self.rejected = False

    def type_char(self, char: str) -> bool:
        """Add a character to the card being typed; False if it cannot belong to a card."""
        low = char.lower()
        typed = self.typed.lower()
        if not typed:
            allowed = low in RANK_CHARS
        elif typed == "1":
            allowed = low == "0"
        else:  # a rank is in: only a suit can follow, and nothing after the suit
            allowed = typed[-1] not in SUIT_CHARS and low in SUIT_CHARS
        if not allowed:
            return False
        self.rejected = False
        self.typed += char
        # Follow a fully typed card with the cursor, so Enter and the eye agree.
        try:
            card = parse_card(self.typed)
        except MalformedInput:
            return True
        hand = self.hand()
        if card in hand:
            self.cursor = hand.index(card)
        return True

    def backspace(self) -> None:
        self.typed = self.typed[:-1]

    def clear_input(self) -> None:
        """Escape on the table: forget the typed text, a card waiting for its confirmation
        and the message."""
        self.typed = ""
        self.rejected = False
        self.confirming = None
        self.say("", "info")

    def reject_char(self, char: str) -> None:
        """A key that cannot be part of a card: say so; what was typed is void, and the
        next Enter plays nothing (the player meant something, but not this card)."""
        self.typed = ""
        self.rejected = True
        self.confirming = None
        self.say(f"'{char}' is not part of a card here; ? lists the keys.", "error")

    def submit(self) -> None:
        """Enter on the table: play the typed card, or the card under the cursor. After a
        refused key it plays nothing (only clears the refusal)."""
        if self.rejected:
            self.rejected = False
            self.say("Nothing played. Type a card or use the arrows, then Enter.", "error")
            return
        if self.typed:
            text, self.typed = self.typed, ""
            try:
                card = parse_card(text)
            except MalformedInput:
                self.say(f"'{text}' is not a card: type a rank (A 2-9 T J Q K) and a suit "
                         f"(S H D C), e.g. 7h or th.", "error")
                return
            self.play(card)
            return
        hand = self.hand()
        if not hand:
            self.say("You have no cards to play.", "error")
            return
        self.play(hand[self.cursor])

    def click_card(self, position: int) -> None:
        """A mouse click on the ``position``-th card: pick it, and play it on your turn."""
        self.select(position)
        if self.table().my_turn:
            self.play(self.hand()[self.cursor])

    def check_play(self, card: Card) -> str | None:
        """Why ``card`` cannot be played now, or None if it can (the seat's knowledge
        judges; this only puts its answer in the player's words)."""
        mirror = self.table()
        known = mirror.seat_knowledge
        if known is None:
            return "You are watching: spectators do not play."
        if mirror.status != "playing" or mirror.turn is None:
            return "No deal is being played right now."
        if mirror.paused:  # the server would refuse it: say why, send nothing
            return "The table is paused: nobody plays until it resumes (p)."
        if self.awaiting_play is not None and mirror.turn is mirror.you:
            return f"Wait: your {self.awaiting_play} is on its way."
        problem = known.check_play(known.seat, card)
        if problem is None:
            return None
        if problem.code is ErrorCode.NOT_YOUR_TURN:
            return f"It is {self.seat_label(mirror.turn)}'s turn, not yours."
        if problem.code is ErrorCode.NOT_IN_HAND:
            return f"{card} is not in your hand."
        return "No deal is being played right now."

    def play(self, card: Card) -> None:
        """Play ``card`` if that can be legal; otherwise explain why, and send nothing."""
        problem = self.check_play(card)
        if problem is not None:
            self.say(problem, "error")
            return
        if self.confirm and self.confirming != card:
            self.confirming = card
            self.say(f"Play {card}? Enter plays it, Esc chooses again.", "info")
            return
        self.confirming = None
        self.awaiting_play = card
        self.say(f"Playing {card}...", "info")
        self.send(requests.Play(card=card))
