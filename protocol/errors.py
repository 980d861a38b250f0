"""The protocol's exceptions, two kinds as in h11: the *peer's* (:class:`ProtocolError`, a
:class:`~jackal.game.errors.Refusal` with the request's id and whether to close; the
protocol layer raises its subclass :class:`RemoteProtocolError`) and *ours*
(:class:`LocalProtocolError`: our code misused a connection object, never answered to the
peer). The codes, :class:`ErrorCode`, are the game library's: one vocabulary for both."""

from __future__ import annotations

from ..game.errors import ErrorCode, Refusal
from .messages import Error, MessageId

__all__ = ["ErrorCode", "LocalProtocolError", "ProtocolError", "RemoteProtocolError"]


class ProtocolError(Refusal):
    """A peer sent something the protocol (or the table) does not allow.

    ``code`` is an :class:`ErrorCode` (the type checker rejects any other text, and so
    does this at run time), ``message`` is for humans, ``id`` is the offending request's
    id when known, and ``fatal`` says the connection cannot continue (framing errors).
    """

    def __init__(self, code: ErrorCode, message: str, *, id: MessageId | None = None,
                 fatal: bool = False) -> None:
        super().__init__(code, message)
        self.id = id
        self.fatal = fatal

    def __repr__(self) -> str:
        return (f"ProtocolError({str(self.code)!r}, {self.message!r}, id={self.id!r}, "
                f"fatal={self.fatal!r})")

    def to_message(self) -> Error:
        """The ``error`` message that answers this mistake."""
        return Error(code=self.code, message=self.message, id=self.id)


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol: a line over the cap, a line that is not a valid
    message, or a message its connection's state does not allow."""


class LocalProtocolError(Exception):
    """Our own code asked a connection object for something its state does not allow."""
