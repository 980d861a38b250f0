"""Moving bytes: reads, and writes bounded in bytes, one write for whatever is queued
(issues 12 and 16).

Real TCP sockets on port 0. What is checked: lines arrive whole and in order; everything
pushed between two flusher rounds goes out in one write; a push that would pass the bound
is refused (so a client that does not read pins at most its bound); a dropped client's
last line comes after the line that was being written, never inside it; the canned
``help`` reply is byte for byte the encoded message.
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing
from jackal.protocol.codec import encode
from jackal.protocol.help import help_reply
from jackal.server.canned import HELP
from jackal.server.net.transport import Flusher, SendQueue, read_some


@asynccontextmanager
async def socket_pair(rcvbuf: int | None = None
                      ) -> AsyncIterator[tuple[trio.SocketStream, trio.SocketStream]]:
    """A connected pair of real TCP streams (server side, client side)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    sock = trio.socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    await sock.connect(("127.0.0.1", port))
    client = trio.SocketStream(sock)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    try:
        yield server, client
    finally:
        await server.aclose()
        await client.aclose()


class Owner:
    """Notes whether the peer was reported gone."""

    def __init__(self) -> None:
        self.gone = False

    def lost(self) -> None:
        self.gone = True


async def read_exactly(stream: trio.SocketStream, size: int) -> bytes:
    data = b""
    with trio.fail_after(10):
        while len(data) < size:
            chunk = await stream.receive_some(65536)
            assert chunk, "closed early"
            data += chunk
    return data


async def test_lines_pushed_together_go_out_whole_and_in_order() -> None:
    async with socket_pair() as (server, client), trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        owner = Owner()
        out = SendQueue(server, 1 << 20, flusher, owner)
        lines = [b'{"n":%d}\n' % n for n in range(1000)]
        for line in lines:
            assert out.push(line)
        assert out.unsent == sum(map(len, lines))
        assert await read_exactly(client, out.pushed) == b"".join(lines)
        assert out.unsent == 0 and not owner.gone
        nursery.cancel_scope.cancel()


async def test_everything_queued_between_rounds_is_one_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[int] = []
    real_write = os.write

    def counting_write(fd: int, data: bytes) -> int:
        writes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", counting_write)
    async with socket_pair() as (server, client), trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        out = SendQueue(server, 1 << 20, flusher, Owner())
        for number in range(50):
            out.push(b"line %d\n" % number)
        await read_exactly(client, out.pushed)
        assert len(writes) == 1 and writes[0] == out.pushed
        nursery.cancel_scope.cancel()


async def test_a_push_past_the_bound_is_refused_and_nothing_is_queued() -> None:
    async with socket_pair() as (server, _client):
        flusher = Flusher()  # not running: nothing is written, everything stays queued
        out = SendQueue(server, 100, flusher, Owner())
        assert out.push(b"x" * 60)
        assert not out.push(b"y" * 41)
        assert out.push(b"z" * 40)
        assert out.unsent == 100 and out.pushed == 100


async def test_a_reader_that_stops_pins_at_most_the_bound() -> None:
    bound = 64 * 1024
    async with socket_pair(rcvbuf=4096) as (server, client), trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        out = SendQueue(server, bound, flusher, Owner())
        line = b"x" * 999 + b"\n"
        refused_at = None
        for number in range(100_000):
            if not out.push(line):
                refused_at = number
                break
            if number % 50 == 0:
                await trio.testing.wait_all_tasks_blocked()  # let the kernel fill up
        assert refused_at is not None  # the kernel buffers filled, then the bound held
        assert out.unsent <= bound
        # The last line after a partly written one: the client sees whole lines only.
        out.push_last(b'{"type":"error","code":"slow_reader"}\n')
        received = b""
        with trio.fail_after(10):
            while not received.endswith(b'"slow_reader"}\n'):
                received += await client.receive_some(65536)
        *body, last = received.rstrip(b"\n").split(b"\n")
        assert all(piece == line.rstrip(b"\n") for piece in body)
        assert last == b'{"type":"error","code":"slow_reader"}'
        nursery.cancel_scope.cancel()


async def test_a_peer_that_went_away_is_reported_once_written_to() -> None:
    owner = Owner()
    async with socket_pair() as (server, client), trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        out = SendQueue(server, 1 << 20, flusher, owner)
        client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00"
                                 b"\x00\x00\x00\x00")  # close with a reset
        await client.aclose()
        with trio.fail_after(10):
            while not owner.gone:
                out.push(b"anyone there?\n")
                await trio.sleep(0.01)
        assert out.unsent == 0
        nursery.cancel_scope.cancel()


async def test_streams_without_a_socket_are_written_by_the_drain_task() -> None:
    send, receive = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        out = SendQueue(send, 1 << 20, flusher, Owner())
        out.push(b"one\n")
        out.push(b"two\n")
        got = b""
        with trio.fail_after(10):
            while got != b"one\ntwo\n":
                got += await receive.receive_some(100)
        await out.flushed()
        assert out.unsent == 0
        nursery.cancel_scope.cancel()


async def test_flushed_waits_until_the_backlog_is_written() -> None:
    async with socket_pair(rcvbuf=4096) as (server, client), trio.open_nursery() as nursery:
        flusher = Flusher()
        nursery.start_soon(flusher.run)
        out = SendQueue(server, 1 << 24, flusher, Owner())
        out.push(b"x" * (4 << 20) + b"\n")  # more than the kernel buffers take at once
        await trio.testing.wait_all_tasks_blocked()
        assert out.unsent > 0
        done = trio.Event()

        async def wait_flushed() -> None:
            await out.flushed()
            done.set()

        nursery.start_soon(wait_flushed)
        received = 0
        with trio.fail_after(20):
            while not done.is_set():
                received += len(await client.receive_some(1 << 20))
        assert out.unsent == 0 and received <= out.pushed
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("msg_id", [None, 0, 7, -3, 2**63 - 1, "a\"b\\é", "x" * 64])
def test_the_canned_help_reply_is_the_encoded_message(msg_id: int | str | None) -> None:
    assert b"".join(HELP.parts(msg_id)) == encode(help_reply(msg_id))


def test_every_canned_help_reply_shares_one_body() -> None:
    first, second = HELP.parts(1), HELP.parts("two")
    assert first[0] is second[0] and len(first[0]) > 1000 and len(first[1]) < 20


async def test_read_some_reads_a_socket_and_reports_its_end() -> None:
    async with socket_pair() as (server, client):
        await client.send_all(b"hello\n")
        assert await read_some(server, 100) == b"hello\n"
        await client.send_eof()
        assert await read_some(server, 100) == b""


async def test_read_some_reports_a_reset_as_a_broken_stream() -> None:
    async with socket_pair() as (server, client):
        client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00"
                                 b"\x00\x00\x00\x00")
        await server.send_all(b"unread\n")  # unread data makes the close a reset
        await trio.sleep(0.05)
        await client.aclose()
        with pytest.raises(trio.BrokenResourceError):
            while await read_some(server, 100):
                pass
