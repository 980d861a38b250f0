"""Sans-IO connection objects: bytes in, messages out; messages in, bytes out.

How the server side works
-------------------------
A :class:`ServerConnection` is fed whatever the socket produced with
:meth:`~ServerConnection.receive_data` and asked for decoded messages with
:meth:`~ServerConnection.next_message`, which returns ``None`` when it needs more bytes.
It never does I/O and never imports trio, so the same object serves a real socket, a
test's fake link or a fuzzer.

The connection is in one of three states (:class:`ConnState`):

``AWAIT_HELLO``
    Fresh. Only the messages in ``_ALLOWED[AWAIT_HELLO]`` (``help``, ``ping``) and
    ``hello`` itself pass; anything else raises a non-fatal ``hello_first``. A ``hello``
    is handed to the server, which checks its password or token and then calls
    :meth:`~ServerConnection.accept_hello`; a refused hello leaves the state unchanged,
    so the peer may try again.
``OPEN``
    Every client message passes; what it means is the server's business.
``CLOSED``
    A fatal error happened (a line over the cap) or the peer closed its side. Bytes fed
    after that are ignored; :meth:`~ServerConnection.next_message` re-raises the fatal
    error, if any, once the lines received before it have been handed out.

Decoding errors of a single line (``bad_json``, ``invalid_message``, ``unknown_type``)
are raised from ``next_message`` and change nothing: the next call carries on with the
next line, as the protocol promises that only framing errors close a connection.
"""

from __future__ import annotations

from collections import deque
from enum import Enum

import msgspec

from .codec import decode_client, decode_server, encode
from .errors import ErrorCode, ProtocolError
from .framing import DEFAULT_MAX_LINE, LineBuffer
from .messages import (
    ClientMessage,
    Hello,
    Help,
    Ping,
    ServerMessage,
    Welcome,
)

__all__ = ["CLIENT_MAX_LINE", "ClientConnection", "ConnState", "ServerConnection"]

#: Server messages (a table snapshot with two inline convention cards) can be larger than
#: anything a client needs to send, so clients accept longer lines by default.
CLIENT_MAX_LINE = 1 << 20


class ConnState(Enum):
    AWAIT_HELLO = "await_hello"
    OPEN = "open"
    CLOSED = "closed"


#: state -> the client message types that may pass in it (None: all of them).
_ALLOWED: dict[ConnState, frozenset[type[msgspec.Struct]] | None] = {
    ConnState.AWAIT_HELLO: frozenset({Hello, Help, Ping}),
    ConnState.OPEN: None,
    ConnState.CLOSED: frozenset(),
}


class _LineQueue:
    """A LineBuffer plus the lines it completed and a deferred fatal error.

    The fatal error waits behind the complete lines that arrived before it, so a peer's
    last good requests are still answered in order before the connection closes.
    """

    __slots__ = ("buffer", "eof", "fatal", "lines")

    def __init__(self, max_line: int) -> None:
        self.buffer = LineBuffer(max_line)
        self.lines: deque[bytes] = deque()
        self.fatal: ProtocolError | None = None
        self.eof = False

    def receive(self, data: bytes | bytearray) -> None:
        if self.fatal is not None or self.eof:
            return
        if not data:
            self.eof = True
            self.lines.extend(self.buffer.feed_eof())
            return
        try:
            self.buffer.feed_into(data, self.lines)
        except ProtocolError as exc:
            self.fatal = exc

    def pop(self) -> bytes | None:
        if self.lines:
            return self.lines.popleft()
        if self.fatal is not None:
            raise self.fatal
        return None


class ServerConnection:
    """The server's view of one client connection (see the module docstring)."""

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE) -> None:
        self._queue = _LineQueue(max_line)
        self.state = ConnState.AWAIT_HELLO
        #: Name given in the accepted ``hello`` (None before it).
        self.name: str | None = None

    @property
    def hello_done(self) -> bool:
        """True once the server accepted this connection's ``hello``."""
        return self.name is not None

    @property
    def peer_closed(self) -> bool:
        """True once :meth:`receive_data` was given ``b""`` (end of stream)."""
        return self._queue.eof

    @property
    def pending(self) -> int:
        """Bytes buffered for an unfinished line."""
        return self._queue.buffer.pending

    def receive_data(self, data: bytes | bytearray) -> None:
        """Feed bytes from the socket; ``b""`` means the peer closed its side. Never raises."""
        if self.state is not ConnState.CLOSED:  # a closing connection reads nothing more
            self._queue.receive(data)

    def next_message(self) -> ClientMessage | None:
        """The next client message, or ``None`` if more bytes are needed.

        Raises :class:`ProtocolError`: non-fatal for one bad line (carry on calling),
        fatal (``line_too_long``) when the stream must be closed.
        """
        if self.state is ConnState.CLOSED:
            if self._queue.fatal is not None:
                raise self._queue.fatal
            return None
        try:
            line = self._queue.pop()
        except ProtocolError:
            self.state = ConnState.CLOSED
            raise
        if line is None:
            return None
        msg = decode_client(line)
        allowed = _ALLOWED[self.state]
        if allowed is None or type(msg) in allowed:
            return msg
        raise ProtocolError(ErrorCode.HELLO_FIRST,
                            'say {"type":"hello","name":"..."} first', id=msg.id)

    def accept_hello(self, name: str) -> None:
        """The server accepted a ``hello``: every message may pass from now on."""
        if self.state is ConnState.AWAIT_HELLO:
            self.state = ConnState.OPEN
        self.name = name

    def send(self, msg: ServerMessage) -> bytes:
        """The bytes to write for ``msg``."""
        return encode(msg)

    def send_error(self, exc: ProtocolError) -> bytes:
        """The bytes of the ``error`` answering ``exc``; a fatal one closes the connection."""
        if exc.fatal:
            self.state = ConnState.CLOSED
        return encode(exc.to_message())


class ClientConnection:
    """A client's view of its connection: decodes server lines, encodes requests."""

    def __init__(self, *, max_line: int = CLIENT_MAX_LINE) -> None:
        self._queue = _LineQueue(max_line)
        #: The server's greeting, once it has arrived.
        self.welcome: Welcome | None = None

    @property
    def peer_closed(self) -> bool:
        """True once :meth:`receive_data` was given ``b""`` (end of stream)."""
        return self._queue.eof

    def receive_data(self, data: bytes | bytearray) -> None:
        """Feed bytes from the socket; ``b""`` means the server closed. Never raises."""
        self._queue.receive(data)

    def next_message(self) -> ServerMessage | None:
        """The next server message, or ``None`` if more bytes are needed.

        Raises :class:`ProtocolError` for a line that is not a server message (non-fatal)
        or a line over the cap (fatal).
        """
        line = self._queue.pop()
        if line is None:
            return None
        msg = decode_server(line)
        if isinstance(msg, Welcome) and self.welcome is None:
            self.welcome = msg
        return msg

    def send(self, msg: ClientMessage) -> bytes:
        """The bytes to write for ``msg``."""
        return encode(msg)

