"""The ``jackal`` command: a thin dispatcher over subcommands.

Each subcommand lives in its own module ``jackal.cli.<module>`` with two functions,
``add_arguments(parser)`` and ``run(args) -> int``. Only the chosen subcommand's
module is imported, so ``jackal score`` starts without loading trio or
prompt_toolkit, and the command table below is the single list of what exists.
"""

from __future__ import annotations

import argparse
import importlib
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


def main(argv: list[str] | None = None) -> int:
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
