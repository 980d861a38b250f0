"""The game library's errors and the one vocabulary of refusals: :class:`ErrorCode`
(every stable code the server answers with) and :class:`Refusal` (an exception carrying
one), which the engine's :class:`IllegalAction` and the protocol's ``ProtocolError`` both
are. *Malformed* input (text that is not a card) is :class:`MalformedInput`; the library's
own errors are ``ValueError``s, so a caller that does not care catches one thing."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorCode", "IllegalAction", "JackalError", "MalformedInput", "Refusal"]


class ErrorCode(StrEnum):
    """Every ``code`` an ``error`` message may carry, and so every refusal's. Add, never
    rename: clients match on them. A code this version does not know (a newer server's)
    still decodes, as a stand-in that is no member (:attr:`known` is False): see
    :meth:`_missing_`."""

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
    # play (no_deal, not_your_turn, not_in_hand and bad_card are the engine's too)
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

    @classmethod
    def _missing_(cls, value: object) -> ErrorCode | None:
        # msgspec asks this hook too when it decodes an unknown value, so a client built
        # against this list still reads a newer server's error (and can show its code)
        # instead of failing the whole line. The stand-in is a fresh object each time,
        # equal to its text; it is never a member, and a refusal refuses to carry it.
        if not isinstance(value, str):
            return None
        stand_in = str.__new__(cls, value)
        stand_in._name_ = f"UNKNOWN({value!r})"
        stand_in._value_ = value
        return stand_in

    @property
    def known(self) -> bool:
        """This code is one of this version's (not a newer server's stand-in)."""
        return self._value_ in _KNOWN_CODES


_KNOWN_CODES = frozenset(code.value for code in ErrorCode)


class Refusal(Exception):
    """Something asked for that the rules or the protocol do not allow now: ``code`` says
    which refusal (stable, what a client matches on), ``message`` says it for humans."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        code = ErrorCode(code)  # an untyped caller's text is looked up
        if not code.known:
            raise ValueError(f"{str(code)!r} is no error code of this version")
        self.code = code
        self.message = message


class JackalError(ValueError):
    """Base class of every error the game library raises."""


class MalformedInput(JackalError):
    """Text that cannot be read as a card, hand, seat or convention card."""


class IllegalAction(Refusal, JackalError):
    """A well-formed action the rules do not allow right now (``no_deal``,
    ``not_your_turn``, ``not_in_hand``, ``bad_card``); the server answers with its code
    as it stands. :mod:`.rules` says which, for the engine and every picture of a deal."""
