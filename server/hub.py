"""The hub: routes each client message to the lobby, a table or the hello desk, and
delivers what they answer (waking the table's task, :mod:`.table_task`). Handling a message
never awaits, so one slow client or one busy table holds up no other. The behaviour is
docs/PROTOCOL.md's."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

import trio

from ..game.conventions import ConventionCard
from ..game.errors import Refusal
from ..game.seats import SEATS, Seat, Team
from ..game.version import package_version
from ..protocol.codec import encode
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    FEATURES,
    PROTOCOL_VERSION,
    ChatLine,
    Error,
    Explanation,
    ServerPong,
    TableCreated,
    Tables,
    Welcome,
)
from ..protocol.requests import (
    AddBot,
    AnswerQuestion,
    Ask,
    Chat,
    ClientMessage,
    Conventions,
    CreateTable,
    Explain,
    Hello,
    Help,
    Hint,
    Join,
    Leave,
    ListTables,
    Pause,
    Ping,
    Play,
    Pong,
    Ready,
    Rematch,
    Resume,
    Spectate,
    Sync,
)
from .bots import BotPool
from .canned import HELP
from .chat import chat_message
from .config import ServerConfig
from .deal_scope import check_chat_open, check_lobby_open, listing
from .deal_summary import ExpertJob
from .disclosure import resolve_conventions
from .expert_pool import ExpertPool, default_workers
from .hello import Greeter
from .hints import HintDesk
from .lobby import Lobby
from .member import Member
from .names import NameBook
from .net.keepalive import Keepalive
from .net.ratelimit import AddressLimits, address_group, rate_limited, refilled
from .net.session import Session
from .net.transport import Flusher
from .records.desk import RecordDesk, records_unavailable
from .records.restore import restore_tables
from .seating import Outbox, Peer
from .snapshot import shown_deal, state_for
from .table import Table
from .table_options import TableOptions
from .table_task import TableTasks
from .tokens import new_invite

__all__ = ["Hub"]

log = logging.getLogger("jackal.server")


class Hub:
    """Everything one server process holds: sessions, the lobby, tables, bots, records."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.lobby = Lobby()
        #: The expert pair's play-throughs: worker processes with a bounded backlog.
        self.experts = ExpertPool(default_workers() if config.expert_workers is None
                                  else config.expert_workers, config.expert_backlog,
                                  self._expert_done)
        self.bots = BotPool(config.bot_threads, config.bot_think_seconds,
                            config.bot_floor_seconds)
        self.hints = HintDesk(self.bots)
        #: Every open connection, with what the hub knows of it.
        self.sessions: dict[Session, Member] = {}
        #: Who goes by which name (one person per name; see :mod:`.names`).
        self.names = NameBook()
        # Built once: looking the version up costs milliseconds, for every connection.
        self._welcome = Welcome(protocol=PROTOCOL_VERSION, server="jackal",
                                version=package_version(),
                                hint='send {"type":"help"} for the list of messages',
                                features=list(FEATURES))
        #: The one task that writes every connection's outgoing bytes.
        self.flusher = Flusher()
        #: The one task that keeps every connection's timers.
        self.keepalive = Keepalive()
        self.addresses = AddressLimits(config.max_per_address,
                                       config.password_guesses_per_minute / 60.0,
                                       config.password_guess_burst,
                                       config.token_guesses_per_minute / 60.0,
                                       config.token_guess_burst,
                                       config.chat_per_minute_per_address / 60.0,
                                       config.chat_burst_per_address)
        self.greeter = Greeter(config, self.lobby, self.names, self.addresses, self.table_acted)
        self.records = RecordDesk(config, self.deliver, lambda table: self.tasks.poke(table))
        #: Each table's task (its timers and server-side bots).
        self.tasks = TableTasks(config, self.lobby, self.bots, self.hints, self.records,
                                self.deliver, self.table_acted, self._creator_here)
        self._nursery: trio.Nursery | None = None
        self._numbers = 0
        self.closing = False
        #: Set when the last connection ends while :meth:`shutdown` waits.
        self._all_gone: trio.Event | None = None

    # ------------------------------------------------------------------ setup

    def start(self, nursery: trio.Nursery) -> None:
        """Restore unfinished matches (with a records dir) and start table tasks there."""
        self._nursery = nursery
        nursery.start_soon(self.flusher.run)
        nursery.start_soon(self.keepalive.run)
        nursery.start_soon(self.experts.run)
        if self.config.expert_eager:
            self.experts.start()
        if self.config.records_dir is None:
            return
        self.records.start(nursery)
        for table, record in restore_tables(self.config.records_dir, trio.current_time()):
            self.lobby.add(table)
            self.records.adopt(table, record)
            log.info("table %s restored from %s (deal %d, status %s)", table.id, record.path,
                     table.match.deal_number, table.status)
            # The restored deal already started (and was logged) before the restart: the
            # "restored" line says where it stands, so don't log it as starting again.
            self.tasks.start(nursery, table, restored=True)

    def connected(self, session: Session) -> None:
        """``session`` was admitted (its address group counted by ``addresses``)."""
        self.sessions[session] = Member(session, address_group(session.address))

    def created_by(self, creator: Session) -> list[Table]:
        """The open tables ``creator`` made."""
        return [table for table in self.lobby.tables.values()
                if table.seating.creator is creator]

    def next_number(self) -> int:
        self._numbers += 1
        return self._numbers

    def welcome(self) -> Welcome:
        return self._welcome

    # ------------------------------------------------------------------ delivery

    def deliver(self, out: Outbox) -> None:
        """Deliver an outbox.

        A message object sent to several recipients is encoded once, and each connection
        gets its lines of this outbox as one piece of bytes (a play sends ``played``,
        ``turn`` and perhaps ``your_turn`` to a seat: one push, not three).
        """
        encoded: dict[int, bytes] = {}
        lines: dict[Session, bytes] = {}
        for peer, msg in out:
            if isinstance(peer, Session):
                data = encoded.get(id(msg))
                if data is None:
                    data = encoded[id(msg)] = encode(msg)
                queued = lines.get(peer)
                lines[peer] = data if queued is None else queued + data
            else:
                peer.deliver(msg)
        for session, data in lines.items():
            session.send_line(data)

    def table_acted(self, out: Outbox, table: Table) -> None:
        """``table`` acted: deliver its outbox, start the expert play-throughs of the
        deals it finished, and wake its task."""
        self.deliver(out)
        if table.summaries.due and self._nursery is not None:
            for job in table.summaries.take_due():
                self.experts.submit(table, job)
        self.tasks.wake(table)

    # ------------------------------------------------------------------ connections

    def connection_closed(self, session: Session) -> None:
        """A connection ended: hold its seat or stop its watching."""
        member = self.sessions.pop(session, None)
        if member is not None:
            self.addresses.release(member.host)
        if session.name is not None:
            self.names.release(session, session.name)
        if not self.sessions and self._all_gone is not None:
            self._all_gone.set()
        reason = session.dropped_reason or "closed"
        log.info("connection #%d %s closed (%s)", session.number, session.address, reason)
        # Its tables nobody came to now go after ``orphan_table_seconds``: let their tasks
        # look at their timers again.
        for table in self.created_by(session):
            self.tasks.poke(table)
        gone = self.lobby.disconnect(session, trio.current_time())
        if gone is not None:
            self.table_acted(gone[1], gone[0])

    async def shutdown(self, grace: float) -> None:
        """The server is stopping (new connections are no longer accepted).

        Every connection gets ``server_shutdown`` after what is already queued for it and
        is closed once that is written; this waits at most ``grace`` seconds for them all
        (a client that does not read is not waited for longer). Records are closed last,
        so the tables' final events are written, and this returns once every record is
        synced and closed. Runs shielded by the caller.
        """
        self.closing = True
        told = len(self.sessions)
        for session in list(self.sessions):
            session.shutdown()
        with trio.move_on_after(grace):
            while self.sessions:
                self._all_gone = trio.Event()
                await self._all_gone.wait()
        left = len(self.sessions)
        await self.records.close_all()
        await self.experts.close()
        log.info("server stopped (%d connections told%s)", told,
                 f", {left} not finished in time" if left else "")

    # ------------------------------------------------------------------ messages

    def handle_message(self, session: Session, msg: ClientMessage, now: float) -> None:
        """Answer one message from ``session`` (never awaits). The session has already
        applied the protocol's state machine and the rate limit."""
        try:
            self.dispatch(session, msg, now)
        except Refusal as exc:  # the protocol's, the table's and the engine's alike
            if isinstance(exc, ProtocolError) and exc.fatal:
                exc.id = msg.id
                session.close_with(exc)
            else:
                session.deliver(Error(id=msg.id, code=exc.code, message=exc.message))
        except Exception:
            log.exception("internal error on %r from connection #%d", type(msg).__name__,
                          session.number)
            session.deliver(Error(id=msg.id, code=ErrorCode.INTERNAL,
                                  message="internal server error (logged)"))

    def dispatch(self, session: Session, msg: ClientMessage, now: float) -> None:
        """Act on one decoded message (raises ProtocolError for a bad one)."""
        match msg:
            # Cases are tried in order: the message of a busy server's hot path first.
            case Play():
                table, _seat = self.lobby.seated(session)
                self.table_acted(table.play(session, msg.card, now, msg.id), table)
            case Help():
                session.send_parts(HELP.parts(msg.id))
            case Ping():
                session.deliver(ServerPong(id=msg.id))
            case Pong():
                pass  # the bytes arriving already counted as life
            case Hello():
                self.greeter.hello(self.sessions[session], msg)
            case ListTables():
                self._list_tables(session, msg)
            case CreateTable():
                self._create_table(session, msg)
            case Join():
                self._join(session, msg)
            case Spectate():
                self._spectate(session, msg)
            case AddBot():
                table = self.lobby.get(msg.table)
                self._check_lobby_open(session, "add_bot", table)
                self.table_acted(table.add_bot(session, msg.seat, msg.strategy, msg.id, now,
                                        msg.invite), table)
            case Leave():
                at = self.lobby.table_of(session)
                if at is not None and at.seating.seat_of(session) is not None:
                    self._check_lobby_open(session, "leave of a seat", at)
                table, out = self.lobby.leave(session, msg.id, now)
                self.table_acted(out, table)
            case Ready() | Rematch() | Conventions() | Ask() | AnswerQuestion() | Pause() \
                    | Resume():
                table, _seat = self.lobby.seated(session)
                self.table_acted(_seat_action(table, session, msg, now), table)
            case Explain():
                table = self.lobby.current(session)
                card, text, data = table.disclosure.explain(
                    shown_deal(table), table.deal_conventions, msg.seat, msg.index)
                session.deliver(Explanation(id=msg.id, seat=msg.seat, index=msg.index,
                                            card=card, text=text, meaning=data))
            case Sync():
                table = self.lobby.current(session)
                self.table_acted(state_for(table, session, table.seating.seat_of(session),
                                           msg.id), table)
            case Hint():
                self._hint(session, msg)
            case Chat():
                self._chat(session, msg, now)
            case _:  # pragma: no cover  (every client message is handled above)
                raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"cannot handle {msg!r}")

    def _list_tables(self, session: Session, msg: ListTables) -> None:
        """One page of the lobby: whatever its size, the reply stays small."""
        page = self.config.lobby_page
        total = len(self.lobby.tables)
        following = msg.offset + page
        session.deliver(Tables(id=msg.id, tables=listing(self.lobby.tables, msg.offset, page,
                                                         self._peer_host),
                               total=total, next=following if following < total else None))

    def _create_table(self, session: Session, msg: CreateTable) -> None:
        self._check_lobby_open(session, "create_table")
        conventions: dict[Team, ConventionCard] = {}
        if msg.conventions_ns is not None:
            conventions[Team.NS] = resolve_conventions(msg.conventions_ns, "conventions_ns")
        if msg.conventions_ew is not None:
            conventions[Team.EW] = resolve_conventions(msg.conventions_ew, "conventions_ew")
        mine = len(self.created_by(session))
        if mine >= self.config.max_tables_per_connection:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"you already have {mine} open tables "
                                f"(at most {self.config.max_tables_per_connection})")
        host = self.sessions[session].host
        held = sum(1 for table in self.lobby.tables.values()
                   if self._peer_host(table.seating.creator) == host)
        self.addresses.check_new_table(held, len(self.lobby.tables), self.config.max_tables,
                                       self.config.max_tables_per_address)
        table_id = self.lobby.new_id()
        # A private table: one invitation code per seat; the creator gets the codes, the
        # table (and its record) only their hashes.
        made = {seat: new_invite() for seat in SEATS} if msg.private else None
        codes = None if made is None else {seat: code for seat, (code, _h) in made.items()}
        options = TableOptions(
            name=msg.name or f"Table {table_id}", target=msg.target,
            seed=msg.seed if msg.seed is not None else self.lobby.random_seed(),
            bot_takeover=msg.bot_takeover, hold_seconds=self.config.hold_seconds,
            between_deals_seconds=self.config.between_deals_seconds,
            takeover_strategy=self.config.takeover_strategy,
            turn_seconds=_clock(msg.turn_seconds, self.config.turn_seconds,
                                self.config.min_turn_seconds),
            seeded=msg.seed is not None,
            hints=self.config.hints if msg.hints is None else msg.hints,
            creator=session.name,
            allow_spectators=(not msg.private if msg.allow_spectators is None
                              else msg.allow_spectators),
            invites=None if made is None else {
                seat: code_hash for seat, (_c, code_hash) in made.items()})
        record = self.records.new(table_id, (f"address {host}", f"name {session.name}"))
        table = self.lobby.create(options, conventions, record, table_id, creator=session)
        table.record_header()
        if record is not None:
            if record.failing:
                # Nothing of it may come back after a restart: it was never announced.
                self.lobby.remove(table)
                record.discard()
                raise records_unavailable("the server cannot write match records now")
            self.records.keep(table, record)
        session.deliver(TableCreated(id=msg.id, table=table.id, name=table.name,
                                     private=msg.private, invitations=codes))
        log.info("table %s %r created by connection #%d (target %d%s)", table.id, table.name,
                 session.number, msg.target, ", private" if msg.private else "")
        assert self._nursery is not None
        self.tasks.start(self._nursery, table)

    def _check_lobby_open(self, session: Session, what: str, at: Table | None = None
                          ) -> None:
        """Refuse ``what`` (a lobby write, at table ``at`` if it has one) while a person of
        ``session``'s address plays a deal elsewhere: at ``at`` itself, the deal's seats
        see the change at the table anyway (seat changes mid-deal are the table's rules)."""
        if self.config.lobby_closed_in_deals:
            check_lobby_open((table for table in self.lobby.tables.values()
                              if table is not at), self.sessions[session].host, what)

    def _join(self, session: Session, msg: Join) -> None:
        at = self.lobby.get(msg.table)
        self._check_lobby_open(session, "join", at)
        self.records.check_writable(at)
        table, out = self.lobby.join(session, session.name or "anonymous", msg.table,
                                     msg.seat, msg.id, msg.invite,
                                     self.sessions[session].host)
        log.info("connection #%d %r sits at %s %s", session.number, session.name, table.id,
                 table.seating.seat_of(session))
        self.table_acted(out, table)

    def _hint(self, session: Session, msg: Hint) -> None:
        """Answer at once when this turn's hint is known; else work it out in a task.
        A connection's hints are rate-limited (``hints_per_minute``, ``hint_burst``):
        beyond, ``rate_limited``; only a hint that must be worked out costs."""
        table = self.lobby.current(session)
        now = trio.current_time()
        member = self.sessions[session]
        bucket = member.hints = refilled(member.hints, self.config.hints_per_minute,
                                         self.config.hint_burst, now)
        wait = bucket.wait_for_one()
        if wait:
            session.deliver(rate_limited(msg.id, "too many hints", wait))
            return
        out, seat = self.hints.request(table, session, msg.id)
        self.deliver(out)
        if seat is not None:
            bucket.take(now)  # only a hint that must be worked out costs one
            assert self._nursery is not None
            self._nursery.start_soon(self._hint_work, table, seat)

    async def _hint_work(self, table: Table, seat: Seat) -> None:
        self.deliver(await self.hints.work(table, seat))

    def _expert_done(self, table: Table, job: ExpertJob, cost: Mapping[Team, int] | None,
                     reason: str | None) -> None:
        """A play-through's figure (or why there is none), told to its table if still open."""
        if self.lobby.tables.get(table.id) is table:
            self.deliver(table.expert_done(job, cost, reason))

    def _chat(self, session: Session, msg: Chat, now: float) -> None:
        """A chat line: to the sender's table (the table says who reads it), or to every
        connection in the lobby. Limited per connection and per address."""
        member = self.sessions[session]
        bucket = member.chat = refilled(member.chat, self.config.chat_per_minute,
                                        self.config.chat_burst, now)
        host = member.host
        wait = max(bucket.wait_for_one(), self.addresses.chat.wait(host, now))
        if wait:
            session.deliver(rate_limited(msg.id, "too many chat lines", wait))
            return
        name = session.name or "anonymous"
        table = self.lobby.table_of(session)
        if table is None or table.seating.seat_of(session) is None:
            # A seated player's second window (in the lobby, or watching) is the same
            # person typing: it may not carry text past the rule its seat keeps.
            check_chat_open(self.lobby.tables.values(), table, host)
        if table is not None:
            out = table.chat.say(table.status, session, name, msg.text, msg.id)
        else:
            line = ChatLine(channel="lobby", name=name, text=msg.text)
            public = chat_message(line)
            out = [(peer, public) for peer in self.sessions
                   if peer is not session and peer.helloed and not peer.closing
                   and self.lobby.table_of(peer) is None]
            out.append((session, chat_message(line, msg.id)))
        bucket.take(now)
        self.addresses.chat.wrong(host, now)
        self.deliver(out)

    def _spectate(self, session: Session, msg: Spectate) -> None:
        table, out = self.lobby.spectate(session, msg.table, msg.id)
        self.table_acted(out, table)

    # ------------------------------------------------------------------ tables

    def _creator_here(self, table: Table) -> bool:
        """The connection that created ``table`` is still open (False for a table
        restored from its record: its creator's connection ended with the old server)."""
        creator = table.seating.creator
        return isinstance(creator, Session) and creator in self.sessions

    def _peer_host(self, peer: Peer | None) -> str | None:
        """The address group of a connection (None for what is not one): its member's
        while it is open (no address parsed again for each table of a lobby page or of
        a create's count), worked out from its address once it has closed."""
        if not isinstance(peer, Session):
            return None
        member = self.sessions.get(peer)
        return member.host if member is not None else address_group(peer.address)


