"""Moving every connection's bytes without a task per line or per connection.

:func:`read_some` reads a socket directly; a :class:`SendQueue` holds one connection's
unsent lines, bounded in bytes, and the server's one :class:`Flusher` writes them. Few
objects per connection matter because a server holds thousands (see :mod:`.gctune`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Protocol

import trio

__all__ = ["Flusher", "Framed", "Owner", "SendQueue", "read_some"]


async def read_some(stream: trio.abc.ReceiveStream, size: int) -> bytes:
    """The next bytes from ``stream`` (``b""`` at its end). A socket is read directly;
    a connection reset reads as ``BrokenResourceError``, as from trio's own streams.

    One wait for the socket to be readable and one ``read``, with no stream wrapper
    coroutines in between: an idle connection's task is parked in a single wait."""
    if not isinstance(stream, trio.SocketStream):
        return bytes(await stream.receive_some(size))
    fd = stream.socket.fileno()
    while True:
        await trio.lowlevel.wait_readable(fd)
        try:
            return os.read(fd, size)
        except BlockingIOError:
            continue  # woken, but nothing there after all
        except ConnectionError as exc:
            raise trio.BrokenResourceError(f"socket connection broken: {exc}") from exc


class Owner(Protocol):
    """Who a :class:`SendQueue` tells that its peer is gone (a write failed)."""

    def lost(self) -> None: ...

class Framed(Protocol):
    """A stream whose lines go out in frames (a WebSocket) but can still be written
    straight to its socket: it gives its descriptor and the function that turns whole
    lines into the bytes to write (``None`` when it has no socket under it)."""

    def write_directly(self, out: SendQueue) -> tuple[int, Callable[[bytes], bytes]] | None: ...


