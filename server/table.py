"""One table as a synchronous state machine around :class:`game.Match`: each action is a
method that takes the acting connection (a :class:`Peer`) and ``now``, refuses a bad one
with :class:`ProtocolError` before anything changes, and returns the ``(peer, message)``
pairs to send. No I/O. Its parts (seating, holds, clock, pause, ...) are modules of their
own; the behaviour is docs/PROTOCOL.md's."""

from __future__ import annotations

from collections.abc import Mapping

from ..bots.base import View
from ..game.cards import Card
from ..game.conventions import DEFAULT_CARD, ConventionCard, builtin_card
from ..game.deal import Deal
from ..game.errors import IllegalAction
from ..game.match import Match
from ..game.rng import derive_seed
from ..game.seats import TEAMS, Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    BotPlayedBy,
    BotTakeover,
    Error,
    ExpertCost,
    Joined,
    MatchEnded,
    MessageId,
    Ok,
    Played,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    RematchStarted,
    RematchWanted,
    Turn,
)
from . import views
from .chat import TableChat
from .deal_summary import DealSummaries, ExpertJob
from .disclosure import Disclosure
from .holds import SeatHolds
from .pause import PauseVote
from .records.events import ExpertEvent, TableEvent
from .records.recording import PlayedBy, Recorder, Recording
from .seating import Outbox, Peer, Seating, Status
from .snapshot import deal_facts, table_snapshot
from .table_bots import seat_bot, substitute
from .table_options import TableOptions
from .turn_clock import TurnClock

__all__ = ["Table"]

#: The first turn of a deal gets this many seconds more than the table's clock: its
#: player's screen still shows the last deal's summary when ``deal_started`` leaves, and
#: the deal must be on screen before the time that counts starts.
DEAL_GRACE_SECONDS = 2.0


