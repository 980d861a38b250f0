"""A WebSocket seen as a byte stream of protocol lines, so a session cannot tell it from TCP.

Each text message arriving is one line (a newline appended); each line the session writes
goes out as one text frame. wsproto reads the frames; this module maps frames to lines
and lines to frames, so every limit of the line protocol applies to the messages as is.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import trio
from wsproto import WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Event, Ping, Request, TextMessage
from wsproto.frame_protocol import CloseReason

from ..net.transport import SendQueue, read_some

__all__ = ["WebSocketStream", "text_frame"]

_READ_SIZE = 16384
#: A binary frame's bytes reach the session after this byte, which no UTF-8 text holds:
#: the session answers them ``bad_json``, as it answers bytes that are not text over TCP.
_NOT_TEXT = b"\xff"
#: The first byte of a whole text message's frame: FIN and the text opcode.
_TEXT_FIN = 0x81


def text_frame(line: bytes) -> bytes:
    """``line`` as one text frame, as a server sends it (RFC 6455 section 5.2): unmasked,
    and with no extension (the gateway accepts none), so the frame is a header of the
    payload's length and the bytes as they are; a line sent to a whole table is framed
    the same for every connection. The server's lines are UTF-8 already (msgspec's)."""
    size = len(line)
    if size < 126:
        return bytes((_TEXT_FIN, size)) + line
    if size < 1 << 16:
        return struct.pack("!BBH", _TEXT_FIN, 126, size) + line
    return struct.pack("!BBQ", _TEXT_FIN, 127, size) + line

class WebSocketStream(trio.abc.Stream):
    """A server WebSocket (handshake done) over ``sock``, as lines in and lines out.

    In: a text message's UTF-8 bytes, with a newline at its end; a newline inside it
    becomes ``\\r`` (both are whitespace between JSON tokens and both are forbidden inside
    a JSON string, so the message means the same and a bad one stays bad). Data is handed
    on as frames arrive, never buffered whole, so an oversized message meets the
    session's ``max_line`` (``line_too_long``) as a long TCP line does. Pings are
    answered here; a close frame or a broken frame reads as the end of the stream.
    Out: whole lines (the session's writer never cuts one), each sent as a text frame.
    Over a socket the server's transport writes them itself, framed by
    :meth:`write_directly`'s function, as it writes a TCP connection's lines (no task or
    lock per write); over another stream (the tests' in-memory ones) :meth:`send_all`
    frames and sends them.
    """

    def __init__(self, sock: trio.abc.Stream, ws: WSConnection) -> None:
        self._sock = sock
        self._ws = ws
        #: Received bytes not yet handed on.
        self._pending = bytearray()
        self._eof = False
        self._close_code: int = CloseReason.NORMAL_CLOSURE
        #: One writer at a time on the socket: the session's lines and our pongs/close.
        self._send_lock = trio.Lock()
        #: Inside a binary message (its start has been marked).
        self._in_binary = False
        #: Bytes were given to wsproto since its events were last taken.
        self._events_due = True
        #: The transport that writes our lines straight to the socket, if it does; then
        #: our own frames (pongs) wait here for its next write.
        self._out: SendQueue | None = None
        self._control = b""

    def write_directly(self, out: SendQueue) -> tuple[int, Callable[[bytes], bytes]] | None:
        """``out`` will write our lines to the socket itself: its descriptor, and how
        lines become frames (see :class:`..net.transport.Framed`)."""
        if not isinstance(self._sock, trio.SocketStream):
            return None
        self._out = out
        return self._sock.socket.fileno(), self._frame_lines

    def _frame_lines(self, data: bytes) -> bytes:
        """Whole lines as text frames, after any frames of our own that wait. Once either
        side's close is under way (the peer's read, or ours sent) no message may follow
        it: the lines are dropped."""
        control, self._control = self._control, b""
        if not data or self._eof or self._ws.state is not ConnectionState.OPEN:
            return control
        lines = data.split(b"\n")
        if not lines[-1]:
            lines.pop()  # the empty rest after the last line's end
        return control + b"".join(map(text_frame, lines))

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        size = max_bytes or _READ_SIZE
        while not self._pending and not self._eof:
            # wsproto's events once after each read (and first of all for what came with
            # the handshake): looking for them costs even when there are none.
            if self._events_due:
                self._events_due = False
                await self._take_events()
                continue
            data = await read_some(self._sock, _READ_SIZE)
            self._ws.receive_data(data or None)
            self._events_due = True
        chunk = bytes(self._pending[:size])
        del self._pending[:size]
        return chunk

    async def _take_events(self) -> None:
        for event in self._ws.events():
            if isinstance(event, TextMessage | BytesMessage):
                self._message(event)
            elif isinstance(event, Ping):
                await self._send(event.response())
            elif isinstance(event, CloseConnection):
                self._eof = True
                self._close_code = event.code
            elif isinstance(event, Request):  # pragma: no cover - the handshake is done
                self._eof = True

    def _message(self, event: TextMessage | BytesMessage) -> None:
        if isinstance(event, TextMessage):
            data = event.data.encode()
        else:
            assert isinstance(event, BytesMessage)
            data = bytes(event.data)
            # Marked once, at the message's start: wsproto hands a message on in pieces.
            if not self._in_binary:
                data = _NOT_TEXT + data
                self._in_binary = True
        self._pending += data.replace(b"\n", b"\r")
        if event.message_finished:
            self._pending += b"\n"
            self._in_binary = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        async with self._send_lock:
            # Checked under the lock: the peer's close may have been read while we waited,
            # and after it a WebSocket sends no more messages (the replies are dropped).
            if self._ws.state is not ConnectionState.OPEN:
                raise trio.ClosedResourceError("the WebSocket is closing")
            await self._sock.send_all(self._frame_lines(bytes(data)))

    async def _send(self, event: Event) -> None:
        out = self._out
        if out is not None:
            if not out.gone:  # the transport writes it, between two whole frames
                if self._ws.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
                    self._control += self._ws.send(event)
                    out.nudge()
                return
            if out.cut:
                return  # the peer was dropped in the middle of a frame: nothing more fits
        async with self._send_lock:
            if self._ws.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
                await self._sock.send_all(self._ws.send(event))

    async def wait_send_all_might_not_block(self) -> None:
        await self._sock.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        """Say goodbye with a close frame (answering the peer's, if it sent one; saying
        why, if its frames broke the protocol), then close the socket."""
        try:
            with trio.move_on_after(1.0):
                state = self._ws.state
                if state is ConnectionState.REMOTE_CLOSING:
                    await self._send(CloseConnection(code=CloseReason.NORMAL_CLOSURE))
                elif state is ConnectionState.OPEN:
                    code = (self._close_code if self._eof else CloseReason.NORMAL_CLOSURE)
                    await self._send(CloseConnection(code=code))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the peer is gone: nothing to say goodbye to
        finally:
            await self._sock.aclose()
