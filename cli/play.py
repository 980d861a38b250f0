"""``jackal play``: the terminal client. With no arguments, a match against server-side bots
on a server started inside this process; with ``--server HOST:PORT``, that server's lobby
(or with ``--table``, that table), its seat tokens saved in the user's state folder."""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING

from ..bots.registry import STRATEGIES
from ..game.conventions import ConventionCard
from ..game.errors import MalformedInput
from ..game.seats import Seat

if TYPE_CHECKING:
    import trio

    from ..server.config import ServerConfig

__all__ = ["add_arguments", "bot_strategies", "run"]

NEEDS_TERMINAL = ("jackal play needs a terminal: run it in an interactive terminal "
                  "(stdin and stdout must be a tty). For scripts and pipes, use "
                  "'jackal bot' or speak the protocol directly (see docs/PROTOCOL.md).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``jackal play``."""
    parser.epilog = ("Keys: arrows + Enter or type a card ('7h', 'th') + Enter to play; "
                     "e asks about an opponent's card; c shows the convention cards; "
                     "x shows the card the expert bot would play and why (the built-in "
                     "game allows hints; on a server, tables that allow them); "
                     "? lists every key; Ctrl-Q quits.")
    _add_where_arguments(parser)
    parser.add_argument("--name", default=os.environ.get("USER") or "you",
                        help="your name at the table (default: $USER, else 'you')")
    parser.add_argument("--table", metavar="ID",
                        help="with --server: go straight to this table, without the lobby "
                             "(e.g. t3)")
    parser.add_argument("--invite", metavar="CODE",
                        help="with --table: the invitation code of a seat of a private table, "
                             "from its creator (without --seat: the seat the code opens)")
    parser.add_argument("--seat", default=None, type=_seat,
                        help="your seat: N, E, S or W (built-in game: default S; with "
                             "--table: default any free seat)")
    _add_game_arguments(parser)
    parser.add_argument("--symbols", action="store_true",
                        help="draw suits as symbols instead of the letters S H D C")
    parser.add_argument("--bot-pause", type=float, default=0.8, metavar="SECONDS",
                        help="built-in game: a bot waits this long before each card, so "
                             "a round can be followed (default 0.8; 0 for none)")
    parser.add_argument("--confirm", action="store_true",
                        help="ask before a card is played: Enter again plays it")
    parser.add_argument("--no-bell", dest="bell", action="store_false",
                        help="do not ring the terminal bell when it becomes your turn "
                             "or your time on a clock is nearly up")
    parser.add_argument("--log", metavar="FILE", default=None,
                        help="write a debug log of the client (and built-in server) here")


def _add_where_arguments(parser: argparse.ArgumentParser) -> None:
    """Where to play: a server, one found on the LAN, or one hosted here."""
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="play on this server (opens its lobby) instead of the built-in "
                             "game against bots")
    parser.add_argument("--lan", action="store_true",
                        help="look for servers on the LAN (announced by jackal serve), "
                             "list them and join the one you pick by number")
    parser.add_argument("--host", action="store_true",
                        help="host a game for the LAN: a server in this process on every "
                             "address (port --port), with the web page (--web) and "
                             "announced; you go to its lobby, friends join with "
                             "jackal play --lan or a browser")
    parser.add_argument("--port", type=int, default=None,
                        help="with --host: the TCP port (default 7878; 0 picks a free one)")
    parser.add_argument("--web", type=int, default=None, metavar="PORT",
                        help="with --host: the web page's port (default 0: a free one; "
                             "its address is shown as text and QR code before the lobby)")
    parser.add_argument("--password", help="the server's password, if it has one (with "
                                           "--host: the password your server asks for)")


