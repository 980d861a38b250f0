"""The server under test: ``jackal serve`` as a process that can be SIGKILLed and started
again on the same port (:class:`ServerProcess`), or the real server in this process on a
free port (:func:`running_server`, with its web port :func:`running_web_server`)."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import trio
import trio.testing
from benchkit.server import stop_process
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve

from support import ROOT

#: Seconds any one wait in these tests may take before it fails with the screen shown.
TIMEOUT = 30.0
JACKAL = [sys.executable, "-m", "jackal.cli.main"]
T = TypeVar("T")


class ServerProcess:
    """``jackal serve`` in a subprocess that can be SIGKILLed and started again on the
    same port and records folder; its log goes to a file."""

    def __init__(self, tmp: Path, *extra: str, umask: int | None = None,
                 records: bool = True) -> None:
        """``extra`` arguments follow ``--records tmp/records`` (left out with ``records``
        false: the server's default folder); ``umask`` is set in the server's process.
        Without a ``--bot-floor`` of the test's own, the server's bots play with none:
        the fair-play floor under their cards is the subject of the bot-timing tests,
        and elsewhere it only makes a deal take seconds longer."""
        self.records = tmp / "records"
        self.log_path = tmp / "serve.log"
        self.extra = extra if "--bot-floor" in extra else ("--bot-floor", "0", *extra)
        self.umask = umask
        self.records_arg = records
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> int:
        """Start (again, on the same port once one is known); returns the port."""
        already = self.log_path.read_text(errors="replace").count("listening on") \
            if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            records = ["--records", str(self.records)] if self.records_arg else []
            self.proc = subprocess.Popen(
                [*JACKAL, "serve", "--port", str(self.port), *records, *self.extra],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=ROOT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                umask=-1 if self.umask is None else self.umask)
        deadline = time.monotonic() + TIMEOUT
        while True:
            text = self.log_path.read_text(errors="replace")
            found = re.findall(r"listening on \S+:(\d+)", text)
            if len(found) > already:
                self.port = int(found[-1])
                return self.port
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"jackal serve did not start:\n{text}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no goodbye to anyone, no record closed."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(TIMEOUT)

    def stop(self) -> int | None:
        """SIGTERM (SIGKILL if it hangs); returns the exit status (None: never started).
        Stopping a server that has already ended only returns its status."""
        return None if self.proc is None else stop_process(self.proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def record_events(self) -> list[dict[str, Any]]:
        """Every event of every record file, in file order (one table in these tests)."""
        events: list[dict[str, Any]] = []
        for path in sorted(self.records.glob("*.jsonl")):
            for line in path.read_text().splitlines():
                if line.strip():
                    events.append(json.loads(line))
        return events


#: ServerConfig options for tests that must not be disturbed by keepalive pings or the
#: hello deadline: ``ServerConfig(**QUIET)``.
QUIET: dict[str, Any] = dict(ping_interval=10_000.0, ping_timeout=10_000.0,
                             hello_timeout=10_000.0)


class BotClock:
    """An autojump :attr:`clock` that stands still while a worker thread works.

    Server-side bots think (and the hub plays each deal through) in worker threads, which
    the run loop sees only as tasks waiting. A plain autojump clock jumps once every task
    has waited its threshold in real time, and on two busy cores a thread's few
    milliseconds of thought can last longer than any threshold: the clock then skipped
    virtual seconds mid-thought and hit the bot time cap and the tests' own timeouts.
    This one counts the threads in flight (tests/conftest.py's ``bot_clock`` routes
    ``trio.to_thread.run_sync`` through :meth:`in_thread`) and never jumps while one runs,
    however slowly; between threads it jumps after :data:`IDLE` real seconds of quiet.
    """

    #: Real seconds of quiet before a jump when no thread works: long enough for bytes
    #: sent over loopback in this process to be seen as readable first.
    IDLE = 0.02

    def __init__(self) -> None:
        self.clock = trio.testing.MockClock(autojump_threshold=self.IDLE)
        self.threads = 0

    async def in_thread(self, run_sync: Callable[..., Awaitable[T]], *args: Any,
                        **kwargs: Any) -> T:
        """``await run_sync(*args, **kwargs)`` with the clock held still meanwhile."""
        self.threads += 1
        self.clock.autojump_threshold = math.inf
        try:
            return await run_sync(*args, **kwargs)
        finally:
            self.threads -= 1
            if not self.threads:
                self.clock.autojump_threshold = self.IDLE


@asynccontextmanager
async def running_server(config: ServerConfig | None = None) -> AsyncIterator[int]:
    """A real server on a free port for the body of the ``async with``."""
    config = config or ServerConfig(port=0)
    config.port = 0
    async with trio.open_nursery() as nursery:
        port: int = await nursery.start(serve, config)
        yield port
        nursery.cancel_scope.cancel()


@asynccontextmanager
async def running_web_server(config: ServerConfig) -> AsyncIterator[tuple[int, int]]:
    """A real server with its web port (``config`` should ask for free ones: port 0) for
    the body of the ``async with``: ``(tcp, web)``."""
    bound: list[int] = []
    async with trio.open_nursery() as nursery:
        port: int = await nursery.start(partial(serve, config, web_started=bound.append))
        yield port, bound[0]
        nursery.cancel_scope.cancel()
