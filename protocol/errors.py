"""Stable error codes of protocol v1 and the exceptions around them, two kinds as in h11:
the *peer's* (:class:`ProtocolError`, carrying the code to answer with, the request's id
and whether to close; the protocol layer raises its subclass :class:`RemoteProtocolError`)
and *ours* (:class:`LocalProtocolError`: our code misused a connection object, a bug that
is never answered to the peer)."""

from __future__ import annotations

from enum import StrEnum

from .messages import Error, MessageId

__all__ = ["ErrorCode", "LocalProtocolError", "ProtocolError", "RemoteProtocolError"]


class ErrorCode(StrEnum):
    """Every ``code`` an ``error`` message may carry. Add, never rename: clients match on them."""

    # framing and decoding (raised by this package)
    BAD_JSON = "bad_json"
    INVALID_MESSAGE = "invalid_message"
    UNKNOWN_TYPE = "unknown_type"
    LINE_TOO_LONG = "line_too_long"
    HELLO_FIRST = "hello_first"
    # connection limits and abuse (raised by the server)
    RATE_LIMITED = "rate_limited"
    SERVER_FULL = "server_full"
    TIMEOUT = "timeout"
    SLOW_READER = "slow_reader"
    # lobby and seats
    BAD_PASSWORD = "bad_password"
    BAD_TOKEN = "bad_token"
    NO_SUCH_TABLE = "no_such_table"
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_SEATED = "not_seated"
    UNKNOWN_STRATEGY = "unknown_strategy"
    BAD_CONVENTIONS = "bad_conventions"
    NOT_ALLOWED = "not_allowed"
    #: A name, question, answer or card text with a control, bidi or zero-width
    #: character, or wider than its field allows (protocol/text.py).
    BAD_TEXT = "bad_text"
    #: ``join`` (or ``add_bot``) of a private table's seat without that seat's code.
    NOT_INVITED = "not_invited"
    #: ``spectate`` of a table whose creator allowed no spectators.
    NO_SPECTATORS = "no_spectators"
    #: ``join`` of a seat during a match from an address that has held a seat of the
    #: other partnership at that table in this match (an opponent peeking at a hand).
    OPPONENT_ADDRESS = "opponent_address"
    #: ``add_bot`` from a connection neither seated at that table nor its creator.
    NOT_AT_TABLE = "not_at_table"
    #: ``conventions`` once the partnership has changed its card the most times a match
    #: allows.
    TOO_MANY_CHANGES = "too_many_changes"
    #: ``ask`` once the seat has asked the most questions a deal allows.
    TOO_MANY_QUESTIONS = "too_many_questions"
    #: ``hello`` with a token once its seat has been reclaimed the most times a deal
    #: allows (the seat stays held; it may be reclaimed again from the next deal on).
    TOO_MANY_RECLAIMS = "too_many_reclaims"
    #: ``join`` of a seat left mid-match, without an invitation from the table's creator.
    SEAT_VACATED = "seat_vacated"
    #: ``create_table`` (or ``join``) while the server cannot write match records (a full
    #: or read-only disk, or the records folder at its cap).
    RECORDS_UNAVAILABLE = "records_unavailable"
    #: Told (without ``id``) to everyone at a table whose record cannot be written now.
    RECORDS_FAILING = "records_failing"
    #: Told (without ``id``) to everyone at a table held because too much of its record
    #: waits in memory for the disk: no card is played until ``records_resumed``.
    RECORDS_PAUSED = "records_paused"
    #: Told (without ``id``) when such a table goes on (its record is written again).
    RECORDS_RESUMED = "records_resumed"
    #: Told (without ``id``) to everyone at a table the server closes: its record reached
    #: its cap, or its bots played the most deals allowed with no person seated.
    TABLE_CLOSED = "table_closed"
    #: ``hello`` with a name a connected person from another address uses (compared
    #: after NFKC, case folding and look-alike letters).
    NAME_TAKEN = "name_taken"
    #: ``hello`` with a name that reads as one of the server's bots ("random bot").
    NAME_RESERVED = "name_reserved"
    # play (the first three are the engine's IllegalAction codes)
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    NO_DEAL = "no_deal"
    BAD_CARD = "bad_card"
    NO_SUCH_QUESTION = "no_such_question"
    #: ``explain`` of a card not (yet) played in the current or last deal.
    NOT_PLAYED = "not_played"
    #: ``hint`` at a table that does not allow hints.
    HINTS_OFF = "hints_off"
    #: ``chat`` from a seat while a deal is being played: partners talk only through
    #: their cards.
    CHAT_CLOSED = "chat_closed"
    #: A lobby write (``create_table``, ``add_bot``, ``join``, leaving a seat) from an
    #: address with a person seated at a deal being played.
    LOBBY_CLOSED = "lobby_closed"
    #: ``play`` (or ``ready`` starting a deal) while the table is paused.
    PAUSED = "paused"
    # the server's own fault
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A peer sent something the protocol does not allow.

    ``code`` is an :class:`ErrorCode` (a plain ``str`` is accepted for codes a caller adds),
    ``message`` is for humans, ``id`` is the offending request's id when known, and
    ``fatal`` says the connection cannot continue (framing errors).
    """

    def __init__(self, code: ErrorCode | str, message: str, *, id: MessageId | None = None,
                 fatal: bool = False) -> None:
        super().__init__(message)
        self.code: ErrorCode | str
        try:
            self.code = ErrorCode(code)
        except ValueError:  # a code some caller added; still sent as given
            self.code = code
        self.message = message
        self.id = id
        self.fatal = fatal

    def __repr__(self) -> str:
        return (f"ProtocolError({str(self.code)!r}, {self.message!r}, id={self.id!r}, "
                f"fatal={self.fatal!r})")

    def to_message(self) -> Error:
        """The ``error`` message that answers this mistake."""
        return Error(code=str(self.code), message=self.message, id=self.id)


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol: a line over the cap, a line that is not a valid
    message, or a message its connection's state does not allow."""


class LocalProtocolError(Exception):
    """Our own code asked a connection object for something its state does not allow."""
