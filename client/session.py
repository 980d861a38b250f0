"""A seat at a Jackal table that survives dropped connections: :class:`SeatSession`,
shared by ``jackal bot`` and the terminal UI. It reconnects with backoff and reclaims the
seat with its token; its :class:`~jackal.client.mirror.TableMirror` is the client's one
copy of the table."""

from __future__ import annotations

import logging
from collections.abc import (
    AsyncIterator,
    Callable,
    Collection,
    Mapping,
    Sequence,
)
from enum import StrEnum
from typing import TypeVar

import trio

from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.seats import Seat
from ..protocol.errors import ErrorCode
from ..protocol.messages import (
    HelloOk,
    Joined,
    MatchEnded,
    Played,
    ServerMessage,
    ServerShutdown,
    TableCreated,
    TableState,
    TableStatus,
)
from ..protocol.requests import (
    AddBot,
    ClientMessage,
    Conventions,
    CreateTable,
    Hello,
    Join,
    Leave,
    Play,
    Ready,
)
from .backoff import Backoff, SessionLost
from .connection import ClientError, Connection, ConnectionLost, ServerError, connect
from .event_stream import EventStream
from .mirror import Change, TableMirror

__all__ = ["Backoff", "MissingFeatures", "SeatSession", "SessionLost", "SessionStatus"]

log = logging.getLogger("jackal.client")


