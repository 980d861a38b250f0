"""The messages the server sends (protocol v1), one msgspec Struct each, their union
``ServerMessage``, and the field types both directions share; a client's messages are
:mod:`.requests`. Cards, seats and teams are typed here and travel as text (the codec's
hooks): a bad one fails to decode, naming the field. Fixed names are public: add, never
rename. The wire format is docs/PROTOCOL.md's."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.errors import ErrorCode
from ..game.explain import Meaning
from ..game.seats import Seat, Team

PROTOCOL_VERSION = 1
#: The optional features this server has, announced in ``welcome.features`` (see
#: docs/PROTOCOL.md, "Versions and features"): each names an addition to protocol 1.
FEATURES = ("your_turn", "sync", "seat_kinds", "question_text", "table_first",
            "victory_points", "hints", "private_tables", "chat", "pause", "snapshot",
            "rematch", "deal_summary")

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
#: Correlation id: echoed in the direct reply. Integers are bounded to 64 bits so every
#: client language can hold them.
MessageId = Annotated[str, msgspec.Meta(max_length=64)] | Annotated[
    int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
FreeText = Annotated[str, msgspec.Meta(max_length=1000)]
#: A chat line: at most 500 columns wide (protocol/text.py, ``CHAT``); a character may
#: take no column (a combining mark), hence the longer length cap.
ChatText = Annotated[str, msgspec.Meta(min_length=1, max_length=1000)]
#: A private table's invitation code for one seat, as given in ``table_created``.
InviteCode = Annotated[str, msgspec.Meta(max_length=128)]
#: A convention card given by built-in name ("beginner") or inline.
CardSpec = Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | ConventionCard
#: Where a table's match stands (``waiting``: for its players, before a match's 1st deal).
TableStatus = Literal["waiting", "playing", "between_deals", "over"]
#: Who sits in a seat: nobody, a person, or a bot of the table's.
SeatKind = Literal["empty", "human", "bot"]


class _Server(msgspec.Struct, tag_field="type", omit_defaults=True, kw_only=True):
    pass


class _Reply(_Server, kw_only=True):
    """A server message that answers a request and echoes its ``id``."""

    id: MessageId | None = None


# --------------------------------------------------------------------------- server


class Welcome(_Server, tag="welcome"):
    """Server, on connect; ``features`` lists the optional additions it has (FEATURES)."""

    protocol: int
    server: str
    version: str
    hint: str
    #: Empty from a server older than the list (it then has none of the features).
    features: list[str] = msgspec.field(default_factory=list)


class HelpEntry(msgspec.Struct):
    type: str
    summary: str
    example: str
    #: The ``type`` of its reply on success (:mod:`.replies`; none for ``pong``).
    replies: list[str] = []


class HelpReply(_Reply, tag="help"):
    """Server: every client message with a one-line example."""

    messages: list[HelpEntry]


class ServerPing(_Server, tag="ping"):
    """Server: keepalive probe to a silent connection; answer with ``pong``."""


class ServerPong(_Reply, tag="pong"):
    """Server: the answer to a client's ``ping``."""


class Error(_Reply, tag="error"):
    """Server: a request failed (nothing changed), or the connection is being closed."""

    #: A code this client version does not know still decodes (``code.known`` is False).
    code: ErrorCode
    message: str
    #: With ``rate_limited``: seconds to wait before sending more.
    retry_after: float | None = None


class Ok(_Reply, tag="ok"):
    """Server: a request with nothing else to say succeeded; ``request`` names it."""

    request: str


class HelloOk(_Reply, tag="hello_ok"):
    """Server: the answer to ``hello``; ``table``/``seat`` are set when a token reclaimed a seat."""

    name: str
    table: str | None = None
    seat: Seat | None = None