class Table:
    """A table: four seats, spectators, the match, and the rules of who may do what.

    Convention cards, explanations and questions are its :attr:`disclosure` object's;
    the table hands those requests on to it.
    """

    def __init__(self, table_id: str, options: TableOptions,
                 conventions: dict[Team, ConventionCard] | None = None,
                 recorder: Recorder | None = None) -> None:
        self.id = table_id
        self.options = options
        self.name = options.name
        self.match = Match(options.seed, options.target)
        #: Who sits where and who watches (see :mod:`.seating`); ``seats`` and
        #: ``spectators`` are its dicts, which the table's other parts read.
        self.seating = Seating(table_id, options.invites)
        self.seats, self.spectators = self.seating.seats, self.seating.spectators
        default = builtin_card(DEFAULT_CARD)
        cards: dict[Team, ConventionCard] = {team: default for team in TEAMS}
        if conventions:
            cards.update(conventions)
        #: The cards the current (or, between deals, the last) deal is played under.
        self.deal_conventions: dict[Team, ConventionCard] = dict(cards)
        self.status: Status = "waiting"
        self.last_deal: Deal | None = None
        #: The cards of the rows in play (between deals, the last deal's) that a bot
        #: played for a human's seat, by seat and place in its row: every snapshot marks
        #: them, as the ``played`` events did.
        self.bot_cards: dict[tuple[Seat, int], BotPlayedBy] = {}
        self.between_deadline: float | None = None
        #: What the table writes to its record (see :mod:`.records.recording`).
        self.recording = Recording(recorder)
        #: Bumped on every change a bot decision depends on, so a stale decision is dropped.
        self.version = 0
        self.disclosure = Disclosure(cards)
        #: The latest time any action or tick was given (deadlines start from it).
        self.now = 0.0
        #: The turn's clock (see :mod:`.turn_clock`).
        self.clock = TurnClock()
        #: The seat and turn (deal number, plays made) whose hint the table was last
        #: told of (``hint_taken``, and the record's ``hint`` line). Restored from the
        #: record, so a hint asked for again after a restart is not announced twice.
        self.hint_told: tuple[Seat, tuple[int, int]] | None = None
        #: With no person seated, no deal starts after this many (None: no limit)...
        self.unseated_deal_limit: int | None = None
        #: ...and the table halts, saying why: its task then closes it.
        self.halted: str | None = None
        #: The chat lines kept for snapshots, and the record's chat budget.
        self.chat = TableChat()
        #: A pause asked for or in force (see :mod:`.pause`).
        self.pausing = PauseVote()
        #: Seats held for players whose connection dropped (see :mod:`.holds`).
        self.holds = SeatHolds()
        self._summaries = DealSummaries(self.match.seed)
        #: The target of the next rematch (the last match's until a player asks another).
        self.rematch_target = self.match.target

    # ------------------------------------------------------------------ helpers

    def _advance_now(self, now: float | None) -> None:
        if now is not None:
            self.now = max(self.now, now)

    @property
    def in_match(self) -> bool:
        """A match is on (its deals, or between them)."""
        return self.status in ("playing", "between_deals")

    @property
    def summaries(self) -> DealSummaries:
        """The current match's deal summaries (a new match, a rematch or one restored
        from its record, starts new ones)."""
        if self._summaries.match_seed != self.match.seed:
            self._summaries = DealSummaries(self.match.seed)
        return self._summaries

    def expert_done(self, job: ExpertJob, cost: Mapping[Team, int] | None,
                    unavailable: str | None = None) -> Outbox:
        """A play-through the hub ran is done: record it and tell everyone at the table
        (nothing if a rematch has started since). Not recorded once the match is over:
        ``match_end`` is a finished record's last line (restore reads only that line).
        Without ``cost`` the figure is unavailable for the reason given (not recorded)."""
        if not self.summaries.expert_done(job, cost, unavailable):
            return []
        if cost is None:
            return self.seating.broadcast(ExpertCost(deal=job.deal, unavailable=unavailable))
        if self.status != "over":
            self.recording.write(ExpertEvent(deal=job.deal, information_cost=dict(cost)))
        return self.seating.broadcast(ExpertCost(deal=job.deal, information_cost=dict(cost)))

    def close(self, reason: str) -> None:
        """The table is closed for ``reason`` (its record says so, so a restart does not
        bring it back); its task then takes it out of the lobby."""
        self.recording.closed(reason)

    def fail(self) -> Outbox:
        """A bug in this table's task: its match is over and it is closed, and everyone
        at it is told (``internal``). The lobby then removes it, freeing its players."""
        self.close("failed")
        self.status = "over"
        return self.seating.broadcast(Error(code=ErrorCode.INTERNAL.value,
                                            message="this table failed and is closed"))

    # ------------------------------------------------------------------ disclosure
    # Conventions, explanations and questions are the disclosure part's (callers reach
    # ``table.disclosure``); a question and its answer also stop and start the clock.

    @property
    def conventions(self) -> dict[Team, ConventionCard]:
        return self.disclosure.conventions

    def ask(self, peer: Peer, target: Seat, text: str, index: int | None,
            req_id: MessageId | None = None, now: float | None = None) -> Outbox:
        """A question; asked on one's own turn of a person, it stops one's clock."""
        self._advance_now(now)
        out = self.disclosure.ask(self, peer, target, text, index, req_id)
        seat = self.seating.seat_of(peer)
        return out if seat is None else out + self.clock.stop_for_question(self, seat)

    def answer(self, peer: Peer, qid: str, text: str,
               req_id: MessageId | None = None, now: float | None = None) -> Outbox:
        """An answer; the asker's clock runs again once nothing it asked is open."""
        self._advance_now(now)
        return self.disclosure.answer(self, peer, qid, text, req_id) + self.clock.run_again(self)

    # ------------------------------------------------------------------ records

    def record_header(self) -> None:
        """Write the table's options and conventions (once, when it is created)."""
        self.recording.header(TableEvent.of(self.id, self.options), self.conventions)

    # ------------------------------------------------------------------ lobby actions

    def join(self, peer: Peer, name: str, seat: Seat | None,
             req_id: MessageId | None = None, invite: str | None = None,
             host: str | None = None) -> tuple[str, Outbox]:
        """Seat ``peer`` (connected from address ``host``); returns its new secret token
        and the messages."""
        # After a match an empty seat is taken as before the first (its new player then
        # asks for the rematch like the others): nothing of the finished match is secret.
        slot = self.seating.choose(peer, seat, invite, host, self.in_match)
        token = self.seating.sit(slot, peer, name, host, in_match=self.in_match,
                                 playing=self.status == "playing")
        self.version += 1
        self.recording.seat(slot)
        out: Outbox = [
            (peer, Joined(id=req_id, table=self.id, seat=slot.seat, token=token)),
            *self.state_for(peer, slot.seat),
        ]
        out += self.seating.broadcast(PlayerJoined(seat=slot.seat, name=slot.name or name,
                                                           kind="human"), skip=peer)
        return token, out

    def spectate(self, peer: Peer, req_id: MessageId | None = None) -> Outbox:
        """Watch the table: the public view only."""
        if self.seating.seat_of(peer) is not None:
            raise ProtocolError(ErrorCode.ALREADY_SEATED, "you sit at this table already")
        # Its creator's connection may always watch (a tournament director does).
        if not self.options.allow_spectators and peer is not self.seating.creator:
            raise ProtocolError(ErrorCode.NO_SPECTATORS,
                                f"table {self.id} allows no spectators")
        self.spectators[peer] = None
        return [(peer, views.table_state(table_snapshot(self), None, id=req_id))]

    def state_for(self, peer: Peer, seat: Seat | None,
                  req_id: MessageId | None = None) -> Outbox:
        """A fresh ``table_state`` for ``peer`` (sitting at ``seat``, or watching), then its
        ``your_turn`` if it is that seat's turn: on joining, on a reclaim and on ``sync``."""
        snap = table_snapshot(self)
        out: Outbox = [(peer, views.table_state(snap, seat, id=req_id))]
        turn = views.your_turn(snap.facts, seat) if seat is not None else None
        return out if turn is None else [*out, (peer, turn)]

    def sync(self, peer: Peer, req_id: MessageId | None = None) -> Outbox:
        """``sync`` from a seat or a spectator of this table."""
        return self.state_for(peer, self.seating.seat_of(peer), req_id)

    def _turn(self, turn: Seat, audience: list[tuple[Peer, Seat | None]],
              grace: float = 0.0) -> Outbox:
        """``turn`` to everyone in ``audience`` (the caller's, who just told them of the
        deal or the play), and ``your_turn`` to the player at that seat (a seat a
        server-side bot plays has no connection to send it to)."""
        # The clock starts now for a human seat when the table has one: ``turn`` and
        # ``your_turn`` say how long it has.
        seconds = self.clock.arm(self, grace)
        msg = Turn(seat=turn, seconds=seconds)
        # A drop or a return of the seat to play is told now, a time it does not choose.
        out: Outbox = self.holds.publish(self, turn, self.now)
        out += [(peer, msg) for peer, _ in audience]
        peer = self.seats[turn].peer
        if peer is None:
            return out
        private = views.your_turn(deal_facts(self), turn)
        return out if private is None else [*out, (peer, private)]

    def add_bot(self, requester: Peer, seat: Seat, strategy: str | None,
                req_id: MessageId | None = None, now: float | None = None,
                invite: str | None = None) -> Outbox:
        """Put a server-side bot in an empty seat (see :func:`.table_bots.seat_bot`); it
        may fill the last seat and start the match."""
        self._advance_now(now)
        out = seat_bot(self, requester, seat, strategy, req_id, invite)
        return out + self._maybe_start() + self._maybe_rematch()

    def leave(self, peer: Peer, req_id: MessageId | None = None,
              now: float | None = None) -> Outbox:
        """Stop spectating, or give up the seat: mid-match the substitute takes it over
        if the table allows (docs/PROTOCOL.md, ``leave``)."""
        self._advance_now(now)
        out: Outbox = [(peer, Ok(id=req_id, request="leave"))]
        if peer in self.spectators:
            del self.spectators[peer]
            return out
        slot = self.seating.require_seat(peer)
        self.disclosure.drop_questions(slot.seat)
        out += self.clock.run_again(self)  # the leaver may be the one its asker waits for
        in_match = self.in_match
        self.seating.leave(slot, in_match)
        self.version += 1
        if in_match and self.options.bot_takeover:
            strategy = substitute(self, slot.seat)
            slot.kind, slot.name, slot.strategy = "bot", f"{strategy} bot", strategy
            slot.ready = True
            self.recording.seat(slot)
            self.clock.bot_plays(self, slot.seat)
            out += self.seating.broadcast(PlayerLeft(seat=slot.seat), skip=peer)
            out += self.seating.broadcast(BotTakeover(seat=slot.seat, strategy=strategy),
                                           skip=peer)
            return out + self.pausing.seat_went(self, slot.seat) + self._maybe_next_deal_now()
        self.recording.seat(slot)
        out += self.seating.broadcast(PlayerLeft(seat=slot.seat), skip=peer)
        return out

    def ready(self, peer: Peer, req_id: MessageId | None = None,
              now: float | None = None) -> Outbox:
        """Mark the sender ready; may start the match or the next deal (whose clock, if
        the table has one, starts at ``now``)."""
        self._advance_now(now)
        slot = self.seating.require_seat(peer)
        out: Outbox = [(peer, Ok(id=req_id, request="ready"))]
        if self.status in ("waiting", "between_deals") and not slot.ready:
            slot.ready = True
            self.recording.ready(slot.seat)  # kept over a restart until the next deal
            out += self.seating.broadcast(PlayerReady(seat=slot.seat))
        if self.status == "waiting":
            out += self._maybe_start()
        elif self.status == "between_deals":
            out += self._maybe_next_deal_now()
        return out

    def rematch(self, peer: Peer, req_id: MessageId | None = None,
                now: float | None = None, target: int | None = None) -> Outbox:
        """After the end: the sender's seat asks to play again at this table (to
        ``target`` points, if given); the new match starts when every seat is filled and
        every human seat is connected and has asked for the same target."""
        self._advance_now(now)
        slot = self.seating.require_seat(peer)
        if self.status != "over":
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                "a rematch can be asked for once the match is over")
        out: Outbox = [(peer, Ok(id=req_id, request="rematch"))]
        if target is not None and target != self.rematch_target:
            # New terms: the others asked for the old ones, so they must ask again.
            self.rematch_target = target
            for other in self.seating.humans:
                other.ready = other is slot
            self.version += 1
            snap = table_snapshot(self)
            out += [(each, views.table_state(snap, seat))
                    for each, seat in self.seating.audience()]
            return out + self.seating.broadcast(RematchWanted(
                seat=slot.seat, target=target)) + self._maybe_rematch()
        if not slot.ready:
            slot.ready = True
            out += self.seating.broadcast(RematchWanted(seat=slot.seat,
                                                        target=self.rematch_target))
        return out + self._maybe_rematch()

    def _maybe_rematch(self) -> Outbox:
        if self.status != "over" or any(
                slot.kind == "empty" or (slot.kind == "human" and not (
                    slot.peer is not None and slot.ready)) for slot in self.seats.values()):
            return []
        # Derived from the last match's seed: as secret as it was, and a seeded table's
        # rematches are as reproducible as its first match.
        seed = derive_seed(self.match.seed, 2) & (2**63 - 1)
        target = self.rematch_target
        self.recording.rematch(seed, None if target == self.options.target else target)
        self.match = Match(seed, target)
        self.disclosure.changes.clear()  # a new match: its card changes are counted anew
        self.last_deal, self.hint_told = None, None
        self.bot_cards = {}
        self.disclosure.expire_questions()
        self.seating.new_match()
        self.status = "waiting"
        self.version += 1
        return self.seating.broadcast(RematchStarted()) + self._maybe_start()

    # ------------------------------------------------------------------ connections

    def disconnect(self, peer: Peer, now: float) -> Outbox:
        """``peer``'s connection is gone: stop spectating, or hold its seat (see
        :mod:`.holds`)."""
        self._advance_now(now)
        return self.holds.drop(self, peer, now)

    def reclaim(self, peer: Peer, seat: Seat, now: float | None = None,
                host: str | None = None) -> Outbox:
        """``peer`` (from address ``host``) proved it owns ``seat``: give the seat back to
        it (a player back from a substitute on their own turn gets a full clock from
        ``now``)."""
        self._advance_now(now)
        out = self.holds.reclaim(self, peer, seat, host)
        return out + self._maybe_rematch()  # the last who asked for one may be back

    # ------------------------------------------------------------------ timers

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do."""
        times = self.seating.holds()
        if self.between_deadline is not None:
            times.append(self.between_deadline)
        times += self.clock.deadlines(paused=self.pausing.paused)
        if self.pausing.due_at is not None:
            times.append(self.pausing.due_at)
        return min(times) if times else None

    def tick(self, now: float) -> Outbox:
        """Act on every deadline that has passed: holds running out, the next deal, a
        turn's clock."""
        self._advance_now(now)
        out = self.holds.expire(self, now)
        if self.pausing.due_at is not None and now >= self.pausing.due_at:
            out += self.pausing.tick(self, now) + self._maybe_next_deal_now()
        if self.between_deadline is not None and now >= self.between_deadline:
            out += self._start_deal()
        return out + self.clock.tick(self, now)

    # ------------------------------------------------------------------ pause

    def pause(self, peer: Peer, now: float, req_id: MessageId | None = None) -> Outbox:
        """Ask for a pause, or agree to the one asked for (see :mod:`.pause`)."""
        self._advance_now(now)
        return self.pausing.request(self, peer, req_id)

    def end_pause(self, peer: Peer, now: float, req_id: MessageId | None = None) -> Outbox:
        """End the pause, or withdraw the request for one."""
        self._advance_now(now)
        return self.pausing.end(self, peer, req_id) + self._maybe_next_deal_now()

    # ------------------------------------------------------------------ the match

    def _maybe_start(self) -> Outbox:
        if self.status != "waiting":
            return []
        if any(slot.kind == "empty" or (slot.kind == "human" and not slot.ready)
               for slot in self.seats.values()):
            return []
        self.recording.match_start()
        out = self._start_deal()
        for slot in self.seating.humans:
            self.seating.remember_host(slot, self.in_match)
        return out

    def _maybe_next_deal_now(self) -> Outbox:
        if self.status != "between_deals" or self.pausing.paused:
            return []
        if all(slot.ready for slot in self.seating.humans):
            return self._start_deal()
        return []

    def _start_deal(self) -> Outbox:
        self.between_deadline = None
        deal = self.match.start_deal()
        self.bot_cards = {}
        self.disclosure.asked.clear()  # each deal's questions are counted afresh
        self.holds.new_deal()  # and its reclaims
        self.deal_conventions = dict(self.conventions)
        self.status = "playing"
        self.version += 1
        number = self.match.deal_number
        self.recording.deal(number, deal)
        audience = self.seating.audience()
        out: Outbox = [(peer, views.deal_started(deal, number, seat))
                       for peer, seat in audience]
        turn = deal.turn
        assert turn is not None
        return out + self._turn(turn, audience, grace=DEAL_GRACE_SECONDS)

    def play(self, peer: Peer, card: Card, now: float,
             req_id: MessageId | None = None) -> Outbox:
        """The sender plays ``card`` from its own hand."""
        self._advance_now(now)
        slot = self.seating.require_seat(peer)
        return self._apply_play(slot.seat, card, now, req_id, peer)

    def bot_play(self, seat: Seat, card: Card, now: float) -> Outbox:
        """A server-side bot's card for ``seat`` (bot-controlled, or out of time)."""
        self._advance_now(now)
        if not self.seats[seat].bot_controlled and self.clock.due is not seat:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"seat {seat} is not played by a bot")
        return self._apply_play(seat, card, now, None, None)

    def _apply_play(self, seat: Seat, card: Card, now: float, req_id: MessageId | None,
                    player: Peer | None) -> Outbox:
        deal = self.match.deal
        if self.status != "playing" or deal is None:
            raise ProtocolError(ErrorCode.NO_DEAL, "no deal is in progress")
        if self.pausing.paused:
            raise ProtocolError(ErrorCode.PAUSED, "the table is paused: no card is played "
                                                  "until someone resumes")
        try:
            index = deal.play(card, seat)
        except IllegalAction as exc:
            raise ProtocolError(exc.code, str(exc)) from None
        self.version += 1
        by = self._played_by(seat, player)
        self.clock.due = None
        self.recording.play(seat, card, index, by)
        bot_by: BotPlayedBy | None = ("clock" if by == "clock" else
                                      "substitute" if by == "substitute" else None)
        if bot_by is not None:
            self.bot_cards[seat, index] = bot_by
        # One shared message for everyone but the player, whose copy carries the id.
        public = Played(seat=seat, card=card, index=index, by=bot_by)
        own = Played(id=req_id, seat=seat, card=card, index=index)
        audience = self.seating.audience()
        out: Outbox = [(peer, own if peer is player else public) for peer, _ in audience]
        out += self.holds.publish(self, seat, now)  # the end of its turn
        if deal.is_over:
            self.clock.deadline = None
            return out + self._end_deal(now)
        turn = deal.turn
        assert turn is not None
        return out + self._turn(turn, audience)

    def _played_by(self, seat: Seat, player: Peer | None) -> PlayedBy:
        """Who made a play: the seat's ``player`` over its connection, a ``bot`` seat, the
        ``substitute`` playing a human's seat while they are away, or the substitute's
        one card when the player's ``clock`` ran out."""
        if player is not None:
            return "player"
        slot = self.seats[seat]
        if slot.kind == "bot":
            return "bot"
        return "substitute" if slot.takeover else "clock"

    def _end_deal(self, now: float) -> Outbox:
        deal = self.match.deal
        assert deal is not None
        number = self.match.deal_number
        out: Outbox = []
        for slot in self.seats.values():
            out += self.holds.publish(self, slot.seat, now)
        result = self.match.finish_deal()
        questions = self.disclosure.expire_questions()
        self.last_deal = deal
        winner = self.match.winner
        # Between deals with a person seated, the next deal waits: say how long.
        pause = self.options.between_deals_seconds if winner is None and self.seating.humans \
            else None
        ended = views.deal_ended(deal, number, result, self.match.scores, pause,
                                 self.summaries.best(number), questions)
        self.recording.result(number, result, self.match.scores)
        if self.seating.humans:
            # The expert pair's figure is for people learning; bots alone are not shown it.
            self.summaries.ask_expert(number, deal.dealer, self.deal_conventions)
        out += self.seating.broadcast(ended)
        if winner is not None:
            self.status = "over"
            self.rematch_target = self.match.target
            self.pausing = PauseVote()  # nothing left to pause; a new match asks anew
            self.recording.match_end(winner, self.match.scores)
            for slot in self.seats.values():
                # A player who is away (its seat held or played by a bot) may still come
                # back to see the end: hold the seat once more, then the table goes.
                away = slot.kind == "human" and slot.peer is None
                slot.held_until = now + self.options.hold_seconds if away else None
                slot.takeover = False
                # From here a human's ready flag says it asked for a rematch.
                slot.ready = slot.kind == "bot"
            return out + self.seating.broadcast(MatchEnded(winner=winner,
                                                            scores=ended.scores))
        self.status = "between_deals"
        for slot in self.seating.humans:
            slot.ready = False
        if not self.seating.humans:
            limit = self.unseated_deal_limit
            if limit is not None and number >= limit:
                # Bots alone (perhaps watched) would play forever and fill the record.
                self.halted = "deal_limit"
                self.version += 1
                return out
            return out + self._start_deal()
        self.between_deadline = now + self.options.between_deals_seconds
        return out

    def bot_turn(self) -> Seat | None:
        """The seat a server-side bot must play for now, if any (a bot seat, a seat its
        substitute plays, or a seat whose clock ran out)."""
        deal = self.match.deal
        if self.status != "playing" or deal is None or deal.turn is None \
                or self.pausing.paused:
            return None
        if self.seats[deal.turn].bot_controlled or self.clock.due is deal.turn:
            return deal.turn
        return None

    def hint_turn(self, seat: Seat) -> tuple[int, int] | None:
        """The turn (deal number, plays made) a hint for ``seat`` is about: its turn in a
        deal being played; None when it is not ``seat``'s turn."""
        deal = self.match.deal
        if self.status != "playing" or deal is None or deal.turn is not seat:
            return None
        return self.match.deal_number, deal.plays_made

    def bot_view(self, seat: Seat) -> View:
        """What a bot playing ``seat`` may see: its own hand and public facts."""
        known = views.knowledge(deal_facts(self), seat)
        assert isinstance(known, View) and self.match.deal is not None
        return known
