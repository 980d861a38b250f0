"""The ``jackal`` command: a thin dispatcher over subcommands. Each lives in its own module
``jackal.cli.<module>`` with ``add_arguments(parser)`` and ``run(args) -> int``, and only
the chosen one is imported (``jackal score`` starts without trio or prompt_toolkit); the
command table below is the one list of what exists."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..game.version import package_version

#: name -> (module in jackal.cli, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "play a match in the terminal (alone against bots, or on a server)"),
    "serve": ("serve", "run a Jackal server (lobby, tables, records)"),
    "score": ("score", "score one or two ten-card hands, as with pen and paper"),
    "demo": ("demo", "play one seeded deal with random players and print it"),
    "bot": ("bot", "connect a bot strategy to a server"),
    "arena": ("arena", "play strategies against each other in-process and measure them"),
    "tournament": ("tournament", "a duplicate tournament between bot programs and strategies"),
    "conventions": ("conventions", "list, show and check convention cards"),
    "replay": ("replay", "print a recorded match deal by deal"),
    "review": ("review", "step through a recorded deal card by card, with the expert's view"),
    "stats": ("stats", "figures per player and partnership over match records"),
    "protocol": ("protocol", "protocol tools (JSON Schema of every message)"),
}


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<12} {summary}" for name, (_, summary) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="jackal",
        description="Jackal (Sakaali): a four-player partnership card game.",
        epilog=f"commands:\n{lines}\n\nRun 'jackal COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"jackal {package_version()}")
    parser.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND",
                        help="one of the commands below")
    return parser


#: The exit status after the reader of our output went away: 128 + SIGPIPE (13), as a
#: shell reports for a program the signal killed. Written out: Windows has no SIGPIPE.
EXIT_CLOSED_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status. A closed stdout or stderr ends it quietly.

    A reader that stops early (``jackal conventions show none --json | head -3``) is handled
    here, once for every command and ``--help``: the command stops quietly with exit status
    141, the status a shell gives any program killed by SIGPIPE (``cat``, ``grep``). Python
    ignores SIGPIPE (so that a server writing to a dropped socket is not killed), which
    turns a closed stdout into a BrokenPipeError; restoring the signal instead would kill a
    server whose client hung up. 141 rather than 0 because the output was cut short: a
    script with ``set -o pipefail`` sees jackal exactly as it sees ``cat``, and without
    pipefail the shell reports the reader's status anyway.
    """
    try:
        try:
            return _dispatch(argv)
        finally:
            # Flushed here, not at interpreter exit, so that a reader gone before the last
            # buffered bytes (argparse's --help included) is seen below, not as Python's
            # "Exception ignored" message with status 120.
            sys.stdout.flush()
    except BaseException as exc:
        if not (_is_broken_pipe(exc) and _output_closed()):
            raise
        _silence_output()
        return EXIT_CLOSED_PIPE


def _is_broken_pipe(exc: BaseException) -> bool:
    """True for a BrokenPipeError, or a group of nothing else (raised inside trio)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_broken_pipe(inner) for inner in exc.exceptions)
    return isinstance(exc, BrokenPipeError)


def _output_closed() -> bool:
    """Whether stdout or stderr lost its reader, so the broken pipe is ours to end on.

    A broken pipe of anything else (a child's stdin, a socket) is a real error and keeps
    its traceback. poll() reports an error on the write end of a pipe or socket whose
    reader is gone; where there is no poll() (Windows) the pipe is taken to be ours.
    """
    try:
        import select
        poller = select.poll()
    except (ImportError, AttributeError):
        return True
    for stream in (sys.stdout, sys.stderr):
        try:
            poller.register(stream.fileno(), select.POLLOUT)
        except (AttributeError, OSError, ValueError):
            continue  # no file descriptor (replaced by a test, or closed)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _silence_output() -> None:
    """Point stdout and stderr at the null device, so that nothing (the interpreter's last
    flush, a logging handler) writes to the closed pipe again."""
    null = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(null, stream.fileno())
        except (AttributeError, OSError, ValueError):
            continue
    os.close(null)


def _dispatch(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else argv
    top = _top_parser()
    if not args or args[0].startswith("-"):
        top.parse_args(args or ["--help"])
        return 0  # pragma: no cover  (--help and --version exit inside argparse)
    name = args[0]
    if name not in COMMANDS:
        top.parse_args(args[:1])  # prints the usage error and exits 2
    module_name, summary = COMMANDS[name]
    module = importlib.import_module(f"jackal.cli.{module_name}")
    parser = argparse.ArgumentParser(prog=f"jackal {name}", description=summary[0].upper()
                                     + summary[1:] + ".",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    parsed = parser.parse_args(args[1:])
    try:
        return int(module.run(parsed))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
