"""What a table writes to its record: one line per thing that happens, written before the
messages about it go out, so a restart replays what the players were told. A part the
table owns; the lines are :mod:`.events`', the file is :mod:`.files`'."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...game.cards import Card
from ...game.conventions import ConventionCard
from ...game.deal import Deal
from ...game.scoring import DealResult
from ...game.seats import TEAMS, Seat, Team
from ...protocol.messages import ChatLine
from ..seating import SeatSlot
from .events import (
    ChatEvent,
    Closed,
    ConventionsEvent,
    DealEvent,
    MatchEnd,
    MatchStart,
    PlayedBy,
    PlayEvent,
    ReadyEvent,
    RecordEvent,
    RematchEvent,
    SeatEvent,
    TableChannel,
    TableEvent,
    result_event,
)

__all__ = ["PlayedBy", "Recorder", "Recording"]

#: Receives one record event per thing that happens (before the messages about it go out).
Recorder = Callable[[RecordEvent], None]


class Recording:
    """A table's record (writes nothing without a recorder: a table with no records dir)."""

    __slots__ = ("_recorder",)

    def __init__(self, recorder: Recorder | None) -> None:
        self._recorder = recorder

    def write(self, event: RecordEvent) -> None:
        if self._recorder is not None:
            self._recorder(event)

    def header(self, head: TableEvent, conventions: Mapping[Team, ConventionCard]) -> None:
        """The table's options and conventions (once, when it is created)."""
        self.write(head)
        for team in TEAMS:
            self.write(ConventionsEvent(team=team, card=conventions[team]))

    def seat(self, slot: SeatSlot) -> None:
        """Who sits at ``slot`` now."""
        self.write(SeatEvent(seat=slot.seat, kind=slot.kind, name=slot.name,
                             token_hash=slot.token_hash, strategy=slot.strategy))

    def closed(self, reason: str) -> None:
        """The table is closed (a restart does not bring it back)."""
        self.write(Closed(reason=reason))

    def match_start(self) -> None:
        self.write(MatchStart())

    def deal(self, number: int, deal: Deal) -> None:
        assert deal.seed is not None  # a match's deals are always dealt from a seed
        self.write(DealEvent(number=number, dealer=deal.dealer, seed=deal.seed))

    def play(self, seat: Seat, card: Card, index: int, by: PlayedBy) -> None:
        self.write(PlayEvent(seat=seat, card=card, index=index, by=by))

    def result(self, number: int, result: DealResult, scores: dict[Team, int]) -> None:
        self.write(result_event(number, result, scores))

    def match_end(self, winner: Team, scores: dict[Team, int]) -> None:
        self.write(MatchEnd(winner=winner, scores=dict(scores)))

    def rematch(self, seed: int, target: int | None = None) -> None:
        self.write(RematchEvent(seed=seed, target=target))

    def ready(self, seat: Seat) -> None:
        """A person said ready: a restart before the next deal keeps it."""
        self.write(ReadyEvent(seat=seat))

    def chat(self, channel: TableChannel, line: ChatLine) -> None:
        self.write(ChatEvent(channel=channel, name=line.name, text=line.text, seat=line.seat))