def _clock(asked: float | None, default: float | None, least: float) -> float | None:
    """A table's per-play clock: what ``create_table`` asked (0: none), else the server's.

    A clock shorter than ``least`` is refused: at a fraction of a second the substitute
    would play a person's cards before they could see them (``1e-300`` was accepted).
    """
    if asked is not None and asked != 0 and not (math.isfinite(asked) and asked >= least):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE,
                            f"field 'turn_seconds': a clock is at least {least:g} seconds "
                            f"(0 for none), not {asked!r}")
    chosen = default if asked is None else asked
    return chosen if chosen else None


def _seat_action(table: Table, session: Session,
                 msg: Ready | Rematch | Conventions | Ask | AnswerQuestion | Pause | Resume,
                 now: float) -> Outbox:
    """What a seated player's request about the match does at its table."""
    match msg:
        case Ready():
            return table.ready(session, msg.id, now)
        case Rematch():
            return table.rematch(session, msg.id, now, msg.target)
        case Conventions():
            return table.set_conventions(session, msg.card, msg.id)
        case Ask():
            return table.ask(session, msg.seat, msg.text, msg.index, msg.id, now)
        case AnswerQuestion():
            return table.answer(session, msg.question, msg.text, msg.id, now)
        case Pause():
            return table.pause(session, now, msg.id)
        case Resume():
            return table.end_pause(session, now, msg.id)
