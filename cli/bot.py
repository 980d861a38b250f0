"""``jackal bot``: connect a strategy (built-in or your own class) to a server and play.

Exit status: 0 when the match ends; 2 with a one-line message for bad arguments, an
unreachable server or a refused seat; 1 when the seat is lost during the match.
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..bots.registry import STRATEGIES
from ..game.errors import MalformedInput
from ..game.seats import SEATS, Seat, Team
from ..protocol.text import escape_text
from .program_clock import add_program_clock
from .terminal import configure_logging, counted

if TYPE_CHECKING:  # imported where used at run time: --help stays quick
    from ..bots.base import Strategy
    from ..client.botrunner import BotResult
    from ..client.exec_host import ExecProgram, ExecResult
    from ..client.session import SeatSession
    from ..game.conventions import ConventionCard
    from ..protocol.requests import CreateTable

EPILOG = """\
examples:
  jackal bot --server 127.0.0.1:7878 --strategy random
      create a table, fill the other seats with server-side bots, play the match
  jackal bot --server host:7878 --table t1 --seat E --strategy mybots:Clever
      sit at E of table t1 with the class Clever from mybots.py (on sys.path or in the
      current directory)
  jackal bot --server 127.0.0.1:7878 --strategy expert --partner beginner --opponents expert
      a beginner partner against two experts
  jackal bot --server host:7878 --table t4 --invite k7mq-x3ph-vd2a-9wnz --strategy expert
      take the seat of a private table that this invitation code opens
  jackal bot --server 127.0.0.1:7878 --exec "node examples/stdin_bot.js"
      the program plays: one your_turn JSON line in, one card line out, per move
  jackal bot --server 127.0.0.1:7878 --exec "perl examples/events_bot.pl" --exec-events all
      the program also reads every event (deal results, the match's end) and the cards
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--server", required=True, metavar="HOST:PORT",
                        help="the server to connect to (port defaults to 7878)")
    player = parser.add_mutually_exclusive_group(required=True)
    player.add_argument("--strategy", metavar="NAME|module:Class",
                        help="a built-in strategy name, or module:Class importable from the "
                             "current directory or sys.path")
    player.add_argument("--exec", metavar="COMMAND", dest="exec_command",
                        help="run COMMAND (any language) as the bot: each your_turn goes to "
                             "its stdin as one JSON line, it answers one card per line on "
                             "stdout (see docs/BOTS.md)")
    parser.add_argument("--exec-events", choices=("your_turn", "all"), default="your_turn",
                        help="with --exec: your_turn (default) sends the program only the "
                             "your_turn lines it answers; all sends it every event the seat "
                             "receives as well (deal_ended, match_ended, ...; no answer to "
                             "those) and, once a deal, a convention_cards line with both "
                             "whole cards in force")
    add_program_clock(parser, prefix="with --exec: ", player="the fallback card")
    parser.add_argument("--table", metavar="T",
                        help="join this table (default: create one and fill it with bots)")
    parser.add_argument("--seat", choices=[s.value for s in SEATS], type=str.upper,
                        help="take this seat (default: S at a table the bot creates; with --table, "
                             "any free seat)")
    parser.add_argument("--invite", metavar="CODE",
                        help="with --table: the invitation code of a seat of a private table "
                             "(from its creator); without --seat it takes the seat the code "
                             "opens")
    parser.add_argument("--conventions", metavar="NAME|FILE",
                        help="declare this convention card for the bot's partnership (a table "
                             "the bot creates starts with it, so no card change is spent; "
                             "default: at a table the bot creates, the strategy's own card, "
                             "e.g. advanced for expert, and none for --exec or module:Class, "
                             "whose agreements cannot be known here; at another table, the "
                             "table's)")
    parser.add_argument("--name", help="player name shown at the table (default: the strategy; "
                        "a built-in one as 'expert (remote)', since the server keeps its "
                        "bots' names for them)")
    parser.add_argument("--password", help="the server password, if it has one")
    parser.add_argument("--target", type=int, default=300, metavar="POINTS",
                        help="match target for a table the bot creates (default 300)")
    fill = parser.add_argument_group(
        "filling a created table", "the server-side bots in the other three seats of a table "
        "the bot creates (built-in strategies only: " + ", ".join(STRATEGIES) + ")")
    fill.add_argument("--fill", default="random", choices=STRATEGIES, metavar="STRATEGY",
                      help="strategy of every other seat's bot (default random)")
    fill.add_argument("--partner", choices=STRATEGIES, metavar="STRATEGY",
                      help="strategy of the partner's bot (default: --fill)")
    fill.add_argument("--opponents", choices=STRATEGIES, metavar="STRATEGY",
                      help="strategy of both opponents' bots (default: --fill)")
    parser.add_argument("--seed", type=int, help="seed for the strategy's randomness")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    parser.add_argument("-v", "--verbose", action="store_true", help="log connection details")