def _add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The built-in game: its bots, the convention cards, the target and the seed."""
    bots = parser.add_argument_group(
        "the built-in game's bots", "server-side bots in the other three seats (built-in "
        "strategies only: " + ", ".join(STRATEGIES) + ")")
    bots.add_argument("--fill", metavar="STRATEGY", default=None, choices=STRATEGIES,
                      help="every other seat's strategy (default: each side's bots are "
                           "the ones that fit its convention card, as a server's "
                           "substitute)")
    bots.add_argument("--partner", metavar="STRATEGY", default=None, choices=STRATEGIES,
                      help="your partner's strategy (default: --fill)")
    bots.add_argument("--opponents", metavar="STRATEGY", default=None, choices=STRATEGIES,
                      help="the opponents' strategy (default: --fill)")
    parser.add_argument("--conventions", metavar="CARD", default="beginner",
                        help="your partnership's convention card: a built-in name or a "
                             ".toml/.json file (default beginner)")
    parser.add_argument("--their-conventions", metavar="CARD", default="beginner",
                        help="the opponents' convention card (default beginner)")
    parser.add_argument("--target", type=_positive, default=300,
                        help="victory points that win the match (default 300)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the match's deals (reproducible games)")


def _seat(text: str) -> Seat:
    try:
        return Seat.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("the target must be at least 1")
    return value


def _card_spec(spec: str) -> str | ConventionCard:
    """A built-in card's name as is; a card file read here and sent inline (the server
    never reads a client's files). Raises CardError naming what is wrong."""
    from ..game.conventions import BUILTIN_CARDS, resolve_card

    if spec.strip().lower() in BUILTIN_CARDS:
        return spec.strip().lower()
    return resolve_card(spec)


def bot_strategies(args: argparse.Namespace, ours: str | ConventionCard,
                   theirs: str | ConventionCard) -> tuple[str, str]:
    """The built-in game's partner and opponents: --partner and --opponents, else --fill,
    else the bots that fit each side's declared card."""
    from ..client.embedded import seat_strategy

    return (args.partner or args.fill or seat_strategy(ours),
            args.opponents or args.fill or seat_strategy(theirs))


