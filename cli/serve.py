"""``jackal serve``: run a Jackal server, logging a line per connection and table event to
stderr (first ``listening on HOST:PORT``), writing every match to the records folder and
restoring the unfinished ones found there at start, until Ctrl-C or SIGTERM stops it
cleanly."""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import sys
from pathlib import Path

import trio

from ..bots.registry import STRATEGIES, substitute_strategy
from ..client.connection import first_leaf
from ..server.config import BOT_FLOOR_SECONDS, DEFAULT_PORT, ServerConfig
from ..server.net.listener import serve
from ..server.records.files import private_folder
from .lan import print_qr
from .paths import records_dir

__all__ = ["add_arguments", "config_from_args", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``jackal serve``."""
    defaults = ServerConfig()
    parser.add_argument("--host", default=defaults.host,
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for a LAN)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--web", type=int, default=None, metavar="PORT",
                        help="also serve the browser's page and its WebSocket (/ws) on this "
                             "port (0 picks a free one; off unless given); the log says "
                             "which address to open, e.g. on a phone on the LAN with "
                             "--host 0.0.0.0")
    parser.add_argument("--no-announce", dest="announce", action="store_false",
                        help="do not announce the server on the LAN (by default it is, over "
                             "mDNS/DNS-SD, so jackal play --lan finds it; with a loopback "
                             "--host, to this machine only)")
    parser.add_argument("--name", metavar="NAME", default=None,
                        help="the name the server is announced under, its first 40 "
                             "characters (default: 'Jackal on HOSTNAME')")
    qr = parser.add_mutually_exclusive_group()
    qr.add_argument("--qr", action="store_true", default=None,
                    help="with --web: print the page's address as a QR code for a phone "
                         "(default: when stdout is a terminal and --host is not loopback)")
    qr.add_argument("--no-qr", dest="qr", action="store_false",
                    help="never print the QR code")
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument("--records", type=Path, metavar="DIR",
                      help="write one JSON-lines record per match here and restore "
                           "unfinished matches from it at start (default: "
                           f"{_home_relative(records_dir())})")
    kept.add_argument("--no-records", action="store_true",
                      help="keep no records: a server that stops forgets its matches")
    parser.add_argument("--records-max-mb", type=float, default=RECORDS_MAX_MB, metavar="MB",
                        help="cap the records folder at this many megabytes (10^6 bytes): "
                             "past 90%% of it the oldest finished records are removed "
                             "down to 70%% (never a match in progress); 0 for no cap "
                             f"(default {RECORDS_MAX_MB:g})")
    parser.add_argument("--password",
                        help="require this password in every hello")
    for flag, field, text in _PLAIN:
        default = getattr(defaults, field)
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        parser.add_argument(flag, dest=field, type=type(default), default=default,
                            metavar=flag[2:].upper().replace("-", "_"),
                            help=f"{text} (default {shown})")
    _add_table_arguments(parser, defaults)


def _add_table_arguments(parser: argparse.ArgumentParser, defaults: ServerConfig) -> None:
    """How the server's tables play: workers, rates, substitutes, clocks, hints, bots."""
    parser.add_argument("--expert-workers", type=int, default=None, metavar="N",
                        help="worker processes for the deal summary's expert play-throughs "
                             "(default: one per spare core, at least one; 0: a thread of "
                             "the server's process)")
    parser.add_argument("--rate", type=float, default=defaults.rate_per_second,
                        help=f"messages per second allowed per connection, with bursts "
                             f"of one second's worth (default {defaults.rate_per_second:g}); "
                             f"a higher rate also lets a connection have more replies unsent")
    parser.add_argument("--takeover-strategy", default=defaults.takeover_strategy,
                        metavar="STRATEGY",
                        help="strategy of the substitute, the bot that takes over an "
                             "abandoned seat, and of add_bot without a strategy (default: "
                             "the one that fits the partnership's convention card, today "
                             f"{substitute_strategy()})")
    parser.add_argument("--turn-seconds", type=float, default=None, metavar="SECONDS",
                        help="per-play time limit of human seats: when it runs out the "
                             "substitute plays that one card and the seat stays the "
                             "player's (default: no clock; a table may set its own)")
    parser.add_argument("--hints", action="store_true",
                        help="tables allow hints unless created with \"hints\": false: a "
                             "seated player may ask which card the expert bot would play "
                             "and why, and everyone at the table is told (default: off; a "
                             "table may allow them itself)")
    parser.add_argument("--bot-pause", type=float, default=0.8, metavar="SECONDS",
                        help="a server-side bot waits this long before each card while "
                             "people are at its table, so a round can be followed "
                             "(default 0.8; 0 for none)")
    parser.add_argument("--bot-floor", type=float, default=BOT_FLOOR_SECONDS,
                        metavar="SECONDS",
                        help="a server-side bot's card (and a hint) leaves this long after "
                             "it was asked for, or a whole multiple of it when thinking "
                             "took longer, never as soon as it is ready: how long a bot "
                             f"thinks depends on its hand (default {BOT_FLOOR_SECONDS:g}; "
                             "0 turns it off and lets the timing show)")
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")


#: The records folder's default cap in megabytes: a bounded folder (a few thousand
#: matches) whose oldest finished records are rotated out.
RECORDS_MAX_MB = 1000.0


#: The options that set one :class:`ServerConfig` field as given: flag, field, help. The
#: type and the default are the field's (``--help`` shows the default).
_PLAIN: tuple[tuple[str, str, str], ...] = (
    ("--hold-seconds", "hold_seconds", "how long a disconnected player's seat is held"),
    ("--between-deals", "between_deals_seconds",
     "seconds between deals unless everyone is ready sooner"),
    ("--ping-interval", "ping_interval", "ping a silent connection after this many seconds"),
    ("--ping-timeout", "ping_timeout", "drop it if still silent this much later"),
    ("--hello-timeout", "hello_timeout", "close connections that do not say hello in time"),
    ("--max-connections", "max_connections", "refuse connections beyond this"),
    ("--max-per-address", "max_per_address",
     "refuse connections beyond this many from one address (an IPv6 /64 counts as one)"),
    ("--max-tables", "max_tables", "most tables at once"),
    ("--max-tables-per-connection", "max_tables_per_connection",
     "most open tables one connection may have created"),
    ("--max-tables-per-address", "max_tables_per_address",
     "most open tables created from one address, all its connections together"),
    ("--unattended-seconds", "unattended_seconds",
     "stop a table where no person plays and nobody watches after this long"),
    ("--max-line", "max_line", "longest accepted line in bytes"),
    ("--expert-backlog", "expert_backlog",
     "deal summaries that may wait for the expert pair's play-through; past it the "
     "oldest waiting deal's figure is declared unavailable"),
)


def _records(args: argparse.Namespace) -> Path | None:
    """The records folder: ``--records``, none with ``--no-records``, else the default."""
    if args.no_records:
        return None
    folder: Path = args.records or records_dir()
    return folder.expanduser()


def _home_relative(path: Path) -> str:
    """``path`` with the home folder written as ``~`` (for help texts)."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """The server settings the command line asks for."""
    defaults = ServerConfig()
    burst = max(args.rate, 10.0)
    return ServerConfig(
        host=args.host, port=args.port, web_port=args.web, records_dir=_records(args),
        announce=args.announce, announce_name=args.name or None,
        password=args.password,
        records_max_bytes=None if not args.records_max_mb
        else int(args.records_max_mb * 1_000_000),
        **{field: getattr(args, field) for _flag, field, _text in _PLAIN},
        rate_per_second=args.rate, rate_burst=burst,
        # A burst's replies must fit unsent (a KiB per token at most, see the session).
        send_buffer=max(defaults.send_buffer, int(burst) * 1024 + 64 * 1024),
        takeover_strategy=args.takeover_strategy,
        bot_pause_seconds=max(0.0, args.bot_pause),
        bot_floor_seconds=max(0.0, args.bot_floor),
        turn_seconds=args.turn_seconds if args.turn_seconds and args.turn_seconds > 0
        else None,
        hints=args.hints,
        expert_workers=args.expert_workers,
        # A process of its own: tune the collector for thousands of connections, and
        # start the expert workers now, so the first deal's figure does not wait for them.
        tune_gc=True, expert_eager=True,
    )


def _wants_qr(args: argparse.Namespace) -> bool:
    """--qr, --no-qr, or by default: a terminal to show it on and a page phones can reach."""
    if args.qr is not None:
        return bool(args.qr)
    loopback = args.host in ("localhost", "::1") or args.host.startswith("127.")
    return args.web is not None and sys.stdout.isatty() and not loopback


async def _main(config: ServerConfig, qr: bool = False) -> None:
    async with trio.open_nursery() as nursery:
        async def stop_on_signal() -> None:
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    logging.getLogger("jackal.server").info(
                        "%s received: shutting down", signal.Signals(signum).name)
                    nursery.cancel_scope.cancel()
                    return

        nursery.start_soon(stop_on_signal)
        show = functools.partial(print_qr, out=sys.stdout) if qr else None
        await nursery.start(functools.partial(serve, config, page_started=show))
        # Said once listening, so a port that is taken fails with one line and no more.
        server_log = logging.getLogger("jackal.server")
        if config.records_dir is None:
            server_log.info("keeping no match records (--no-records)")
        else:
            server_log.info("match records in %s", config.records_dir)


def run(args: argparse.Namespace) -> int:
    """Run the server until Ctrl-C or SIGTERM.

    Logs one line per connection and table event to stderr: first ``listening on
    HOST:PORT`` (with the real port when ``--port 0`` is given), so scripts and tests can
    read where to connect, then where the match records go. Ctrl-C or SIGTERM stops it cleanly:
    no new connections, ``server_shutdown`` to everyone after what was already queued for
    them, sockets closed (see :mod:`jackal.server.net.listener`). Every match is written as it
    happens to the records folder (the user's state folder, ``$XDG_STATE_HOME/jackal/records``
    or ``~/.local/state/jackal/records``, unless ``--records DIR`` or ``--no-records``), and
    unfinished matches found there at start are restored (their players reclaim seats with
    their tokens): a crashed server that is simply started again carries on.
    """
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(message)s")
    if args.quiet:
        # The port line is what scripts wait for: keep it even when quiet.
        logging.getLogger("jackal.server").setLevel(logging.INFO)
        logging.getLogger("jackal.server").addFilter(
            lambda record: record.levelno >= logging.WARNING or "listening on" in record.msg
            or "web page on" in record.msg or "announc" in record.msg
            or "match records" in record.msg)
    config = config_from_args(args)
    if config.takeover_strategy is not None and config.takeover_strategy not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        print(f"jackal serve: unknown --takeover-strategy {config.takeover_strategy!r} "
              f"(known: {known})", file=sys.stderr)
        return 2
    if args.records is None and config.records_dir is not None:
        _tighten_state_folders(config.records_dir)
    failure: OSError | None = None
    try:
        trio.run(_main, config, _wants_qr(args))
    except* OSError as group:  # e.g. the port is taken (raised inside a nursery: grouped)
        failure = first_leaf(group)
    if failure is not None:
        print(f"jackal serve: {failure}", file=sys.stderr)
        return 1
    return 0


def _tighten_state_folders(records: Path) -> None:
    """The default records folder and the state folder around it are ours: 0700, even
    when an older version made them 0755 (records hold every deal's seed). A folder
    given with ``--records`` is the user's and is left as it is."""
    try:
        private_folder(records)
        for folder in (records.parent, records):  # the state folder, then its records
            os.chmod(folder, 0o700)
    except OSError as exc:  # the server still runs; it may fail to write a record later
        logging.getLogger("jackal.server").warning("cannot make %s private: %s", records, exc)
