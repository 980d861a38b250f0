"""One table as a synchronous state machine around :class:`game.Match`: each action is a
method that takes the acting connection (a :class:`Peer`) and ``now``, refuses a bad one
with :class:`ProtocolError` before anything changes, and returns the ``(peer, message)``
pairs to send. No I/O. Its parts (seating, holds, clock, pause, ...) are modules of their
own; the behaviour is docs/PROTOCOL.md's."""

from __future__ import annotations

from collections.abc import Mapping

from ..game.cards import Card
from ..game.conventions import DEFAULT_CARD, ConventionCard, builtin_card
from ..game.deal import Deal
from ..game.match import Match
from ..game.seats import TEAMS, Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    BotPlayedBy,
    BotTakeover,
    Clock,
    Error,
    Joined,
    MatchEnded,
    MessageId,
    Ok,
    Played,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    RematchStarted,
    TableStatus,
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
from .records.replay import MatchReplay
from .rematch import RematchTerms
from .seating import Outbox, Peer, Seating
from .snapshot import (
    back_at_seat,
    deal_facts,
    shown_deal,
    state_for,
    table_snapshot,
    turn_to_play,
)
from .table_bots import seat_bot, substitute
from .table_options import TableOptions
from .turn_clock import TurnClock

__all__ = ["Table"]

#: The first turn of a deal gets this many seconds more than the table's clock: its
#: player's screen still shows the last deal's summary when ``deal_started`` leaves, and
#: the deal must be on screen before the time that counts starts.
DEAL_GRACE_SECONDS = 2.0


