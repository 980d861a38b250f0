"""The arena on a Dask cluster: same deals as a local run, no deal lost to a dead worker."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml
from distributed import Client
from distributed.security import Security
from jackal.arena.cluster import WORKER_CONFIG, BatchSizer, local_cluster, run_batches
from jackal.arena.reports import DealRecord, SidesReport, encode
from jackal.arena.run import ArenaConfig, run_arena, summarise
from support import ROOT


def by_deal(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (r["deal"], r["swapped"]))


def local_records(config: ArenaConfig) -> list[dict[str, Any]]:
    return [as_written(outcome.record) for outcome in run_arena(config, jobs=1)]


def as_written(record: DealRecord) -> dict[str, Any]:
    """``record`` as a line of the records file reads back: JSON's lists and strings."""
    line: dict[str, Any] = json.loads(encode(record))
    return line


def arena_cli(*args: str, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jackal.cli.main", "arena", *args],
                          capture_output=True, text=True, timeout=120, check=False,
                          env=None if env is None else {**os.environ, **env})


def tls_env(security: Security, folder: Path) -> dict[str, str]:
    """Dask's configuration, as environment variables, that lets a client in another
    process use ``security``'s certificate (what ``--scheduler ADDRESS`` trusts)."""
    env = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True"}
    # Security sets its tls_* attributes at run time (mypy cannot see them).
    for name, attribute in (("CA_FILE", "tls_ca_file"), ("CLIENT__CERT", "tls_client_cert"),
                            ("CLIENT__KEY", "tls_client_key")):
        path = folder / f"{name.lower()}.pem"
        path.write_text(str(getattr(security, attribute)))
        path.chmod(0o600)
        env[f"DASK_DISTRIBUTED__COMM__TLS__{name}"] = str(path)
    return env


@pytest.fixture
def no_leftover_processes() -> Iterator[None]:
    """Fail if the test leaves a process behind (a worker, a nanny, a scheduler)."""
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    yield
    left = [p for p in me.children(recursive=True) if p.pid not in before]
    # multiprocessing's resource tracker lives as long as the interpreter, by design.
    left = [p for p in left if "resource_tracker" not in " ".join(p.cmdline())]
    assert not left, [p.cmdline() for p in left]


def test_batch_sizes_follow_the_measured_time_per_deal() -> None:
    sizer = BatchSizer(target=0.5, ceiling=1000)
    assert sizer.size(remaining=10_000, threads=2) == 1  # nothing measured yet
    sizer.observe(deals=10, seconds=1.0)  # 0.1 s a deal: 5 deals make half a second
    assert sizer.size(remaining=10_000, threads=2) == 5
    sizer.observe(deals=1000, seconds=1.0)  # now much faster: the batches grow
    assert 5 < sizer.size(remaining=10_000, threads=2) <= 1000
    # Near the end the batches shrink, so both workers finish together.
    assert sizer.size(remaining=8, threads=2) == 2
    assert sizer.size(remaining=1, threads=2) == 1
    # ... but not below an eighth of a full batch, where overhead would dominate.
    fast = BatchSizer(target=0.5, ceiling=1000)
    fast.observe(deals=1000, seconds=0.5)
    assert fast.size(remaining=100_000, threads=2) == 1000
    assert fast.size(remaining=200, threads=2) == 125


@pytest.mark.subprocess
@pytest.mark.usefixtures("no_leftover_processes")
def test_cli_local_cluster_equals_local_run(tmp_path: Path) -> None:
    config = ArenaConfig(ns="beginner", ew="random", deals=6, seed=17, duplicate=True)
    path = tmp_path / "cluster.jsonl"
    proc = arena_cli("--ns", "beginner", "--ew", "random", "--deals", "6", "--seed", "17",
                     "--duplicate", "--scheduler", "local", "--jobs", "2", "--json",
                     "--records", str(path))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert by_deal(records) == by_deal(local_records(config))
    report = json.loads(proc.stdout)
    assert report["played"] == 12 and report["scheduler"] == "local"
    ns_side, ew_side = summarise(config, run_arena(config))
    assert report["sides"] == json.loads(encode(SidesReport(ns=ns_side.report(),
                                                           ew=ew_side.report())))


