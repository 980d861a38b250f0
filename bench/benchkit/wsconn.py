"""The load bench's WebSocket client connection: the same face as server_load's ``Conn``
(``send`` lines, ``flush``, ``readable``, ``close``) over ``/ws`` of ``jackal serve --web``,
framed by wsproto. The handshake is blocking (one connection at a time, as the gateway's
pending-request limit wants); then the socket joins the bench's selector loop."""

from __future__ import annotations

import contextlib
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

__all__ = ["WsConn"]

HOST = "127.0.0.1"


class WsConn:
    """One non-blocking client WebSocket: each line sent is a text frame, each text
    message received is handed over as a line (``on_line`` gets it without its end)."""

    __slots__ = ("closed", "on_line", "out", "partial", "sel", "sock", "ws")

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
        self.closed = False
        self.on_line = on_line
        sel.register(self.sock, selectors.EVENT_READ, self)

    def _handshake(self, port: int) -> None:
        host = f"{HOST}:{port}"
        self.sock.sendall(self.ws.send(Request(
            host=host, target="/ws", extra_headers=[(b"origin", f"http://{host}".encode())])))
        while True:
            data = self.sock.recv(65536)
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
        if self.closed:
            return
        ws = self.ws
        frames = b"".join(ws.send(TextMessage(data=line.decode()))
                          for line in data.split(b"\n") if line)
        if self.out:
            self.out += frames
            return
        try:
            sent = self.sock.send(frames)
        except BlockingIOError:
            sent = 0
        except OSError:
            self.closed = True
            return
        if sent < len(frames):
            self.out = frames[sent:]
            self.sel.modify(self.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, self)

    def flush(self) -> None:
        try:
            sent = self.sock.send(self.out)
        except BlockingIOError:
            return
        except OSError:
            self.closed = True
            return
        self.out = self.out[sent:]
        if not self.out:
            self.sel.modify(self.sock, selectors.EVENT_READ, self)

    def readable(self) -> bool:
        """Read what is there and hand over complete messages; False at the end."""
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if data:
            self.ws.receive_data(data)
        else:
            self.ws.receive_data(None)
        ended = not data
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
                self.send_event_bytes(self.ws.send(event.response()))
            elif isinstance(event, CloseConnection | BytesMessage):
                ended = True  # the server sends text only; a close ends the run
        if ended:
            self.close()
            return False
        return True

    def send_event_bytes(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            self.sock.send(data)

    def close(self) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(self.sock)
        self.sock.close()
        self.closed = True