class Table:
    """A table: four seats, spectators, the match, and the rules of who may do what. Its
    parts own their state and say what they decided; only the table writes its fields."""

    def __init__(self, table_id: str, options: TableOptions,
                 conventions: dict[Team, ConventionCard] | None = None,
                 recorder: Recorder | None = None, creator: Peer | None = None) -> None:
        self.id, self.options, self.name = table_id, options, options.name
        #: Who sits where and who watches (see :mod:`.seating`); ``seats`` and
        #: ``spectators`` are its dicts, which the table's other parts read.
        self.seating = Seating(table_id, options.invites, creator)
        self.seats, self.spectators = self.seating.seats, self.seating.spectators
        default = builtin_card(DEFAULT_CARD)
        cards = {team: default for team in TEAMS} | (conventions or {})
        #: The cards the current (or, between deals, the last) deal is played under.
        self.deal_conventions: dict[Team, ConventionCard] = dict(cards)
        self._start_match(Match(options.seed, options.target))
        #: What the table writes to its record (see :mod:`.records.recording`).
        self.recording = Recording(recorder)
        #: Moved (by :meth:`_changed` alone) on every change a bot decision depends on.
        self.version = 0
        self.disclosure = Disclosure(cards, self.seating, self.recording)
        #: The latest time any action or tick was given (deadlines start from it).
        self.now = 0.0
        #: The turn's clock and the between-deal countdown (see :mod:`.turn_clock`).
        self.clock = TurnClock()
        #: With no person seated, no deal starts after this many (None: no limit)...
        self.unseated_deal_limit: int | None = None
        #: ...and the table halts, saying why: its task then closes it.
        self.halted: str | None = None
        #: The chat lines kept for snapshots, and the record's chat budget.
        self.chat = TableChat(self.seating, self.recording)
        #: A pause asked for or in force (see :mod:`.pause`).
        self.pausing = PauseVote()
        #: Seats held for players whose connection dropped (see :mod:`.holds`).
        self.holds = SeatHolds(self.seating, self.recording)

    def _start_match(self, match: Match) -> None:
        """A new match (the first, a rematch, or one restored from its record)."""
        self.match = match
        self.status: TableStatus = "waiting"
        self.last_deal: Deal | None = None
        #: The cards of the rows in play (between deals, the last deal's) a bot played
        #: for a human's seat, by seat and place in its row: every snapshot marks them.
        self.bot_cards: dict[tuple[Seat, int], BotPlayedBy] = {}
        #: The seat and turn (deal number, plays made) whose hint the table last told of
        #: (``hint_taken``; restored from the record, so it is not told twice).
        self.hint_told: tuple[Seat, tuple[int, int]] | None = None
        self.summaries = DealSummaries(match.seed)
        #: The terms of the next match, asked for once this one is over (see
        #: :mod:`.rematch`): to this match's target until a player asks another.
        self.rematch_terms = RematchTerms(match.target)

    @classmethod
    def restored(cls, table_id: str, state: MatchReplay, record: Recorder, now: float,
                 hold_seconds: float) -> Table:
        """The table a record (replayed into ``state``) leaves its match in, nobody
        connected: each human seat held for ``hold_seconds`` from ``now`` (a finished
        match stays while a seat is held, so its players can come back to see the end)."""
        table = cls(table_id, state.header.options(), dict(state.conventions), record)
        table._start_match(match := state.match)
        table.last_deal, table.hint_told = state.last_deal, state.hint_told
        table.bot_cards = dict(state.bot_cards)
        for seat, event in state.seats.items():  # a person's ready flag lasts to a deal
            table.seating.restore(seat, event.kind, event.name, event.token_hash,
                                  event.strategy, ready=seat in state.ready and not match.is_over,
                                  held_until=now + hold_seconds)
        table.now = now
        if match.is_over:
            table.status = "over"
        elif match.deal is not None:
            table.status = "playing"
            # The turn's clock starts again, in full: a restart is nobody's fault, and the
            # seat to play may need the time to come back first.
            table._arm_clock()
        elif state.started:
            table.status = "between_deals"
            table.clock.next_deal_at(now + table.options.between_deals_seconds)
        table.chat.restore(state.chat)
        playing = table.status == "playing"  # only the deal in play's questions are open
        table.disclosure.restore(state.questions if playing else [],
                                 state.answers if playing else {}, state.question_number)
        turn = turn_to_play(table)
        if turn is not None:  # still waiting for an answer: its clock stays stopped
            table._stop_clock_for(turn)
        table.summaries.expert.update(state.expert)
        return table

    def _advance_now(self, now: float | None) -> None:
        if now is not None:
            self.now = max(self.now, now)

    def _changed(self, changed: bool = True) -> None:
        """Something a bot's decision depends on ``changed``: one made before is stale."""
        if changed:
            self.version += 1

    @property
    def in_match(self) -> bool:
        """A match is on (its deals, or between them)."""
        return self.status in ("playing", "between_deals")

    def limit_unseated_deals(self, limit: int | None) -> None:
        """With no person seated, no deal starts after ``limit`` (None: no limit)."""
        self.unseated_deal_limit = limit

    def hint_told_now(self, seat: Seat, turn: tuple[int, int]) -> bool:
        """``seat``'s hint for ``turn`` is told now; False if told before a restart."""
        told, self.hint_told = self.hint_told == (seat, turn), (seat, turn)
        return not told

    def expert_done(self, job: ExpertJob, cost: Mapping[Team, int] | None,
                    unavailable: str | None = None) -> Outbox:
        """A play-through the hub ran is done (without ``cost``: unavailable, for the
        reason given): tell everyone, and record a figure unless the match is over
        (``match_end`` is a record's last line). Nothing if a rematch has started since."""
        news = self.summaries.expert_done(job, cost, unavailable)
        if news is None:
            return []
        if cost is not None and self.status != "over":
            self.recording.write(ExpertEvent(deal=job.deal, information_cost=dict(cost)))
        return self.seating.broadcast(news)

    def record_header(self) -> None:
        """Write the table's options and conventions (once, when it is created)."""
        self.recording.header(TableEvent.of(self.id, self.options), self.conventions)

    def close(self, reason: str) -> None:
        """Closed for ``reason`` (said in its record: a restart does not bring it back)."""
        self.recording.closed(reason)

    def fail(self) -> Outbox:
        """A bug in this table's task: it is closed, and everyone at it told so."""
        self.close("failed")
        self.status = "over"
        return self.seating.broadcast(Error(code=ErrorCode.INTERNAL,
                                            message="this table failed and is closed"))

    @property
    def conventions(self) -> dict[Team, ConventionCard]:
        return self.disclosure.conventions

    def set_conventions(self, peer: Peer, spec: str | ConventionCard,
                        req_id: MessageId | None = None) -> Outbox:
        """The sender declares its partnership's convention card."""
        out, changed = self.disclosure.set_conventions(self.status, peer, spec, req_id)
        self._changed(changed)
        return out

    def ask(self, peer: Peer, target: Seat, text: str, index: int | None,
            req_id: MessageId | None = None, now: float | None = None) -> Outbox:
        """A question; asked on one's own turn of a person, it stops one's clock."""
        self._advance_now(now)
        out = self.disclosure.ask(shown_deal(self), self.deal_conventions, peer, target, text,
                                  index, req_id)
        seat = self.seating.seat_of(peer)
        return out if seat is None else out + self._stop_clock_for(seat)

    def answer(self, peer: Peer, qid: str, text: str,
               req_id: MessageId | None = None, now: float | None = None) -> Outbox:
        """An answer; the asker's clock runs again once nothing it asked is open."""
        self._advance_now(now)
        return self.disclosure.answer(peer, qid, text, req_id) + self._run_clock_again()

    # ------------------------------------------------------------------ clocks and pause

    def _arm_clock(self, grace: float = 0.0) -> float | None:
        """Start the clock of the seat to play if it is a human's and the table has one,
        with ``grace`` seconds more; returns the seconds it has."""
        turn = turn_to_play(self)
        human = turn is not None and not self.seats[turn].bot_controlled
        return self.clock.arm(self.now, self.options.turn_seconds if human else None, grace,
                              paused=self.pausing.paused)

    def _bot_plays(self, seat: Seat) -> None:
        """``seat`` is now played by a bot: a clock running for it stops."""
        if turn_to_play(self) is seat:
            self.clock.clear()

    def _stop_clock_for(self, seat: Seat) -> Outbox:
        """``seat`` asked a person a question: its clock stops if it is its own turn."""
        return self._clock_news(self.clock.stop_for_question(
            self.now, seat, turn_to_play(self), waiting=self.disclosure.waiting(seat)))

    def _run_clock_again(self, *, force: bool = False) -> Outbox:
        """The stopped clock runs again once its seat waits for no answer (``force``: its
        time to wait this turn is used up)."""
        turn = turn_to_play(self)
        return self._clock_news(self.clock.run_again(
            self.now, turn, waiting=turn is not None and self.disclosure.waiting(turn),
            paused=self.pausing.paused, force=force))

    def _clock_news(self, news: Clock | None) -> Outbox:
        self._changed(news is not None)
        return [] if news is None else self.seating.broadcast(news)

    def _seat_went(self, seat: Seat) -> Outbox:
        """The person at ``seat`` went away: the pause hears of it (a bot thinking when
        the clocks stop or go plays after that, not during it)."""
        out, moved = self.pausing.seat_went(
            seat, self.now, self.clock, audience=[peer for peer, _ in self.seating.audience()],
            all_bots=all(slot.kind == "bot" for slot in self.seats.values()))
        self._changed(moved)
        return out

    def freeze(self, now: float | None = None) -> bool:
        """The server holds the table while its record waits for the disk (from ``now``):
        the clocks stop as for an agreed pause. False if a pause is in force already."""
        self._advance_now(now)
        stopped = self.pausing.freeze(self.clock, self.now)
        self._changed(stopped or now is not None)
        return stopped

    def thaw(self, now: float) -> None:
        """Let a table :meth:`freeze` stopped go on (unless its players paused it)."""
        self._advance_now(now)
        self._changed(self.pausing.thaw(self.clock, self.now))

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
        self._changed()
        self.recording.seat(slot)
        out: Outbox = [(peer, Joined(id=req_id, table=self.id, seat=slot.seat, token=token)),
                       *state_for(self, peer, slot.seat)]
        out += self.seating.broadcast(PlayerJoined(seat=slot.seat, name=slot.name or name,
                                                           kind="human"), skip=peer)
        return token, out

    def spectate(self, peer: Peer, req_id: MessageId | None = None) -> Outbox:
        """Watch the table: the public view only."""
        self.seating.watch(peer, allowed=self.options.allow_spectators)
        return [(peer, views.table_state(table_snapshot(self), None, id=req_id))]

    def _publish(self, seat: Seat) -> Outbox:
        """A turn boundary of ``seat``: a drop or a return of its player is told now."""
        return self.holds.publish(seat, self.now, self.options.hold_seconds)

    def _turn(self, turn: Seat, audience: list[tuple[Peer, Seat | None]],
              grace: float = 0.0) -> Outbox:
        """``turn`` to everyone in ``audience`` (the caller's, who just told them of the
        deal or the play), and ``your_turn`` to the player at that seat (a seat a
        server-side bot plays has no connection to send it to)."""
        # The clock starts now for a human seat when the table has one: ``turn`` and
        # ``your_turn`` say how long it has.
        msg = Turn(seat=turn, seconds=self._arm_clock(grace))
        # A drop or a return of the seat to play is told now, a time it does not choose.
        out = self._publish(turn)
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
        out = seat_bot(self.seating, self.options, self.conventions, requester, seat, strategy,
                       req_id, invite)
        self.recording.seat(self.seats[seat])  # before anyone is told, as every event
        self._changed()
        return out + self._maybe_start() + self._maybe_rematch()

    def leave(self, peer: Peer, req_id: MessageId | None = None,
              now: float | None = None) -> Outbox:
        """Stop spectating, or give up the seat: mid-match the substitute takes it over
        if the table allows (docs/PROTOCOL.md, ``leave``)."""
        self._advance_now(now)
        out: Outbox = [(peer, Ok(id=req_id, request="leave"))]
        if self.seating.stop_watching(peer):
            return out
        slot = self.seating.require_seat(peer)
        self.disclosure.drop_questions(slot.seat)
        out += self._run_clock_again()  # the leaver may be the one its asker waits for
        in_match = self.in_match
        self.seating.leave(slot, in_match)
        self._changed()
        if in_match and self.options.bot_takeover:
            strategy = substitute(self.options, self.conventions, slot.seat)
            self.seating.seat_bot(slot, strategy)
            self.recording.seat(slot)
            self._bot_plays(slot.seat)
            out += self.seating.broadcast(PlayerLeft(seat=slot.seat),
                                          BotTakeover(seat=slot.seat, strategy=strategy),
                                          skip=peer)
            return out + self._seat_went(slot.seat) + self._maybe_next_deal_now()
        self.recording.seat(slot)
        return out + self.seating.broadcast(PlayerLeft(seat=slot.seat), skip=peer)

    def ready(self, peer: Peer, req_id: MessageId | None = None,
              now: float | None = None) -> Outbox:
        """Mark the sender ready; may start the match or the next deal (whose clock, if
        the table has one, starts at ``now``)."""
        self._advance_now(now)
        slot = self.seating.require_seat(peer)
        out: Outbox = [(peer, Ok(id=req_id, request="ready"))]
        if self.status in ("waiting", "between_deals") and self.seating.mark_ready(slot):
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
        news, new_terms = self.rematch_terms.ask(slot, self.seating, target)
        if new_terms:
            self._changed()
            snap = table_snapshot(self)
            out += [(each, views.table_state(snap, seat))
                    for each, seat in self.seating.audience()]
        return out + news + self._maybe_rematch()

    def _maybe_rematch(self) -> Outbox:
        if self.status != "over" or not self.seating.all_back():
            return []
        match = self.rematch_terms.next_match(self.match)
        self.recording.rematch(match.seed, None if match.target == self.options.target
                               else match.target)
        self._start_match(match)
        self.disclosure.changes.clear()  # a new match: its card changes are counted anew
        self.disclosure.expire_questions()
        self.seating.new_match()
        self._changed()
        return self.seating.broadcast(RematchStarted()) + self._maybe_start()

    def disconnect(self, peer: Peer, now: float) -> Outbox:
        """``peer``'s connection is gone: stop spectating, or hold its seat (.holds)."""
        self._advance_now(now)
        self._changed(self.seating.seat_of(peer) is not None)  # its seat is held from now
        out, went = self.holds.drop(self.status, peer, now, self.options.hold_seconds)
        return out if went is None else out + self._seat_went(went)

    def check_reclaim(self, seat: Seat) -> None:
        """Refuse a reclaim of ``seat`` past the deal's allowance (before anything changes
        or is told: see :mod:`.holds`)."""
        self.holds.check_reclaim(self.status, seat)

    def reclaim(self, peer: Peer, seat: Seat, now: float | None = None,
                host: str | None = None) -> Outbox:
        """``peer`` (from address ``host``) proved it owns ``seat``: give the seat back to
        it (a player back from a substitute on their own turn gets a full clock from
        ``now``)."""
        self._advance_now(now)
        out, from_substitute = self.holds.reclaim(self.status, peer, seat, host,
                                                  in_match=self.in_match,
                                                  hold_seconds=self.options.hold_seconds)
        if from_substitute and turn_to_play(self) is seat:
            self._arm_clock()  # back from a substitute on their own turn: a fresh clock
        self._changed()
        out += back_at_seat(self, peer, seat)
        return out + self._maybe_rematch()  # the last who asked for one may be back

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do."""
        times = self.seating.holds()
        times += self.clock.deadlines(paused=self.pausing.paused)
        if self.pausing.due_at is not None:
            times.append(self.pausing.due_at)
        return min(times) if times else None

    def tick(self, now: float) -> Outbox:
        """Act on every deadline that has passed: holds running out, the next deal, a
        turn's clock."""
        self._advance_now(now)
        out, changed, substituted = self.holds.expire(self.status, now, self.options,
                                                      self.conventions)
        for seat in substituted:
            self._bot_plays(seat)
        self._changed(changed)
        if self.pausing.due_at is not None and now >= self.pausing.due_at:
            news, moved = self.pausing.tick(now, self.clock, self.seating.present(),
                                            [peer for peer, _ in self.seating.audience()])
            self._changed(moved)
            out += news + self._maybe_next_deal_now()
        if self.clock.next_deal_due(now):
            out += self._start_deal()
        if self.clock.stop_ended(now, paused=self.pausing.paused):
            out += self._run_clock_again(force=True)  # waited as long as it may this turn
        self._changed(self.clock.expire(now, turn_to_play(self)))
        return out

    def pause(self, peer: Peer, now: float, req_id: MessageId | None = None) -> Outbox:
        """Ask for a pause, or agree to the one asked for (see :mod:`.pause`)."""
        self._advance_now(now)
        seat = self.seating.require_seat(peer).seat
        self.pausing.request(seat, self.status, turn_to_play(self), self.now, peer, req_id)
        return []

    def end_pause(self, peer: Peer, now: float, req_id: MessageId | None = None) -> Outbox:
        """End the pause, or withdraw the request for one."""
        self._advance_now(now)
        self.pausing.end(self.seating.require_seat(peer).seat, self.now, peer, req_id)
        return self._maybe_next_deal_now()

    # ------------------------------------------------------------------ the match

    def _maybe_start(self) -> Outbox:
        if self.status != "waiting" or not self.seating.all_ready():
            return []
        self.recording.match_start()
        out = self._start_deal()
        self.seating.remember_hosts(self.in_match)
        return out

    def _maybe_next_deal_now(self) -> Outbox:
        if self.status != "between_deals" or self.pausing.paused:
            return []
        if all(slot.ready for slot in self.seating.humans):
            return self._start_deal()
        return []

    def _start_deal(self) -> Outbox:
        self.clock.next_deal_at(None)
        deal = self.match.start_deal()
        self.bot_cards = {}
        self.disclosure.asked.clear()  # each deal's questions are counted afresh
        self.holds.new_deal()  # and its reclaims
        self.deal_conventions = dict(self.conventions)
        self.status = "playing"
        self._changed()
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
            raise ProtocolError(ErrorCode.PAUSED, "the table is paused until someone resumes")
        index = deal.play(card, seat)  # the engine's refusal goes to the player as is
        self._changed()
        # Who made the play: the player, a bot seat, or a stand-in for a person.
        bot_by = None if player is not None else self.seats[seat].stand_in
        by: PlayedBy = "player" if player is not None else bot_by or "bot"
        self.clock.played(deal_over=deal.is_over)
        self.recording.play(seat, card, index, by)
        if bot_by is not None:
            self.bot_cards[seat, index] = bot_by
        # One shared message for everyone but the player, whose copy carries the id.
        public = Played(seat=seat, card=card, index=index, by=bot_by)
        own = Played(id=req_id, seat=seat, card=card, index=index)
        audience = self.seating.audience()
        out: Outbox = [(peer, own if peer is player else public) for peer, _ in audience]
        out += self._publish(seat)  # the end of its turn
        if deal.is_over:
            return out + self._end_deal(now)
        turn = deal.turn
        assert turn is not None
        return out + self._turn(turn, audience)

    def _end_deal(self, now: float) -> Outbox:
        deal = self.match.deal
        assert deal is not None
        number = self.match.deal_number
        out: Outbox = []
        for slot in self.seats.values():
            out += self._publish(slot.seat)
        result = self.match.finish_deal()
        questions = self.disclosure.expire_questions()
        self.last_deal = deal
        winner = self.match.winner
        # Between deals with a person seated, the next deal waits: say how long.
        wait = self.options.between_deals_seconds if winner is None and self.seating.humans \
            else None
        ended = views.deal_ended(deal, number, result, self.match.scores, wait,
                                 self.summaries.best(number), questions)
        self.recording.result(number, result, self.match.scores)
        if self.seating.humans:
            # The expert pair's figure is for people learning; bots alone are not shown it.
            self.summaries.ask_expert(number, deal.dealer, self.deal_conventions)
        out += self.seating.broadcast(ended)
        if winner is not None:
            self.status = "over"
            self.pausing = PauseVote()  # nothing left to pause; a new match asks anew
            self.recording.match_end(winner, self.match.scores)
            self.seating.match_over(now + self.options.hold_seconds)
            return out + self.seating.broadcast(MatchEnded(winner=winner,
                                                            scores=ended.scores))
        self.status = "between_deals"
        self.seating.unready()
        if not self.seating.humans:
            if self.unseated_deal_limit is not None and number >= self.unseated_deal_limit:
                # Bots alone (perhaps watched) would play forever and fill the record.
                self.halted = "deal_limit"
                self._changed()
                return out
            return out + self._start_deal()
        self.clock.next_deal_at(now + self.options.between_deals_seconds)
        return out