@pytest.mark.subprocess
@pytest.mark.usefixtures("no_leftover_processes")
def test_worker_killed_mid_run_loses_no_deal(tmp_path: Path) -> None:
    config = ArenaConfig(ns="beginner", ew="greedy", deals=16, seed=5)
    window = 4
    with local_cluster(2) as cluster, Client(cluster) as client:
        pids: dict[str, int] = client.run(os.getpid)
        # The victim is stopped (SIGSTOP) before the run: a batch the scheduler gives it
        # stays on it, unfinished, until it is killed. Picking a worker that looked busy
        # after the first outcome was a race: a batch of two deals takes about 25 ms of
        # CPU, so on a loaded machine every batch in flight could finish before the test
        # asked the scheduler, leaving "no batch in flight to lose".
        address = sorted(pids)[0]
        os.kill(pids[address], signal.SIGSTOP)
        seen = []
        lost: list[str] = []
        try:
            for outcome in run_batches(client, config, batch=2, window=window):
                seen.append(as_written(outcome.record))
                # At most `window` batches are submitted and unfinished; finished ones
                # are let go (released on the client's event loop, so a moment late).
                # Without the bound all 8 batches would be out at once.
                futures = list(client.futures.values())
                assert sum(1 for f in futures if f.status == "pending") <= window
                assert len(futures) <= 2 * window
                if not lost:
                    # Kill the stopped worker once the scheduler has given it a batch (it
                    # is the least busy worker, so it gets the next one if not yet):
                    # that batch must be played again elsewhere.
                    lost = list(client.processing().get(address, ()))
                    if lost:
                        os.kill(pids[address], signal.SIGKILL)
        finally:
            if not lost:
                os.kill(pids[address], signal.SIGCONT)
        assert lost, "the stopped worker was never given a batch"
        # Dead: gone, or a zombie its nanny has not reaped yet (the scheduler saw the
        # connection close, which is what reran its batches).
        with contextlib.suppress(psutil.NoSuchProcess):
            assert psutil.Process(pids[address]).status() == psutil.STATUS_ZOMBIE
        # Every deal exactly once, each as the single-process run played it.
        assert sorted(record["deal"] for record in seen) == list(range(16))
        assert by_deal(seen) == by_deal(local_records(config))

        # The CLI against the same (recovered) cluster by address, trusting its
        # certificate through Dask's configuration.
        path = tmp_path / "address.jsonl"
        proc = arena_cli("--ns", "beginner", "--ew", "greedy", "--deals", "4", "--seed", "5",
                         "--scheduler", str(cluster.scheduler_address), "--records", str(path),
                         env=tls_env(cluster.security, tmp_path))
        assert proc.returncode == 0, proc.stderr
        assert "4 deals played" in proc.stdout
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert by_deal(records) == by_deal(local_records(config)[:4])


@pytest.mark.subprocess
def test_cli_rejects_jobs_with_a_scheduler_address() -> None:
    proc = arena_cli("--ns", "greedy", "--ew", "greedy", "--scheduler", "tcp://127.0.0.1:1",
                     "--jobs", "2")
    assert proc.returncode == 2 and "--jobs" in proc.stderr


def test_documented_worker_config_is_the_one_local_uses() -> None:
    """docs/BOTS.md's dask config file for remote workers says what WORKER_CONFIG says."""
    doc = (ROOT / "docs" / "BOTS.md").read_text()
    section = doc.split("## Measuring at scale", 1)[1]
    documented = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])

    def flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in tree.items():
            if isinstance(value, dict):
                out |= flat(value, f"{prefix}{key}.")
            else:
                out[f"{prefix}{key}"] = value
        return out

    assert flat(documented) == WORKER_CONFIG


#: Another local process that knows the scheduler's address (argv[1]) and tries to run
#: code in the workers: prints the worker's pid if it could.
OUTSIDER = """\
import sys
from distributed import Client
from distributed.security import Security
address = sys.argv[1]
try:
    with Client(address, timeout=5) as client:
        print("RAN IN WORKER", client.submit(lambda: __import__("os").getpid()).result())
except Exception as exc:
    print("REFUSED", type(exc).__name__)
"""


@pytest.mark.subprocess
@pytest.mark.usefixtures("no_leftover_processes")
def test_another_local_process_cannot_use_the_local_cluster() -> None:
    """``--scheduler local``'s cluster speaks TLS with a certificate only this process
    holds: a local process that finds its port cannot submit work, whatever scheme it
    tries; the arena's own client can."""
    with local_cluster(1) as cluster, Client(cluster) as client:
        address = cluster.scheduler_address
        assert client.submit(os.getpid).result() != os.getpid()
        for tried in (address, "tcp://" + address.split("://", 1)[1]):
            done = subprocess.run([sys.executable, "-c", OUTSIDER, tried], capture_output=True,
                                  text=True, timeout=60, check=False)
            assert "RAN IN WORKER" not in done.stdout, (tried, done.stdout)
            assert "REFUSED" in done.stdout, (tried, done.stdout, done.stderr[-2000:])
        assert address.startswith("tls://")