#: Errors that mean the peer is gone (any other OSError is a bug and propagates).
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class SendQueue:
    """One connection's unsent bytes and how they get to its socket.

    A list of encoded lines (``bytes``; a line sent to several connections is one object
    shared by all of them) and the number of bytes not yet written. :meth:`push` appends,
    never blocks and never awaits; it refuses when the unsent bytes would pass the bound,
    and the session then drops the client as a slow reader. So what one client can pin in
    the server's memory is its bound, whatever it asks for.

    Bytes are counted when pushed and uncounted when written, so a line half written
    stays counted; and it is never cut: when a client is dropped, the unsent lines are
    discarded but a line already partly written is finished first (:meth:`push_last`).
    """

    # Slots and no bound methods kept: thousands are alive at once (see gctune).
    __slots__ = ("_chunks", "_draining", "_fd", "_flushed", "_flusher", "_frame", "_owner",
                 "_partial", "_stream", "bound", "dirty", "gone", "pushed", "unsent")

    def __init__(self, stream: trio.abc.Stream, bound: int, flusher: Flusher,
                 owner: Owner) -> None:
        self._stream = stream
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        #: A framed stream's framing (see :class:`Framed`): its lines are written here too,
        #: framed as they go, instead of through a task per write.
        self._frame: Callable[[bytes], bytes] | None = None
        direct = getattr(stream, "write_directly", None)
        if self._fd < 0 and direct is not None:
            found = direct(self)
            if found is not None:
                self._fd, self._frame = found
        self.bound = bound
        self._flusher = flusher
        self._owner = owner
        self._chunks: list[bytes] = []
        #: The first chunk is the rest of a line partly written already.
        self._partial = False
        self._draining = False
        self._flushed: trio.Event | None = None
        #: Bytes pushed and not yet written.
        self.unsent = 0
        #: Bytes ever pushed (so what a request made the server send back can be measured).
        self.pushed = 0
        self.dirty = False
        #: The peer is gone (a write failed) or the socket was detached.
        self.gone = False

    def push(self, data: bytes) -> bool:
        """Queue ``data``; False (and nothing queued) if it would pass the bound."""
        size = len(data)
        if self.unsent + size > self.bound:
            return False
        self._queue(data)
        return True

    def push_parts(self, parts: tuple[bytes, ...]) -> bool:
        """Queue one line given in pieces (all or nothing, as :meth:`push`)."""
        if self.unsent + sum(map(len, parts)) > self.bound:
            return False
        for part in parts:
            self._queue(part)
        return True

    def push_last(self, data: bytes) -> None:
        """Queue a connection's last line even past the bound (it is small), discarding
        every unsent line not yet begun: the client is being dropped for not reading."""
        self._chunks = self._chunks[:1] if self._partial else []
        self.unsent = sum(map(len, self._chunks))
        self._queue(data)

    def _queue(self, data: bytes) -> None:
        if self.gone:
            return
        self._chunks.append(data)
        self.unsent += len(data)
        self.pushed += len(data)
        if not self.dirty:
            self.dirty = True
            self._flusher.mark(self)

    @property
    def cut(self) -> bool:
        """The last write stopped inside a line (for a framed stream: inside a frame),
        and its rest is still to come, or never will if the peer is gone."""
        return self._partial

    def nudge(self) -> None:
        """Have the flusher write soon even with no line queued: a framed stream has
        frames of its own waiting (a WebSocket's pong), which its framing adds."""
        if not self.dirty and not self.gone:
            self.dirty = True
            self._flusher.mark(self)

    async def flushed(self) -> None:
        """Wait until everything pushed so far is written (or the peer is gone)."""
        while self.unsent and not self.gone:
            if self._flushed is None:
                self._flushed = trio.Event()
            await self._flushed.wait()

    def detach(self) -> None:
        """The socket is about to be closed: never write to its descriptor again (the
        number may be reused by the next connection)."""
        self._fd = -1
        self._done(gone=True)

    # ------------------------------------------------------------------ writing

    def write_now(self) -> None:
        """Write as much of the backlog as the socket takes, without waiting (flusher)."""
        self.dirty = False
        if self.gone or not (self._chunks or self._frame):
            return
        if self._fd < 0:
            self._start_drain()  # not a socket: the drain task sends through the stream
            return
        if self._frame is not None:
            data = self._framed(self._frame)
            if not data:
                return
        else:
            data = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except _GONE:
            self._done(gone=True)
            self._owner.lost()
            return
        self.unsent -= sent
        if sent == len(data):
            self._chunks.clear()
            self._partial = False
            self._done(gone=False)
            return
        self._chunks = [data[sent:]]
        self._partial = True
        self._start_drain()

    def _framed(self, frame: Callable[[bytes], bytes]) -> bytes:
        """The backlog as bytes to write: the rest of a frame partly written, as it is,
        then every whole line queued since, framed (the frames' heads count as unsent
        from now on). Lines are pushed whole between two writes, so none is cut here."""
        chunks = self._chunks
        head = chunks[0] if self._partial else b""
        raw = b"".join(chunks[1:] if self._partial else chunks)
        framed = frame(raw)
        self.unsent += len(framed) - len(raw)
        return head + framed

    def _done(self, *, gone: bool) -> None:
        if gone:
            self.gone = True
            self._chunks.clear()
            self.unsent = 0
        if self._flushed is not None and not self.unsent:
            self._flushed.set()
            self._flushed = None

    def _start_drain(self) -> None:
        if not self._draining:
            self._draining = True
            self._flusher.spawn(self._drain)

    async def _drain(self) -> None:
        """Send what the flusher could not, as the socket makes room, again all at once;
        then end. So a connection that keeps up never has a writer task. A stream that is
        not a socket (an in-memory test stream) has no descriptor to write to: for it this
        task sends through the stream itself."""
        try:
            while self._chunks and not self.gone:
                if self._fd < 0:
                    data = b"".join(self._chunks)
                    self._chunks.clear()
                    self._partial = False
                    await self._stream.send_all(data)
                    self.unsent -= len(data)
                    self._done(gone=False)
                    continue
                await trio.lowlevel.wait_writable(self._fd)
                self.write_now()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            # The peer is gone, or the connection closed its socket under us.
            self._done(gone=True)
            self._owner.lost()
        finally:
            self._draining = False


class Flusher:
    """The server's one writing task: writes every connection something was pushed to,
    and keeps the drain tasks of the few whose socket is full.

    Pushing marks a connection dirty here. Woken once however many lines were pushed
    meanwhile, the flusher writes each dirty connection's whole backlog with ONE
    non-blocking ``send`` (the lines joined). On a socket that keeps up (nearly always)
    that is the end of it: no task switch per message or per connection, and no trio
    stream wrapper in the way. Only what the kernel did not take waits, for a drain task
    started then (in the flusher's nursery) for that connection alone.
    """

    def __init__(self) -> None:
        self._dirty: list[SendQueue] = []
        self._lot = trio.lowlevel.ParkingLot()
        self._nursery: trio.Nursery | None = None
        self._waiting: list[Callable[[], Awaitable[None]]] = []

    def mark(self, out: SendQueue) -> None:
        if not self._dirty:
            self._lot.unpark_all()
        self._dirty.append(out)

    def spawn(self, drain: Callable[[], Awaitable[None]]) -> None:
        if self._nursery is None:
            self._waiting.append(drain)  # run() starts it
            self._lot.unpark_all()
        else:
            self._nursery.start_soon(drain)

    async def run(self) -> None:
        """Write dirty connections until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for drain in self._waiting:
                nursery.start_soon(drain)
            self._waiting.clear()
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
