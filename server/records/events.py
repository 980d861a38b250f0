"""The match record format: one tagged msgspec Struct per line, read back strictly.

The Structs below are the whole format (docs/PROTOCOL.md's "The record format" lists
them for readers of a record): :mod:`.recording` writes them, and :func:`read_record`
decodes them with the same bounds as the wire.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from ...game.cards import DECK, Card
from ...game.conventions import ConventionCard
from ...game.scoring import DealResult
from ...game.seats import TEAMS, Seat, Team
from ...protocol.codec import card_enc_hook
from ...protocol.messages import BotPlayedBy, ChatLine, SeatKind, TableId
from ...protocol.text import (
    ANSWER,
    CHAT,
    NAME,
    QUESTION,
    TABLE_NAME,
    TextRefused,
    TextRule,
    check_card_text,
    check_text,
)
from ..table_options import MatchSeed, Seconds, Strategy, TableOptions, TokenHash

__all__ = [
    "MAX_LINE_BYTES",
    "AnswerEvent",
    "ChatEvent",
    "ChosenBy",
    "Closed",
    "ConventionsEvent",
    "DealEvent",
    "ExpertEvent",
    "HintEvent",
    "MatchEnd",
    "MatchStart",
    "PlayEvent",
    "PlayedBy",
    "QuestionEvent",
    "ReadyEvent",
    "RecordError",
    "RecordEvent",
    "RecordRead",
    "RematchEvent",
    "Restored",
    "ResultEvent",
    "SeatEvent",
    "TableChannel",
    "TableEvent",
    "check_event_text",
    "decode_event",
    "encode_event",
    "last_complete_event",
    "read_record",
    "result_event",
]

#: A longer line is damage, not an event (the largest real one, an inline convention
#: card, is a few KiB); the cap keeps a garbled file from being read into memory whole.
MAX_LINE_BYTES = 256 * 1024

# The same bounds as the wire (protocol/messages.py) where a field came from a client.
DealSeed = Annotated[int, msgspec.Meta(ge=0)]  # any 64-bit value; checked against the match
Points = Annotated[int, msgspec.Meta(ge=0, le=100_000_000)]
DealNumber = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]


def _now() -> float:
    return round(time.time(), 3)


class RecordError(ValueError):
    """A record that cannot be read or does not replay (the message says where)."""


# Decoded with the wire's bounds (a seat is one of N/E/S/W, a target 1..1,000,000, a token
# hash 64 hex digits, ...), so nothing read back from disk reaches the server that a
# client could not have sent; and unknown fields are refused: a line this code did not
# write is not trusted.
class _Event(msgspec.Struct, tag_field="event", forbid_unknown_fields=True, kw_only=True):
    #: Wall-clock seconds when the line was written (stamped when the event is made).
    time: Annotated[float, msgspec.Meta(ge=0)] = msgspec.field(default_factory=_now)


class TableEvent(TableOptions, tag_field="event", tag="table", forbid_unknown_fields=True,
                 kw_only=True):
    """First line: the options the table was created with (``TableOptions``'s fields and
    bounds, so the two cannot drift apart), and the table's id."""

    time: Annotated[float, msgspec.Meta(ge=0)] = msgspec.field(default_factory=_now)
    table: TableId
    # Every record has written these three: a first line without them is not ours.
    bot_takeover: bool
    hold_seconds: Seconds
    between_deals_seconds: Seconds
    #: None: the substitute for the partnership's card (records from before the field
    #: existed read as "random", what those servers used).
    takeover_strategy: Strategy | None = "random"

    @classmethod
    def of(cls, table_id: str, options: TableOptions) -> TableEvent:
        """The first line of table ``table_id``'s record."""
        return cls(table=table_id, **msgspec.structs.asdict(options))


class ConventionsEvent(_Event, tag="conventions"):
    """A partnership's convention card, at creation and on every change."""

    team: Team
    card: ConventionCard


class SeatEvent(_Event, tag="seat"):
    """A seat changed hands. Humans are recorded by the SHA-256 of their token, never it."""

    seat: Seat
    kind: SeatKind
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80)] | None = None
    token_hash: TokenHash | None = None
    strategy: Strategy | None = None


class MatchStart(_Event, tag="match_start"):
    """Every seat was filled and ready: deal 1 follows."""


class DealEvent(_Event, tag="deal"):
    """A deal was shuffled (the seed is derived from the match seed, and checked)."""

    number: DealNumber
    dealer: Seat
    seed: DealSeed


