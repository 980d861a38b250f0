"""Fixtures shared by every test area. Keep this file small: helpers (the server process,
the line clients, the fake peer) live in tests/support/, area-specific ones in the area's
own test module."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import trio
import trio.testing
from jackal.game.seats import TEAMS
from jackal.server import hub as hub_module
from jackal.server.config import ServerConfig
from jackal.server.deal_summary import ExpertJob
from jackal.server.net.listener import serve
from support import ROOT
from support.browser import CHROMIUM, Browser, Chromium, Web, driving
from support.server import BotClock, running_web_server
from support.tmux import Tmux

RunJackal = Callable[..., "subprocess.CompletedProcess[str]"]


class CliAnswer(NamedTuple):
    """What a command called in this process (``call_jackal``) answered."""

    returncode: int
    stdout: str
    stderr: str


CallJackal = Callable[..., CliAnswer]


#: Workers of a run of the whole suite (pytest-xdist): most slow tests wait on processes,
#: sockets and terminals rather than compute, so twice CI's two cores pays.
WORKERS = 4


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``pytest`` and ``pytest -m "not slow"`` (the suite from pyproject's testpaths) run on
    :data:`WORKERS` workers; a run of named files or tests stays in one process, as do
    ``-n 0``, ``-p no:xdist`` and ``--pdb``. ``-n N`` always wins. Set here rather than in
    pyproject's addopts, where ``-n`` would break ``-p no:xdist``."""
    if (config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
            and config.option.numprocesses is None and not config.option.usepdb
            and config.args_source is pytest.Config.ArgsSource.TESTPATHS):
        config.option.numprocesses = WORKERS
    if (config.pluginmanager.hasplugin("xdist") and config.option.numprocesses
            and config.option.dist == "no"):
        # xdist_group marks hold tests that share something on one worker.
        config.option.dist = "loadgroup"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that starts a process is slow as well (``pytest -m "not slow"`` skips it).

    Slow tests go first (a stable sort, the same on every worker): a worker that draws a
    minute-long test near the end of a parallel run would keep the others waiting."""
    for item in items:
        if item.get_closest_marker("subprocess") is not None:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def private_state_dir(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every process it starts) gets its own XDG state folder, so
    ``jackal serve``'s default records and ``jackal play``'s saved seats never touch the
    user's real ``~/.local/state`` and never leak from one test into another."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture
def bot_clock(monkeypatch: pytest.MonkeyPatch) -> trio.testing.MockClock:
    """Virtual time for a test whose subject is time, with server bots thinking in
    threads (see :class:`support.server.BotClock`); asking for it makes it the test's
    trio clock. Every ``trio.to_thread.run_sync`` of the test goes through the clock."""
    clock = BotClock()
    run_sync = trio.to_thread.run_sync

    async def counted(*args: Any, **kwargs: Any) -> Any:
        return await clock.in_thread(run_sync, *args, **kwargs)

    monkeypatch.setattr(trio.to_thread, "run_sync", counted)
    return clock.clock


@pytest.fixture
def run_jackal() -> RunJackal:
    """Run the real ``jackal`` CLI in a subprocess: ``run_jackal("score", "...")``.

    Keyword arguments: ``input`` (text for stdin, default empty), ``timeout`` in
    seconds (default 60), ``env`` (extra environment variables). Returns the
    ``CompletedProcess`` with text ``stdout``/``stderr``; never raises on a non-zero exit.
    """

    def run(*args: str, input: str = "", timeout: float = 60.0,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
        return subprocess.run(
            [sys.executable, "-m", "jackal.cli.main", *args],
            input=input, capture_output=True, text=True, timeout=timeout,
            env=full_env, cwd=ROOT, check=False,
        )

    return run


@pytest.fixture
def call_jackal(capsys: pytest.CaptureFixture[str]) -> CallJackal:
    """The ``jackal`` CLI called in this process (``jackal.cli.main.main``), answering as
    :func:`run_jackal` does: ``call_jackal("score", "...")`` gives a :class:`CliAnswer`
    with the exit status and what was written to stdout and stderr. For a command whose
    subject is what it computes; keep one subprocess test of each command (the process is
    what a user runs) and test the rest of its answers here, without a Python start each."""
    from jackal.cli.main import main

    def call(*args: str) -> CliAnswer:
        capsys.readouterr()  # what the test printed before is not the command's
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse's refusals and --help
            status = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return CliAnswer(status, out, err)

    return call


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A local port that refuses connections for the whole test: bound, never listened on.

    A port merely closed again is free for anyone to take, and once another test run's
    server took it and answered the "unreachable" client.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture
def server_config() -> ServerConfig:
    """The configuration of ``server_port``'s server; a module that needs another defines
    its own ``server_config`` fixture. By default a deal never starts without every
    human's ``ready`` (a missing one must show), as it would after a pause between deals."""
    return ServerConfig(port=0, between_deals_seconds=600)


