"""The hub: routes each client message to the lobby or a table, and runs the tables.

Message handling is synchronous: each connection's session decodes its lines, applies
the protocol state machine (the hello rule) and the rate limit, and hands every good
message to :meth:`Hub.handle_message`, which calls one table or lobby method and
delivers the returned messages to the recipients' queues. Nothing in it awaits, so one slow
client or one busy table never holds up another. Each table has one task
(:meth:`Hub.run_table`) that sleeps until the table's next deadline or until an
action wakes it, runs server-side bot decisions in worker threads, and applies them
(dropped if the table moved on meanwhile, e.g. its player came back).

Behaviour decisions (for docs/PROTOCOL.md):

- ``pong`` is never answered (it is itself an answer); every other request gets exactly
  one direct reply carrying its ``id``.
- ``hello`` with a ``protocol`` other than 1 gets ``invalid_message`` naming the field.
- Before ``hello`` only ``help``, ``ping`` and ``pong`` are accepted; anything else gets
  ``hello_first``. A second ``hello`` gets ``not_allowed``. (Both rules are the protocol
  state machine's, jackal.protocol.state, applied by the session.) With a server password a
  ``hello`` without the right one gets ``bad_password`` and the connection may try again,
  up to five times: the fifth wrong password also closes it.
- ``hello`` without a token: a name a person from another address uses (or a held
  seat's) is ``name_taken``, one that reads as a server bot's ``name_reserved``
  (:mod:`.names`); the connection may try again.
- ``create_table`` from a connection seated at a table whose deal is being played is
  ``not_allowed``: the new table's name would reach its partner through the lobby.
- ``hello`` with a ``token`` reclaims that seat (``bad_token`` if it matches no seat):
  the reply is ``hello_ok`` with ``table`` and ``seat``, then a private ``table_state``.
  A connection still holding that seat is told ``bad_token`` and loses it.
- ``rate_limited`` carries ``retry_after`` (rounded up to the millisecond, so never 0)
  and changes nothing; ``flood_limit`` of them in a row close the connection.
- Decoding errors never close the connection; only framing (``line_too_long``),
  floods, timeouts and ``server_full`` do.
- A connection holds at most one seat (``already_seated``) and watches at most one
  table; joining or watching a table stops watching the previous one.
- Unexpected exceptions answer ``internal`` (logged) and leave the connection open; a
  bug inside one table's task closes that table only (``internal`` to everyone at it).
- ``create_table`` beyond ``max_tables`` gets ``server_full``, and beyond
  ``max_tables_per_connection`` tables created by the same connection that are still
  open, or ``max_tables_per_address`` created from the same address (all its
  connections, closed ones included), ``not_allowed``. A table leaves the lobby when
  its match is over, nobody is at it any more and no seat is held for a player who was
  away at the end (so they can reclaim it to see the end); when nobody has sat at or
  watched it for
  ``idle_table_seconds`` before its match started (``orphan_table_seconds`` once the
  connection that created it has closed); or when seats are taken but nobody
  attends it (no person seated and connected, nobody watching) for
  ``unattended_seconds``, whatever its status: bots do not play on for nobody, and the
  record is closed so a restart does not bring the table back.
- With a server password, wrong passwords are also limited per address (all its
  connections together): past ``password_guess_burst`` at once and
  ``password_guesses_per_minute``, a ``hello`` with a password gets ``rate_limited``
  (with ``retry_after``) without being checked. Wrong seat tokens likewise
  (``token_guess_burst``, ``token_guesses_per_minute``).
- A connection's requests cost its rate limit by size too (see :mod:`.session`).
- Without ``seed`` a table gets a random 63-bit match seed (kept in the records).
- ``chat`` at no table goes to every connection at no table (the lobby keeps no lines);
  at a table the table decides who reads it (:mod:`.chat`). Chat lines have buckets of
  their own, per connection (``chat_per_minute``, ``chat_burst``) and per address
  (``chat_per_minute_per_address``, ``chat_burst_per_address``): beyond them
  ``rate_limited`` with ``retry_after``, and the line goes nowhere.
"""

from __future__ import annotations