#: Who chose a card or an answer: the seat's ``player`` over its connection, or a bot.
ChosenBy = Literal["player", "bot"]
#: Who played a card: its ``player``, a ``bot`` seat, or a bot for a human's seat (the
#: wire's ``played.by``).
PlayedBy = ChosenBy | BotPlayedBy


class PlayEvent(_Event, tag="play"):
    """One card played; ``index`` is its place in the seat's row (1..8); ``by``: who played
    it: ``player`` (over the seat's connection), ``bot`` (a bot seat), ``substitute``
    (the bot playing a human's seat while they are away) or ``clock`` (the substitute's
    one card when the player's time ran out)."""

    seat: Seat
    card: Card
    index: Annotated[int, msgspec.Meta(ge=1, le=8)]
    by: PlayedBy | None = None


class HintEvent(_Event, tag="hint"):
    """``seat``, on turn, took a hint for its ``play``-th card (1..8) of deal ``deal``.

    Written with the public ``hint_taken`` notice, so once per seat and turn (restored
    with the table, so a hint asked for again after a restart is not written again).
    Like the notice it names no card: what the hint said went to that player alone, and
    a record says what everyone at the table was told, plus the hands and plays.
    """

    seat: Seat
    deal: DealNumber
    play: Annotated[int, msgspec.Meta(ge=1, le=8)]


QuestionId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
QaText = Annotated[str, msgspec.Meta(max_length=1000)]


class QuestionEvent(_Event, tag="question"):
    """``asker`` asked ``seat`` a question (about its ``index``-th card, if given). The
    text is kept while the table's question budget lasts (``server/disclosure.py``),
    None after, so questions cannot fill the record."""

    question: QuestionId
    asker: Seat
    seat: Seat
    index: Annotated[int, msgspec.Meta(ge=1, le=8)] | None = None
    text: QaText | None = None


class AnswerEvent(_Event, tag="answer"):
    """``seat`` answered question ``question``: ``by`` its ``player`` or a ``bot`` (a bot
    seat, or the substitute, answers at once from its card)."""

    question: QuestionId
    seat: Seat
    by: ChosenBy
    text: QaText | None = None


#: A table's chat channels: a record never holds the lobby's.
TableChannel = Literal["table", "spectators"]


class ChatEvent(ChatLine, tag_field="event", tag="chat", forbid_unknown_fields=True,
                omit_defaults=False):
    """A chat line said at the table (``table``: from a seat; ``spectators``: from a
    spectator), while the table's chat budget lasts (server/chat.py): the wire's line,
    stamped like every event (a record's lines spell out their nulls)."""

    channel: TableChannel
    time: Annotated[float, msgspec.Meta(ge=0)] = msgspec.field(default_factory=_now)


class ResultEvent(_Event, tag="result"):
    """A deal was scored; ``scores`` are the match totals after it."""

    deal: DealNumber
    penalty: dict[Team, Points]
    winner: Team | None
    points: Points
    scores: dict[Team, Points]


class ExpertEvent(_Event, tag="expert"):
    """The expert pair's information cost on deal ``deal`` of the match (the same hands
    played through by expert bots: ``server/deal_summary.py``). Worked out in a worker
    thread after the deal's ``result``, so it may come after later lines."""

    deal: DealNumber
    information_cost: dict[Team, Points]


class MatchEnd(_Event, tag="match_end"):
    """A team reached the target."""

    winner: Team
    scores: dict[Team, Points]


class ReadyEvent(_Event, tag="ready"):
    """A person said ``ready`` before the match or between deals (kept over a restart
    until the next deal, the match's start, or a new player at that seat)."""

    seat: Seat


class RematchEvent(_Event, tag="rematch"):
    """Every human seat asked to play again: a new match at this table, same seats, dealt
    from ``seed`` (derived from the last match's, so as secret as it was), to ``target``
    (None: the table's first target)."""

    seed: MatchSeed
    target: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] | None = None


class Restored(_Event, tag="restored"):
    """The server restarted and took the match up again.

    ``table`` is set when the restored table got a new id (another restored record
    already had this one).
    """

    table: TableId | None = None


class Closed(_Event, tag="closed"):
    """The table was removed without finishing its match; a restart leaves it alone."""

    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


RecordEvent = (TableEvent | ConventionsEvent | SeatEvent | MatchStart | DealEvent | PlayEvent
               | HintEvent | ResultEvent | MatchEnd | RematchEvent | Restored | Closed | ChatEvent
               | QuestionEvent | AnswerEvent | ExpertEvent | ReadyEvent)

#: Each card by the one spelling a record holds: the wire's ("7H", "TS"), which the
#: server writes; a record is read more strictly than a client's line ("10h", "T♥").
_CARDS = {str(card): card for card in DECK}