class TableInfo(msgspec.Struct):
    table: str
    name: str
    target: int
    seats: dict[Seat, str | None]
    #: "empty", "human" (connected), "held" (its player is gone; maybe a bot stands in),
    #: "bot".
    kinds: dict[Seat, Literal["empty", "human", "held", "bot"]]
    status: TableStatus
    spectators: int = 0
    #: The creator chose the match seed, so the creator can know every hand.
    seeded: bool = False
    #: Seated players may ask for hints (``hint``); everyone is told when one does.
    hints: bool = False
    #: Seats are taken only with their invitation codes.
    private: bool = False
    #: The name of the connection that created the table (None: unknown, e.g. an old record).
    creator: str | None = None
    #: Whether ``spectate`` is allowed.
    allow_spectators: bool = True
    #: The table's per-play clock in seconds (absent: none), so a player sees it before
    #: sitting down.
    turn_seconds: float | None = None


class Tables(_Reply, tag="tables"):
    """Server: one page of the lobby. ``total`` tables in all; ``next`` is the ``offset``
    that asks for the following page (absent on the last one)."""

    tables: list[TableInfo]
    #: Tables in all (always sent by our server; None from one older than pages).
    total: int | None = None
    next: int | None = None


class TableCreated(_Reply, tag="table_created"):
    """Server: the new table's id. For a private table, ``invitations`` holds each seat's
    code: the only copy there is (the server keeps their hashes), to pass on."""

    table: str
    name: str
    private: bool = False
    invitations: dict[Seat, str] | None = None


class Joined(_Reply, tag="joined"):
    """Server: you sit at ``seat``; keep ``token`` secret, it reclaims the seat."""

    table: str
    seat: Seat
    token: str


class SeatInfo(msgspec.Struct, omit_defaults=True):
    seat: Seat
    name: str | None
    kind: SeatKind
    connected: bool
    ready: bool
    #: A human seat that a bot plays for now (its player is away): the bot's strategy.
    substitute: str | None = None


class ChatLine(msgspec.Struct, omit_defaults=True):
    """One chat line as the table keeps it (the ``chat`` event without ``type`` and ``id``)."""

    #: ``lobby``, ``table`` (from a seat) or ``spectators`` (from a spectator, read only
    #: by spectators).
    channel: Literal["lobby", "table", "spectators"]
    #: The sender's name, or its seat's (a bot's may take up to 80 characters).
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
    text: ChatText
    #: The sender's seat, for a line from a seat.
    seat: Seat | None = None


