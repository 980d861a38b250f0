"""The client's copy of a Jackal table: :class:`TableMirror`, a plain object with no I/O,
shared by ``jackal bot`` and the terminal UI (a seat session keeps one as
``session.mirror``). ``mirror.apply(msg)`` takes any server message and returns a
:class:`Change`; what the cards say is one value, ``mirror.knowledge``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from ..bots.base import View
from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.errors import IllegalAction
from ..game.knowledge import PlayApplied, SeatKnowledge, TableKnowledge, history_from_rows
from ..game.seats import SEATS, Seat, Team
from ..protocol.messages import (
    AnswerMessage,
    BotTakeover,
    ChatLine,
    ChatMessage,
    Clock,
    ConventionsChanged,
    DealEnded,
    DealStarted,
    DealSummary,
    Error,
    ExpertCost,
    Explanation,
    HelloOk,
    HelpReply,
    HintReply,
    HintTaken,
    Joined,
    MatchEnded,
    Ok,
    OpenQuestion,
    PauseInfo,
    PauseState,
    Played,
    PlayerBack,
    PlayerGone,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    Question,
    QuestionAsked,
    RematchStarted,
    RematchWanted,
    ServerMessage,
    ServerPing,
    ServerPong,
    ServerShutdown,
    TableCreated,
    Tables,
    TableState,
    TableStatus,
    Turn,
    Welcome,
    YourTurn,
)
from .chat_log import ChatLog, line_of
from .handlers import Handlers

__all__ = ["MIRROR_HANDLERS", "Change", "SeatView", "TableMirror"]


@dataclass
class SeatView:
    """What the client knows about one seat."""

    name: str | None = None
    kind: str = "empty"
    connected: bool = False
    ready: bool = False
    #: Seconds the server said it would hold the seat, when its player is gone.
    hold_seconds: float | None = None
    #: The strategy of a server-side bot standing in for a gone player.
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """What one message changed in the mirror; false when it changed nothing.

    ``play`` is set when the message added a card to a row (see
    :class:`~jackal.game.knowledge.PlayApplied`), so a screen can show just that card;
    ``chat``, the chat lines it added (a snapshot's: those the client had not seen).
    """

    changed: bool
    play: PlayApplied | None = None
    chat: tuple[ChatLine, ...] = ()

    def __bool__(self) -> bool:
        return self.changed


_UNCHANGED = Change(False)
_CHANGED = Change(True)


def _no_deal_yet() -> TableKnowledge:
    return TableKnowledge(dealer=Seat.N, deal_number=0, scores={Team.NS: 0, Team.EW: 0})


@dataclass
class TableMirror:
    """The client-side copy of one table, fed with server messages by :meth:`apply`.

    The cards (hand, rows, turn, dealer, scores, convention cards) live in
    :attr:`knowledge`, a :class:`~jackal.game.knowledge.SeatKnowledge` when seated and a
    :class:`~jackal.game.knowledge.TableKnowledge` when watching; the properties below
    read it under the names the screens use. Deal number 0 means no deal has started.

    Shared by ``jackal bot`` and the terminal UI (a :class:`~jackal.client.session.SeatSession`
    keeps one current as ``session.mirror``). ``mirror.apply(msg)`` takes any server message
    and returns a :class:`Change` (false when nothing changed; ``change.play`` names the card a
    ``played`` added). It is reset by every ``table_state`` (sent on join, spectate and
    reclaim) and kept current by the events after it.

    What the cards say lives in one value, ``mirror.knowledge``: a
    :class:`~jackal.game.knowledge.SeatKnowledge` for a seated client (the same type a strategy
    gets as its view, and the server's per-seat views build) or a
    :class:`~jackal.game.knowledge.TableKnowledge` for a spectator. Plays go through its
    ``apply_play``, so the rules are asked of it, never re-derived here. Fields:

    - ``table``, ``name``: the table id and its display name;
    - ``status``: "waiting" | "playing" | "between_deals" | "over";
    - ``seats``: ``dict[Seat, SeatView]`` (``name``, ``kind`` "empty"/"human"/"bot",
      ``connected``, ``ready``, ``hold_seconds`` left when gone, ``bot`` strategy while a
      server-side bot stands in);
    - ``you``: your ``Seat`` or None (spectating);
    - ``knowledge``: the picture above; ``last_deal``: the latest ``DealEnded`` message
      (kept hands, penalties, breakdown, and from newer servers the dealt hands and best
      keeps); ``deals``: the match so far, a ``DealSummary`` per deal scored (the wire's
      summary: who dealt and won, penalties, scores after it; with its information cost,
      and the expert pair's once ``expert_cost`` told it); ``winner``: the ``Team`` that won,
      once over; ``questions``: the open questions the last snapshot listed for us (an
      ``OpenQuestion`` each);
      ``next_deal_in``: between deals, the seconds until the next deal as of the last
      ``table_state`` or ``deal_ended`` that said (the mirror keeps no clock).
    - ``chat``: the table's last chat lines this client may read (a :class:`ChatLog`;
      ``change.chat`` names the lines a message added); ``pause``: a pause asked for or in
      force (``PauseInfo``: ``paused``, ``asked_by``, ``agreed``), or None; ``played_by``:
      the cards of this deal seen played by the clock or the substitute.

    Read from the knowledge under the names screens use: ``target``, ``deal`` (0 before the
    first), ``dealer``, ``first``, ``turn`` (only while playing), ``hand`` (``list[Card]``,
    empty for spectators), ``rows`` (``dict[Seat, list[Card]]``), ``conventions``, ``scores``,
    ``plays_made``, ``play_order``, ``play_number`` (your next play, 1..8), ``newest`` (where
    the latest card lies), ``my_turn``, ``history()``, ``places()`` and ``view()`` (your
    :class:`jackal.bots.View`, what a strategy gets).
    """

    table: str | None = None
    name: str = ""
    status: TableStatus = "waiting"
    seats: dict[Seat, SeatView] = field(default_factory=lambda: {s: SeatView() for s in SEATS})
    you: Seat | None = None
    knowledge: TableKnowledge = field(default_factory=_no_deal_yet)
    #: The cards the rows on the table were played under (the declared cards as the deal
    #: started): a card declared between deals applies to the next deal only.
    played_under: dict[Team, ConventionCard] = field(default_factory=dict)
    last_deal: DealEnded | None = None
    #: Every deal of the match scored so far, oldest first, as the snapshot lists them
    #: (from a server without its ``history``, a ``table_state`` of the same table keeps
    #: those up to its deal).
    deals: list[DealSummary] = field(default_factory=list)
    #: The open questions the last ``table_state`` listed for us.
    questions: list[OpenQuestion] = field(default_factory=list)
    #: Between deals: seconds until the next deal, as last told (None: not said).
    next_deal_in: float | None = None
    winner: Team | None = None
    #: The table's creator chose its seed (and so may know every hand).
    seeded: bool = False
    #: Seated players may ask for hints here (everyone is told when one does).
    hints: bool = False
    #: The table's last chat lines we may read.
    chat: ChatLog = field(default_factory=ChatLog)
    #: A pause asked for or in force (None: none).
    pause: PauseInfo | None = None
    #: The cards of this deal a bot played for a person, ``(seat, index)`` to ``played``'s
    #: ``by`` ("clock" or "substitute"): everyone is told, so nobody reads them as signals.
    played_by: dict[tuple[Seat, int], str] = field(default_factory=dict)

    @property
    def paused(self) -> bool:
        """Everyone agreed: clocks stand still and nobody plays."""
        return self.pause is not None and self.pause.paused

    # ------------------------------------------------------------------ reading

    @property
    def seat_knowledge(self) -> SeatKnowledge | None:
        """Our seat's picture, or None when watching."""
        known = self.knowledge
        return known if isinstance(known, SeatKnowledge) else None

    @property
    def target(self) -> int:
        return self.knowledge.target

    @property
    def deal(self) -> int:
        return self.knowledge.deal_number

    @property
    def dealer(self) -> Seat | None:
        return self.knowledge.dealer if self.knowledge.deal_number else None

    @property
    def first(self) -> Seat | None:
        """The seat that leads this deal (clockwise after the dealer)."""
        return self.knowledge.first if self.knowledge.deal_number else None

    @property
    def turn(self) -> Seat | None:
        """The seat to move while a deal is being played."""
        if self.status != "playing" or not self.knowledge.deal_number:
            return None
        return self.knowledge.turn

    @property
    def hand(self) -> list[Card]:
        """Your cards: in the order dealt minus what you played; after a deal, the five
        you kept. Empty for a spectator."""
        known = self.seat_knowledge
        return [] if known is None else list(known.hand)

    @property
    def rows(self) -> dict[Seat, list[Card]]:
        rows = self.knowledge.rows
        return {seat: list(rows[seat]) for seat in SEATS}

    @property
    def conventions(self) -> Mapping[Team, ConventionCard]:
        return self.knowledge.conventions

    @property
    def scores(self) -> Mapping[Team, int]:
        return self.knowledge.scores

    @property
    def plays_made(self) -> int:
        return self.knowledge.plays_made

    @property
    def my_turn(self) -> bool:
        return self.you is not None and self.turn is self.you

    @property
    def play_order(self) -> tuple[Seat, Seat, Seat, Seat]:
        """The four seats in the order they play this deal (N E S W before any deal)."""
        first = self.first
        return (first or Seat.N).clockwise_from()

    @property
    def play_number(self) -> int | None:
        """Which of our eight plays is next (1..8); None when watching."""
        known = self.seat_knowledge
        return None if known is None else known.play_number

    @property
    def newest(self) -> tuple[Seat, int] | None:
        """(seat, index in its row) of the latest card of the deal being played."""
        return self.knowledge.newest if self.status == "playing" else None

    def history(self) -> tuple[tuple[Seat, Card], ...]:
        """Every play of this deal in order."""
        return self.knowledge.history

    def places(self) -> list[tuple[Seat, int]]:
        """(seat, index in its row) of every play of this deal, in the order played."""
        return self.knowledge.places()

    def view(self) -> View:
        """What a strategy sees from your seat now."""
        known = self.seat_knowledge
        if known is None or not known.deal_number:
            raise ValueError("no seat or no deal in progress")
        return known

    # ------------------------------------------------------------------ updates

    def apply(self, msg: ServerMessage) -> Change:
        """Fold one server message into the mirror and say what changed."""
        handler = MIRROR_HANDLERS.get(msg)
        return _UNCHANGED if handler is None else handler(self, msg)

    def _on_table_state(self, msg: TableState) -> Change:
        if msg.table != self.table:
            self.chat.clear()
        self._reset(msg)
        return Change(True, chat=self.chat.reset(msg.chat))

    def _on_chat(self, msg: ChatMessage) -> Change:
        if msg.channel == "lobby":  # not the table's: the lobby's lines are the screen's
            return _UNCHANGED
        return Change(True, chat=self.chat.add(line_of(msg)))

    def _on_pause(self, msg: PauseState) -> Change:
        self.pause = None if msg.asked_by is None else PauseInfo(
            paused=msg.paused, asked_by=msg.asked_by, agreed=list(msg.agreed))
        return _CHANGED

    def _on_deal_started(self, msg: DealStarted) -> Change:
        known = self.knowledge
        public = TableKnowledge(dealer=msg.dealer, deal_number=msg.deal,
                                conventions=known.conventions, scores=known.scores,
                                target=known.target)
        self.knowledge = self._for_you(public, msg.hand)
        self.played_under = dict(known.conventions)
        self.status = "playing"
        self.last_deal = None
        self.next_deal_in = None
        self.questions = []
        self.played_by = {}
        return _CHANGED

    def _on_played(self, msg: Played) -> Change:
        change = self._played(msg.seat, msg.card, msg.index)
        if change and msg.by is not None:
            self.played_by[msg.seat, msg.index] = msg.by
        return change

    def _on_deal_ended(self, msg: DealEnded) -> Change:
        self._record(msg)
        self.knowledge = replace(self.knowledge, scores=_teams(msg.scores))
        kept = msg.hands.get(self.you) if self.you is not None else None
        if kept is not None and isinstance(self.knowledge, SeatKnowledge):
            # The deal is over: every kept hand is public now, ours included.
            self.knowledge = replace(self.knowledge, hand=tuple(kept))
        self.last_deal = msg
        self.next_deal_in = msg.next_deal_in
        self.status = "between_deals"
        # Every human says ``ready`` again for the next deal; bots always are.
        for info in self.seats.values():
            if info.kind == "human":
                info.ready = False
        return _CHANGED

    def _on_expert_cost(self, msg: ExpertCost) -> Change:
        # The expert pair's figure, worked out after the deal: beside its entry (or why
        # it will not come: the server was too busy).
        cost, why = msg.information_cost, msg.unavailable
        self.deals = [(msgspec.structs.replace(done, expert_cost=_teams(cost))
                       if cost is not None else msgspec.structs.replace(
                           done, expert_unavailable=why or "unavailable"))
                      if done.deal == msg.deal else done for done in self.deals]
        return _CHANGED

    def _on_match_ended(self, msg: MatchEnded) -> Change:
        self.knowledge = replace(self.knowledge, scores=_teams(msg.scores))
        self.winner = msg.winner
        self.status = "over"
        self.pause = None
        return _CHANGED

    def _on_player_joined(self, msg: PlayerJoined) -> Change:
        self.seats[msg.seat] = SeatView(name=msg.name, kind=msg.kind, connected=True,
                                        ready=msg.kind == "bot")
        return _CHANGED

    def _on_player_left(self, msg: PlayerLeft) -> Change:
        self.seats[msg.seat] = SeatView()
        return _CHANGED

    def _on_ready(self, msg: PlayerReady | RematchWanted) -> Change:
        # After the end a human seat's ready flag says it asked for a rematch.
        self.seats[msg.seat].ready = True
        return _CHANGED

    def _on_rematch_started(self, _msg: RematchStarted) -> Change:
        # A new match at this table: same seats and cards, nothing scored yet.
        known = self.knowledge
        self.knowledge = self._for_you(
            TableKnowledge(dealer=Seat.N, deal_number=0, conventions=known.conventions,
                           scores={Team.NS: 0, Team.EW: 0}, target=known.target),
            None)
        self.deals, self.questions, self.last_deal = [], [], None
        self.winner, self.next_deal_in, self.status = None, None, "waiting"
        return _CHANGED

    def _on_player_gone(self, msg: PlayerGone) -> Change:
        info = self.seats[msg.seat]
        info.connected = False
        info.hold_seconds = msg.seconds
        return _CHANGED

    def _on_player_back(self, msg: PlayerBack) -> Change:
        info = self.seats[msg.seat]
        info.connected = True
        info.hold_seconds = None
        info.bot = None
        return _CHANGED

    def _on_bot_takeover(self, msg: BotTakeover) -> Change:
        self.seats[msg.seat].bot = msg.strategy
        return _CHANGED

    def _on_conventions(self, msg: ConventionsChanged) -> Change:
        known = self.knowledge
        self.knowledge = replace(known, conventions={**known.conventions, msg.team: msg.card})
        return _CHANGED

    def _for_you(self, public: TableKnowledge, hand: list[Card] | None) -> TableKnowledge:
        """``public`` as our seat knows it (with ``hand``), or as is when watching."""
        if self.you is None:
            return public
        return public.with_hand(self.you, tuple(hand or ()))

    def _played(self, seat: Seat, card: Card, index: int) -> Change:
        # The same play can reach us twice (our own reply, then a snapshot): index says
        # where it belongs, so apply it only when it is the next card of that row.
        if index != len(self.knowledge.row(seat)) + 1:
            return _UNCHANGED
        try:
            self.knowledge, play = self.knowledge.apply_play(seat, card)
        except IllegalAction:  # not what this picture expects: the next snapshot mends it
            return _UNCHANGED
        return Change(True, play)

    def _record(self, ended: DealEnded) -> None:
        """Add ``ended`` to the match so far (once: a deal is scored once)."""
        result = DealSummary(deal=ended.deal, dealer=self.knowledge.dealer,
                            penalty=_teams(ended.penalty), winner=ended.winner,
                            victory_points=ended.victory_points,
                            scores=_teams(ended.scores),
                            information_cost=None if ended.information_cost is None
                            else _teams(ended.information_cost))
        self.deals = [done for done in self.deals if done.deal != ended.deal] + [result]

    def _reset(self, state: TableState) -> None:
        if state.history is not None:
            self.deals = list(state.history)
            self.last_deal = state.last_deal
        else:
            # An older server: the match so far is ours to keep while it is the same match
            # (a table plays one).
            self.deals = [done for done in self.deals if done.deal <= state.deal] \
                if state.table == self.table else []
        self.questions = list(state.questions or ())
        self.next_deal_in = state.next_deal_in
        if state.bot_cards is not None or state.table != self.table \
                or state.deal != self.deal:
            # An older server's snapshot does not say who played a card: then what we saw
            # of this deal stays.
            self.played_by = {(card.seat, card.index): card.by
                              for card in state.bot_cards or ()}
        self.table = state.table
        self.name = state.name
        self.status = state.status
        self.seeded = bool(state.seeded)
        self.hints = bool(state.hints)
        self.pause = state.pause
        self.seats = {
            info.seat: SeatView(name=info.name, kind=info.kind, connected=info.connected,
                                ready=info.ready, bot=info.substitute)
            for info in state.seats
        }
        for seat in SEATS:
            self.seats.setdefault(seat, SeatView())
        self.you = state.you
        dealer = Seat.N if state.dealer is None else state.dealer
        rows = {seat: tuple(state.rows.get(seat, ())) for seat in SEATS}
        public = TableKnowledge(
            dealer=dealer, history=history_from_rows(dealer, rows), deal_number=state.deal,
            conventions=dict(state.conventions),
            scores=_teams(state.scores), target=state.target)
        hand = state.hand
        if not hand and state.status == "between_deals" and self.last_deal is not None \
                and self.you is not None:
            # The snapshot holds no hand between deals: ours is the five we kept, as the
            # deal_ended it answers for left it.
            hand = self.last_deal.hands.get(self.you)
        self.knowledge = self._for_you(public, hand)
        self.played_under = dict(state.conventions if state.deal_conventions is None
                                 else state.deal_conventions)
        if state.status != "over":
            self.winner = None


def _teams(scores: Mapping[Team, int]) -> dict[Team, int]:
    return {Team.NS: 0, Team.EW: 0, **scores}


#: What each server message does to the mirror (a test checks every type is here). The
#: ignored ones hold nothing the mirror keeps: the connection's own (welcome, ping, pong),
#: replies about no table's picture, what the screen alone shows (turn and clock times,
#: explanations, questions and answers, hints), and ``your_turn``, whose every fact the
#: mirror already has from ``deal_started`` and ``played``.
MIRROR_HANDLERS: Handlers[Callable[[TableMirror, Any], Change]] = Handlers({
    TableState: TableMirror._on_table_state,
    ChatMessage: TableMirror._on_chat,
    PauseState: TableMirror._on_pause,
    DealStarted: TableMirror._on_deal_started,
    Played: TableMirror._on_played,
    DealEnded: TableMirror._on_deal_ended,
    ExpertCost: TableMirror._on_expert_cost,
    MatchEnded: TableMirror._on_match_ended,
    PlayerJoined: TableMirror._on_player_joined,
    PlayerLeft: TableMirror._on_player_left,
    PlayerReady: TableMirror._on_ready,
    RematchWanted: TableMirror._on_ready,
    RematchStarted: TableMirror._on_rematch_started,
    PlayerGone: TableMirror._on_player_gone,
    PlayerBack: TableMirror._on_player_back,
    BotTakeover: TableMirror._on_bot_takeover,
    ConventionsChanged: TableMirror._on_conventions,
}, ignored=(
    Welcome, ServerPing, ServerPong, ServerShutdown, Error, Ok, HelloOk, HelpReply, Joined,
    Tables, TableCreated, Turn, Clock, YourTurn, Explanation, Question, QuestionAsked,
    AnswerMessage, HintReply, HintTaken,
))
