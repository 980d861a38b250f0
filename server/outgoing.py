"""The outgoing side of every connection: bounded in bytes, written without a task per line.

How it works:

- Each connection has an :class:`Outgoing`: a list of encoded lines (``bytes`` objects; a
  line sent to several connections is one object shared by all of them) and the number
  of bytes not yet written. :meth:`Outgoing.push` appends, never blocks and never awaits;
  it refuses (returns False) when the unsent bytes would pass the connection's bound, and
  the session then drops the client as a slow reader. So what one client can pin in the
  server's memory is its bound, whatever it asks for.
- Pushing marks the connection *dirty* with the server's one :class:`Flusher`. The flusher
  is one task for the whole server: woken once however many lines were pushed meanwhile,
  it writes each dirty connection's whole backlog with ONE non-blocking ``send`` (the
  lines joined). On a socket that keeps up (nearly always) that is the end of it: no task
  switch per message or per connection, and no trio stream wrapper in the way.
- Only what the kernel did not take waits: the connection's own writer task
  (:meth:`Outgoing.drain`) sleeps until the socket is writable and sends the rest, again
  all of it at once. It also finishes a closing connection: once the backlog is written
  (or the grace runs out, enforced by the session) the connection can be closed.

Bytes are counted when pushed and uncounted when written, so a line half written stays
counted (and is never cut: when a client is dropped, the unsent lines are discarded but
a line already partly written is finished first).

Streams that are not sockets (in-memory test streams) have no file descriptor to write
to: for them the writer task sends through the stream itself.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

import trio

__all__ = ["Flusher", "Outgoing"]

#: Errors that mean the peer is gone (any other OSError is a bug and propagates).
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class Outgoing:
    """One connection's unsent bytes and how they get to its socket."""

    __slots__ = ("_chunks", "_fd", "_finishing", "_flusher", "_lot", "_on_gone", "_partial",
                 "_stream", "bound", "dirty", "pushed", "unsent")

    def __init__(self, stream: trio.abc.Stream, bound: int, flusher: Flusher,
                 on_gone: Callable[[], None]) -> None:
        self._stream = stream
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        self.bound = bound
        self._flusher = flusher
        self._on_gone = on_gone
        self._chunks: list[bytes] = []
        #: The first chunk is the rest of a line partly written already.
        self._partial = False
        self._finishing = False
        self._lot = trio.lowlevel.ParkingLot()
        #: Bytes pushed and not yet written.
        self.unsent = 0
        #: Bytes ever pushed (what a request made the server send back can be measured).
        self.pushed = 0
        self.dirty = False

    def push(self, data: bytes) -> bool:
        """Queue ``data``; False (and nothing queued) if it would pass the bound."""
        size = len(data)
        if self.unsent + size > self.bound:
            return False
        self._chunks.append(data)
        self.unsent += size
        self.pushed += size
        if not self.dirty:
            self.dirty = True
            self._flusher.mark(self)
        return True

    def push_last(self, data: bytes) -> None:
        """Queue a connection's last line even past the bound (it is small), discarding
        every unsent line not yet begun: the client is being dropped for not reading."""
        keep = self._chunks[:1] if self._partial else []
        self._chunks = [*keep, data]
        self.unsent = sum(len(chunk) for chunk in self._chunks)
        self.pushed += len(data)
        if not self.dirty:
            self.dirty = True
            self._flusher.mark(self)

    def finish(self) -> None:
        """Nothing more will be pushed: the writer ends once the backlog is written."""
        self._finishing = True
        self._lot.unpark_all()

    def detach(self) -> None:
        """The socket is about to be closed: never write to its descriptor again (the
        number may be reused by the next connection)."""
        self._fd = -1
        self._chunks.clear()
        self.unsent = 0
        self._finishing = True
        self._lot.unpark_all()

    # ------------------------------------------------------------------ writing

    def write_now(self) -> None:
        """Write as much of the backlog as the socket takes, without waiting (flusher)."""
        self.dirty = False
        if not self._chunks:
            return
        if self._fd < 0:
            self._lot.unpark_all()  # not a socket: the writer task sends through the stream
            return
        data = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except _GONE:
            self._gone()
            return
        except OSError as exc:
            if exc.errno in (errno.EBADF, errno.ENOTCONN, errno.EPIPE):
                self._gone()
                return
            raise
        self.unsent -= sent
        if sent == len(data):
            self._chunks.clear()
            self._partial = False
            return
        self._chunks = [data[sent:]]
        self._partial = True
        self._lot.unpark_all()  # the writer waits for room in the socket

    def _gone(self) -> None:
        self._chunks.clear()
        self.unsent = 0
        self._on_gone()

    async def drain(self) -> None:
        """The connection's writer task: send what the flusher could not, then, once
        :meth:`finish` was called and everything is written, return."""
        while True:
            if not self._chunks:
                if self._finishing:
                    return
                await self._lot.park()
                continue
            if self._fd < 0:
                if self._finishing and not self._chunks:
                    return
                data = b"".join(self._chunks)
                self._chunks.clear()
                await self._stream.send_all(data)
                self.unsent -= len(data)
                continue
            await trio.lowlevel.wait_writable(self._fd)
            self.write_now()


class Flusher:
    """The server's one writing task: writes every connection something was pushed to."""

    def __init__(self) -> None:
        self._dirty: list[Outgoing] = []
        self._lot = trio.lowlevel.ParkingLot()

    def mark(self, out: Outgoing) -> None:
        if not self._dirty:
            self._lot.unpark_all()
        self._dirty.append(out)

    async def run(self) -> None:
        """Write dirty connections until cancelled."""
        while True:
            if not self._dirty:
                await self._lot.park()
                continue
            batch, self._dirty = self._dirty, []
            for out in batch:
                if out.dirty:
                    out.write_now()
            # Let everyone else run before the next round (fairness with the readers).
            await trio.lowlevel.checkpoint()
