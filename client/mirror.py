"""The client's copy of a Jackal table: :class:`TableMirror`, a plain object with no I/O.

Shared by ``jackal bot`` and the terminal UI (a :class:`~jackal.client.session.SeatSession`
keeps one current as ``session.mirror``). ``mirror.apply(msg)`` takes any server message
and returns True when it changed something. It is reset by every ``table_state`` (sent on
join, spectate and reclaim) and kept current by the events after it. Fields (all public,
read them freely):

- ``table``, ``name``, ``target``: the table id, its display name, the match target;
- ``status``: "waiting" | "playing" | "between_deals" | "over";
- ``seats``: ``dict[Seat, SeatView]`` (``name``, ``kind`` "empty"/"human"/"bot",
  ``connected``, ``ready``, ``hold_seconds`` left when gone, ``bot`` strategy while a
  server-side bot stands in);
- ``you``: your ``Seat`` or None (spectating); ``hand``: your cards (``list[Card]``,
  in the order dealt minus what you played; empty for spectators);
- ``deal`` (number, 0 before the first), ``dealer``, ``turn`` (``Seat`` or None);
- ``rows``: ``dict[Seat, list[Card]]``, each seat's played cards in order;
- ``conventions``: ``dict[Team, ConventionCard]``; ``scores``: ``dict[Team, int]``;
- ``last_deal``: the latest ``DealEnded`` message (kept hands, penalties, breakdown);
- ``winner``: the ``Team`` that won the match, once ``status == "over"``.

Derived: ``mirror.history()`` (every play this deal in order as ``(Seat, Card)``,
rebuilt from the rows and the dealer since play goes clockwise from the seat after the
dealer), ``mirror.first`` (who leads this deal), ``mirror.plays_made``,
``mirror.my_turn``, ``mirror.view()`` (a :class:`jackal.bots.View` for your seat, what a
strategy gets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..bots.base import View
from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.deal import PLAYS_PER_DEAL, PLAYS_PER_SEAT
from ..game.seats import SEATS, Seat, Team
from ..protocol.messages import (
    BotTakeover,
    ConventionsChanged,
    DealEnded,
    DealStarted,
    MatchEnded,
    Played,
    PlayerBack,
    PlayerGone,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    ServerMessage,
    TableState,
    Turn,
)

__all__ = ["SeatView", "TableMirror"]


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


@dataclass
class TableMirror:
    """The client-side copy of one table, fed with server messages by :meth:`apply`."""

    table: str | None = None
    name: str = ""
    target: int = 0
    status: str = "waiting"
    seats: dict[Seat, SeatView] = field(default_factory=lambda: {s: SeatView() for s in SEATS})
    you: Seat | None = None
    hand: list[Card] = field(default_factory=list)
    deal: int = 0
    dealer: Seat | None = None
    turn: Seat | None = None
    rows: dict[Seat, list[Card]] = field(default_factory=lambda: {s: [] for s in SEATS})
    conventions: dict[Team, ConventionCard] = field(default_factory=dict)
    scores: dict[Team, int] = field(default_factory=lambda: {Team.NS: 0, Team.EW: 0})
    last_deal: DealEnded | None = None
    winner: Team | None = None

    # ------------------------------------------------------------------ derived

    @property
    def first(self) -> Seat | None:
        """The seat that leads this deal (clockwise after the dealer)."""
        return None if self.dealer is None else self.dealer.next

    @property
    def plays_made(self) -> int:
        return sum(len(row) for row in self.rows.values())

    @property
    def my_turn(self) -> bool:
        return self.status == "playing" and self.you is not None and self.turn is self.you

    def history(self) -> tuple[tuple[Seat, Card], ...]:
        """Every play of this deal in order, rebuilt from the rows (play goes clockwise)."""
        first = self.first
        if first is None:
            return ()
        order = [SEATS[(first.ordinal + i) % 4] for i in range(4)]
        plays: list[tuple[Seat, Card]] = []
        for turn in range(PLAYS_PER_SEAT):
            for seat in order:
                row = self.rows[seat]
                if turn >= len(row):
                    return tuple(plays)
                plays.append((seat, row[turn]))
        return tuple(plays)

    def view(self) -> View:
        """What a strategy sees from your seat now."""
        if self.you is None or self.dealer is None:
            raise ValueError("no seat or no deal in progress")
        return View(seat=self.you, hand=tuple(self.hand), history=self.history(),
                    dealer=self.dealer, conventions=dict(self.conventions),
                    scores=dict(self.scores), target=self.target, deal_number=self.deal)

    # ------------------------------------------------------------------ updates

    def apply(self, msg: ServerMessage) -> bool:
        """Fold one server message into the mirror; True when something changed."""
        match msg:
            case TableState():
                self._reset(msg)
            case DealStarted(deal=deal, dealer=dealer, first=first, hand=hand):
                self.deal = deal
                self.dealer = Seat(dealer)
                self.turn = Seat(first)
                self.status = "playing"
                self.rows = {s: [] for s in SEATS}
                self.last_deal = None
                if hand is not None:
                    self.hand = [Card.parse(c) for c in hand]
            case Turn(seat=seat):
                self.turn = Seat(seat)
            case Played(seat=seat_name, card=card_text, index=index):
                return self._played(Seat(seat_name), Card.parse(card_text), index)
            case DealEnded():
                self.scores = _teams(msg.scores)
                self.last_deal = msg
                self.turn = None
                self.status = "between_deals"
                # Every human says ``ready`` again for the next deal; bots always are.
                for info in self.seats.values():
                    if info.kind == "human":
                        info.ready = False
            case MatchEnded(winner=winner, scores=scores):
                self.scores = _teams(scores)
                self.winner = Team(winner)
                self.turn = None
                self.status = "over"
            case PlayerJoined(seat=seat, name=name, kind=kind):
                self.seats[Seat(seat)] = SeatView(name=name, kind=kind, connected=True,
                                                  ready=kind == "bot")
            case PlayerLeft(seat=seat):
                self.seats[Seat(seat)] = SeatView()
            case PlayerReady(seat=seat):
                self.seats[Seat(seat)].ready = True
            case PlayerGone(seat=seat, seconds=seconds):
                info = self.seats[Seat(seat)]
                info.connected = False
                info.hold_seconds = seconds
            case PlayerBack(seat=seat):
                info = self.seats[Seat(seat)]
                info.connected = True
                info.hold_seconds = None
                info.bot = None
            case BotTakeover(seat=seat, strategy=strategy):
                self.seats[Seat(seat)].bot = strategy
            case ConventionsChanged(team=team, card=card):
                self.conventions[Team(team)] = card
            case _:
                return False
        return True

    def _played(self, seat: Seat, card: Card, index: int) -> bool:
        row = self.rows[seat]
        # The same play can reach us twice (our own reply, then a snapshot): index says
        # where it belongs, so apply it only when it is the next card of that row.
        if index != len(row) + 1:
            return False
        row.append(card)
        if seat is self.you and card in self.hand:
            self.hand.remove(card)
        self.turn = seat.next if self.plays_made < PLAYS_PER_DEAL else None
        return True

    def _reset(self, state: TableState) -> None:
        self.table = state.table
        self.name = state.name
        self.target = state.target
        self.status = state.status
        self.seats = {
            Seat(info.seat): SeatView(name=info.name, kind=info.kind, connected=info.connected,
                                      ready=info.ready)
            for info in state.seats
        }
        for seat in SEATS:
            self.seats.setdefault(seat, SeatView())
        self.conventions = {Team(team): card for team, card in state.conventions.items()}
        self.scores = _teams(state.scores)
        self.deal = state.deal
        self.dealer = None if state.dealer is None else Seat(state.dealer)
        self.turn = None if state.turn is None else Seat(state.turn)
        self.rows = {seat: [Card.parse(c) for c in state.rows.get(seat.value, [])]
                     for seat in SEATS}
        self.you = None if state.you is None else Seat(state.you)
        self.hand = [] if state.hand is None else [Card.parse(c) for c in state.hand]


def _teams(scores: Mapping[str, int]) -> dict[Team, int]:
    result = {Team.NS: 0, Team.EW: 0}
    for team, value in scores.items():
        result[Team(team)] = value
    return result