class PauseInfo(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Where a table's pause stands: asked for by ``asked_by`` and agreed to by the seats
    in ``agreed`` (the asker included); ``paused`` once every person seated agreed."""

    paused: bool
    asked_by: Seat | None = None
    agreed: list[Seat] = msgspec.field(default_factory=list)


class DealSummary(msgspec.Struct, omit_defaults=True):
    """One scored deal of the match, as ``table_state.history`` lists them."""

    deal: int
    dealer: Seat
    penalty: dict[Team, int]
    winner: Team | None
    #: What the winner scored (0 on a tie).
    victory_points: int
    #: The match scores after this deal.
    scores: dict[Team, int]
    #: (``deal_summary``) Each partnership's penalty minus its best keep with both hands
    #: known: what missing information cost it this deal.
    information_cost: dict[Team, int] | None = None
    #: (``deal_summary``) The same for the expert pair on the same hands, once the server
    #: has worked it out (``expert_cost``); absent before, and at tables of bots alone.
    expert_cost: dict[Team, int] | None = None
    #: (``deal_summary``) Why the expert pair's figure will not come (``server_busy``).
    expert_unavailable: str | None = None


class OpenQuestion(msgspec.Struct, omit_defaults=True):
    """A question not answered yet, as ``table_state.questions`` lists them for one seat:
    those asked of it (with ``text``, to answer) and those its side asked (``text`` only
    in the asker's copy: partners talk only through their cards)."""

    question: str
    #: The seat asked.
    seat: Seat
    asker: Seat
    index: int | None = None
    text: str | None = None


class TableState(_Reply, tag="table_state"):
    """Server: a full snapshot of the table for its recipient."""

    table: str
    name: str
    target: int
    status: TableStatus
    seats: list[SeatInfo]
    conventions: dict[Team, ConventionCard]
    scores: dict[Team, int]
    deal: int
    dealer: Seat | None
    #: Who leads the current or last deal (None before the first).
    first: Seat | None
    turn: Seat | None
    rows: dict[Seat, list[Card]]
    you: Seat | None = None
    hand: list[Card] | None = None
    #: The cards the current (between deals: the last) deal was played under, when a
    #: partnership has declared another since; its cards are explained under these.
    deal_conventions: dict[Team, ConventionCard] | None = None
    #: The table's per-play clock in seconds (absent: none), and the seconds left on the
    #: current turn's clock when this snapshot was made.
    turn_seconds: float | None = None
    turn_left: float | None = None
    #: The creator chose the match seed, so the creator can know every hand. Our server
    #: always sends true or false; None only from a server older than this field.
    seeded: bool | None = None
    #: Seated players may ask for hints on their turn (``hint``). Sent by every server
    #: that has the ``hints`` feature; None (no hints) from an older one.
    hints: bool | None = None
    #: The table's last chat lines this recipient may read, oldest first (absent: none).
    chat: list[ChatLine] = msgspec.field(default_factory=list)
    #: A pause asked for or in force (absent: none).
    pause: PauseInfo | None = None
    #: The match so far: every deal scored, oldest first (feature ``snapshot``).
    history: list[DealSummary] | None = None
    #: Between deals and at the end: the last deal's ``deal_ended``, as it was sent.
    last_deal: DealEnded | None = None
    #: Between deals: seconds until the next deal starts (sooner if every human seat
    #: says ``ready``; who has is in ``seats``).
    next_deal_in: float | None = None
    #: Open questions this recipient may know of (see ``OpenQuestion``); spectators none.
    questions: list[OpenQuestion] | None = None
    #: During a deal: this deal's answered questions the recipient asked or was asked
    #: (never its partner's), so a client restarted mid-deal shows them again.
    answered: list[AnsweredInfo] | None = None
    #: During a deal: questions the recipient may still ask in it (seated only).
    questions_left: int | None = None
    #: The cards of the rows (this deal's, between deals the last one's) that a bot
    #: played for a human's seat (absent: none).
    bot_cards: list[BotCard] | None = None
    #: The clock of the seat to play is stopped: it waits for an answer to its own
    #: question (``turn_left`` is what it will have when the clock runs again).
    clock_stopped: bool | None = None


class DealStarted(_Server, tag="deal_started"):
    deal: int
    dealer: Seat
    first: Seat
    #: Only in the copy sent to that seat.
    hand: list[Card] | None = None


class Turn(_Server, tag="turn"):
    """Server: ``seat`` plays next. ``seconds``: the table has a clock and this human seat
    must play within that many seconds of this message, or the substitute plays one card
    for it (absent: no clock runs)."""

    seat: Seat
    seconds: float | None = None


class Clock(_Server, tag="clock"):
    """Server, to everyone at the table: the clock of ``seat``'s turn stopped
    (``stopped``: it waits for an answer to the question it asked on its turn; ``seconds``
    is what it will have when it runs again) or runs again (``seconds`` left from this
    message)."""

    seat: Seat
    seconds: float
    stopped: bool


class RowInfo(msgspec.Struct):
    """One seat's played cards, in order."""

    seat: Seat
    cards: list[Card]


class YourTurn(_Server, tag="your_turn"):
    """To the seat to move only: everything it may know, so a bot can be a pure function
    of this one message (docs/PROTOCOL.md, ``your_turn``)."""

    seat: Seat
    deal: int
    #: Which of the seat's eight plays it is about to make (1..8).
    play: int
    dealer: Seat
    first: Seat
    #: The seat's cards now, in card order (as ``deal_started`` sorts them).
    hand: list[Card]
    #: The four rows in play order, ``first``'s first.
    rows: list[RowInfo]
    #: Both partnerships' declared convention cards, by name.
    conventions: dict[Team, str]
    scores: dict[Team, int]
    target: int
    #: Seconds left for this play, only when the table has a clock.
    deadline: float | None = None


#: Who played a human's seat for them: the ``substitute`` (the player is away) or the
#: substitute's one card when the player's ``clock`` ran out.
BotPlayedBy = Literal["substitute", "clock"]


class Played(_Reply, tag="played"):
    """Server: a card was played. ``by`` is set when a bot played a human's seat."""

    seat: Seat
    card: Card
    index: int
    by: BotPlayedBy | None = None


class BotCard(msgspec.Struct):
    """In ``table_state``: a card of the rows that a bot played for a human's seat, so a
    client that starts again marks it as one that never left would."""

    seat: Seat
    index: int
    by: BotPlayedBy


class GroupInfo(msgspec.Struct):
    rank: str
    cards: list[Card]
    count: int
    #: The old name of ``penalty``, kept for clients of protocol 1's first version.
    points: int
    #: What this rank costs the team.
    penalty: int


class BestKeepInfo(msgspec.Struct):
    """A partnership's best keep with both hands known: the five cards each partner keeps
    and the team penalty they score."""

    hands: dict[Seat, list[Card]]
    penalty: int


class AnsweredInfo(msgspec.Struct, omit_defaults=True):
    """One question of a finished deal, told to everyone at the table in ``deal_ended``:
    during the deal only the asker and the asked seat knew of it."""

    question: str
    asker: Seat
    seat: Seat
    text: str
    index: int | None = None
    #: The answer (None: none came before the deal ended).
    answer: str | None = None


class DealEnded(_Server, tag="deal_ended"):
    deal: int
    hands: dict[Seat, list[Card]]
    penalty: dict[Team, int]
    winner: Team | None
    #: The old name of ``victory_points``, kept for clients of protocol 1's first version.
    points: int
    #: What the winner scores this deal (0 on a tie).
    victory_points: int
    scores: dict[Team, int]
    breakdown: dict[Team, list[GroupInfo]]
    #: Seconds until the next deal starts (sooner if every human seat says ``ready``);
    #: absent when the match is over or the next deal starts at once.
    next_deal_in: float | None = None
    #: (``deal_summary``) The 13 cards each seat was dealt: public once the deal is over,
    #: never sent before.
    dealt: dict[Seat, list[Card]] | None = None
    #: (``deal_summary``) Each partnership's best keep with both hands known.
    best: dict[Team, BestKeepInfo] | None = None
    #: (``deal_summary``) Each partnership's penalty minus its best.
    information_cost: dict[Team, int] | None = None
    #: Every question asked during the deal, with its answer (absent: none was asked).
    questions: list[AnsweredInfo] | None = None


class ExpertCost(_Server, tag="expert_cost"):
    """Server, to everyone at the table, a while after ``deal_ended`` (``deal_summary``):
    each partnership's information cost when the expert pair plays the same dealt hands
    under the same convention cards (expert bots at all four seats); or, with
    ``unavailable`` (why, e.g. ``server_busy``) and no figure, that it will not come."""

    deal: int
    information_cost: dict[Team, int] | None = None
    unavailable: str | None = None


class MatchEnded(_Server, tag="match_ended"):
    winner: Team
    scores: dict[Team, int]


class PlayerJoined(_Server, tag="player_joined"):
    seat: Seat
    name: str
    kind: Literal["human", "bot"]


class PlayerLeft(_Server, tag="player_left"):
    seat: Seat


class PlayerReady(_Server, tag="player_ready"):
    seat: Seat


class RematchWanted(_Server, tag="rematch_wanted"):
    """A seat asked to play again at this table (``rematch``), to ``target`` points."""

    seat: Seat
    target: int | None = None


class RematchStarted(_Server, tag="rematch_started"):
    """Every human seat asked: a new match starts at this table with the same seats (its
    scores are 0; ``deal_started`` of its deal 1 follows)."""


class PlayerGone(_Server, tag="player_gone"):
    """A seated player's connection dropped; the seat is held for ``seconds``."""

    seat: Seat
    seconds: float


class PlayerBack(_Server, tag="player_back"):
    seat: Seat


class BotTakeover(_Server, tag="bot_takeover"):
    """The hold ran out: a server-side bot plays ``seat`` until its player returns."""

    seat: Seat
    strategy: str


class ConventionsChanged(_Server, tag="conventions_changed"):
    team: Team
    card: ConventionCard


class Explanation(_Reply, tag="explanation"):
    seat: Seat
    index: int
    card: Card
    text: str
    meaning: Meaning


class Question(_Reply, tag="question"):
    """To the asked player only (and, with the asker's ``id``, back to the asker as receipt)."""

    question: str
    seat: Seat
    text: str
    asker: Seat | None = None
    index: int | None = None


class QuestionAsked(_Server, tag="question_asked"):
    """No longer sent (kept so that older peers still decode): the asker's partner now
    learns of its partner's questions only in ``deal_ended``, since when a question is
    asked is a time the asker chooses."""

    question: str
    seat: Seat
    asker: Seat
    index: int | None = None


class AnswerMessage(_Reply, tag="answer"):
    """To the asker only (everyone sees it in ``deal_ended``)."""

    question: str
    seat: Seat
    text: str
    #: The question as it was asked: in the asker's copy only (its partner's copy leaves
    #: it out, so the question's text is no channel between partners).
    question_text: str | None = None


class HintReply(_Reply, tag="hint"):
    """Server, to the asker alone: the card the ``strategy`` bot would play for ``seat``
    as its ``play``-th card of deal ``deal``, and why (``text``, in words; ``meaning``: the
    card's explanation as data, as in ``explanation``). ``honest`` is false only when the
    card's signal would be false of the asker's hand."""

    seat: Seat
    deal: int
    play: int
    card: Card
    strategy: str
    text: str
    meaning: Meaning
    honest: bool


class HintTaken(_Server, tag="hint_taken"):
    """Server, to everyone at the table: ``seat`` asked for a hint for its ``play``-th card
    of deal ``deal`` (once per turn; the hint itself went to that seat alone)."""

    seat: Seat
    deal: int
    play: int


# chat and pause_state extend table_state's shapes (a Struct has one base with fields), so
# they set the tag and ``id`` themselves; keyword-only, ``id`` is written last, as always.
class ChatMessage(ChatLine, tag_field="type", tag="chat", kw_only=True):
    """Server: a chat line, to everyone who may read its channel (the sender's copy is the
    reply and carries its ``id``)."""

    id: MessageId | None = None


class _PauseReply(PauseInfo, kw_only=True):
    # The pause's fields are keyword-only too, so pause_state's positional ``seat`` leads.
    id: MessageId | None = None


class PauseState(_PauseReply, tag_field="type", tag="pause_state"):
    """Server, to everyone at the table: ``seat`` asked for, agreed to or ended a pause;
    the rest is where the pause stands now (as ``table_state.pause``). The reply to
    ``pause`` and ``resume``."""

    seat: Seat


class ServerShutdown(_Server, tag="server_shutdown", omit_defaults=False):
    # Sent with ``reason`` even when it is the default: the docs promise the field.
    reason: str = "the server is shutting down"


ServerMessage = (
    Welcome | HelpReply | ServerPing | ServerPong | Error | Ok | HelloOk | Tables | TableCreated
    | Joined | TableState | DealStarted | Turn | Played | DealEnded | MatchEnded | PlayerJoined
    | PlayerLeft | PlayerReady | PlayerGone | PlayerBack | BotTakeover | ConventionsChanged
    | Explanation | Question | QuestionAsked | AnswerMessage | ServerShutdown | YourTurn | HintReply
    | HintTaken | ChatMessage | PauseState | Clock | RematchWanted | RematchStarted | ExpertCost
)
