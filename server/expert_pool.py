"""The expert pair's play-throughs of finished deals, in worker processes with a bounded
backlog (:class:`ExpertPool`): the event loop's interpreter lock is never shared with them,
and a server that cannot keep up says a deal's figure is unavailable instead of queueing
without end (the newest deals are served first)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import trio

from ..game.seats import Team
from .deal_summary import ExpertJob

__all__ = ["BUSY", "ExpertPool", "default_workers"]

log = logging.getLogger("jackal.server")

#: The reason an ``expert_cost`` gives when the backlog was full (docs/PROTOCOL.md).
BUSY = "server_busy"
#: ... and when the play-through failed.
FAILED = "failed"

#: What the pool tells its owner: the job, and the figure or the reason there is none.
Done = Callable[[Any, ExpertJob, "Mapping[Team, int] | None", "str | None"], None]

#: The workers' niceness: against a busy process of normal priority a worker gets about
#: a tenth of a core (19 would starve it: a test's single figure then took tens of
#: seconds on a loaded machine).
WORKER_NICE = 10

#: How often a worker looks whether the server that started it is still there.
_PARENT_POLL_SECONDS = 0.5


def default_workers() -> int:
    """One worker per spare core (the event loop keeps one), at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def _watch_parent(parent: int) -> None:
    """In a worker: end this process as soon as the server is gone, however it went (even
    SIGKILL, which runs no clean-up): its pipes may be held open by the other workers, so
    only the parent's id tells."""
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_SECONDS)
    os._exit(0)


def _worker_start(parent: int) -> None:
    # Ctrl-C reaches the whole process group; the server stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The figure is extra: a worker runs mostly on CPU time nothing else wants, and takes
    # little from the event loop (or anything else on the machine) when it is busy.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="parent-watch").start()


def _run(job: ExpertJob) -> dict[Team, int]:
    return job.run()


class ExpertPool:
    """Play-throughs for the whole server: ``workers`` processes, and at most ``backlog``
    jobs waiting for one.

    A new job goes to the front; the workers take the newest first, as the players are
    looking at the deal that just ended. When a new job finds the backlog full the oldest
    waiting one is dropped and told unavailable (:data:`BUSY`), so memory and the delay
    of a figure stay bounded at any load. ``workers=0`` runs each job in a thread of this
    process instead (for small setups and tests that replace the play-through).

    The processes run at a low priority (:data:`WORKER_NICE`), so on a busy machine they
    take little more than what is left over, and the backlog bound does the rest. They
    are started with ``spawn`` (a fork of a process with trio's threads running is
    unsafe), lazily on the first job, and stopped by :meth:`close`; a worker ends by
    itself if the server dies without it (see :func:`_watch_parent`).
    """

    def __init__(self, workers: int, backlog: int, done: Done) -> None:
        self.workers = max(0, workers)
        self.backlog = max(0, backlog)
        self._done = done
        self._waiting: deque[tuple[Any, ExpertJob]] = deque()
        self._wake = trio.Event()
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        #: Serving tasks waiting for a job: a job they take at once never waits.
        self._idle = 0
        self._closed = False
        self.delivered = 0
        self.unavailable = 0

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def submit(self, owner: Any, job: ExpertJob) -> None:
        """Queue ``job`` for ``owner`` (newest first), dropping the oldest waiting job
        when the backlog is full. Never waits."""
        self._waiting.appendleft((owner, job))
        while len(self._waiting) > self.backlog + self._idle:
            old_owner, old_job = self._waiting.pop()
            self._give(old_owner, old_job, None, BUSY)
        self._wake.set()

    async def run(self) -> None:
        """Serve the backlog until cancelled: one task per worker."""
        async with trio.open_nursery() as nursery:
            for _ in range(max(1, self.workers)):
                nursery.start_soon(self._serve)

    async def _serve(self) -> None:
        while True:
            while not self._waiting:
                self._wake = trio.Event()
                self._idle += 1
                try:
                    await self._wake.wait()
                finally:
                    self._idle -= 1
            owner, job = self._waiting.popleft()
            try:
                cost = await self._work(job)
            except Exception:
                if self._closed:
                    return  # the server stops: its workers were stopped under this job
                log.exception("the expert play-through of deal %d failed", job.deal)
                self._give(owner, job, None, FAILED)
            else:
                self._give(owner, job, cost, None)

    def start(self) -> concurrent.futures.ProcessPoolExecutor | None:
        """Start the worker processes now (else the first job does), and the executor."""
        if self.workers == 0 or self._closed:
            return None
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start, initargs=(os.getpid(),))
            # The executor spawns a process per job while none is idle: one no-op each.
            for _ in range(self.workers):
                self._executor.submit(os.getpid)
        return self._executor

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and benches)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(processes)

    async def _work(self, job: ExpertJob) -> dict[Team, int]:
        executor = self.start()
        if self._closed:
            raise RuntimeError("the expert pool is closed")
        if executor is None:
            return await trio.to_thread.run_sync(job.run, abandon_on_cancel=True)
        future = executor.submit(_run, job)
        token = trio.lowlevel.current_trio_token()
        finished = trio.Event()

        def wake(_future: object) -> None:
            # The server may have stopped meanwhile: then nobody waits for it.
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(finished.set)

        future.add_done_callback(wake)
        try:
            await finished.wait()
        except trio.Cancelled:
            future.cancel()
            raise
        return future.result()

    def _give(self, owner: Any, job: ExpertJob, cost: Mapping[Team, int] | None,
              reason: str | None) -> None:
        if cost is None:
            self.unavailable += 1
        else:
            self.delivered += 1
        self._done(owner, job, cost, reason)

    async def close(self) -> None:
        """Stop the workers (a running play-through is abandoned) and wait for them to
        exit, so no process outlives the server."""
        self._closed = True
        self._waiting.clear()
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        await trio.to_thread.run_sync(executor.shutdown, True)
        for process in processes:
            await trio.to_thread.run_sync(process.join, 5.0)
