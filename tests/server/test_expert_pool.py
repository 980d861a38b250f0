"""The expert pair's play-throughs at any load (issue 31): worker processes, a bounded
backlog served newest first, ``expert_cost`` with ``unavailable`` when the server is too
busy, and no worker left once ``jackal serve`` stops, however it stops."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from jackal.game.conventions import builtin_card
from jackal.game.seats import Seat, Team
from jackal.server.config import ServerConfig
from jackal.server.deal_summary import DealSummaries, ExpertJob
from jackal.server.expert_pool import BUSY, ExpertPool
from support.client import alone_with_bots, play_out
from support.server import QUIET, ServerProcess, running_server

CARD = builtin_card("beginner")


def job(deal: int, seed: int = 5) -> ExpertJob:
    summaries = DealSummaries(seed)
    summaries.ask_expert(deal, Seat.N, {Team.NS: CARD, Team.EW: CARD})
    return summaries.take_due()[0]


class Told:
    """What the pool tells its owner, in order."""

    def __init__(self) -> None:
        self.got: list[tuple[int, Mapping[Team, int] | None, str | None]] = []

    def __call__(self, _owner: object, done: ExpertJob, cost: Mapping[Team, int] | None,
                 reason: str | None) -> None:
        self.got.append((done.deal, cost, reason))


async def test_a_full_backlog_drops_the_oldest_deal_and_serves_the_newest_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()

    def slow(self: ExpertJob) -> dict[Team, int]:
        gate.wait(30)
        return {Team.NS: self.deal, Team.EW: 0}

    monkeypatch.setattr(ExpertJob, "run", slow)
    told = Told()
    pool = ExpertPool(workers=0, backlog=3, done=told)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pool.run)
            await trio.testing.wait_all_tasks_blocked()
            pool.submit(None, job(1))  # taken at once by the idle worker
            await trio.testing.wait_all_tasks_blocked()
            for deal in range(2, 12):
                pool.submit(None, job(deal))
            # Ten more than the worker holds: three wait, the seven oldest are dropped.
            assert pool.waiting == 3
            assert told.got == [(deal, None, BUSY) for deal in range(2, 9)]
            gate.set()
            while len(told.got) < 11:
                await trio.sleep(0.01)
            assert [(deal, cost) for deal, cost, _ in told.got[7:]] == [
                (deal, {Team.NS: deal, Team.EW: 0}) for deal in (1, 11, 10, 9)]
            assert (pool.delivered, pool.unavailable, pool.waiting) == (4, 7, 0)
            nursery.cancel_scope.cancel()
    finally:
        gate.set()


async def test_the_figure_comes_from_a_worker_process_that_stops_with_the_pool() -> None:
    told = Told()
    pool = ExpertPool(workers=1, backlog=4, done=told)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pool.run)
        pool.submit(None, job(3))
        with trio.fail_after(60):
            while not told.got:
                await trio.sleep(0.02)
        workers = pool.pids()
        assert workers and os.getpid() not in workers
        await pool.close()
        nursery.cancel_scope.cancel()
    assert told.got == [(3, job(3).run(), None)]
    assert not [pid for pid in workers if _alive(pid)]


@pytest.mark.usefixtures("quick_expert_pair")
async def test_a_busy_server_says_the_figure_is_unavailable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first deal's play-through holds the only worker and nothing may wait: the
    second deal's figure is declared unavailable at once, over the wire and in ``sync``,
    and the first one's still comes."""
    gate = threading.Event()

    def held(self: ExpertJob) -> dict[Team, int]:
        if self.deal == 1:
            gate.wait(30)
        return dict.fromkeys(Team, 7)

    monkeypatch.setattr(ExpertJob, "run", held)
    config = ServerConfig(expert_workers=0, expert_backlog=0, **QUIET)
    try:
        async with running_server(config) as port:
            _lobby, human, _table = await alone_with_bots(port, "N", "pat", seed=3,
                                                          target=1000)
            ended: list[int] = []

            def second_ended(msg: dict[str, Any]) -> bool:
                if msg["type"] == "deal_ended":
                    ended.append(msg["deal"])
                return len(ended) == 2

            await play_out(human, second_ended)
            busy = await human.wait_type("expert_cost", timeout=30)
            assert busy == {"type": "expert_cost", "deal": 2, "unavailable": "server_busy"}
            gate.set()
            figure = await human.wait_type("expert_cost", timeout=30)
            assert figure == {"type": "expert_cost", "deal": 1,
                              "information_cost": {"NS": 7, "EW": 7}}
            state = await human.request(type="sync")
            first, second = state["history"][:2]
            assert first["expert_cost"] == {"NS": 7, "EW": 7}
            assert "expert_unavailable" not in first
            assert second["expert_unavailable"] == "server_busy"
            assert "expert_cost" not in second
    finally:
        gate.set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended; only its parent has not read its status yet.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                children = {int(c) for c in (task / "children").read_text().split()}
            except OSError:
                continue
            todo.extend(children - found)
            found |= children
    return found


def _workers_of(server: ServerProcess) -> set[int]:
    assert server.proc is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = {pid for pid in _descendants(server.proc.pid)
                 if b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()}
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no expert worker started:\n{server.log()}")


def _gone(pids: set[int]) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.subprocess
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL],
                         ids=lambda how: how.name)
def test_no_worker_outlives_jackal_serve(tmp_path: Path, how: signal.Signals) -> None:
    """``jackal serve`` starts its expert workers with it; stopped by a signal it stops
    them, and killed outright (SIGKILL) its workers notice and end by themselves."""
    server = ServerProcess(tmp_path, "--no-records", "--expert-workers", "1",
                           records=False)
    try:
        workers = _workers_of(server)
        assert server.proc is not None
        server.proc.send_signal(how)
        server.proc.wait(30)
        assert _gone(workers), server.log()
    finally:
        server.stop()

