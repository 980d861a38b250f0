"""The game ``jackal play`` starts by itself (:class:`EmbeddedGame`): a real server inside
the process on 127.0.0.1, a table, the player seated and bots in the other seats, spoken
to over TCP as a remote server is. The command starts the server
(``jackal.cli.play.start_embedded_server``), since the client never imports it."""

from __future__ import annotations

from dataclasses import dataclass

from ..bots.registry import substitute_strategy
from ..game.conventions import ConventionCard, resolve_card
from ..game.seats import SEATS, Seat
from ..protocol.requests import CreateTable

__all__ = [
    "EmbeddedGame",
    "seat_strategy",
]

#: Between deals the embedded table waits for the player (reading the result) this long.
BETWEEN_DEALS_SECONDS = 24 * 3600.0


def seat_strategy(card: str | ConventionCard) -> str:
    """The default bot for a seat whose partnership declares ``card``: the strategy that
    keeps to that card and plays it best (:func:`jackal.bots.substitute_strategy`, the
    same one a server chooses for a substitute or an ``add_bot`` without a strategy)."""
    return substitute_strategy(resolve_card(card) if isinstance(card, str) else card)


@dataclass(frozen=True)
class EmbeddedGame:
    """What the one-command game looks like: who sits where, with which cards.

    With no ``--server``, ``jackal play`` runs a real Jackal server on 127.0.0.1 (port 0, so
    the system picks a free one) in the same trio run as the client, creates a table, seats
    the player and fills the other three seats with server-side bots. The client then talks
    to it over TCP exactly as it would to a remote server: one code path, and everything a
    player does at home is what a server sees.

    This module says what that game is (:class:`EmbeddedGame`); the server itself is started
    by the command (``jackal.cli.play.start_embedded_server``), since the client never
    imports the server.
    """

    name: str = "you"
    seat: Seat = Seat.S
    partner: str = "random"
    opponents: str = "random"
    #: Built-in card names, or cards read from files (sent inline to the server).
    conventions: str | ConventionCard = "beginner"
    their_conventions: str | ConventionCard = "beginner"
    target: int = 300
    seed: int | None = None

    def create_table(self, match: int = 1) -> CreateTable:
        """The ``create_table`` for the ``match``-th match of this session (1, 2, ...).

        A given ``seed`` makes the first match reproducible; later matches use the next
        seeds so "play again" deals new cards.
        """
        ours, theirs = self.conventions, self.their_conventions
        ns, ew = (ours, theirs) if self.seat.team.value == "NS" else (theirs, ours)
        seed = None if self.seed is None else self.seed + match - 1
        # Without a name of their own ($USER unset) the player is "you": "Your game".
        title = "Your game" if self.name == "you" else f"{self.name}'s game"
        return CreateTable(name=title if match == 1 else f"{title} {match}",
                           target=self.target, seed=seed,
                           conventions_ns=ns, conventions_ew=ew,
                           # A game of one's own for learning: the hint key works.
                           hints=True)

    def bots(self) -> dict[Seat, str]:
        """Server-side bots for the three other seats."""
        return {seat: self.partner if seat is self.seat.partner else self.opponents
                for seat in SEATS if seat is not self.seat}