@pytest.fixture
async def server_port(nursery: trio.Nursery, server_config: ServerConfig
                      ) -> AsyncIterator[int]:
    """A real server in this process, on a free port, for the test's length."""
    port: int = await nursery.start(serve, server_config)
    yield port


@pytest.fixture
def terminals() -> Iterator[list[Tmux]]:
    """The terminals (tmux, see ``support.screens.open_client``) a test opens; all closed
    at the end."""
    opened: list[Tmux] = []
    yield opened
    for terminal in opened:
        terminal.close()


@pytest.fixture
def quick_expert_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """The expert pair's play-through of each finished deal, for a server in this process,
    gives fixed figures at once: for tests of many deals whose subject is not those figures
    (tests/server/test_deal_summary.py checks them).

    The real one is a quarter of a second of CPU a deal in a thread of the test's process:
    it took a third of the leak audit's CPU over its 1,000 deals. Everything else stays:
    the hub's expert pool still queues a job a deal (run in a thread of this process,
    where the replacement is seen, instead of a worker process), and each ``expert_cost``
    line it makes reaches the table like any other line."""
    monkeypatch.setattr(ExpertJob, "run", lambda _job: dict.fromkeys(TEAMS, 0))
    monkeypatch.setattr(hub_module, "default_workers", lambda: 0)


# ------------------------------------------------------------------ the browser tier

@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """The module's browser process (started once: a Chromium start is the tier's
    dearest step); each test opens pages of its own in it."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    process = Chromium(tmp_path_factory.mktemp("chromium"))
    try:
        yield process
    finally:
        process.close()


@pytest.fixture
async def devtools(chromium: Chromium) -> AsyncIterator[Browser]:
    """The test's connection to the module's browser; its pages are closed at the end."""
    async with driving(chromium) as connected:
        yield connected


@pytest.fixture
def page_server_config() -> ServerConfig:
    """Bots pause a little before each card, as a person would see them play, and the
    next deal waits for everyone's ready."""
    return ServerConfig(port=0, web_port=0, bot_pause_seconds=0.05,
                        between_deals_seconds=600)


@pytest.fixture
async def page_server(page_server_config: ServerConfig, quick_expert_pair: None
                      ) -> AsyncIterator[Web]:
    """A real server in this process, its TCP and web ports both free ones."""
    del quick_expert_pair  # asked for its effect: no expert worker processes
    async with running_web_server(page_server_config) as (port, web):
        yield Web(port, web)


@pytest.fixture(scope="session")
def screenshots(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
                ) -> Path:
    """Where the run keeps its screenshots: ``$JACKAL_SCREENSHOTS`` if set, else
    ``.pytest_cache/d/screenshots/`` of the checkout (pytest's temporary folders are
    pruned by later runs; the cache stays until ``--cache-clear``), else (no cache
    plugin) pytest's temporary folder. Each run overwrites the files of the one before."""
    chosen = os.environ.get("JACKAL_SCREENSHOTS")
    if chosen:
        folder = Path(chosen)
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    cache = getattr(pytestconfig, "cache", None)  # absent with -p no:cacheprovider
    if cache is not None:
        return Path(cache.mkdir("screenshots"))
    return tmp_path_factory.mktemp("screenshots", numbered=False)
