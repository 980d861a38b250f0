"""The ``jackal`` command: a thin dispatcher over subcommands."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("jackal: not yet", file=sys.stderr)
    return 2
