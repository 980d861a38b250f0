"""Scaffolding for the LAN tests: ``jackal serve`` as a process that can be SIGKILLed and
started again on the same port, and ``jackal play`` in a real terminal (tmux) whose
program can be killed and whose screen is read back with ``capture-pane``."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TMUX = shutil.which("tmux")
#: Seconds any one wait in these tests may take before it fails with the screen shown.
TIMEOUT = 30.0
JACKAL = [sys.executable, "-m", "jackal.cli.main"]


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
            time.sleep(0.1)

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
            time.sleep(0.1)
        return int(self.status_file.read_text())

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-S", self.socket, "kill-server"],
                       capture_output=True, timeout=TIMEOUT)


class ServerProcess:
    """``jackal serve`` in a subprocess that can be SIGKILLed and started again on the
    same port and records folder; its log goes to a file."""

    def __init__(self, tmp: Path, *extra: str, umask: int | None = None,
                 records: bool = True) -> None:
        """``extra`` arguments follow ``--records tmp/records`` (left out with ``records``
        false: the server's default folder); ``umask`` is set in the server's process."""
        self.records = tmp / "records"
        self.log_path = tmp / "serve.log"
        self.extra = extra
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

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)

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


class LineClient:
    """A blocking line-protocol client for setting tables up from a test."""

    def __init__(self, port: int, name: str = "host") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.reader = self.sock.makefile("rb")
        self.ids = 0
        self.reader.readline()  # welcome
        self.request({"type": "hello", "name": name})

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id; return its reply (raise on an error reply)."""
        self.ids += 1
        self.sock.sendall(json.dumps({**msg, "id": self.ids}).encode() + b"\n")
        while True:
            reply: dict[str, Any] = json.loads(self.reader.readline())
            if reply.get("type") == "ping":
                self.sock.sendall(b'{"type":"pong"}\n')
            elif reply.get("id") == self.ids:
                if reply["type"] == "error":
                    raise AssertionError(f"{msg['type']} refused: {reply}")
                return reply

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def create_table(port: int, bots: dict[str, str], **options: Any) -> str:
    """A table on the server at ``port`` with server-side ``bots`` ({seat: strategy});
    returns its id."""
    client = LineClient(port)
    try:
        table: str = client.request({"type": "create_table", **options})["table"]
        for seat, strategy in bots.items():
            client.request({"type": "add_bot", "table": table, "seat": seat,
                            "strategy": strategy})
        return table
    finally:
        client.close()
