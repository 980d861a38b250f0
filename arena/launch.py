"""Starting a tournament's ``cmd:`` programs (:func:`launch_cmd`) and wiring every
program's stderr to :class:`~jackal.arena.program_output.ProgramOutput`
(:func:`output_pipe`). A ``cmd:`` program gets its invitation code on a socket only it
holds (``JACKAL_INVITE_FD``), never in its arguments or environment, which other
programs of the same user can read in /proc."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
from collections.abc import Mapping
from pathlib import Path

import trio

from ..client.sandbox import Sandbox, SandboxPlan
from .program_output import ProgramOutput
from .tournament import command_argv

__all__ = ["launch_cmd", "output_pipe", "stop_launched"]


def output_pipe(nursery: trio.Nursery, output: ProgramOutput | None, entry: str, label: str,
                terminal: bool) -> int | None:
    """A write end for one program's stderr, read line by line into ``output`` by a task
    of ``nursery`` (the caller closes the write end once the program is started); None
    without ``output``."""
    if output is None:
        return None
    read, write = output.pipe()
    nursery.start_soon(output.pump, read, entry, label, terminal)
    return write


async def launch_cmd(command: str, values: Mapping[str, str], invite: str, root: Path,
                     plan: SandboxPlan, stderr: int | None, show_stdout: bool
                     ) -> trio.Process:
    """Start a ``cmd:`` program under bubblewrap as ``plan`` says (its own process list,
    so it sees no other program), else under the launcher
    (:mod:`jackal.client.reaper`), with
    ``values`` in its ``{placeholders}`` and ``JACKAL_*`` variables, its own HOME and
    TMPDIR under ``root``, and ``invite`` (one line) readable on the descriptor named by
    ``{invite_fd}`` and ``JACKAL_INVITE_FD``: one end of a socket pair, which unlike a pipe
    nobody can open again through /proc/PID/fd."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        fd = theirs.fileno()
        named = {**values, "invite_fd": str(fd)}
        sandbox = Sandbox(root, dataclasses.replace(plan, client=True),
                          {f"JACKAL_{key.upper()}": value for key, value in named.items()})
        ours.sendall(invite.encode() + b"\n")
        ours.shutdown(socket.SHUT_WR)
        stdout = stderr if show_stdout and stderr is not None else subprocess.DEVNULL
        return await trio.lowlevel.open_process(
            sandbox.argv(command_argv(command, named)), env=sandbox.env(),
            stdin=subprocess.DEVNULL, stdout=stdout,
            stderr=subprocess.DEVNULL if stderr is None else stderr,
            pass_fds=(fd,), start_new_session=True)
    finally:
        ours.close()
        theirs.close()


def stop_launched(proc: trio.Process) -> None:
    """Ask a launched program's launcher to end its whole tree now (SIGTERM)."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
