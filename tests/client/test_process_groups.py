"""No process a hosted program started outlives ``jackal bot`` or ``jackal tournament``
(issue 22, item 6): the host owns the program's whole process group."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from conftest import RunJackal
from support import ROOT
from support.bots import BOT, run_bot

pytestmark = pytest.mark.subprocess


#: Starts ``sleep TAG`` in the background (as ``sleep 97 &`` would), then becomes the
#: command in the rest of its arguments.
SPAWNER = """\
import os, subprocess, sys
subprocess.Popen(["sleep", sys.argv[1]], stdin=subprocess.DEVNULL)
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


#: Starts a process in a session of its own (setsid, as a daemon would) that sleeps
#: TAG seconds, then becomes the command in the rest of its arguments.
SETSID_SPAWNER = """\
import os, subprocess, sys
subprocess.Popen(["sleep", sys.argv[1]], stdin=subprocess.DEVNULL, start_new_session=True)
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def _tag() -> str:
    """A sleep length nobody else uses, to find our sleeps among all processes."""
    return f"97.{secrets.randbelow(10**6):06d}"


def _sleeping(tag: str) -> list[int]:
    """Pids of live ``sleep TAG`` processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv[:2] == [b"sleep", tag.encode()] and state != "Z":
            found.append(int(entry.name))
    return found


def _none_left(tag: str) -> list[int]:
    deadline = time.monotonic() + 3  # a SIGKILL is delivered at once; allow the reaping
    while (left := _sleeping(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # do not leave them behind for the rest of the suite
        os.kill(pid, 9)
    return left


async def test_jackal_bot_leaves_no_process_of_its_program(server_port: int,
                                                           tmp_path: Path) -> None:
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SPAWNER)
    tag = _tag()
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--target", "1",
                         "--exec", f"{sys.executable} {spawner} {tag} "
                                   f"{ROOT / 'examples' / 'stdin_bot.py'}")
    assert done.returncode == 0, done.stderr.decode()
    assert _none_left(tag) == [], "the program's background sleep outlived jackal bot"


def test_jackal_tournament_leaves_no_process_of_its_programs(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SPAWNER)
    tag = _tag()
    minimal = ROOT / "examples" / "minimal_bot.py"
    done = run_jackal(
        "tournament", "--sandbox", "off",  # bubblewrap would end them itself
        "--entry", f"ex=exec:{sys.executable} {spawner} {tag} "
                   f"{ROOT / 'examples' / 'stdin_bot.py'}",
        "--entry", f"cm=cmd:{sys.executable} {spawner} {tag} {minimal} --host {{host}} "
                   "--port {port} --table {table} --seat {seat} --invite-fd {invite_fd}",
        "--boards", "1", "-q", timeout=170)
    assert done.returncode == 0, done.stderr
    assert _none_left(tag) == [], "a program's background sleep outlived jackal tournament"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_a_signal_to_jackal_bot_ends_its_program_too(server_port: int, tmp_path: Path,
                                                           signum: int) -> None:
    """The program leads its own process group, so a SIGTERM or SIGHUP meant for jackal
    bot never reaches it: jackal bot ends it on the way out (the program here thinks
    for an hour over its first move)."""
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SPAWNER)
    tag = _tag()
    bot = await trio.lowlevel.open_process(
        [*BOT, "--server", f"127.0.0.1:{server_port}", "--target", "1", "--move-seconds",
         "3600", "--exec", f"{sys.executable} {spawner} {tag} -c 'import time; "
         "time.sleep(3600)'"], stderr=subprocess.PIPE)
    try:
        with trio.fail_after(30):
            while not _sleeping(tag):
                await trio.sleep(0.05)
            await trio.sleep(0.5)  # seated and asking: the program holds its first move
            bot.send_signal(signum)
            assert await bot.wait() == 128 + signum
    finally:
        bot.kill()
    assert bot.stderr is not None
    said = await bot.stderr.receive_some(1 << 16)
    assert signal.Signals(signum).name.encode() in said
    assert _none_left(tag) == [], "the program outlived jackal bot"


def test_a_setsid_child_does_not_outlive_the_tournament(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    """Without bubblewrap, a process that left the program's group and session (setsid)
    still ends with the table: the launcher is its subreaper."""
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SETSID_SPAWNER)
    tag = _tag()
    minimal = ROOT / "examples" / "minimal_bot.py"
    done = run_jackal(
        "tournament", "--sandbox", "off",
        "--entry", f"ex=exec:{sys.executable} {spawner} {tag} {ROOT / 'examples' / 'stdin_bot.py'}",
        "--entry", f"cm=cmd:{sys.executable} {spawner} {tag} {minimal} --host {{host}} "
                   "--port {port} --table {table} --seat {seat} --invite-fd {invite_fd}",
        "--boards", "1", "--bot-floor", "0", "-q", timeout=170)
    assert done.returncode == 0, done.stderr
    assert _none_left(tag) == [], "a setsid child outlived jackal tournament"