def _read_card(kind: type, obj: Any) -> Any:
    if kind is Card:
        if isinstance(obj, str) and obj in _CARDS:
            return _CARDS[obj]
        raise ValueError("Expected a card such as `7H`")
    raise NotImplementedError(f"cannot decode {kind.__name__}")


_decoder = msgspec.json.Decoder(RecordEvent, dec_hook=_read_card)
_encoder = msgspec.json.Encoder(enc_hook=card_enc_hook)


def decode_event(line: bytes) -> RecordEvent:
    """One record line as its event (raises msgspec.DecodeError/ValidationError)."""
    return _decoder.decode(line)


def encode_event(event: RecordEvent, buffer: bytearray) -> None:
    """Replace ``buffer``'s contents with the event's line, newline included."""
    _encoder.encode_into(event, buffer)
    buffer.extend(b"\n")


def result_event(number: int, result: DealResult, scores: dict[Team, int]) -> ResultEvent:
    """The ``result`` line of deal ``number`` (the table writes it; replay checks it)."""
    return ResultEvent(deal=number, penalty={team: result.penalty(team) for team in TEAMS},
                       winner=result.winner, points=result.points, scores=dict(scores))


#: The wire's rule for each text of a record that people read, by event and field; a
#: seat's name may be a bot's, up to the record's 80 characters.
_TEXT_RULES: dict[tuple[type, str], TextRule] = {
    (TableEvent, "name"): TABLE_NAME, (TableEvent, "creator"): NAME,
    (SeatEvent, "name"): TextRule(80, strict=True),
    (ChatEvent, "name"): TextRule(80, strict=True), (ChatEvent, "text"): CHAT,
    (QuestionEvent, "text"): QUESTION, (AnswerEvent, "text"): ANSWER,
}
#: Every other string (ids, hashes, strategy names, a close's reason): the characters'
#: rules alone, so no field of a record escapes them, one added later included.
_ANY_TEXT = TextRule(MAX_LINE_BYTES)


def check_event_text(event: RecordEvent) -> None:
    """Check every text of ``event`` with the wire's rules (protocol/text.py): each
    string field, and an inline convention card's texts; raises ``TextRefused``."""
    for name in event.__struct_fields__:
        value = getattr(event, name)
        if isinstance(value, str):
            check_text(name, value, _TEXT_RULES.get((type(event), name), _ANY_TEXT))
        elif isinstance(value, ConventionCard):
            check_card_text(name, value)


@dataclass
class RecordRead:
    """A record file as read: its events, and the torn tail if the last write was cut."""

    events: list[RecordEvent] = field(default_factory=list)
    #: Bytes of the last line that has no newline (0 if the file ends cleanly).
    torn_bytes: int = 0
    #: Where the complete lines end (truncate here before appending again).
    complete_size: int = 0


def read_record(path: Path, *, text_rules: bool = False) -> RecordRead:
    """Every event in ``path``, decoded strictly; with ``text_rules``, its texts checked
    as the wire checks them (:func:`check_event_text`): a server restoring a record
    takes nothing a client could not have sent, where a viewer escapes what it prints.

    Two kinds of damage: a last line without its newline is *torn* (the process died
    mid-write): it is reported in :attr:`RecordRead.torn_bytes`, not fatal. Anything else
    that does not decode (bad JSON, bad UTF-8, a wrong type, a number out of range, an
    unknown event) raises :class:`RecordError` naming the line. OSError if the file cannot
    be read.
    """
    read = RecordRead()
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_LINE_BYTES:
                    raise RecordError(f"line {number} is longer than {MAX_LINE_BYTES} bytes")
                read.torn_bytes = len(raw)  # the last line: the process died writing it
                break
            try:
                event = decode_event(raw)
                if text_rules:
                    check_event_text(event)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise RecordError(f"line {number}: {exc}") from None
            except TextRefused as exc:
                raise RecordError(f"line {number}: {exc.message}") from None
            read.events.append(event)
            read.complete_size += len(raw)
    return read


def last_complete_event(path: Path, window: int = 64 * 1024) -> RecordEvent | None:
    """The last complete line's event, read from the file's end only (None if that line
    does not decode or is not within ``window`` bytes): a cheap "is it finished?" test."""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - window))
        tail = handle.read()
    end = tail.rfind(b"\n")
    if end < 0:
        return None
    start = tail.rfind(b"\n", 0, end) + 1
    if start == 0 and size > window:
        return None  # the line starts before the window
    try:
        return decode_event(tail[start:end + 1])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
