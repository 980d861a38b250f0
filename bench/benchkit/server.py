"""``jackal serve`` of the Python running the bench, in a subprocess on a free port, with
its log in a file: the server a bench script measures. The tests have their own launcher
(tests/support/server.py) that can also kill and restart a server, which no bench needs."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

#: The CLI of the Python that runs the bench, so another checkout's venv measures that
#: checkout.
JACKAL = [sys.executable, "-m", "jackal.cli.main"]
#: The repository root, the server's working folder.
ROOT = Path(__file__).resolve().parent.parent.parent
#: Seconds the server may take to start or to stop.
TIMEOUT = 30.0


class ServerProcess:
    """``jackal serve --port 0 --records tmp/records EXTRA...``; ``port`` once started.
    Without a ``--bot-floor`` of the caller's own, the server's bots play with none."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.log_path = tmp / "serve.log"
        floor = () if "--bot-floor" in extra else ("--bot-floor", "0")
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [*JACKAL, "serve", "--port", "0", "--records", str(tmp / "records"),
                 *floor, *extra],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=ROOT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + TIMEOUT
        while True:
            text = self.log_path.read_text(errors="replace")
            found = re.search(r"listening on \S+:(\d+)", text)
            if found:
                self.port = int(found.group(1))
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"jackal serve did not start:\n{text}")
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGTERM (SIGKILL if it hangs); returns the exit status."""
        return stop_process(self.proc)


def stop_process(proc: subprocess.Popen[bytes]) -> int:
    """End a server process: SIGTERM, SIGKILL if it hangs; returns its exit status. A
    process that has already ended only gives its status."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(TIMEOUT)
    return proc.returncode
