"""A small launcher that runs a hosted program and ends its whole process tree with it:
``python -I reaper.py PROGRAM ARGS...``. It becomes a child subreaper (prctl), so every
process the program leaves behind, ``setsid`` or not, is reparented to it, and it kills
them all when the program exits or when it is told to stop (SIGTERM, SIGHUP, or its own
parent's death). Run as a file, it imports nothing of jackal."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

__all__ = ["children", "kill_children", "main"]

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def children() -> list[int]:
    """This process's live children, from /proc (orphans it adopted included)."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(name))
    return found


def kill_children(spare: frozenset[int] = frozenset()) -> None:
    """SIGKILL every child but ``spare`` until none is left: each one killed hands its own
    children to this subreaper, so the loop ends with the whole tree gone."""
    while found := [pid for pid in children() if pid not in spare]:
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    if spare:
        return
    while True:  # reap what is left (zombies)
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                time.sleep(0.01)
        except ChildProcessError:
            return


def _stop(signum: int, _frame: object) -> None:
    kill_children()
    os._exit(128 + signum)


def main(argv: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _stop)
    if os.getppid() == 1:  # the parent died before the death signal was armed
        return 1
    pid = os.fork()
    if pid == 0:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"cannot run {argv[0]!r}: {exc}", file=sys.stderr)
            os._exit(127)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    kill_children()
    return os.waitstatus_to_exitcode(status) if status else 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.exit(128 - code if code < 0 else code)
