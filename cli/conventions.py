"""``jackal conventions``: list the built-in convention cards, show one (as a person reads it,
or as JSON or TOML), check a card file. ``show`` and ``check`` take a built-in name, a
``.toml``/``.json`` file or ``-`` for standard input; a problem goes to standard error
with exit status 2."""

from __future__ import annotations

import argparse
import sys

from ..game.conventions import (
    BUILTIN_CARDS,
    CardError,
    ConventionCard,
    card_from_json,
    card_from_toml,
    card_to_json,
    card_to_toml,
    resolve_card,
)
from ..game.explain import describe_card
from ..protocol.text import TextRefused, check_card_text, escape_quoted, escape_text

__all__ = ["add_arguments", "run"]

#: Exit status for a card that cannot be used (bad field, unknown name, unreadable file).
EXIT_BAD_CARD = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``list`` / ``show`` / ``check`` actions to ``parser``."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="the built-in cards, one line each")
    show = actions.add_parser("show", help="print a card as a person reads it")
    show.add_argument("card", metavar="NAME|FILE", help="a built-in name, a card file, or -")
    formats = show.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true", help="print the card as JSON")
    formats.add_argument("--toml", action="store_true",
                         help="print the card as TOML (a starting point for your own)")
    check = actions.add_parser("check", help="validate a card; exit 2 naming the bad field")
    check.add_argument("card", metavar="FILE", help="a card file (.toml or .json), or -")


def _load(spec: str) -> ConventionCard:
    if spec == "-":
        text = sys.stdin.read()
        return card_from_json(text) if text.lstrip().startswith("{") else card_from_toml(text)
    return resolve_card(spec)


def run(args: argparse.Namespace) -> int:
    """Carry out the chosen action; 0 on success, 2 for a card that cannot be used.

        jackal conventions list
        jackal conventions show beginner            # as a person reads it
        jackal conventions show my_card.toml --json # as JSON (--toml for TOML)
        jackal conventions check my_card.toml       # "ok", or exit 2 naming the bad field

    ``show`` and ``check`` take a built-in name, a ``.toml``/``.json`` file, or ``-`` for
    standard input (TOML or JSON, told apart by the first character). Problems go to
    standard error with exit status 2; nothing is printed on standard output then.
    """
    if args.action == "list":
        width = max(len(name) for name in BUILTIN_CARDS)
        for name, card in BUILTIN_CARDS.items():
            print(f"{name:<{width}}  {card.description}")
        return 0
    try:
        card = _load(args.card)
    except CardError as exc:
        source = "standard input" if args.card == "-" else args.card
        print(escape_text(f"jackal conventions {args.action}: {source}: {exc}"),
              file=sys.stderr)
        return EXIT_BAD_CARD
    # A card from someone else may hold bidi controls, zero-width or C1 characters (its
    # format refuses only C0): printed escaped, and refused by check as by a server.
    if args.action == "check":
        try:
            check_card_text("", card)
        except TextRefused as exc:
            print(escape_text(f"jackal conventions check: {args.card}: {exc.message}"),
                  file=sys.stderr)
            return EXIT_BAD_CARD
        print("ok")
    elif args.json:
        print(escape_quoted(card_to_json(card)))
    elif args.toml:
        sys.stdout.write(escape_quoted(card_to_toml(card), toml=True))
    else:
        sys.stdout.write(escape_text(describe_card(card), multiline=True))
    return 0
