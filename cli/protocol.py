"""``jackal protocol``: tools for people writing clients and bots in any language: ``schema``
(the JSON Schema of every message, from the Structs), ``help`` (each client message with
an example to paste into netcat) and ``check`` (decode client lines as the server would,
and say what it would answer)."""

from __future__ import annotations

import argparse
import json
import sys

from ..protocol.codec import decode_client, encode
from ..protocol.errors import ProtocolError
from ..protocol.help import HELP_ENTRIES
from ..protocol.schema import json_schema


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``schema``, ``help`` and ``check`` actions."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    schema = actions.add_parser("schema", help="print the JSON Schema of every message")
    schema.add_argument("--indent", type=int, default=2,
                        help="indentation of the JSON output (0: one line; default 2)")
    actions.add_parser("help", help="list the client messages with netcat-ready examples")
    check = actions.add_parser(
        "check", help="decode client lines as the server would (arguments, or stdin)")
    check.add_argument("lines", nargs="*", metavar="LINE",
                       help="a JSON line to check; reads stdin when none is given")


def run(args: argparse.Namespace) -> int:
    """Run the chosen action; ``check`` returns 1 if any line is rejected."""
    if args.action == "schema":
        indent = args.indent if args.indent > 0 else None
        sys.stdout.write(json.dumps(json_schema(), indent=indent) + "\n")
        return 0
    if args.action == "help":
        width = max(len(entry.type) for entry in HELP_ENTRIES)
        for entry in HELP_ENTRIES:
            print(f"{entry.type:<{width}}  {entry.summary}")
            print(f"{'':<{width}}  {entry.example}")
            replies = " or ".join(entry.replies) or "nothing (not a request)"
            print(f"{'':<{width}}  -> {replies}")
        return 0
    lines: list[str] = list(args.lines) or sys.stdin.read().splitlines()
    status = 0
    for text in lines:
        if not text.strip():
            continue
        try:
            msg = decode_client(text.encode("utf-8", "surrogateescape"))
        except ProtocolError as exc:
            status = 1
            print(f"error {exc.code}: {exc.message}")
        else:
            print(f"ok {encode(msg).decode().rstrip()}")
    return status