class SessionStatus(StrEnum):
    """The state of a :class:`SeatSession`'s link to its seat."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    #: The seat cannot be recovered (token rejected, server gone for too long).
    LOST = "lost"
    #: The session ended normally (match over, left, or closed by the program).
    CLOSED = "closed"


class MissingFeatures(ClientError):
    """The server's ``welcome.features`` lacks something this client relies on: the
    server is older than the client. Raised before ``hello``, so nothing changed there."""

    def __init__(self, where: str, version: str, missing: Sequence[str]) -> None:
        self.missing = tuple(missing)
        super().__init__(f"the server at {where} (jackal {version or 'unknown version'}) "
                         f"lacks the protocol features {', '.join(self.missing)}: it is "
                         "older than this client; upgrade the server")


StatusCallback = Callable[[SessionStatus, str], None]

_Reply = TypeVar("_Reply")


def _expect(reply: ServerMessage, kind: type[_Reply]) -> _Reply:
    """``reply`` if it is a ``kind``; a server that answers otherwise breaks the protocol."""
    if not isinstance(reply, kind):
        raise SessionLost(f"expected {kind.__name__} from the server, got "
                          f"{type(reply).__name__}")
    return reply

class SeatSession:
    """One seat at one table, kept across dropped connections.

    Shared by ``jackal bot`` and the terminal UI. Connect, say hello, take a seat and keep it::

        session = SeatSession("127.0.0.1", 7878, name="alice", table="t1", seat=Seat.S,
                              on_status=lambda status, detail: ...)
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)        # returns once seated
            async for event in session.events():    # session.mirror is as of this event
                if session.my_turn:                 # our turn, and not played yet
                    await session.play(card)        # raises ServerError (e.g. not_your_turn)
            # events() ends after match_ended, or raises SessionLost when the seat is gone

    ``session.mirror`` is the client's one copy of the table, a
    :class:`~jackal.client.mirror.TableMirror` (:mod:`jackal.client.mirror` lists its fields),
    and ``session.change`` what the event last handed out changed in it. Iterating
    ``events()`` is what updates it (one event at a time, so a handler always sees the table
    as of the event it handles): keep one task iterating it. Because the mirror can be a few
    events behind the server, ``mirror.my_turn`` can still be True for a turn you just
    played; ``session.my_turn`` also remembers your plays (and forgets them on a reclaim's
    ``table_state``), so act on that.

    Constructor options: ``table`` (join it) or ``create`` (a ``CreateTable`` message: a new
    table is made and joined; ``table=None`` and no ``create`` makes one with defaults);
    ``seat`` (None: any free seat); ``invite`` (a private table's invitation code for the
    seat: sent with the join, and without ``seat`` it picks the seat); ``bots`` (``{Seat:
    strategy}``: server-side bots to add just before sitting down, e.g. to fill a table you
    created); ``conventions`` (a card spec -- built-in name or ``ConventionCard`` -- declared
    for your partnership before ready); ``password``; ``auto_ready`` (default True: send
    ``ready`` once seated, and again whenever ``events()`` hands out a table that waits for
    it, as after each deal); ``reconnect`` (a :class:`Backoff`); ``client`` (sent in hello);
    ``token`` (a token saved from an earlier run: the session starts by reclaiming that seat,
    and ``run`` raises ``ServerError`` ``bad_token`` if the server no longer holds it);
    ``features`` (names from ``welcome.features`` the caller relies on: on a connection whose
    server lacks one, ``run`` raises :class:`MissingFeatures` before saying hello, on the
    first connection or on any reconnection); ``rematch`` (default False: the session ends
    with ``match_ended``; True, on a server with the ``rematch`` feature, it goes on after
    the end, so the caller may ask for a ``rematch`` or ``leave``, and ends when the
    caller closes it).

    ``session.status`` is a :class:`SessionStatus`: "connecting" -> "connected" -> ("reconnecting"
    -> "connected")* -> "lost" | "closed"; every change is reported through
    ``on_status(status, detail)`` (called in the trio thread; keep it quick, e.g.
    ``app.invalidate()``); ``on_retry(delay, reason)`` is called before every reconnection
    attempt with the seconds until it (for a countdown). After a drop the session reconnects
    with exponential backoff and
    reclaims the seat by ``hello`` with the saved ``token``; the reclaim's ``table_state``
    resets the mirror (and is delivered through ``events()``), so no play is lost. A
    ``server_shutdown`` is treated the same way, since a server restarted on its records
    directory restores the match and holds the seats. It gives up ("lost") when the server
    rejects the token or ``reconnect.give_up_after`` seconds pass without a connection.

    Also: ``session.token``, ``session.table``, ``session.seat``, ``session.conn`` (the
    current :class:`~jackal.client.connection.Connection`, or None while reconnecting),
    ``await session.request(msg)`` (any request on the current connection, e.g. ``Explain``
    or ``Ask``; raises ``ConnectionLost`` while down), ``await session.ready()``,
    ``await session.leave()`` and ``await session.aclose()``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str = "player",
        table: str | None = None,
        seat: Seat | str | None = None,
        create: CreateTable | None = None,
        bots: Mapping[Seat, str] | None = None,
        conventions: str | ConventionCard | None = None,
        password: str | None = None,
        auto_ready: bool = True,
        reconnect: Backoff | None = None,
        client: str = "jackal-client",
        on_status: StatusCallback | None = None,
        request_timeout: float = 30.0,
        token: str | None = None,
        on_retry: Callable[[float, str], None] | None = None,
        features: Collection[str] = (),
        invite: str | None = None,
        rematch: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.table = table
        self.seat: Seat | None = None if seat is None else Seat(seat)
        self._create = create
        self._invite = invite
        self._bots = dict(bots or {})
        self._conventions = conventions
        self._password = password
        self.auto_ready = auto_ready
        self._rematch = rematch
        self._backoff = reconnect or Backoff()
        self._client = client
        self._on_status = on_status
        self._timeout = request_timeout
        #: The seat's secret. Given to the constructor, the session starts by reclaiming
        #: the seat it names (a client restarted with a saved token) instead of joining.
        self.token: str | None = token
        #: The table's status in the snapshot that came with the seat ("waiting": the
        #: match has not started; "between_deals": a seat taken back after a deal).
        self.seated_status: TableStatus | None = None
        #: Who sat in each seat ("empty", "human", "bot") in that snapshot.
        self.seated_with: dict[Seat, str] = {}
        self.conn: Connection | None = None
        self._on_retry = on_retry
        #: ``welcome.features`` this client relies on; checked on every connection.
        self._features = tuple(features)
        self._start_state()

    def _start_state(self) -> None:
        """What the session keeps as it runs (the options are :meth:`__init__`'s)."""
        #: The table as of the last event handed out by :meth:`events`: the client's one
        #: picture of it (a screen renders from it too).
        self.mirror = TableMirror()
        #: What that event changed in :attr:`mirror` (false when nothing).
        self.change = Change(False)
        self.status = SessionStatus.CONNECTING
        self.status_detail = ""
        # The one queue of events for the consumer: each connection in turn writes into
        # it. A consumer that leaves more than its budget unread (a hostile server flooding
        # while a bot thinks) gets the connection dropped, and the reclaim's table_state
        # starts its mirror again from a snapshot.
        self._events = EventStream()
        # Set by the seat's table_state as it is queued (see _take_seat).
        self._snapshot = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._ready_sent_for: int | None = None
        # Set when the mirror shows the table waiting for our ``ready``; the connection's
        # sender task sends it.
        self._ready_due = trio.Event()
        # Ready was sent as the seat was taken, before events() handed its snapshot out.
        self._ready_with_seat = False
        # (deal, plays made) of the turn we last played in, as the mirror saw it.
        self._played_for: tuple[int, int] | None = None
        self._closing = False
        self._cancel = trio.CancelScope()
        self._error: ClientError | None = None

    # ------------------------------------------------------------------ public

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Take the seat, then keep it until the match ends, the seat is lost or closed.

        ``task_status.started()`` is called once seated (the join's ``table_state`` is then
        waiting in :meth:`events`, which fills :attr:`mirror`). If the seat cannot be had
        in the first place this raises :class:`ConnectionLost` (server unreachable),
        :class:`ServerError` (hello, create or join refused, e.g. ``no_such_table``) or
        :class:`SessionLost`; later losses end :meth:`events` with :class:`SessionLost`.
        """
        started: list[bool] = []
        error: ClientError | None = None
        try:
            with self._cancel:
                # The connections' tasks run here, one connection after another.
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    try:
                        await self._keep_seat(task_status, started)
                    except ClientError as exc:
                        error = exc  # raised below, not wrapped in the nursery's group
                    nursery.cancel_scope.cancel()
        finally:
            self._nursery = None
            if error is not None:
                self._error = error if isinstance(error, SessionLost) \
                    else SessionLost(str(error))
                # Before the seat is had, the caller gets the exception and reports it.
                self._set_status(SessionStatus.LOST, str(error),
                                 level=logging.INFO if started else logging.DEBUG)
            if self.status is not SessionStatus.LOST:
                self._set_status(SessionStatus.CLOSED, self.status_detail or "closed")
            if self.conn is not None:
                with trio.CancelScope(shield=True):
                    await self.conn.aclose()
                self.conn = None
            self._events.end()
        if error is not None and not started:
            raise error

    async def _keep_seat(self, task_status: trio.TaskStatus[None],
                         started: list[bool]) -> None:
        """Take the seat (``started`` gets True then), then keep it across connections."""
        conn = await self._connect()
        if self.token is not None:
            await self._reclaim_seat(conn)
        else:
            await self._take_seat(conn)
        started.append(True)
        task_status.started()
        await self._serve(conn)
        while not self._closing:
            conn = await self._reconnect()
            await self._serve(conn)

    async def events(self) -> AsyncIterator[ServerMessage]:
        """Events in order; :attr:`mirror` is updated with each just before it is yielded.

        So while handling an event, the mirror shows the table exactly as of that event.
        Ends normally after ``match_ended`` (or :meth:`aclose`); raises
        :class:`SessionLost` if the seat was lost.
        """
        while True:
            try:
                item = await self._events.get()
            except trio.EndOfChannel:
                if self._error is not None:
                    raise self._error from None
                return
            self.change = self.mirror.apply(item)
            if isinstance(item, TableState):
                self._played_for = None  # the snapshot shows whether our play arrived
                self._ready_sent_for = None  # and whether our ready did
                if self._ready_with_seat:  # the seat's first one: its ready went already
                    self._ready_with_seat = False
                    if self._wants_ready():
                        self._ready_sent_for = self.mirror.deal
            if self._wants_ready():
                self._ready_sent_for = self.mirror.deal
                self._ready_due.set()
            yield item

    async def request(self, msg: ClientMessage) -> ServerMessage:
        """Send a request on the current connection and return its reply."""
        conn = self.conn
        if conn is None:
            raise ConnectionLost(f"not connected ({self.status})")
        reply = await conn.request(msg, timeout=self._timeout)
        # Our own played/table_state reach the mirror through the event stream as well.
        return reply

    @property
    def my_turn(self) -> bool:
        """It is our turn as of the last event handed out, and we have not played in it."""
        mirror = self.mirror
        return mirror.my_turn and self._played_for != (mirror.deal, mirror.plays_made)

    async def play(self, card: Card | str) -> Played:
        """Play ``card``; returns the server's ``played``. Raises ``ServerError``."""
        turn = (self.mirror.deal, self.mirror.plays_made)
        played = Card.parse(card) if isinstance(card, str) else card
        reply = _expect(await self.request(Play(card=played)), Played)
        self._played_for = turn
        return reply

    async def ready(self) -> None:
        """Tell the server this seat is ready to start (or to go on to the next deal)."""
        self._ready_sent_for = self.mirror.deal
        await self.request(Ready())

    async def leave(self) -> None:
        """Give up the seat and end the session."""
        self._closing = True
        try:
            await self.request(Leave())
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """End the session without giving up the seat (it stays held on the server)."""
        self._closing = True
        self._cancel.cancel()

    # ------------------------------------------------------------------ internals

    def _set_status(self, status: SessionStatus, detail: str = "", *,
                    level: int = logging.INFO) -> None:
        if status is self.status and detail == self.status_detail:
            return
        self.status = status
        self.status_detail = detail
        log.log(level, "%s: %s%s", self.name, status.value, f" ({detail})" if detail else "")
        if self._on_status is not None:
            self._on_status(status, detail)

    def _announce_retry(self, delay: float, reason: str) -> None:
        """Say when the next attempt comes (every attempt, so a countdown can be drawn)."""
        if self.status is not SessionStatus.RECONNECTING:
            self._set_status(SessionStatus.RECONNECTING, reason)
        if self._on_retry is not None:
            self._on_retry(delay, reason)

    async def _connect(self) -> Connection:
        conn = await self._open()
        self.conn = conn
        return conn

    async def _open(self) -> Connection:
        """A connection whose events go to :meth:`events`, its tasks in run()'s nursery."""
        assert self._nursery is not None, "only while run() runs"
        return await connect(self._nursery, self.host, self.port, event_stream=self._events,
                             on_event=self._watch)

    def _watch(self, conn: Connection, msg: ServerMessage) -> None:
        """Told of each event as ``conn`` queues it (in its reader task: never blocks)."""
        if isinstance(msg, TableState) and not self._snapshot.is_set():
            self.seated_status = msg.status
            self.seated_with = {info.seat: info.kind for info in msg.seats}
            self._snapshot.set()
        elif isinstance(msg, MatchEnded) and not self._stays(conn):
            self._closing = True
            self._set_status(SessionStatus.CLOSED, "match over")
            self._events.end()  # events() ends after this one
            conn.close_soon()
        elif isinstance(msg, ServerShutdown):
            # A server restarted on the same records directory restores the match and
            # holds our seat: try to reclaim it as after any drop (we give up if it never
            # comes back). The connection ends itself after this message.
            self._set_status(SessionStatus.RECONNECTING, f"server shutdown: {msg.reason}")

    async def _hello(self, conn: Connection, token: str | None) -> HelloOk:
        # Every connection, reconnections included: the server may have been replaced.
        welcome = conn.welcome
        offered = set(welcome.features) if welcome is not None else set()
        missing = [name for name in self._features if name not in offered]
        if missing:
            raise MissingFeatures(f"{self.host}:{self.port}",
                                  "" if welcome is None else welcome.version, missing)
        reply = await conn.request(Hello(name=self.name, protocol=1, client=self._client,
                                         token=token, password=self._password),
                                   timeout=self._timeout)
        return _expect(reply, HelloOk)

    async def _take_seat(self, conn: Connection) -> None:
        """First connection: hello, create the table if asked, fill, join, declare, ready."""
        await self._hello(conn, None)
        if self.table is None:
            created = await conn.request(self._create or CreateTable(), timeout=self._timeout)
            self.table = _expect(created, TableCreated).table
        # Bots go in before we sit down, so the join's table_state already shows them (not
        # at the table yet, we get only ``ok`` for each, not its player_joined).
        for bot_seat, strategy in self._bots.items():
            await conn.request(AddBot(table=self.table, seat=bot_seat, strategy=strategy),
                               timeout=self._timeout)
        join = Join(table=self.table, seat=self.seat, invite=self._invite)
        self._snapshot = trio.Event()  # before the join: its table_state may come at once
        joined = await conn.request(join, timeout=self._timeout)
        seated = _expect(joined, Joined)
        self.seat = seated.seat
        self.token = seated.token
        # The join's table_state follows as an event; queue it for events() first.
        await self._queue_snapshot(conn)
        if self._conventions is not None:
            await conn.request(Conventions(card=self._conventions), timeout=self._timeout)
        self._set_status(SessionStatus.CONNECTED, f"seated at {self.seat} of table {self.table}")
        await self._ready_when_seated(conn)

    async def _reclaim_seat(self, conn: Connection) -> None:
        """First connection with a saved token: hello with it, and the seat is ours again
        (``bad_token`` raises ``ServerError``: the server no longer holds it)."""
        self._snapshot = trio.Event()
        reply = await self._hello(conn, self.token)
        if reply.seat is None or reply.table is None:
            raise SessionLost("the server took the token but gave no seat back")
        self.table, self.seat = reply.table, Seat(reply.seat)
        # The reclaim's table_state follows as an event; queue it for events() first.
        await self._queue_snapshot(conn)
        self._set_status(SessionStatus.CONNECTED, f"reclaimed {self.seat} of table {self.table}")
        await self._ready_when_seated(conn)

    async def _queue_snapshot(self, conn: Connection) -> None:
        """Wait until the seat's ``table_state`` is queued for :meth:`events` (which
        :meth:`_watch` notes); ConnectionLost if the connection ends first."""
        snapshot = self._snapshot
        async with trio.open_nursery() as nursery:
            async def on_close() -> None:
                await conn.wait_closed()
                nursery.cancel_scope.cancel()
            nursery.start_soon(on_close)
            await snapshot.wait()
            nursery.cancel_scope.cancel()
        if not snapshot.is_set():
            raise ConnectionLost(conn.lost_reason or "closed")

    async def _ready_when_seated(self, conn: Connection) -> None:
        """Once seated, ``ready`` goes at once, before ``events()`` has handed the seat's
        first snapshot out (which then does not ask for it again)."""
        if self.auto_ready:
            self._ready_with_seat = True
            await self._request_ready(conn)

    async def _send_ready(self, conn: Connection) -> None:
        """Send ``ready`` on ``conn`` each time :meth:`events` finds it due."""
        while True:
            await self._ready_due.wait()
            self._ready_due = trio.Event()
            await self._request_ready(conn)

    async def _request_ready(self, conn: Connection) -> None:
        try:
            await conn.request(Ready(), timeout=self._timeout)
        except ServerError as exc:
            # Ready at the wrong moment (e.g. the deal already started) changes nothing.
            log.debug("ready refused: %s", exc)
        except ClientError as exc:
            # A dropped connection is noticed (and handled) by the event loop in _serve;
            # the reclaim's table_state says whether ready is due again.
            log.debug("ready not sent: %s", exc)

    def _wants_ready(self) -> bool:
        mirror = self.mirror
        if not self.auto_ready or mirror.you is None:
            return False
        if mirror.status not in ("waiting", "between_deals"):
            return False
        info = mirror.seats.get(mirror.you)
        return (info is None or not info.ready) and self._ready_sent_for != mirror.deal

    @property
    def stays_for_rematch(self) -> bool:
        """The session goes on after the match (see ``rematch``), on this connection."""
        conn = self.conn
        return conn is not None and self._stays(conn)

    def _stays(self, conn: Connection) -> bool:
        """After the match: stay for a rematch (asked for, and the server has it)."""
        welcome = conn.welcome
        return self._rematch and welcome is not None and "rematch" in welcome.features

    async def _serve(self, conn: Connection) -> None:
        """Keep ``conn`` (sending ``ready`` when due) until it ends: dropped, shut down,
        or closed after the match (its events go to :meth:`events` by themselves)."""
        try:
            async with trio.open_nursery() as nursery:
                if self.auto_ready:
                    nursery.start_soon(self._send_ready, conn)
                await conn.wait_closed()
                nursery.cancel_scope.cancel()
            if not self._closing and self.status is not SessionStatus.RECONNECTING:
                self._set_status(SessionStatus.RECONNECTING, conn.lost_reason or "closed")
        finally:
            self.conn = None
            with trio.CancelScope(shield=True):
                await conn.aclose()

    async def _reconnect(self) -> Connection:
        """Reconnect with backoff and reclaim the seat with the token."""
        return await self._backoff.retry(self._reclaim, self._announce_retry)

    async def _reclaim(self) -> Connection:
        """One attempt of :meth:`_reconnect`; raises ConnectionLost to be tried again."""
        conn = await self._open()
        try:
            reply = await self._hello(conn, self.token)
        except ServerError as exc:
            await conn.aclose()
            if exc.code in (ErrorCode.BAD_TOKEN, ErrorCode.BAD_PASSWORD):
                raise SessionLost(f"the server refused the seat: {exc}") from None
            raise ConnectionLost(str(exc)) from None
        except BaseException:
            with trio.CancelScope(shield=True):
                await conn.aclose()
            raise
        if reply.seat is None:
            await conn.aclose()
            raise SessionLost("the server no longer holds the seat")
        self.conn = conn
        if not self._closing:  # else the match ended while we took the seat back
            self._set_status(SessionStatus.CONNECTED,
                             f"reclaimed {reply.seat} of table {reply.table}")
        return conn
