"""The bare trio line-broadcast server that ``server_load.py`` measures Jackal against.

It does the least a four-player table server must do on the network, and nothing else:
connections come in groups of four, and every line one member sends is relayed to all
four members. No JSON, no game, no hidden information, no records. It is built the way
the Jackal server is built (one task per connection reading, one writer task per
connection draining a bounded queue), so the ratio of the two throughputs is the price
of everything Jackal adds on top of moving lines around.

Wire (plain text, one line each):
- a client's first line is ``join GROUP`` (any token); when the group's fourth member
  joins, the server sends ``start`` to all four;
- every later line from a member goes, unchanged, to all four members (the sender too).

Run: ``python bench/baseline_server.py --port 0``; it prints
``listening on 127.0.0.1:PORT`` once bound, and stops cleanly on Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys

import trio

GROUP_SIZE = 4
MAX_LINE = 65536
QUEUE_SIZE = 256


class Member:
    """One connection: its stream and its bounded outgoing queue."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.send_q, self.recv_q = trio.open_memory_channel[bytes](QUEUE_SIZE)

    def push(self, data: bytes) -> bool:
        """Queue ``data`` without waiting; False when this member stopped reading."""
        try:
            self.send_q.send_nowait(data)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    async def writer(self) -> None:
        """Drain the queue into the socket, batching whatever is already waiting."""
        async with self.recv_q:
            async for data in self.recv_q:
                chunks = [data]
                while True:
                    try:
                        chunks.append(self.recv_q.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                await self.stream.send_all(b"".join(chunks))


class Groups:
    """Groups of four members, by the name in their ``join`` line."""

    def __init__(self) -> None:
        self.groups: dict[bytes, list[Member]] = {}

    def join(self, name: bytes, member: Member) -> list[Member]:
        group = self.groups.setdefault(name, [])
        group.append(member)
        if len(group) == GROUP_SIZE:
            for other in group:
                other.push(b"start\n")
        return group

    def leave(self, name: bytes, member: Member) -> None:
        group = self.groups.get(name)
        if group is not None and member in group:
            group.remove(member)
            if not group:
                del self.groups[name]


async def handle(stream: trio.SocketStream, groups: Groups) -> None:
    """Serve one connection until it closes."""
    member = Member(stream)
    group: list[Member] | None = None
    name = b""
    buffer = b""
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(member.writer)
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    break
                buffer += data
                if len(buffer) > MAX_LINE and b"\n" not in buffer:
                    break
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if group is None:
                        name = line.partition(b" ")[2].strip()
                        group = groups.join(name, member)
                        continue
                    out = line + b"\n"
                    for other in group:
                        other.push(out)
            nursery.cancel_scope.cancel()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        if group is not None:
            groups.leave(name, member)
        member.send_q.close()
        await stream.aclose()


async def serve(host: str, port: int, *,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Listen on ``host:port``; report the bound port through ``task_status``."""
    groups = Groups()
    listeners = await trio.open_tcp_listeners(port, host=host, backlog=4096)
    bound = listeners[0].socket.getsockname()[1]
    task_status.started(bound)

    async def handler(stream: trio.SocketStream) -> None:
        await handle(stream, groups)

    await trio.serve_listeners(handler, listeners)


async def _main(host: str, port: int) -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(serve, host, port)
            print(f"listening on {host}:{bound}", flush=True)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7879)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        trio.run(_main, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