import hmac
import logging
import math

import trio

from ..game.conventions import ConventionCard
from ..game.seats import SEATS, Seat, Team
from ..game.version import package_version
from ..protocol.codec import encode
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import (
    FEATURES,
    PROTOCOL_VERSION,
    AddBot,
    AnswerQuestion,
    Ask,
    Chat,
    ChatLine,
    ClientMessage,
    Conventions,
    CreateTable,
    Error,
    Explain,
    Explanation,
    Hello,
    HelloOk,
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
    ServerPong,
    Spectate,
    Sync,
    TableCreated,
    Tables,
    Welcome,
)
from .bots import BotPool
from .canned import HELP
from .chat import chat_message
from .config import ServerConfig
from .disclosure import resolve_conventions
from .hints import HintDesk
from .keepalive import Keepalive
from .lobby import Lobby
from .names import NameBook
from .ratelimit import AddressLimits, GuessLimits, TokenBucket, host_of, retry_hint
from .records import RecordFile, RecordsFolder, RecordSyncer
from .restore import restore_tables
from .session import Session
from .table import Outbox, Table, TableOptions
from .tokens import new_invite
from .transport import Flusher

__all__ = ["Hub"]

log = logging.getLogger("jackal.server")

#: Wrong passwords one connection may send before it is closed (guessing is abuse).
MAX_BAD_PASSWORDS = 5