def run(args: argparse.Namespace) -> int:
    """Start the terminal client; 2 on bad arguments or without a terminal.

    With no arguments: a match at S against server-side bots, on a server started inside
    this process. With ``--server HOST:PORT``: that server's lobby, or with ``--table`` that
    table directly. On a server, seat tokens are saved in the user's state folder (see
    :mod:`jackal.cli.paths`), so a client started again takes its seat back.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(NEEDS_TERMINAL, file=sys.stderr)
        return 2
    from ..client.connection import parse_address
    from ..client.embedded import EmbeddedGame
    from ..client.seat_store import SeatStore
    from ..client.tui.app import PlayOptions, run_tui
    from .paths import seats_dir

    try:
        ours, theirs = _card_spec(args.conventions), _card_spec(args.their_conventions)
    except MalformedInput as exc:  # CardError is one
        print(f"jackal play: bad convention card: {exc}", file=sys.stderr)
        return 2
    partner, opponents = bot_strategies(args, ours, theirs)
    misused = _misused(args)
    if misused is not None:
        print(f"jackal play: {misused}", file=sys.stderr)
        return 2
    if args.lan and not _found_on_lan(args):
        return 1
    _quiet_logging(args.log)
    hosted = None
    if args.host:
        hosted = _host(args)
        if hosted is None:
            return 1
        args.server = f"127.0.0.1:{hosted.port}"
    server = None
    if args.server:
        try:
            server = parse_address(args.server)
        except ValueError as exc:
            print(f"jackal play: {exc}", file=sys.stderr)
            return 2
    game = EmbeddedGame(name=args.name[:32] or "you", seat=args.seat or Seat.S,
                        partner=partner,
                        opponents=opponents, conventions=ours, their_conventions=theirs,
                        target=args.target, seed=args.seed)
    try:
        return run_tui(PlayOptions(game=game, server=server, password=args.password,
                                   symbols=args.symbols, table=args.table, seat=args.seat,
                                   invite=args.invite,
                                   bell=args.bell, confirm=args.confirm,
                                   store=SeatStore(seats_dir()) if server else None,
                                   start_server=functools.partial(
                                       start_embedded_server, bot_pause=max(0.0, args.bot_pause))))
    finally:
        if hosted is not None:
            hosted.stop()


def _misused(args: argparse.Namespace) -> str | None:
    """Why these options do not go together, or None when they do."""
    if args.table and not args.server:
        return "--table needs --server HOST:PORT"
    if args.invite and not args.table:
        return "--invite needs --table (the private table the code is for)"
    if sum(map(bool, (args.server, args.lan, args.host))) > 1:
        return "choose one of --server, --lan and --host"
    if not args.host and (args.port is not None or args.web is not None):
        return "--port and --web go with --host"
    return None


def _found_on_lan(args: argparse.Namespace) -> bool:
    """``--lan``: the server the player picks from those found becomes ``args.server``
    (its password asked for if it wants one); False if none was picked."""
    from .lan import find_server

    found = find_server(input)
    if found is None:
        return False
    args.server = found.address
    if found.password and args.password is None:
        import getpass

        args.password = getpass.getpass(f"Password of {found.address}: ")
    return True


async def start_embedded_server(nursery: trio.Nursery, bot_pause: float = 0.0) -> int:
    """Start the embedded game's server on 127.0.0.1 port 0 in ``nursery``; its port.
    ``bot_pause``: seconds a bot waits before each card, so the player can follow."""
    from ..client.embedded import BETWEEN_DEALS_SECONDS
    from ..server.config import BOT_FLOOR_SECONDS, ServerConfig
    from ..server.net.listener import serve

    config = ServerConfig(host="127.0.0.1", port=0,
                          between_deals_seconds=BETWEEN_DEALS_SECONDS,
                          bot_pause_seconds=bot_pause, bot_floor_seconds=BOT_FLOOR_SECONDS)
    port: int = await nursery.start(serve, config)
    return port


class _Hosted:
    """The server of ``jackal play --host``, run by its own trio loop in a thread (the
    terminal client's loop is a guest of prompt_toolkit's and starts later)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.port = 0
        self.page: str | None = None
        self.failure: BaseException | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=self._run, name="jackal-host", daemon=True)

    def start(self) -> bool:
        self._thread.start()
        self._ready.wait()
        return self.failure is None

    def _run(self) -> None:
        import trio

        from ..server.net.listener import serve

        def page(url: str) -> None:
            self.page = url

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                self._scope = nursery.cancel_scope
                self._token = trio.lowlevel.current_trio_token()
                self.port = await nursery.start(functools.partial(
                    serve, self.config, page_started=page))
                self._ready.set()

        try:
            trio.run(main)
        except BaseException as exc:  # said by the main thread
            self.failure = exc
        finally:
            self._ready.set()

    def stop(self) -> None:
        """Stop the server (goodbyes said, announcement withdrawn) and wait for it."""
        if self._token is not None and self._scope is not None and self._thread.is_alive():
            import trio

            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(timeout=10)


def _host(args: argparse.Namespace) -> _Hosted | None:
    """Start ``jackal play --host``'s server on every address, with its web page and
    announced; show where friends join (text and QR code) until Enter. None if it failed."""
    from ..client.connection import first_leaf
    from ..server.config import BOT_FLOOR_SECONDS, DEFAULT_PORT, ServerConfig
    from .lan import print_qr

    hosted = _Hosted(ServerConfig(
        host="0.0.0.0", port=DEFAULT_PORT if args.port is None else args.port,
        web_port=args.web or 0, announce=True, password=args.password,
        bot_pause_seconds=max(0.0, args.bot_pause), bot_floor_seconds=BOT_FLOOR_SECONDS))
    if not hosted.start():
        assert hosted.failure is not None  # start() is false only with a failure
        print(f"jackal play: cannot host: {first_leaf(hosted.failure)}", file=sys.stderr)
        return None
    print(f"Hosting on port {hosted.port}, announced on the LAN: friends run "
          "'jackal play --lan'.")
    if hosted.page is not None:
        print_qr(hosted.page, sys.stdout)
    with contextlib.suppress(EOFError):
        input("Press Enter to open your lobby (create a table there; b adds bots)...")
    return hosted


def _quiet_logging(path: str | None) -> None:
    """Log lines would tear the full-screen display: send them to a file or nowhere."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    target: logging.Handler
    if path:
        target = logging.FileHandler(path, encoding="utf-8")
        target.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.setLevel(logging.DEBUG)
    else:
        target = logging.NullHandler()
    root.addHandler(target)
