"""The CLI writing into a pipe its reader closed."""

from __future__ import annotations

import os
import subprocess

from support import ROOT
from support.server import JACKAL


def run_into_closed_pipe(*args: str, stream: str = "stdout") -> subprocess.CompletedProcess[str]:
    """Run ``jackal ARGS`` with ``stream`` (stdout or stderr) writing into a pipe nobody
    reads any more; the other stream is captured."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    closed = stream == "stdout"
    try:
        return subprocess.run([*JACKAL, *args], cwd=ROOT,
                              stdout=write_end if closed else subprocess.PIPE,
                              stderr=subprocess.PIPE if closed else write_end,
                              text=True, timeout=60, check=False)
    finally:
        os.close(write_end)
