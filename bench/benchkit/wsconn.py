"""The load bench's WebSocket client connection: the same face as server_load's ``Conn``
(``send`` lines, ``flush``, ``readable``, ``close``) over ``/ws`` of ``jackal serve --web``.
wsproto makes the handshake (blocking: one connection at a time, as the gateway's limit
on pending requests wants) and every frame sent; the common frames received are cut
here, cheaply (see ``WsConn.readable``). Then the socket joins the bench's selector loop."""

from __future__ import annotations

import selectors
import socket
from collections.abc import Callable

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

from .lineconn import HOST, Conn

__all__ = ["WsConn"]


class WsConn(Conn):
    """One non-blocking client WebSocket: each line sent is a text frame, each text
    message received is handed over as a line (``on_line`` gets it without its end)."""

    __slots__ = ("partial", "slow", "ws")

    def __init__(self, sel: selectors.BaseSelector, port: int,
                 on_line: Callable[[bytes], None]) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self._handshake(port)
        self.sock.setblocking(False)
        self.sel = sel
        self.out = b""
        #: A text message received in several frames, so far.
        self.partial: list[str] = []
        #: The start of a frame not whole yet; wsproto reads everything (see readable).
        self.buf = b""
        self.slow = False
        self.closed = False
        self.on_line = on_line
        sel.register(self.sock, selectors.EVENT_READ, self)

    def _handshake(self, port: int) -> None:
        host = f"{HOST}:{port}"
        self.sock.sendall(self.ws.send(Request(
            host=host, target="/ws", extra_headers=[(b"origin", f"http://{host}".encode())])))
        while True:
            # Only the answer's bytes: the server's first frame may follow it at once, and
            # it is for the selector loop, once the connection is its table's.
            seen = self.sock.recv(65536, socket.MSG_PEEK)
            end = seen.find(b"\r\n\r\n")
            data = self.sock.recv(len(seen) if end < 0 else end + 4)
            self.ws.receive_data(data or None)
            for event in self.ws.events():
                if isinstance(event, AcceptConnection):
                    return
                if isinstance(event, RejectConnection | RejectData):
                    raise ConnectionRefusedError(
                        f"/ws refused: HTTP {getattr(event, 'status_code', '?')}")
            if not data:
                raise ConnectionError("/ws closed during the handshake")

    def send(self, data: bytes) -> None:
        """Send each line of ``data`` (newline-ended lines) as one text frame."""
        if not self.closed:
            super().send(b"".join(self.ws.send(TextMessage(data=line.decode()))
                                  for line in data.split(b"\n") if line))

    def readable(self) -> bool:
        """Read what is there and hand over complete messages; False at the end.

        The server's frames are nearly all whole text frames, unmasked, under 64 KiB: those
        are cut here, for wsproto (pure Python) would cost the client more a frame than
        the server spends making it, and the bench must measure the server. At the first
        frame of any other kind, wsproto takes this connection's input over for good (it
        starts at a frame boundary): pings, closes, pieces of a message are all its."""
        data = self.received()
        if data is None:
            return True
        if not data:
            self.ws.receive_data(None)
            return self._take_events()
        if self.slow:
            self.ws.receive_data(data)
            return self._take_events()
        buf = self.buf + data if self.buf else data
        pos, size = 0, len(buf)
        while size - pos >= 2:
            length = buf[pos + 1]
            if buf[pos] != 0x81 or length > 126:  # not FIN + text, or masked, or long
                self.slow = True
                self.buf = b""
                self.ws.receive_data(buf[pos:])
                return self._take_events()
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length, head = int.from_bytes(buf[pos + 2:pos + 4], "big"), 4
            end = pos + head + length
            if end > size:
                break
            self.on_line(buf[pos + head:end])
            pos = end
        self.buf = buf[pos:]
        return True

    def _take_events(self) -> bool:
        """wsproto's events: messages handed over, pings answered; False at the end."""
        ended = False
        for event in self.ws.events():
            if isinstance(event, TextMessage):
                if event.message_finished and not self.partial:
                    self.on_line(event.data.encode())
                else:
                    self.partial.append(event.data)
                    if event.message_finished:
                        self.on_line("".join(self.partial).encode())
                        self.partial.clear()
            elif isinstance(event, Ping):
                # Raw bytes (a frame already), after any backlog: never inside a frame.
                Conn.send(self, self.ws.send(event.response()))
            elif isinstance(event, CloseConnection | BytesMessage):
                ended = True  # the server sends text only; a close ends the run
        if ended:
            self.close()
            return False
        return True
