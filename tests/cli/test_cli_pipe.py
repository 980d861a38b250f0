"""Every ``jackal`` command stops quietly when the reader of its output goes away
(``jackal conventions show none --json | head -3``), issue 25.

The commands run as real subprocesses whose stdout is a pipe with its read end already
closed, so their first write fails as it does behind a ``head`` that has had enough,
without racing the reader.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jackal.cli import main as cli_main
from jackal.cli.main import EXIT_CLOSED_PIPE
from support.pipes import run_into_closed_pipe
from support.records import record_match


@pytest.mark.subprocess
@pytest.mark.parametrize("args", [
    ("conventions", "show", "none", "--json"),
    ("conventions", "list"),
    ("score", "AS AH AD 7C 7D 9H 9S KC KD KH"),
    ("demo", "--seed", "3"),
    ("protocol", "schema"),
    ("arena", "--ns", "random", "--ew", "greedy", "--deals", "2"),
    ("tournament", "--entry", "a=random", "--entry", "b=greedy", "--boards", "1",
     "--bot-floor", "0"),
], ids=lambda args: " ".join(args[:2]))
def test_a_closed_stdout_ends_a_command_quietly(args: tuple[str, ...]) -> None:
    proc = run_into_closed_pipe(*args)
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
    assert proc.returncode == EXIT_CLOSED_PIPE, proc.stderr


@pytest.mark.subprocess
def test_a_closed_stdout_ends_replay_quietly(tmp_path: Path) -> None:
    record = record_match(tmp_path)
    proc = run_into_closed_pipe("replay", str(record.path))
    assert proc.stderr == ""
    assert proc.returncode == EXIT_CLOSED_PIPE


@pytest.mark.subprocess
@pytest.mark.parametrize("args", [("--help",), ("serve", "--help"), ("bot", "--help"),
                                  ("--version",)])
def test_help_into_a_closed_pipe_is_quiet(args: tuple[str, ...]) -> None:
    """argparse drops a help text it cannot write and exits 0 itself; nothing is shown."""
    proc = run_into_closed_pipe(*args)
    assert proc.stderr == ""
    assert proc.returncode == 0


@pytest.mark.subprocess
def test_a_closed_stderr_ends_a_failing_command_quietly() -> None:
    proc = run_into_closed_pipe("score", "AS AH", stream="stderr")
    assert proc.stdout == ""
    assert proc.returncode == EXIT_CLOSED_PIPE


def test_a_broken_pipe_of_anything_else_still_fails_loudly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard on the fix: a command whose own pipe (a child's stdin, a socket) broke
    while its stdout and stderr are fine (here pytest's capture files) has a real error,
    which must not pass for a reader that stopped early."""
    def broken(_args: object) -> int:
        raise BrokenPipeError(32, "a child's stdin")

    monkeypatch.setattr("jackal.cli.score.run", broken)
    with pytest.raises(BrokenPipeError):
        cli_main.main(["score", "AS"])
