"""Sans-IO connection objects: :class:`ServerConnection` and :class:`ClientConnection` take
the socket's bytes (``receive_data``), hand out decoded messages (``next_message``) and
encode what is sent. No I/O and no trio: the server session, the client connection, a
test's fake link and a fuzzer drive the same objects. What may happen in which state is
:mod:`.state`'s; this module adds the bytes (a capped line buffer, the codec)."""

from __future__ import annotations

from collections import deque

from .codec import decode_client, decode_server, encode
from .errors import ProtocolError, RemoteProtocolError
from .framing import DEFAULT_MAX_LINE, LineBuffer
from .messages import ServerMessage, Welcome
from .requests import ClientMessage
from .state import ConnState, Move, Role, StateMachine

__all__ = ["CLIENT_MAX_LINE", "ClientConnection", "ServerConnection"]

#: Server messages (a table snapshot with two inline convention cards) can be larger than
#: anything a client needs to send, so clients accept longer lines by default.
CLIENT_MAX_LINE = 1 << 20


class _LineQueue:
    """A LineBuffer plus the lines it completed and a deferred fatal error.

    The fatal error waits behind the complete lines that arrived before it, so a peer's
    last good requests are still answered in order before the connection closes.
    """

    __slots__ = ("buffer", "eof", "fatal", "lines")

    def __init__(self, max_line: int) -> None:
        self.buffer = LineBuffer(max_line)
        self.lines: deque[bytes] = deque()
        self.fatal: RemoteProtocolError | None = None
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
        except RemoteProtocolError as exc:
            self.fatal = exc

    def pop(self) -> bytes | None:
        """The next complete line; the fatal error once they are used up; else None."""
        if self.lines:
            return self.lines.popleft()
        if self.fatal is not None:
            raise self.fatal
        return None


class _Connection:
    """What both ends share: the state machine, the line queue, closing."""

    def __init__(self, role: Role, max_line: int) -> None:
        self._machine = StateMachine(role)
        self._queue = _LineQueue(max_line)
        #: Bytes of the line the last ``next_message`` read (a server charges big lines
        #: more of the sender's rate limit).
        self.last_line_size = 0

    @property
    def state(self) -> ConnState:
        return self._machine.state

    @property
    def peer_closed(self) -> bool:
        """True once ``receive_data`` was given ``b""`` (end of stream)."""
        return self._queue.eof

    @property
    def pending(self) -> int:
        """Bytes buffered for an unfinished line."""
        return self._queue.buffer.pending

    def take_blank_lines(self) -> int:
        """Blank lines received (and skipped) since the last call."""
        buffer = self._queue.buffer
        count, buffer.blank_lines = buffer.blank_lines, 0
        return count

    def receive_data(self, data: bytes | bytearray) -> None:
        """Feed bytes from the socket; ``b""`` means the peer closed its side (its last
        line is still handed out, newline or not). Never raises.

        Once the connection must close, what arrives is not read any more.
        """
        if self.state not in (ConnState.MUST_CLOSE, ConnState.CLOSED):
            self._queue.receive(data)

    def _next_line(self) -> bytes | None:
        if self.state in (ConnState.MUST_CLOSE, ConnState.CLOSED):
            return None
        try:
            line = self._queue.pop()
        except RemoteProtocolError:
            self._machine.move(Move.BROKEN_FRAMING)
            raise
        self.last_line_size = len(line) if line is not None else 0
        return line

    def close(self) -> None:
        """We are closing (idempotent): nothing more is read or sent."""
        if self.state is not ConnState.CLOSED:
            self._machine.move(Move.CLOSE)


class ServerConnection(_Connection):
    """The server's end of one client connection.

    ``next_message`` raises :class:`RemoteProtocolError` when the peer broke the protocol.
    A bad line (``bad_json``, ``invalid_message``, ``unknown_type``) or a message refused in
    this state (``hello_first``, ``not_allowed``) is not fatal: answer it and call again.
    A line over the cap (``line_too_long``) is: the state is MUST_CLOSE, nothing more is
    read, and the caller sends the error and closes, after answering the lines that
    completed before it. Our own misuse (accepting a hello twice, sending on a closed
    connection) raises :class:`LocalProtocolError`.
    """

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE) -> None:
        super().__init__(Role.SERVER, max_line)
        #: Name given in the accepted ``hello`` (None before it).
        self.name: str | None = None

    @property
    def hello_done(self) -> bool:
        """True once the server accepted this connection's ``hello``."""
        return self.name is not None

    def next_message(self) -> ClientMessage | None:
        """The next client message, or ``None`` if more bytes are needed.

        Raises :class:`RemoteProtocolError`: non-fatal for one bad or refused line (carry
        on calling), fatal (``line_too_long``) when the stream must be closed.
        """
        line = self._next_line()
        if line is None:
            return None
        msg = decode_client(line)
        self._machine.receive(type(msg), msg.id)
        return msg

    def accept_hello(self, name: str) -> None:
        """The server accepted a ``hello``: every message may pass from now on."""
        self._machine.move(Move.ACCEPT_HELLO)
        self.name = name

    def send(self, msg: ServerMessage) -> bytes:
        """The bytes to write for ``msg``."""
        self._machine.check_send()
        return encode(msg)

    def send_error(self, exc: ProtocolError) -> bytes:
        """The bytes of the ``error`` answering ``exc``; a fatal one closes the connection."""
        data = self.send(exc.to_message())
        if exc.fatal:
            self.close()
        return data


class ClientConnection(_Connection):
    """A client's end of its connection: decodes server lines, encodes requests."""

    def __init__(self, *, max_line: int = CLIENT_MAX_LINE) -> None:
        super().__init__(Role.CLIENT, max_line)
        #: The server's greeting, once it has arrived.
        self.welcome: Welcome | None = None

    def next_message(self) -> ServerMessage | None:
        """The next server message, or ``None`` if more bytes are needed.

        Raises :class:`RemoteProtocolError` for a line that is not a server message
        (non-fatal) or a line over the cap (fatal).
        """
        line = self._next_line()
        if line is None:
            return None
        msg = decode_server(line)
        self._machine.receive(type(msg))
        if isinstance(msg, Welcome) and self.welcome is None:
            self.welcome = msg
        return msg

    def send(self, msg: ClientMessage) -> bytes:
        """The bytes to write for ``msg``."""
        self._machine.check_send()
        return encode(msg)
