"""``jackal play`` in a real terminal (tmux) whose program can be killed and whose screen
is read back with ``capture-pane``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from support.server import TIMEOUT

TMUX = shutil.which("tmux")


def quote(text: str) -> str:
    """``text`` as one single-quoted shell word."""
    return "'" + text.replace("'", "'\\''") + "'"


class Tmux:
    """One detached tmux server and session (80x24 unless told) running ``command``.

    The program's pid is written to ``pid_file`` (the shell execs it, so the pid is the
    program's own), its exit status to ``status_file``; the pane then stays open.
    """

    def __init__(self, command: list[str], tmp: Path, *, name: str = "play",
                 env: dict[str, str] | None = None, width: int = 80,
                 height: int = 24) -> None:
        tag = f"{name}-{uuid.uuid4().hex[:6]}"
        self.socket = str(tmp / f"tmux-{tag}")
        self.status_file = tmp / f"{tag}.status"
        self.pid_file = tmp / f"{tag}.pid"
        program = " ".join(quote(part) for part in command)
        inner = f"echo $$ > {quote(str(self.pid_file))}; exec {program}"
        script = f"sh -c {quote(inner)}; echo $? > {quote(str(self.status_file))}; sleep 120"
        full_env = {**os.environ, "TERM": "xterm-256color", **(env or {})}
        full_env.pop("TMUX", None)
        subprocess.run([TMUX or "tmux", "-S", self.socket, "-f", "/dev/null", "new-session",
                        "-d", "-s", "play", "-x", str(width), "-y", str(height), script],
                       check=True, env=full_env, timeout=TIMEOUT)

    def screen(self) -> str:
        return subprocess.run([TMUX or "tmux", "-S", self.socket, "capture-pane", "-p", "-t",
                               "play"], capture_output=True, text=True, check=True,
                              timeout=TIMEOUT).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([TMUX or "tmux", "-S", self.socket, "send-keys", "-t", "play", *keys],
                       check=True, timeout=TIMEOUT)

    def wait(self, check: Callable[[str], bool], what: str,
             timeout: float = TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{text}")
            time.sleep(0.05)

    def pid(self) -> int:
        deadline = time.monotonic() + TIMEOUT
        while not self.pid_file.exists() or not self.pid_file.read_text().strip():
            assert time.monotonic() < deadline, "the program never started"
            time.sleep(0.05)
        return int(self.pid_file.read_text())

    def kill_program(self) -> None:
        """SIGKILL the program, as a crash (or a closed laptop) would end it."""
        os.kill(self.pid(), signal.SIGKILL)
        self.wait_exit()

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while not self.status_file.exists() or not self.status_file.read_text().strip():
            assert time.monotonic() < deadline, f"the program did not exit:\n{self.screen()}"
            time.sleep(0.05)
        return int(self.status_file.read_text())

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-S", self.socket, "kill-server"],
                       capture_output=True, timeout=TIMEOUT)
