"""``jackal bot``: connect a strategy (built-in or your own class) to a server and play.

Exit status: 0 when the match ends; 2 with a one-line message for bad arguments, an
unreachable server or a refused seat; 1 when the seat is lost during the match.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys

from ..game.errors import MalformedInput
from ..game.seats import SEATS, Seat, Team

EPILOG = """\
examples:
  jackal bot --server 127.0.0.1:7878 --strategy random
      create a table, fill the other seats with server-side bots, play the match
  jackal bot --server host:7878 --table t1 --seat E --strategy mybots:Clever
      sit at E of table t1 with the class Clever from mybots.py (on sys.path or in the
      current directory)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--server", required=True, metavar="HOST:PORT",
                        help="the server to connect to (port defaults to 7878)")
    parser.add_argument("--strategy", required=True, metavar="NAME|module:Class",
                        help="a built-in strategy name, or module:Class importable from the "
                             "current directory or sys.path")
    parser.add_argument("--table", metavar="T",
                        help="join this table (default: create one and fill it with bots)")
    parser.add_argument("--seat", choices=[s.value for s in SEATS], type=str.upper,
                        help="take this seat (default: any free seat)")
    parser.add_argument("--conventions", metavar="NAME|FILE",
                        help="declare this convention card for the bot's partnership "
                             "(default: at a table the bot creates, the strategy's own card, "
                             "e.g. advanced for expert; at another table, the table's)")
    parser.add_argument("--name", help="player name shown at the table (default: the strategy)")
    parser.add_argument("--password", help="the server password, if it has one")
    parser.add_argument("--target", type=int, default=300, metavar="POINTS",
                        help="match target for a table the bot creates (default 300)")
    parser.add_argument("--fill", default="random", metavar="STRATEGY",
                        help="strategy of the server-side bots filling a created table "
                             "(default random)")
    parser.add_argument("--seed", type=int, help="seed for the strategy's randomness")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    parser.add_argument("-v", "--verbose", action="store_true", help="log connection details")


def _fail(message: str) -> int:
    print(f"jackal bot: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Parse, check, then play the match in ``trio.run``."""
    import trio

    from ..bots.cards import default_conventions
    from ..bots.registry import load_strategy
    from ..client.botrunner import play_match
    from ..client.connection import ClientError, ServerError, parse_address
    from ..client.session import SeatSession, SessionLost
    from ..game.conventions import BUILTIN_CARDS, ConventionCard, resolve_card
    from ..protocol.messages import CreateTable

    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        host, port = parse_address(args.server)
    except ValueError as exc:
        return _fail(str(exc))
    if args.target < 1:
        return _fail("--target must be a positive number of victory points")
    if sys.path[0] != "":
        sys.path.insert(0, "")  # let module:Class find the user's module in the cwd
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    try:
        strategy = load_strategy(args.strategy)(seed)
    except MalformedInput as exc:
        return _fail(str(exc))
    conventions: str | ConventionCard | None = None
    if args.conventions is not None:
        try:
            card = resolve_card(args.conventions)
        except MalformedInput as exc:
            return _fail(str(exc))
        # A built-in travels by name; a card from a file travels inline.
        conventions = card.name if card.name in BUILTIN_CARDS else card
    seat = None if args.seat is None else Seat(args.seat)
    bots: dict[Seat, str] = {}
    create = None
    if args.table is None:
        own = seat or Seat.S
        seat = own
        bots = {other: args.fill for other in SEATS if other is not own}
        # Each side plays the card its strategy was built for (as in the arena); the
        # partner is a fill bot, but the bot itself reads and sends by its own card.
        cards = {own.team: default_conventions(args.strategy),
                 own.team.other: default_conventions(args.fill)}
        create = CreateTable(name=f"{args.name or args.strategy} table"[:32],
                             target=args.target, conventions_ns=cards[Team.NS],
                             conventions_ew=cards[Team.EW])
    session = SeatSession(host, port, name=(args.name or args.strategy.rpartition(":")[2])[:32],
                          table=args.table, seat=seat, create=create, bots=bots,
                          conventions=conventions, password=args.password,
                          client="jackal-bot")
    log = logging.getLogger("jackal.bot")

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            try:
                await nursery.start(session.run)
            except ServerError as exc:
                print(f"jackal bot: the server refused: {exc}", file=sys.stderr)
                return 2
            except ClientError as exc:
                print(f"jackal bot: {exc}", file=sys.stderr)
                return 2
            log.info("seated at %s of table %s as %s (strategy %s, seed %d)", session.seat,
                     session.table, session.name, args.strategy, seed)
            try:
                result = await play_match(session, strategy)
            except SessionLost as exc:
                print(f"jackal bot: seat lost: {exc}", file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 1
            nursery.cancel_scope.cancel()
        verdict = "won" if result.won else "lost"
        print(f"match over at table {result.table}: {result.seat} {verdict}; "
              f"NS {result.scores.get(Team.NS, 0)}, EW {result.scores.get(Team.EW, 0)} "
              f"after {result.deals} deals")
        return 0

    return trio.run(main)
