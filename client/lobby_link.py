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
from .connection import MAX_EVENT_BYTES, ClientError, Connection, ConnectionLost, ServerError
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
    - :meth:`LobbyLink.events`: pushed events of every connection in turn, in order; an
      owner that leaves more than ``MAX_EVENT_BYTES`` of them unread (a server flooding) gets
      the connection dropped and a new one, which lists and watches again from snapshots;
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
        # Each event with its wire size; bounded in bytes, as a SeatSession's queue is.
        self._events_in, self._events_out = trio.open_memory_channel[
            tuple[ServerMessage, int]](math.inf)
        self._event_bytes = 0
        self._task_status: trio.TaskStatus[None] | None = None

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
        while True:
            # The first connection is tried at once; after a drop, the backoff's first wait.
            conn = await self._backoff.retry(self._open, waiting, at_once=not self.connections,
                                             reason=reason)
            try:
                reason = (await self._serve(conn) or conn.lost_reason
                          or "the connection closed")
            finally:
                self.conn = None
                with trio.CancelScope(shield=True):
                    await conn.aclose()

    async def _open(self) -> Connection:
        conn = await Connection.open(self.host, self.port)
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

    async def _serve(self, conn: Connection) -> str | None:
        """Pump ``conn``'s events until it drops (or return why we drop it)."""
        self.conn = conn
        self.connections += 1
        self._set("connected", f"{self.host}:{self.port}")
        if self._on_connected is not None:
            try:
                await self._on_connected(conn)
            except ClientError:
                return None  # dropped again at once: reconnect
        if self._task_status is not None:
            self._task_status.started()
            self._task_status = None
        try:
            while True:
                msg = await conn.next_event()
                size = conn.last_event_size
                if self._event_bytes + size > MAX_EVENT_BYTES:
                    # The owner fell behind (or the server floods): drop this connection;
                    # the next one lists and watches again, from fresh snapshots.
                    return (f"more than {MAX_EVENT_BYTES} bytes of events unread: "
                            "starting again from a snapshot")
                self._event_bytes += size
                self._events_in.send_nowait((msg, size))
        except ConnectionLost:
            return None

    async def events(self) -> AsyncIterator[ServerMessage]:
        """Pushed events of every connection, in order (never ends by itself)."""
        async for msg, size in self._events_out:
            self._event_bytes -= size
            yield msg

    async def request(self, msg: ClientMessage) -> ServerMessage:
        """``msg`` on the current connection; its reply. ``ConnectionLost`` while down."""
        conn = self.conn
        if conn is None:
            raise ConnectionLost(f"not connected ({self.status})")
        return await conn.request(msg, timeout=self._timeout)
