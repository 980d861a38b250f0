"""The load bench's client connection over TCP: one non-blocking socket in the bench's
selector loop, lines out with a write backlog, lines in split on their ends. The WebSocket
twin (benchkit/wsconn.py) keeps this face and this backlog and frames what it sends."""

from __future__ import annotations

import contextlib
import selectors
import socket
from collections.abc import Callable

__all__ = ["HOST", "Conn"]

HOST = "127.0.0.1"


class Conn:
    """One non-blocking client socket with line splitting and a write backlog."""

    __slots__ = ("buf", "closed", "on_line", "out", "sel", "sock")

    def __init__(self, sel: selectors.BaseSelector, port: int,
                 on_line: Callable[[bytes], None]) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=30)
        self.sock.setblocking(False)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sel = sel
        self.buf = b""
        self.out = b""
        self.closed = False
        self.on_line = on_line
        sel.register(self.sock, selectors.EVENT_READ, self)

    def send(self, data: bytes) -> None:
        if self.closed:
            return
        if self.out:
            self.out += data
            return
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self.closed = True
            return
        if sent < len(data):
            self.out = data[sent:]
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

    def received(self) -> bytes | None:
        """What the socket holds now (None: nothing yet; empty: the end)."""
        try:
            return self.sock.recv(262144)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def readable(self) -> bool:
        """Read what is there and hand over complete lines; False at end of stream."""
        data = self.received()
        if data is None:
            return True
        if not data:
            self.closed = True
            with contextlib.suppress(KeyError, ValueError):
                self.sel.unregister(self.sock)
            return False
        self.buf += data
        if b"\n" not in data:
            return True
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            if line:
                self.on_line(line)
        return True

    def close(self) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(self.sock)
        self.sock.close()
        self.closed = True
