"""The arena on a Dask distributed cluster (the optional ``cluster`` extra).

Dask does all the scheduling; this module only cuts the run into batches
(:class:`BatchSizer`), keeps a bounded number of them in flight and streams the outcomes
back as batches finish (:func:`run_batches`). Its use is docs/BOTS.md's ("Measuring at scale").
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Generator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import dask.config
from distributed import Client, Future, LocalCluster, as_completed
from distributed.security import Security

from ..game.conventions import ConventionCard
from .deal import ArenaConfig, DealOutcome, play_deal

__all__ = [
    "LOCAL",
    "RETRIES",
    "TARGET_SECONDS",
    "WORKER_CONFIG",
    "BatchSizer",
    "job_count",
    "local_cluster",
    "play_batch",
    "run_batches",
    "run_on_cluster",
]

#: ``--scheduler local``: start a LocalCluster on this machine instead of connecting.
LOCAL = "local"
#: CPU time a batch should take on a worker; a batch costs about 15 ms of CPU overhead.
TARGET_SECONDS = 0.5
#: Largest batch, so a rerun after a worker dies repeats little and a batch's
#: records (about 1 kB a deal) stay small in transit.
MAX_BATCH = 1000
#: Reruns of a batch whose task raised (a lost worker is handled by the scheduler).
RETRIES = 3
#: How long to wait for a remote scheduler to answer.
CONNECT_TIMEOUT = "20s"
#: How often to ask the scheduler how many worker threads there are (workers may join).
_REFRESH_SECONDS = 5.0

#: Dask settings for workers that play deals (docs/BOTS.md shows the same as a config file
#: for remote workers). Dask's defaults cost a deal dearly: the nanny starts workers with a
#: low ``MALLOC_TRIM_THRESHOLD_``, so that memory goes back to the OS early, which for the
#: allocation-heavy expert doubled its CPU time in page faults (measured: 25 CPU s against
#: 10 for the same deals); the sampling profiler walks the worker's stacks every 10 ms; and
#: the 20 ms event-loop tick and the system monitors take the GIL from the deal many times
#: a second (5% of a core when idle).
WORKER_CONFIG: dict[str, Any] = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,  # None: unset
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}

Cards = tuple[ConventionCard, ConventionCard]


def job_count(config: ArenaConfig) -> int:
    """Number of deals a run plays (twice the deals with ``duplicate``)."""
    return config.deals * (2 if config.duplicate else 1)


def play_batch(config: ArenaConfig, cards: Cards, start: int,
               stop: int) -> tuple[list[DealOutcome], float]:
    """Play jobs ``start`` to ``stop`` - 1 on a worker; the outcomes and the CPU seconds.

    Job ``k`` is deal ``k`` or, with ``duplicate``, deal ``k // 2`` with the sides swapped
    when ``k`` is odd (the single-process run's order). Every deal is seeded from the run
    seed and its own number, so which worker plays it changes nothing: the outcomes equal
    a single-process run's once sorted. The config and the cards come by value with every
    batch (a couple of kilobytes): scattered data would die with the worker that holds
    it, and cards given as file paths are resolved on the client, where the files are.
    The seconds are the CPU time of the worker's thread, as the overhead a batch amortises
    is CPU time too, and wall time on a busy machine would shrink the batches for nothing.
    """
    began = time.thread_time()
    swaps = 2 if config.duplicate else 1
    outcomes = []
    for job in range(start, stop):
        index, swapped = divmod(job, swaps)
        outcomes.append(play_deal(config, cards, index, bool(swapped)))
    return outcomes, time.thread_time() - began


@dataclass
class BatchSizer:
    """Chooses each batch's size from the time per deal measured so far.

    A batch should take about ``TARGET_SECONDS``: the expert needs a fraction of a second
    per deal, random play a millisecond, and one fixed count would either drown in
    scheduling overhead (about 15 ms of CPU a batch between client, scheduler and worker)
    or leave workers idle at the end. The first wave is one deal per batch; near the end
    batches shrink, down to an eighth of the usual size, so the workers finish together.
    ``fixed`` overrides the measurement (tests use it to get many small batches).
    """

    target: float = TARGET_SECONDS
    ceiling: int = MAX_BATCH
    fixed: int | None = None
    per_deal: float | None = None

    def observe(self, deals: int, seconds: float) -> None:
        """Fold one finished batch into the running estimate of seconds per deal."""
        if deals <= 0:
            return
        sample = seconds / deals
        # A moving average: the first batches on a fresh worker include its warm-up.
        self.per_deal = sample if self.per_deal is None else 0.7 * self.per_deal + 0.3 * sample

    def size(self, remaining: int, threads: int) -> int:
        """Deals in the next batch, with ``remaining`` deals not yet handed out."""
        if self.fixed is not None:
            wanted = self.fixed
        elif self.per_deal is None:
            wanted = 1  # nothing measured yet: one deal tells us how long a deal takes
        else:
            wanted = round(self.target / max(self.per_deal, 1e-6))
        # Near the end, smaller batches so no worker is left with a long one alone,
        # but not so small that the overhead outweighs the deals.
        tail = max(1, wanted // 8, remaining // (2 * max(1, threads)))
        return max(1, min(wanted, self.ceiling, tail, remaining))


def _threads(client: Client) -> int:
    nthreads: dict[str, int] = client.nthreads()
    return max(1, sum(nthreads.values()))


def run_batches(client: Client, config: ArenaConfig, cards: Cards | None = None,
                batch: int | None = None,
                window: int | None = None) -> Generator[DealOutcome, None, None]:
    """Play ``config`` on ``client``'s cluster; yields outcomes as their batches finish.

    The order is that of completion, not of deals. ``batch`` fixes the batch size
    (default: sized from measured time); ``window`` caps the batches in flight
    (default: two per worker thread, so a worker has its next batch queued while the
    client collects the last one). A finished batch is handed out and released before
    the next is submitted, so memory stays flat however many deals the run has.

    A worker that dies takes its batches with it; the scheduler reruns them elsewhere
    (its ``allowed-failures`` setting bounds how often), and :data:`RETRIES` reruns a
    batch whose task raised. Each batch's future completes exactly once, so each deal is
    yielded exactly once.
    """
    cards = cards if cards is not None else config.cards()
    total = job_count(config)
    sizer = BatchSizer(fixed=batch)
    run = uuid.uuid4().hex[:12]
    threads = _threads(client)
    refreshed = time.monotonic()
    pending = as_completed()
    in_flight = 0
    handed_out = 0

    def fill() -> None:
        nonlocal handed_out, in_flight
        limit = window if window is not None else 2 * threads
        while handed_out < total and in_flight < limit:
            size = sizer.size(total - handed_out, threads)
            future: Future[tuple[list[DealOutcome], float]] = client.submit(
                play_batch, config, cards, handed_out, handed_out + size,
                key=f"jackal-arena-{run}-{handed_out}", retries=RETRIES, pure=False)
            pending.add(future)
            handed_out += size
            in_flight += 1

    fill()
    for future in pending:
        outcomes, seconds = future.result()
        future.release()  # the worker may drop the result now
        in_flight -= 1
        sizer.observe(len(outcomes), seconds)
        if time.monotonic() - refreshed > _REFRESH_SECONDS:
            threads, refreshed = _threads(client), time.monotonic()
        fill()  # before yielding, so the workers stay busy while the caller writes
        yield from outcomes


def local_cluster(workers: int | None = None) -> LocalCluster:
    """A LocalCluster of ``workers`` single-threaded processes (default one per CPU).

    Configured with ``WORKER_CONFIG``; no dashboard (the machine may be shared and
    its port taken), and Dask's log lines only for errors. Secured with Dask's own
    ``Security.temporary()``: TLS with a certificate made for this cluster and held only
    in this process's memory, so no other local process can reach the scheduler (which
    runs whatever code its clients send) or the workers. A :class:`Client` given the
    cluster object uses the same certificate.
    """
    with dask.config.set(WORKER_CONFIG):
        # The nanny reads its settings and hands the config to its worker now, once.
        return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                            processes=True, dashboard_address=None,
                            silence_logs=logging.ERROR, security=Security.temporary())


def run_on_cluster(config: ArenaConfig, scheduler: str, workers: int | None = None,
                   batch: int | None = None) -> Generator[DealOutcome, None, None]:
    """Play ``config`` on the Dask cluster at ``scheduler`` (an address, or ``local``).

    ``local`` starts a LocalCluster of ``workers`` single-threaded worker processes
    (default: one per CPU) for the length of the run; an address connects to a
    running ``dask scheduler``, whose workers must have the same jackal installed.
    """
    cards = config.cards()
    with ExitStack() as stack:
        if scheduler == LOCAL:
            cluster = stack.enter_context(local_cluster(workers))
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(Client(scheduler, timeout=CONNECT_TIMEOUT))
        yield from run_batches(client, config, cards, batch=batch)
