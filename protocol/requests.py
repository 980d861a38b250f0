"""The messages a client sends (protocol v1), one msgspec Struct each, and their union
``ClientMessage``. What the server answers each with is :mod:`.replies`; the server's
messages, and the field types both share, are :mod:`.messages`. Fixed names here are
part of the public protocol: add, never rename."""

from __future__ import annotations

from typing import Annotated

import msgspec

from ..game.cards import Card
from ..game.seats import Seat
from .messages import CardSpec, ChatText, FreeText, InviteCode, MessageId, Name, TableId


class _Client(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, omit_defaults=True,
              kw_only=True):
    id: MessageId | None = None


class Hello(_Client, tag="hello"):
    """Client, first: names the player; ``token`` reclaims a held seat."""

    name: Name = "anonymous"
    protocol: Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)] | None = None
    client: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    token: Annotated[str, msgspec.Meta(max_length=128)] | None = None
    password: Annotated[str, msgspec.Meta(max_length=128)] | None = None


class Help(_Client, tag="help"):
    """Client, any time: asks for the list of client messages with examples."""


class Ping(_Client, tag="ping"):
    """Either side: are you there? Answered with ``pong``."""


class Pong(_Client, tag="pong"):
    """Client: the answer to the server's ``ping``."""


class ListTables(_Client, tag="list_tables"):
    """Client: asks for the lobby; answered with ``tables``, one page of it: the tables
    from ``offset`` on (0, the first, by default), as many as the server sends at once."""

    offset: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 0


class CreateTable(_Client, tag="create_table"):
    """Client: creates a table (without seating its creator); answered with ``table_created``."""

    name: Name | None = None
    target: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 300
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    conventions_ns: CardSpec | None = None
    conventions_ew: CardSpec | None = None
    #: When a disconnected player's hold runs out, a server-side bot plays the seat.
    bot_takeover: bool = True
    #: Per-play time limit of the human seats in seconds, at least 5 (less is refused);
    #: 0 turns the clock off; absent: the server's default (``jackal serve
    #: --turn-seconds``, off unless set).
    turn_seconds: Annotated[float, msgspec.Meta(ge=0, le=86400)] | None = None
    #: Seated players may ask for a ``hint`` on their turn (everyone is told when one
    #: does); absent: the server's default (``jackal serve --hints``, off unless set).
    hints: bool | None = None
    #: Only holders of a seat's invitation code (in ``table_created``) may take it.
    private: bool = False
    #: Whether anyone may ``spectate``; absent: yes for a public table, no for a private one.
    allow_spectators: bool | None = None


class Join(_Client, tag="join"):
    """Client: takes a seat (any free one if ``seat`` is absent); answered with ``joined``.
    At a private table ``invite`` is the seat's invitation code (it also picks the seat)."""

    table: TableId
    seat: Seat | None = None
    invite: InviteCode | None = None


class Spectate(_Client, tag="spectate"):
    """Client: watches a table; answered with its public ``table_state``."""

    table: TableId


class AddBot(_Client, tag="add_bot"):
    """Client: puts a server-side bot in an empty seat; answered with ``ok``."""

    table: TableId
    seat: Seat
    #: Absent: the table's substitute, the strategy that fits the partnership's card.
    strategy: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    #: At a private table, the seat's invitation code (its creator needs none).
    invite: InviteCode | None = None


class Leave(_Client, tag="leave"):
    """Client: gives up the seat (or stops spectating); answered with ``ok``."""


class Ready(_Client, tag="ready"):
    """Client, seated: ready to start; the match starts when every human seat is ready."""


class Rematch(_Client, tag="rematch"):
    """Client, seated, after ``match_ended``: play again at this table with the same seats;
    a new match starts there when every human seat has asked (answered with ``ok``)."""

    #: Another target for the new match (absent: the one last asked for, at first the
    #: last match's); a new one withdraws the others' asks.
    target: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] | None = None


class Play(_Client, tag="play"):
    """Client, on its turn: plays a card; answered with ``played`` (also sent to everyone)."""

    card: Card


class Conventions(_Client, tag="conventions"):
    """Client, seated, before the first deal or between deals: declares the partnership card."""

    card: CardSpec


class Explain(_Client, tag="explain"):
    """Client: asks the meaning of the ``index``-th card (1..8) in ``seat``'s row."""

    seat: Seat
    index: Annotated[int, msgspec.Meta(ge=1, le=8)]


class Ask(_Client, tag="ask"):
    """Client: a free-text question to the player at ``seat`` (an opponent)."""

    seat: Seat
    text: FreeText
    index: Annotated[int, msgspec.Meta(ge=1, le=8)] | None = None


class Sync(_Client, tag="sync"):
    """Client, at a table: asks for a fresh ``table_state`` (and ``your_turn`` on its turn)."""


class Hint(_Client, tag="hint"):
    """Client, seated, on its turn, at a table that allows hints: which card would the
    expert bot play now, and why? Answered with ``hint`` (to the asker alone); everyone
    at the table is told with ``hint_taken``."""


class AnswerQuestion(_Client, tag="answer"):
    """Client: answers question ``question``; only the asking side sees it."""

    question: Annotated[str, msgspec.Meta(max_length=64)]
    text: FreeText


class Chat(_Client, tag="chat"):
    """Client: one chat line. Where it goes follows from where the sender is: at no table,
    the lobby; seated, the table (not during a deal: ``chat_closed``); watching, the
    table's spectators. Answered with the ``chat`` line itself (carrying this ``id``)."""

    text: ChatText


class Pause(_Client, tag="pause"):
    """Client, seated during a match: asks for a pause, or agrees to the one asked for.
    Carries nothing but itself: a pause is no channel between partners."""


class Resume(_Client, tag="resume"):
    """Client, seated: ends the pause (or withdraws the request for one)."""


ClientMessage = (
    Hello | Help | Ping | Pong | ListTables | CreateTable | Join | Spectate | AddBot | Leave
    | Ready | Play | Conventions | Explain | Ask | AnswerQuestion | Sync | Hint | Chat | Pause
    | Resume | Rematch
)
