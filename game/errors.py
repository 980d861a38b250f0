"""The two kinds of mistake the engine reports: *malformed* input (text that is not a card)
and *illegal* input (a card that may not be played now). Both are ``ValueError``s, so a
caller that does not care catches one thing; the server maps each to its protocol code."""

from __future__ import annotations

__all__ = ["IllegalAction", "JackalError", "MalformedInput"]


class JackalError(ValueError):
    """Base class of every error the game library raises."""


class MalformedInput(JackalError):
    """Text that cannot be read as a card, hand, seat or convention card."""


class IllegalAction(JackalError):
    """A well-formed action the rules do not allow right now.

    ``code`` is a short stable identifier (``not_your_turn``, ``not_in_hand``,
    ``no_deal``) that the server reuses as its protocol error code.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
