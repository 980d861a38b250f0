"""A lobby connection that comes back by itself: :class:`LobbyLink`, the terminal client's
connection for the table list, creating tables, adding bots and spectating, beside a
seat's session. It reconnects with the seat's backoff and calls the owner back to put
back what the server forgot with the old connection."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable

import trio

from ..protocol.errors import ErrorCode
from ..protocol.messages import ServerMessage
from ..protocol.requests import ClientMessage, Hello
from .connection import ClientError, Connection, ConnectionLost, ServerError, connect
from .event_stream import EventStream
from .session import Backoff

__all__ = ["LinkStatus", "LobbyLink"]

#: Refusals of a hello that may pass by themselves (trying again later can help).
_PASSING = frozenset({ErrorCode.SERVER_FULL, ErrorCode.RATE_LIMITED, ErrorCode.TIMEOUT,
                      ErrorCode.INTERNAL})

#: ``on_status(status, detail, retry_in)``
LinkStatus = Callable[[str, str, "float | None"], None]


class LobbyLink:
    """A lobby connection that reconnects by itself.

    The terminal client keeps one connection for the lobby (the table list, creating tables,
    adding bots, spectating) beside the :class:`~jackal.client.session.SeatSession` of a seat.
    When the network blips or the server restarts, the link reconnects with the same
    backoff-with-jitter policy as a seat (:class:`~jackal.client.session.Backoff`), says
    hello again and calls ``on_connected(conn)`` so the owner can put back what the server
    forgot with the old connection (list the tables again, watch the same table again). It
    never gives up on its own: a player who sees RECONNECTING for too long quits with Ctrl-Q.

    What the owner sees:

    - ``on_status(status, detail, retry_in)``: ``"connecting"``, ``"connected"``,
      ``"unreachable"`` (no connection was ever made: the server is not there, or not yet),
      ``"reconnecting"`` (a connection was lost; both with ``retry_in``: seconds until the
      next attempt, so a countdown can be drawn) or ``"lost"`` (the server refused the
      hello, e.g. a wrong password: trying again cannot help, and :meth:`LobbyLink.run`
      raises the ``ServerError``);
    - :meth:`LobbyLink.events`: pushed events of every connection in turn, in order, from
      one :class:`~jackal.client.event_stream.EventStream`; an owner that leaves more than
      its budget unread (a server flooding) gets the connection dropped and a new one,
      which lists and watches again from snapshots;
    - :meth:`LobbyLink.request`: a request on the current connection (``ConnectionLost``
      while there is none: a request is never resent on a new connection by itself, so
      nothing is ever done twice).
    """

    def __init__(self, host: str, port: int, *, name: str, password: str | None = None,
                 client: str = "jackal-client", backoff: Backoff | None = None,
                 on_status: LinkStatus | None = None,
                 on_connected: Callable[[Connection], Awaitable[None]] | None = None,
                 request_timeout: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.name = name
        self._password = password
        self._client = client
        self._backoff = backoff or Backoff(give_up_after=math.inf)
        self._on_status = on_status
        self._on_connected = on_connected
        self._timeout = request_timeout
        self.conn: Connection | None = None
        self.status = "connecting"
        #: How many times a connection was made (1 after the first).
        self.connections = 0
        # The one queue of events, which each connection in turn writes into.
        self._events = EventStream()
        self._task_status: trio.TaskStatus[None] | None = None
        self._nursery: trio.Nursery | None = None

    def _set(self, status: str, detail: str = "", retry_in: float | None = None) -> None:
        self.status = status
        if self._on_status is not None:
            self._on_status(status, detail, retry_in)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Keep a connection up until cancelled; ``task_status.started()`` after the first
        hello (so a caller may :meth:`request` at once). Raises ``ServerError`` when the
        server refuses the hello."""
        self._task_status = task_status

        def waiting(delay: float, reason: str) -> None:
            self._set("reconnecting" if self.connections else "unreachable", reason, delay)

        reason = "no attempt"
        refused: ServerError | None = None
        # The connections' tasks run here, one connection after another.
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            while refused is None:
                # The first connection is tried at once; after a drop, the backoff's wait.
                try:
                    conn = await self._backoff.retry(self._open, waiting,
                                                     at_once=not self.connections,
                                                     reason=reason)
                except ServerError as exc:
                    refused = exc  # raised below, not wrapped in the nursery's group
                    break
                try:
                    await self._serve(conn)
                    reason = conn.lost_reason or "the connection closed"
                finally:
                    self.conn = None
                    with trio.CancelScope(shield=True):
                        await conn.aclose()
            nursery.cancel_scope.cancel()
        raise refused

    async def _open(self) -> Connection:
        assert self._nursery is not None, "only while run() runs"
        conn = await connect(self._nursery, self.host, self.port, event_stream=self._events)
        try:
            await conn.request(Hello(name=self.name, protocol=1, client=self._client,
                                     password=self._password), timeout=self._timeout)
        except ServerError as exc:
            await conn.aclose()
            if exc.code in _PASSING:  # a full or busy server may take us later
                raise ConnectionLost(f"{exc.message} [{exc.code}]") from None
            self._set("lost", exc.message)
            raise
        except ClientError as exc:
            await conn.aclose()
            raise ConnectionLost(str(exc)) from None
        return conn

    async def _serve(self, conn: Connection) -> None:
        """Keep ``conn`` until it drops (its events go to :meth:`events` by themselves;
        one the owner has no room for drops it)."""
        self.conn = conn
        self.connections += 1
        self._set("connected", f"{self.host}:{self.port}")
        if self._on_connected is not None:
            try:
                await self._on_connected(conn)
            except ClientError:
                return  # dropped again at once: reconnect
        if self._task_status is not None:
            self._task_status.started()
            self._task_status = None
        await conn.wait_closed()

    async def events(self) -> AsyncIterator[ServerMessage]:
        """Pushed events of every connection, in order (never ends by itself)."""
        while True:
            yield await self._events.get()

    async def request(self, msg: ClientMessage) -> ServerMessage:
        """``msg`` on the current connection; its reply. ``ConnectionLost`` while down."""
        conn = self.conn
        if conn is None:
            raise ConnectionLost(f"not connected ({self.status})")
        return await conn.request(msg, timeout=self._timeout)