def _fail(message: str) -> int:
    print(escape_text(f"jackal bot: {message}"), file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Parse, check, then play the match in ``trio.run``."""
    import trio

    from ..client.connection import parse_address

    # Log lines carry the server's text (reasons, card names, table ids): escaped.
    configure_logging(
        logging.WARNING if args.quiet else logging.DEBUG if args.verbose else logging.INFO)
    try:
        host, port = parse_address(args.server)
    except ValueError as exc:
        return _fail(str(exc))
    problem = _bad_arguments(args)
    if problem:
        return _fail(problem)
    if sys.path[0] != "":
        sys.path.insert(0, "")  # let module:Class find the user's module in the cwd
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    try:
        program, strategy = _player(args, seed)
    except (MalformedInput, ValueError) as exc:
        return _fail(f"--exec: {exc}" if args.exec_command else str(exc))
    if args.exec_events != "your_turn" and program is None:
        return _fail("--exec-events goes with --exec")
    # What the bot is called in logs and, by default, at the table.
    label = args.strategy or Path(program.argv[-1] if program else "exec").stem
    try:
        session = _session(args, host, port, label, program is not None)
    except MalformedInput as exc:
        return _fail(str(exc))
    player = _Player(args, session, program, strategy, seed)
    return trio.run(player.main)


def _bad_arguments(args: argparse.Namespace) -> str:
    """What is wrong with the arguments on their own, or ""."""
    if args.target < 1:
        return "--target must be a positive number of victory points"
    if args.invite is not None and args.table is None:
        return "--invite needs --table (the private table the code is for)"
    if args.move_seconds <= 0:
        return "--move-seconds must be positive"
    if args.start_seconds < 0:
        return "--start-seconds must not be negative"
    return ""


def _player(args: argparse.Namespace, seed: int) -> tuple[ExecProgram | None, Strategy | None]:
    """The program (``--exec``) or the strategy that plays; raises on a bad one."""
    from ..bots.registry import load_strategy
    from ..client.exec_host import ExecProgram

    if args.exec_command is not None:
        return ExecProgram(args.exec_command, startup_seconds=args.start_seconds), None
    return None, load_strategy(args.strategy)(seed)


def _session(args: argparse.Namespace, host: str, port: int, label: str,
             hosted: bool) -> SeatSession:
    """The seat session: at ``--table``, or at a new table filled with server bots."""
    from ..client.exec_host import EXEC_FEATURES
    from ..client.session import SeatSession
    from ..game.conventions import BUILTIN_CARDS, resolve_card
    from ..server.names import poses_as_bot

    conventions: str | ConventionCard | None = None
    if args.conventions is not None:
        card = resolve_card(args.conventions)
        # A built-in travels by name; a card from a file travels inline.
        conventions = card.name if card.name in BUILTIN_CARDS else card
    seat = None if args.seat is None else Seat(args.seat)
    bots: dict[Seat, str] = {}
    create = None
    if args.table is None:
        seat = seat or Seat.S
        bots, create = _new_table(args, seat, label, conventions)
        conventions = None  # in the new table itself (see _new_table)
    name = args.name or label.rpartition(":")[2]
    if args.name is None and poses_as_bot(name):
        # A server refuses a connection named like its own bots ("expert"): this one is
        # a program of the player's, so say so.
        name = f"{name} (remote)"
    return SeatSession(host, port, name=name[:32], table=args.table, seat=seat,
                       create=create, bots=bots, conventions=conventions,
                       password=args.password, client="jackal-bot",
                       features=EXEC_FEATURES if hosted else (), invite=args.invite)


def _new_table(args: argparse.Namespace, own: Seat, label: str,
               conventions: str | ConventionCard | None
               ) -> tuple[dict[Seat, str], CreateTable]:
    """The bots of a table of our own and the request that makes it."""
    from ..bots.cards import default_conventions
    from ..protocol.requests import CreateTable

    partner, opponents = args.partner or args.fill, args.opponents or args.fill
    bots = {other: partner if other is own.partner else opponents
            for other in SEATS if other is not own}
    # Each side plays the card its strategy was built for (as in the arena): the
    # opponents' bots theirs; on our side the bot's own, which its partner plays too,
    # and none for a program or class, whose agreements nobody here can know.
    cards: dict[Team, str | ConventionCard] = {
             own.team: default_conventions(args.strategy or ""),
             own.team.other: default_conventions(opponents)}
    if conventions is not None:
        # --conventions goes into the new table itself: declaring it after sitting
        # down would spend one of the match's card changes.
        cards[own.team] = conventions
    return bots, CreateTable(name=f"{args.name or label} table"[:32], target=args.target,
                             conventions_ns=cards[Team.NS], conventions_ew=cards[Team.EW])


class _Player:
    """The match as ``jackal bot`` plays it, once the arguments are checked."""

    def __init__(self, args: argparse.Namespace, session: SeatSession,
                 program: ExecProgram | None, strategy: Strategy | None, seed: int) -> None:
        self.args, self.session, self.program = args, session, program
        self.strategy, self.seed = strategy, seed

    async def main(self) -> int:
        program = self.program
        if program is None:
            return await self.play()
        try:
            await program.start()
        except OSError as exc:
            print(escape_text(f"jackal bot: cannot run {self.args.exec_command!r}: {exc}"),
                  file=sys.stderr)
            return 2
        try:
            return await _until_stopped(self.play)
        finally:
            await program.kill()

    async def play(self) -> int:
        import trio

        from ..client.connection import ClientError
        from ..client.session import SessionLost

        session = self.session
        async with trio.open_nursery() as nursery:
            try:
                await nursery.start(session.run)
            except ClientError as exc:
                print(escape_text(f"jackal bot: {_refusal(exc)}"), file=sys.stderr)
                return 2
            logging.getLogger("jackal.bot").info(
                "seated at %s of table %s as %s (%s, seed %d)", session.seat, session.table,
                session.name, f"strategy {self.args.strategy}" if self.program is None
                else f"program {self.args.exec_command}", self.seed)
            try:
                result, hosted = await self.match()
            except SessionLost as exc:
                print(escape_text(f"jackal bot: seat lost: {exc}"), file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 1
            nursery.cancel_scope.cancel()
        verdict = "won" if result.won else "lost"
        print(escape_text(f"match over at table {result.table}: {result.seat} {verdict}; "
                        f"NS {result.scores.get(Team.NS, 0)}, EW {result.scores.get(Team.EW, 0)} "
                        f"after {counted(result.deals, 'deal')}"))
        if hosted is not None:
            print(f"moves the fallback played: {hosted.fault_summary()}")
        return 0

    async def match(self) -> tuple[BotResult, ExecResult | None]:
        from ..client.botrunner import play_match
        from ..client.exec_host import play_exec_match

        if self.program is not None:
            hosted = await play_exec_match(self.session, self.program,
                                           move_seconds=self.args.move_seconds,
                                           events=self.args.exec_events)
            return hosted.match, hosted
        return await play_match(self.session, self.strategy), None


def _refusal(exc: Exception) -> str:
    """How a seat that could not be had is reported."""
    from ..client.connection import ServerError
    from ..client.session import MissingFeatures

    if isinstance(exc, ServerError):
        return f"the server refused: {exc}"
    if isinstance(exc, MissingFeatures):
        return f"--exec cannot run here: {exc}"
    return str(exc)


async def _until_stopped(play: Callable[[], Awaitable[int]]) -> int:
    """``play()``, or 128 + the signal's number when SIGTERM or SIGHUP comes first.

    The hosted program leads a process group of its own (so that it can be killed with
    all it started), which also keeps the terminal's and a service manager's signals
    from it: ``jackal bot`` must end it on the way out, and Python's default would exit
    at once, leaving it running."""
    import trio

    stop = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    status = 0
    with trio.open_signal_receiver(*stop) as signals:
        async with trio.open_nursery() as nursery:
            async def watch() -> None:
                nonlocal status
                async for signum in signals:
                    status = 128 + signum
                    print(f"jackal bot: {signal.Signals(signum).name} received: stopping the "
                          "program and leaving", file=sys.stderr)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch)
            status = await play()
            nursery.cancel_scope.cancel()
    return status
