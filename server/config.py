"""Server settings in one place.

Every limit and timer the server uses lives in :class:`ServerConfig`, so tests can
shrink them (a one-second hold, a tiny send queue) and ``jackal serve`` can expose
them as options. Times are in seconds of trio's clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_PORT", "ServerConfig"]

#: The port ``jackal serve`` and ``jackal play`` use when none is given.
DEFAULT_PORT = 7878
#: The release floor of server-side decisions in the commands that run a server for use
#: (``ServerConfig.bot_floor_seconds``): the expert's slowest decision measured was 80 ms
#: with four bot tables thinking at once on two busy cores, so 0.2 s leaves room.
BOT_FLOOR_SECONDS = 0.2


@dataclass
class ServerConfig:
    """How a server listens, what it allows and how long it waits."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    #: The web page and its WebSocket (``jackal serve --web``) listen here; None: off.
    web_port: int | None = None
    #: Announce the server on the LAN over mDNS/DNS-SD (``jackal serve`` does unless
    #: ``--no-announce``; tests and embedded servers do not)...
    announce: bool = False
    #: ...under this name (None: ``Jackal on HOSTNAME``).
    announce_name: str | None = None
    #: One JSON-lines file per match goes here; unfinished matches are restored from it.
    records_dir: Path | None = None
    #: A match record stops at this many bytes and its table is closed (``table_closed``).
    record_max_bytes: int = 4 * 1024 * 1024
    #: Bytes of a table's record that may wait in memory while the disk refuses them;
    #: past it the table is held (``records_paused``) until the disk takes them.
    record_memory_bytes: int = 64 * 1024
    #: The records folder may hold this many bytes (None: no cap): new tables are refused
    #: past 90% of it, and a record that would pass it is closed like a full one.
    records_max_bytes: int | None = None
    #: When set, ``hello`` must carry it (else ``bad_password``).
    password: str | None = None
    #: Longest accepted line in bytes (without its newline).
    max_line: int = 65536
    #: How long a disconnected player's seat is held before a bot may take it over.
    hold_seconds: float = 120.0
    #: Between deals, the next one starts when every human is ready or after this long.
    between_deals_seconds: float = 30.0
    #: Refuse lobby writes (``lobby_closed``) from an address with a person seated at a
    #: deal being played. Off only where every connection comes from one machine that
    #: runs many tables at once and may pick any loopback address anyway (a tournament's
    #: own server), so the address says nothing there.
    lobby_closed_in_deals: bool = True
    #: A connection silent this long is sent a ``ping``...
    ping_interval: float = 15.0
    #: ...and dropped if it stays silent this much longer.
    ping_timeout: float = 15.0
    #: A connection that has not said ``hello`` after this long is closed.
    hello_timeout: float = 30.0
    #: More simultaneous connections than this get ``server_full`` and are closed.
    max_connections: int = 2000
    #: ...and so do more than this from one address group (an IPv4 address, an IPv6 /64:
    #: see :func:`.net.ratelimit.address_group`), fewer past half of ``max_connections``
    #: (:func:`.net.ratelimit.share_refusal`), so one client cannot take them all.
    max_per_address: int = 50
    #: Wrong passwords answered per address and minute (all its connections together)...
    password_guesses_per_minute: float = 10.0
    #: ...with this many at once; beyond, ``hello`` gets ``rate_limited`` unchecked.
    password_guess_burst: float = 5.0
    #: Wrong seat tokens answered per address and minute, and at once: the same rule.
    token_guesses_per_minute: float = 30.0
    token_guess_burst: float = 10.0
    #: Most tables at once (``create_table`` answers ``server_full`` beyond it).
    max_tables: int = 1000
    #: Most tables one connection may have created that are still open.
    max_tables_per_connection: int = 10
    #: ...and one address group, all its connections together, closed ones included (a
    #: table outlives its creator's connection, so new connections must not reset the
    #: count); fewer past half of ``max_tables``, as for connections.
    max_tables_per_address: int = 20
    #: A table whose creator has left before anyone sat at or watched it goes after this
    #: long (instead of ``idle_table_seconds``).
    orphan_table_seconds: float = 60.0
    #: A table where no person sits (connected) and nobody watches stops after this long.
    unattended_seconds: float = 300.0
    #: A table where no person sits (bots only, perhaps watched) stops after this many
    #: deals (``table_closed``).
    max_unseated_deals: int = 100
    #: Tables per ``tables`` reply (``list_tables`` pages through the lobby).
    lobby_page: int = 100
    #: Chat lines one connection may send per minute, and at once...
    chat_per_minute: float = 20.0
    chat_burst: float = 5.0
    #: ...and one address, all its connections together (see :mod:`.net.ratelimit`).
    chat_per_minute_per_address: float = 60.0
    chat_burst_per_address: float = 10.0
    #: A table nobody has sat at or watched for this long before its match is removed.
    idle_table_seconds: float = 600.0
    #: Token bucket per connection: sustained messages per second...
    rate_per_second: float = 200.0
    #: ...and the burst allowed on top.
    rate_burst: float = 200.0
    #: This many rate-limited messages in a row close the connection (a flood).
    flood_limit: int = 100
    #: Unsent bytes one connection may have before it counts as not reading and is dropped.
    send_buffer: int = 256 * 1024
    #: Longest a server-side bot may think before a fallback card is played for it.
    bot_think_seconds: float = 5.0
    #: A server-side bot waits this long before each card while a human is at the table,
    #: so people can follow a round (``jackal serve`` and ``jackal play`` set a pause;
    #: tests keep 0).
    bot_pause_seconds: float = 0.0
    #: Every server-side decision (a bot's card, a hint) is released on a multiple of this
    #: many seconds after it was asked for, never when the thinking ends, since how long a
    #: bot thinks depends on its hand. Above the slowest decision measured; ``jackal serve``,
    #: ``jackal play`` and ``jackal tournament`` use :data:`BOT_FLOOR_SECONDS`; tests keep 0.
    bot_floor_seconds: float = 0.0
    #: Bot decisions running at once in worker threads.
    bot_threads: int = 2
    #: Worker processes for the deal summary's expert play-throughs (None: one per spare
    #: core, at least one; 0: a thread of the server's own process instead).
    expert_workers: int | None = None
    #: Play-throughs that may wait for a worker; past it the oldest waiting deal's figure
    #: is declared unavailable (``expert_cost`` with ``unavailable``).
    expert_backlog: int = 16
    #: Start those workers with the server rather than at the first finished deal
    #: (``jackal serve`` does; tests' servers mostly finish no deal).
    expert_eager: bool = False
    #: The substitute: the strategy that plays a seat whose hold ran out (or whose player
    #: left mid-match), and one card for a player whose clock ran out. It reads the
    #: partnership's declared convention card, so partner is not misled. None: the one
    #: ``bots.substitute_strategy`` names for that card (and the default of ``add_bot``).
    takeover_strategy: str | None = None
    #: Default per-play time limit of human seats (None: no clock); tables may set their own.
    turn_seconds: float | None = None
    #: The shortest clock ``create_table`` may ask for (less is refused; 0 means none).
    #: Tests that need a quick clock lower it; the server's own ``turn_seconds`` is the
    #: operator's choice and not held to it.
    min_turn_seconds: float = 5.0
    #: Hints one connection may have worked out per minute, and at once (a hint costs a
    #: bot decision; asking again on the same turn is free).
    hints_per_minute: float = 20.0
    hint_burst: float = 3.0
    #: Whether tables allow hints (``hint``) when ``create_table`` does not say.
    hints: bool = False
    #: Tune the garbage collector for this process and freeze what start-up left alive
    #: (:mod:`.net.gctune`); ``jackal serve`` does, a server inside another program does not.
    tune_gc: bool = False