class Hub:
    """Everything one server process holds: sessions, the lobby, tables, bots, records."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.lobby = Lobby()
        self.bots = BotPool(config.bot_threads, config.bot_think_seconds,
                            config.bot_floor_seconds)
        self.hints = HintDesk(self.bots)
        self.sessions: dict[Session, None] = {}
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
        #: Who created each open table, and from which address (for
        #: ``max_tables_per_connection`` and ``max_tables_per_address``).
        self._creators: dict[Table, tuple[Session, str]] = {}
        #: Each table's own record: only the table that owns a record writes or closes it.
        self.records: dict[Table, RecordFile] = {}
        #: The records folder's size against its cap (``records_max_bytes``).
        self.folder: RecordsFolder | None = None
        #: Records the disk refuses now (each table's record: see :mod:`.records`).
        self.failing: dict[RecordFile, Table] = {}
        #: Fsyncs and closes the records off the event loop (see :mod:`.records`).
        self.syncer = RecordSyncer()
        self._wake: dict[str, trio.Event] = {}
        self._status_seen: dict[str, tuple[str, int]] = {}
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
        if self.config.records_dir is None:
            return
        nursery.start_soon(self.syncer.run)
        nursery.start_soon(self._retry_records)
        self.folder = RecordsFolder(self.config.records_dir, self.config.records_max_bytes)
        for table, record in restore_tables(self.config.records_dir, trio.current_time()):
            record.syncer = self.syncer
            self.lobby.add(table)
            self._keep_record(table, record)
            if record.failing:  # its restart line waits for the disk like any event
                self._record_trouble(record)
            # The restored deal already started (and was logged) before the restart: the
            # "restored" line says where it stands, so don't log it as starting again.
            self._status_seen[table.id] = (table.status, table.match.deal_number)
            log.info("table %s restored from %s (deal %d, status %s)", table.id, record.path,
                     table.match.deal_number, table.status)
            nursery.start_soon(self.run_table, table)

    def next_number(self) -> int:
        self._numbers += 1
        return self._numbers

    def welcome(self) -> Welcome:
        return self._welcome

    # ------------------------------------------------------------------ delivery

    def send(self, out: Outbox, table: Table | None = None) -> None:
        """Deliver a table's outbox (and wake the table's task if given).

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
        if table is not None:
            self.wake(table)

    def wake(self, table: Table) -> None:
        """Something happened at ``table``: log news, and let its task look again if it
        may have something to do."""
        seen = self._status_seen.get(table.id)
        if seen != (table.status, table.match.deal_number):
            self._status_seen[table.id] = (table.status, table.match.deal_number)
            if table.status == "playing":
                log.info("table %s: deal %d started", table.id, table.match.deal_number)
        # The task acts on bot turns, deadlines and status changes only. While humans play
        # a deal with no timer running none of those is due, so leave it asleep: this is
        # the hot path of a busy server. (A deadline it already sleeps on that was since
        # cancelled, e.g. by a player coming back, wakes it for a tick that does nothing.)
        if (table.status == "playing" and table.bot_turn() is None
                and table.next_deadline() is None):
            return
        self._poke(table)

    # ------------------------------------------------------------------ connections

    def connection_closed(self, session: Session) -> None:
        """A connection ended: hold its seat or stop its watching."""
        if self.sessions.pop(session, False) is None:
            self.addresses.release(host_of(session.address))
        if session.name is not None:
            self.names.release(session, session.name)
        if not self.sessions and self._all_gone is not None:
            self._all_gone.set()
        reason = session.dropped_reason or "closed"
        log.info("connection #%d %s closed (%s)", session.number, session.address, reason)
        if session.tables_created:
            # Its tables nobody came to now go after ``orphan_table_seconds``: let their
            # tasks look at their timers again.
            for table, (creator, _host) in self._creators.items():
                if creator is session:
                    self._poke(table)
        gone = self.lobby.disconnect(session, trio.current_time())
        if gone is not None:
            self.send(gone[1], gone[0])

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
        for record in self.records.values():
            record.close()
        await self.syncer.drain()  # every record synced and closed (also tables gone before)
        log.info("server stopped (%d connections told%s)", told,
                 f", {left} not finished in time" if left else "")

    # ------------------------------------------------------------------ messages

    def handle_message(self, session: Session, msg: ClientMessage, now: float) -> None:
        """Answer one message from ``session`` (never awaits). The session has already
        applied the protocol's state machine and the rate limit."""
        try:
            self.dispatch(session, msg, now)
        except ProtocolError as exc:
            exc.id = msg.id
            if exc.fatal:
                session.close_with(exc)
            else:
                session.deliver(exc.to_message())
        except Exception:
            log.exception("internal error on %r from connection #%d", type(msg).__name__,
                          session.number)
            session.deliver(Error(id=msg.id, code=ErrorCode.INTERNAL.value,
                                  message="internal server error (logged)"))

    def dispatch(self, session: Session, msg: ClientMessage, now: float) -> None:
        """Act on one decoded message (raises ProtocolError for a bad one)."""
        match msg:
            # Cases are tried in order: the message of a busy server's hot path first.
            case Play():
                table, _seat = self.lobby.seated(session)
                self.send(table.play(session, msg.card, now, msg.id), table)
            case Help():
                session.send_parts(HELP.parts(msg.id))
            case Ping():
                session.deliver(ServerPong(id=msg.id))
            case Pong():
                pass  # the bytes arriving already counted as life
            case Hello():
                self._hello(session, msg)
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
                self.send(table.add_bot(session, msg.seat, msg.strategy, msg.id, now,
                                        msg.invite), table)
            case Leave():
                table, out = self.lobby.leave(session, msg.id)
                self.send(out, table)
            case Ready():
                table, _seat = self.lobby.seated(session)
                self.send(table.ready(session, msg.id, now), table)
            case Rematch():
                table, _seat = self.lobby.seated(session)
                self.send(table.rematch(session, msg.id, now), table)
            case Conventions():
                table, _seat = self.lobby.seated(session)
                self.send(table.set_conventions(session, msg.card, msg.id), table)
            case Explain():
                table = self.lobby.current(session)
                card, text, data = table.explain(msg.seat, msg.index)
                session.deliver(Explanation(id=msg.id, seat=msg.seat, index=msg.index,
                                            card=card, text=text, meaning=data))
            case Ask():
                table, _seat = self.lobby.seated(session)
                self.send(table.ask(session, msg.seat, msg.text, msg.index, msg.id, now), table)
            case AnswerQuestion():
                table, _seat = self.lobby.seated(session)
                self.send(table.answer(session, msg.question, msg.text, msg.id, now), table)
            case Sync():
                table = self.lobby.current(session)
                self.send(table.sync(session, msg.id), table)
            case Hint():
                self._hint(session, msg)
            case Chat():
                self._chat(session, msg, now)
            case Pause():
                table, _seat = self.lobby.seated(session)
                self.send(table.pause(session, now, msg.id), table)
            case Resume():
                table, _seat = self.lobby.seated(session)
                self.send(table.end_pause(session, now, msg.id), table)
            case _:  # pragma: no cover  (every client message is handled above)
                raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"cannot handle {msg!r}")

    def _hello(self, session: Session, msg: Hello) -> None:
        # A second hello never gets here: the connection's state machine refuses it.
        if msg.protocol is not None and msg.protocol != PROTOCOL_VERSION:
            raise ProtocolError(ErrorCode.INVALID_MESSAGE,
                                f"field 'protocol': this server speaks protocol "
                                f"{PROTOCOL_VERSION}, not {msg.protocol}")
        password = self.config.password
        host, now = host_of(session.address), trio.current_time()
        if password is not None:
            # Not checked at all while throttled: guessing from this address goes no
            # faster than this.
            if self._throttled(session, msg, self.addresses.passwords, "passwords"):
                return
            if not _same(msg.password or "", password):
                self.addresses.passwords.wrong(host, now)
                session.bad_passwords += 1
                raise ProtocolError(ErrorCode.BAD_PASSWORD, "wrong or missing password",
                                    fatal=session.bad_passwords >= MAX_BAD_PASSWORDS)
        if msg.token is None:
            self.names.check(msg.name, host, self.lobby.held_names())
            session.conn.accept_hello(msg.name)
            self.names.take(session, msg.name, host)
            session.deliver(HelloOk(id=msg.id, name=msg.name))
            log.info("connection #%d %s is %r", session.number, session.address, msg.name)
            return
        # Not looked up at all while throttled: wrong tokens cost the server little.
        if self._throttled(session, msg, self.addresses.tokens, "tokens"):
            return
        found = self.lobby.find_token(msg.token)
        if found is None:
            self.addresses.tokens.wrong(host, now)
            raise ProtocolError(ErrorCode.BAD_TOKEN, "that token reclaims no seat")
        table, seat = found
        # A reclaim does not rename the seat: the name is the one the table shows.
        name = table.seats[seat].name or msg.name
        session.conn.accept_hello(name)
        self.names.take(session, name, host)  # the seat's own name: no check
        session.deliver(HelloOk(id=msg.id, name=name, table=table.id, seat=seat))
        self.send(self.lobby.reclaim(session, table, seat, trio.current_time(),
                                     host_of(session.address)), table)
        log.info("connection #%d %s reclaimed %s at table %s", session.number, session.address,
                 seat, table.id)

    @staticmethod
    def _throttled(session: Session, msg: Hello, guesses: GuessLimits, what: str) -> bool:
        """Whether ``session``'s address must wait before its next guess is checked; if
        so it is told (``rate_limited``) and nothing more of it is read until then."""
        now = trio.current_time()
        wait = guesses.wait(host_of(session.address), now)
        if not wait:
            return False
        hint = retry_hint(wait)
        session.deliver(Error(id=msg.id, code=ErrorCode.RATE_LIMITED.value,
                              message=f"too many wrong {what} from your address; "
                                      f"wait {hint:.3f} s", retry_after=hint))
        session.pause(now + hint)
        return True

    def _list_tables(self, session: Session, msg: ListTables) -> None:
        """One page of the lobby: whatever its size, the reply stays small."""
        page = self.config.lobby_page
        total = len(self.lobby.tables)
        following = msg.offset + page
        session.deliver(Tables(id=msg.id, tables=self.lobby.listing(msg.offset, page),
                               total=total, next=following if following < total else None))

    def _create_table(self, session: Session, msg: CreateTable) -> None:
        at = self.lobby.table_of(session)
        if at is not None and at.status == "playing" and at.seat_of(session) is not None:
            # Its name would be text in the lobby, which partner can read: no channel
            # from a seat during its deal.
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                "not while a deal is played at your table (a table's name "
                                "would reach your partner)")
        conventions: dict[Team, ConventionCard] = {}
        if msg.conventions_ns is not None:
            conventions[Team.NS] = resolve_conventions(msg.conventions_ns, "conventions_ns")
        if msg.conventions_ew is not None:
            conventions[Team.EW] = resolve_conventions(msg.conventions_ew, "conventions_ew")
        if len(self.lobby.tables) >= self.config.max_tables:
            raise ProtocolError(ErrorCode.SERVER_FULL,
                                f"this server already has {self.config.max_tables} tables")
        if session.tables_created >= self.config.max_tables_per_connection:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"you already have {session.tables_created} open tables "
                                f"(at most {self.config.max_tables_per_connection})")
        host = host_of(session.address)
        from_here = self.addresses.tables.get(host, 0)
        if from_here >= self.config.max_tables_per_address:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"your address already has {from_here} open tables "
                                f"(at most {self.config.max_tables_per_address})")
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
        record = self._new_record(table_id)
        table = self.lobby.create(options, conventions, record, table_id)
        table.record_header()
        if record is not None:
            if record.failing:
                # Nothing of it may come back after a restart: it was never announced.
                self.lobby.remove(table)
                record.discard()
                raise _records_unavailable("the server cannot write match records now")
            self._keep_record(table, record)
        table.creator_peer = session
        session.tables_created += 1
        self.addresses.table_created(host)
        self._creators[table] = (session, host)
        session.deliver(TableCreated(id=msg.id, table=table.id, name=table.name,
                                     private=msg.private, invitations=codes))
        log.info("table %s %r created by connection #%d (target %d%s)", table.id, table.name,
                 session.number, msg.target, ", private" if msg.private else "")
        assert self._nursery is not None
        self._nursery.start_soon(self.run_table, table)

    def _new_record(self, table_id: str) -> RecordFile | None:
        """A record file for a new table (None without a records folder); refused with
        ``records_unavailable`` while records cannot be written."""
        directory = self.config.records_dir
        if directory is None:
            return None
        if self.failing:
            raise _records_unavailable("the server cannot write match records now")
        if self.folder is not None and not self.folder.room_for_new_table():
            raise _records_unavailable("the server's records folder is at its cap")
        try:
            record = RecordFile.create(directory, table_id, self.config.record_max_bytes,
                                       self.folder)
        except OSError as exc:
            log.error("cannot create a record in %s: %s", directory, exc)
            raise _records_unavailable("the server cannot write match records now"
                                       ) from None
        record.syncer = self.syncer
        return record

    def _keep_record(self, table: Table, record: RecordFile) -> None:
        self.records[table] = record
        record.on_trouble = self._record_trouble

    def _record_trouble(self, record: RecordFile) -> None:
        """A record started or stopped failing, or is full: tell its table."""
        table = next((t for t, r in self.records.items() if r is record), None)
        if table is None:
            return
        if record.full:
            self._poke(table)  # its task closes it
        elif record.failing and record not in self.failing:
            self.failing[record] = table
            self.send(table.broadcast(Error(
                code=ErrorCode.RECORDS_FAILING.value,
                message="the server cannot write this table's record now (its disk is full "
                        "or read-only); play goes on, but if the server stopped before the "
                        "record is written again, the match would come back as it was when "
                        "this began")))
        elif not record.failing:
            self.failing.pop(record, None)

    async def _retry_records(self) -> None:
        """Every second, try again to write what records could not write."""
        while True:
            await trio.sleep(1.0)
            for record in list(self.failing):
                if record.closed or record.retry():
                    self.failing.pop(record, None)

    def _join(self, session: Session, msg: Join) -> None:
        record = self.records.get(self.lobby.get(msg.table))
        if record is not None and record.failing:
            raise _records_unavailable("this table's record cannot be written now, so a "
                                       "seat taken now could not be reclaimed after a "
                                       "restart")
        table, out = self.lobby.join(session, session.name or "anonymous", msg.table,
                                     msg.seat, msg.id, msg.invite,
                                     host_of(session.address))
        log.info("connection #%d %r sits at %s %s", session.number, session.name, table.id,
                 table.seat_of(session))
        self.send(out, table)

    def _hint(self, session: Session, msg: Hint) -> None:
        """Answer at once when this turn's hint is known; else work it out in a task.
        A connection's hints are rate-limited (``hints_per_minute``, ``hint_burst``):
        beyond, ``rate_limited``; only a hint that must be worked out costs."""
        table = self.lobby.current(session)
        now = trio.current_time()
        bucket = session.hint_bucket
        if bucket is None:
            bucket = session.hint_bucket = TokenBucket(self.config.hints_per_minute / 60.0,
                                                       self.config.hint_burst, now)
        bucket.refill(now)
        wait = bucket.wait_for_one()
        if wait:
            hint = retry_hint(wait)
            session.deliver(Error(id=msg.id, code=ErrorCode.RATE_LIMITED.value,
                                  message=f"too many hints; wait {hint:.3f} s",
                                  retry_after=hint))
            return
        out, seat = self.hints.request(table, session, msg.id)
        self.send(out)
        if seat is not None:
            bucket.take(now)  # only a hint that must be worked out costs one
            assert self._nursery is not None
            self._nursery.start_soon(self._hint_work, table, seat)

    async def _hint_work(self, table: Table, seat: Seat) -> None:
        self.send(await self.hints.work(table, seat))

    def _chat(self, session: Session, msg: Chat, now: float) -> None:
        """A chat line: to the sender's table (the table says who reads it), or to every
        connection in the lobby. Limited per connection and per address."""
        bucket = session.chat_bucket
        if bucket is None:
            bucket = session.chat_bucket = TokenBucket(self.config.chat_per_minute / 60.0,
                                                       self.config.chat_burst, now)
        host = host_of(session.address)
        bucket.refill(now)
        wait = max(bucket.wait_for_one(), self.addresses.chat.wait(host, now))
        if wait:
            hint = retry_hint(wait)
            session.deliver(Error(id=msg.id, code=ErrorCode.RATE_LIMITED.value,
                                  message=f"too many chat lines; wait {hint:.3f} s",
                                  retry_after=hint))
            return
        name = session.name or "anonymous"
        table = self.lobby.table_of(session)
        if table is not None:
            out = table.say(session, name, msg.text, msg.id)
        else:
            line = ChatLine(channel="lobby", name=name, text=msg.text)
            public = chat_message(line)
            out = [(peer, public) for peer in self.sessions
                   if peer is not session and peer.helloed and not peer.closing
                   and self.lobby.table_of(peer) is None]
            out.append((session, chat_message(line, msg.id)))
        bucket.take(now)
        self.addresses.chat.wrong(host, now)
        self.send(out)

    def _spectate(self, session: Session, msg: Spectate) -> None:
        table, out = self.lobby.spectate(session, msg.table, msg.id)
        self.send(out, table)

    # ------------------------------------------------------------------ tables

    async def run_table(self, table: Table) -> None:
        """The table's own task: timers and server-side bots; then it leaves the lobby.

        A table is removed from the lobby when its match is over, nobody is left at
        it and no seat is held for a player who was away at the end, or when nobody has
        attended it for ``unattended_seconds``. A bug in one table is logged and closes
        that table only.
        """
        table.unseated_deal_limit = self.config.max_unseated_deals
        try:
            while True:
                abandoned = await self._play(table)
                if abandoned is not None:
                    break
                log.info("table %s: match over, %s wins", table.id, table.match.winner)
                await self._linger(table)
                if table.status == "over":
                    break
                log.info("table %s: rematch", table.id)  # its players play again
            if abandoned is not None:
                log.info("table %s: %s, removed", table.id, abandoned)
                table.close(abandoned)
                why = _CLOSED_BECAUSE.get(abandoned)
                if why is not None:
                    self.send(table.broadcast(Error(code=ErrorCode.TABLE_CLOSED.value,
                                                    message=why)))
        except Exception:
            log.exception("table %s failed and is closed", table.id)
            self.send(table.fail())
        finally:
            self._wake.pop(table.id, None)
            self._status_seen.pop(table.id, None)
            self.bots.forget(table.id)
            self.hints.forget(table)
            creator = self._creators.pop(table, None)
            if creator is not None:
                creator[0].tables_created -= 1
                self.addresses.table_gone(creator[1])
            self.lobby.remove(table)
            record = self.records.pop(table, None)
            if record is not None:
                record.close()

    def _poke(self, table: Table) -> None:
        """Wake ``table``'s task whatever it waits for (its timers changed)."""
        event = self._wake.get(table.id)
        if event is not None:
            event.set()

    def _creator_here(self, table: Table) -> bool:
        """The connection that created ``table`` is still open (False for a table
        restored from its record: its creator's connection ended with the old server)."""
        creator = self._creators.get(table)
        return creator is not None and creator[0] in self.sessions

    def _new_wake(self, table: Table) -> trio.Event:
        wake = self._wake[table.id] = trio.Event()
        return wake

    async def _play(self, table: Table) -> str | None:
        """Run the match to its end (None), or until nobody has attended the table for
        long enough: ``idle`` (nobody ever took a seat, not even a bot, and nobody watches:
        ``idle_table_seconds``, or ``orphan_table_seconds`` once its creator has left)
        or ``unattended`` (seats taken, but no person connected and nobody watching:
        ``unattended_seconds``, whatever the status)."""
        alone_since: float | None = None
        while table.status != "over":
            record = self.records.get(table)
            if record is not None and record.full:
                return "record_full"
            if table.halted is not None:
                return table.halted
            now = trio.current_time()
            stop: float | None = None
            if table.attended:
                alone_since = None
            else:
                alone_since = now if alone_since is None else alone_since
                idle = table.status == "waiting" and table.is_empty
                if not idle:
                    wait = self.config.unattended_seconds
                elif self._creator_here(table):
                    wait = self.config.idle_table_seconds
                else:
                    wait = min(self.config.idle_table_seconds,
                               self.config.orphan_table_seconds)
                stop = alone_since + wait
                if now >= stop:
                    return "idle" if idle else "unattended"
            wake = self._new_wake(table)
            seat = table.bot_turn()
            if seat is not None:
                await self._bot_move(table, seat)
                continue
            deadline = table.next_deadline()
            if stop is not None:
                deadline = stop if deadline is None else min(deadline, stop)
            with trio.move_on_at(deadline if deadline is not None else math.inf):
                await wake.wait()
            self.send(table.tick(trio.current_time()), table)
        return None

    async def _linger(self, table: Table) -> None:
        """Keep a finished table listed while anyone is still at it, or while a player
        who was away at the end may still reclaim the seat to see it (a held seat); until
        a rematch starts a new match there."""
        while table.status == "over" and (table.audience()
                                          or table.next_deadline() is not None):
            wake = self._new_wake(table)
            deadline = table.next_deadline()
            with trio.move_on_at(deadline if deadline is not None else math.inf):
                await wake.wait()
            self.send(table.tick(trio.current_time()), table)

    async def _bot_move(self, table: Table, seat: Seat) -> None:
        slot = table.seats[seat]
        strategy = slot.strategy or table.substitute(seat)
        version = table.version
        pause = 0.0
        if table.clock_due is not seat and any(s.peer is not None for s in table.humans):
            # A pause so the people at the table can follow the round card by card. The
            # bot thinks during it, and its card leaves when the pause (or the floor, if
            # longer) is over, never when the thinking ends: that time would show the hand.
            pause = self.config.bot_pause_seconds
        card = await self.bots.choose(table.id, seat, strategy, table.bot_view(seat),
                                      attended=table.people_playing, at_least=pause)
        if table.version != version or table.bot_turn() is not seat:
            return  # the table moved on while the bot thought (e.g. its player came back)
        self.send(table.bot_play(seat, card, trio.current_time()), table)


#: What everyone at a table the server closes is told (``table_closed``), by reason.
_CLOSED_BECAUSE = {
    "record_full": "this table's match record reached its size cap: the table is closed",
    "deal_limit": "no person sits at this table and its bots have played the most deals "
                  "allowed: the table is closed",
}


def _records_unavailable(why: str) -> ProtocolError:
    return ProtocolError(ErrorCode.RECORDS_UNAVAILABLE,
                         f"{why}: no new tables or seats until it can")


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


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())
