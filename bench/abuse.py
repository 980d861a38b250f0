"""Abuse benchmark: what one hostile client costs a real ``jackal serve``, in one run.

Each figure is measured against a ``jackal serve --port 0`` subprocess (its memory and CPU
read from /proc), with the server's default limits unless ``--server-arg`` says otherwise:

1. ``help_spam``: 100 connections (from four addresses) that never say hello and never
   read send ``help`` requests under the rate limit (bursts of 100, a little over half a
   second apart) for ``--seconds``. Reported: the server's resident memory before, at
   the end and its peak, the kernel's TCP buffer memory (``/proc/net/sockstat``), and
   how many of the connections the server hung up on.
2. ``lobby_spam``: the same with 100 hello'd connections sending ``list_tables`` while the
   lobby is full (``--lobby-tables`` tables, 1,000 by default as the server allows).
3. ``newline_flood``: a legitimate client pings every 20 ms; its ping round trip
   (p50/p99/max) is measured quietly first, then while another process sends nothing but
   newlines as fast as the server takes them, reconnecting whenever it is hung up on. The
   server's CPU share during the flood is reported, and how many bytes the flooder got in.
4. ``address_hog``: one address (127.0.0.1) opens connections, keeping each alive with a
   blank line now and then, until the server refuses it; then a fresh client from another
   address (127.0.0.2; any 127/8 address reaches the loopback) connects, says hello and
   asks for the lobby. Reported: how many connections the hog holds, and how long the
   fresh client took (or the error it got).
5. ``password_guessing``: against a server with ``--password``, one address sends wrong
   passwords as fast as the server answers them, over as many connections as it likes,
   for ``--seconds``; reported: wrong guesses answered per second, and the time a client
   from another address with the right password needs to get in meanwhile.

Round three (issue 22), each against a server of its own (``--only NAME,...`` picks phases):

6. ``lobby_lockout``: one address opens connection after connection, each creating tables
   until refused; reported: tables made, how long it took, the refusal, and whether a
   client from another address can still create a table.
7. ``card_spam``: 16 seated connections send ``{"type":"conventions","card":"advanced"}``
   as fast as the rate limit lets them for ``--seconds``; reported: record bytes written
   a second and the server's CPU share.
8. ``bots_watched``: a spectator on a table of four random bots with target 1,000,000,
   for ``--seconds`` (at most); reported: record bytes a second, CPU share, and whether
   and after how many deals the table stopped.
9. ``wrong_tokens``: a full lobby (1,000 tables with a seated player each), then one
   address's 20 connections send hellos with wrong tokens as fast as the server takes
   them; reported: a bystander's ping p50/p99 before and during, tokens the server
   answered, and its CPU share.
10. ``hint_flood``: twelve tables of four people asking for a hint on every turn (and
    playing 50 ms later); reported: another table's expert bot move time (turn to
    played, p50) before and during, and hints answered a second.
11. ``many_addresses`` (issue 31): fifty addresses create every table they can, then
    forty addresses open every connection they can, at the server's defaults; reported:
    what they took, and whether a newcomer still creates a table and connects.

``python bench/abuse.py`` prints a short summary; ``--json`` one JSON object.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import socket
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchkit.lineconn import HOST
from server_load import ServerProcess, _raise_fd_limit, fresh_records_dir, serve_help

FRESH_HOST = "127.0.0.2"
NON_READERS = 100
HELP = b'{"type":"help"}\n'
LIST = b'{"type":"list_tables"}\n'


# --------------------------------------------------------------------------- helpers


def jackal_serve(extra: Sequence[str], records: str | None = None) -> ServerProcess:
    return ServerProcess([sys.executable, "-m", "jackal.cli.main", "serve", "--host", HOST,
                          "--port", "0", "--records", records or fresh_records_dir(),
                          "--quiet", *extra])


def tcp_memory_kib() -> int:
    """Memory the kernel holds in TCP buffers, all sockets (from /proc/net/sockstat)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            fields = line.split()
            pages = int(fields[fields.index("mem") + 1])
            return pages * 4  # sockstat counts 4 KiB pages
    return 0


def connect(port: int, *, source: str | None = None, rcvbuf: int | None = None,
            timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect
    if source is not None:
        sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect((HOST, port))
    return sock


def connections(port: int, stop: Any, timeout: float) -> Iterator[socket.socket]:
    """New connections, one after another (each closed when the next is asked for),
    until ``stop`` is set; a refused attempt is tried again after 10 ms."""
    while not stop.is_set():
        try:
            sock = connect(port, timeout=timeout)
        except OSError:
            time.sleep(0.01)
            continue
        with sock:
            yield sock


class Lines:
    """Blocking line reader over a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def next(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("closed by the server")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        msg: dict[str, Any] = json.loads(line)
        return msg

    def until(self, kind: str) -> dict[str, Any]:
        while True:
            msg = self.next()
            if msg["type"] == kind or msg["type"] == "error":
                return msg


def percentile_ms(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
                 * 1000.0, 3)


def hung_up(sock: socket.socket) -> bool:
    """Read whatever is waiting without blocking: True if the server closed this one."""
    sock.setblocking(False)
    try:
        while True:
            data = sock.recv(1 << 20)
            if not data:
                return True
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True


@contextlib.contextmanager
def closing_all(socks: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield socks
    finally:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()


# --------------------------------------------------------------------------- 1 and 2


def answers_again_after(port: int, timeout: float = 60.0) -> float | str:
    """Seconds until a new connection's ping is answered (a server still busy with the
    spam that was sent before its senders left answers late)."""
    start = time.monotonic()
    try:
        sock = connect(port, timeout=timeout)
        with sock:
            lines = Lines(sock)
            lines.until("welcome")
            sock.sendall(b'{"type":"ping","id":1}\n')
            lines.until("pong")
    except (OSError, EOFError) as exc:
        return f"no answer after {time.monotonic() - start:.0f} s ({exc})"
    return round(time.monotonic() - start, 3)


def spam_without_reading(server: ServerProcess, socks: list[socket.socket], request: bytes,
                         seconds: float) -> dict[str, Any]:
    """Every socket sends bursts of ``request`` for ``seconds`` and never reads."""
    before = server.status_kib("VmRSS")
    tcp_before = tcp_memory_kib()
    peak = before
    sent = 0
    burst = request * 100
    end = time.monotonic() + seconds
    alive = list(socks)
    for sock in alive:
        sock.settimeout(0.5)
    while time.monotonic() < end and alive:
        for sock in list(alive):
            try:
                sock.sendall(burst)
                sent += 100
            except (TimeoutError, OSError):
                alive.remove(sock)  # the server hung up, or stopped reading us
        peak = max(peak, server.status_kib("VmRSS"))
        time.sleep(0.6)  # 100 requests per 0.6 s: under the default 200/s
    time.sleep(1.0)
    at_end = server.status_kib("VmRSS")
    tcp_at_end = tcp_memory_kib()
    dropped = sum(1 for sock in socks if hung_up(sock))
    return {
        "connections": len(socks),
        "requests_sent": sent,
        "server_rss_before_kib": before,
        "server_rss_peak_kib": max(peak, at_end),
        "server_rss_end_kib": at_end,
        "server_kib_per_connection": round((max(peak, at_end) - before) / len(socks), 1),
        "kernel_tcp_kib": tcp_at_end - tcp_before,
        "hung_up_by_server": dropped,
    }


def spread(number: int) -> str:
    """A source address for the ``number``-th of many connections: four addresses, so
    the server's per-address limit does not refuse them (a real attacker has several)."""
    return f"127.0.1.{number % 4 + 1}"


def help_spam(port: int, server: ServerProcess, seconds: float) -> dict[str, Any]:
    with closing_all([connect(port, source=spread(n), rcvbuf=4096)
                      for n in range(NON_READERS)]) as socks:
        report = spam_without_reading(server, socks, HELP, seconds)
    report["answers_again_after_s"] = answers_again_after(port)
    return report


def fill_lobby(port: int, tables: int) -> int:
    """Create ``tables`` tables (from as few connections as the server allows). Nobody
    sits at them, so they stay listed long after their creators are gone."""
    created = 0
    with closing_all([]) as socks:
        while created < tables:
            sock = connect(port)
            socks.append(sock)
            lines = Lines(sock)
            lines.until("welcome")
            sock.sendall(b'{"type":"hello","name":"filler"}\n')
            lines.until("hello_ok")
            while created < tables:
                batch = min(100, tables - created)
                sock.sendall(b'{"type":"create_table","name":"a table with a name"}\n' * batch)
                refused = False
                for _ in range(batch):
                    msg = lines.until("table_created")
                    if msg["type"] == "error":
                        if msg.get("code") == "rate_limited":
                            continue
                        refused = True  # e.g. this connection's table limit: use another
                        if msg.get("code") == "server_full":
                            return created
                    else:
                        created += 1
                if refused:
                    break
                time.sleep(0.6)
    return created


def lobby_spam(port: int, server: ServerProcess, seconds: float, tables: int
               ) -> dict[str, Any]:
    created = fill_lobby(port, tables)
    with closing_all([connect(port, source=spread(n), rcvbuf=4096)
                      for n in range(NON_READERS)]) as socks:
        for number, sock in enumerate(socks):
            sock.sendall(b'{"type":"hello","name":"lurker%d"}\n' % number)
        report = spam_without_reading(server, socks, LIST, seconds)
    report["answers_again_after_s"] = answers_again_after(port)
    report["lobby_tables"] = created
    return report


# --------------------------------------------------------------------------- 3


def _flood(port: int, stop: Any, sent: Any) -> None:
    """A process that sends newlines as fast as it can, reconnecting when hung up on."""
    chunk = b"\n" * 65536
    for sock in connections(port, stop, timeout=1.0):
        while not stop.is_set():
            try:
                sock.sendall(chunk)
            except (TimeoutError, OSError):
                break
            with sent.get_lock():
                sent.value += len(chunk)


def halt(stop: Any, process: Any) -> None:
    """Tell a helper process to stop; kill it if it has not within 5 s."""
    stop.set()
    process.join(5)
    if process.is_alive():
        process.kill()


def ping_round_trips(port: int, seconds: float, sock: socket.socket | None = None
                     ) -> list[float]:
    """A bystander's ping round trips over ``seconds``: on a new connection, or on
    ``sock`` (already hello'd, so it is not kept out by a flood of new connections)."""
    if sock is None:
        sock = connect(port)
        Lines(sock).until("welcome")
        sock.sendall(b'{"type":"hello","name":"pinger"}\n')
        lines = Lines(sock)
        lines.until("hello_ok")
    else:
        lines = Lines(sock)
    with sock:
        times: list[float] = []
        end = time.monotonic() + seconds
        number = 0
        while time.monotonic() < end:
            number += 1
            start = time.monotonic()
            sock.sendall(b'{"type":"ping","id":%d}\n' % number)
            while True:
                msg = lines.next()
                if msg["type"] == "pong" and msg.get("id") == number:
                    break
                if msg["type"] == "ping":
                    sock.sendall(b'{"type":"pong"}\n')
            times.append(time.monotonic() - start)
            time.sleep(max(0.0, start + 0.02 - time.monotonic()))
    return times


def newline_flood(port: int, server: ServerProcess, seconds: float) -> dict[str, Any]:
    quiet = ping_round_trips(port, min(seconds, 3.0))
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    sent = ctx.Value("q", 0)
    flooder = ctx.Process(target=_flood, args=(port, stop, sent), daemon=True)
    cpu_before = server.cpu_seconds()
    start = time.monotonic()
    flooder.start()
    try:
        loud = ping_round_trips(port, seconds)
    finally:
        wall = time.monotonic() - start
        cpu = server.cpu_seconds() - cpu_before
        halt(stop, flooder)
    return {
        "quiet_ping_p50_ms": percentile_ms(quiet, 0.5),
        "quiet_ping_p99_ms": percentile_ms(quiet, 0.99),
        "flood_ping_p50_ms": percentile_ms(loud, 0.5),
        "flood_ping_p99_ms": percentile_ms(loud, 0.99),
        "flood_ping_max_ms": percentile_ms(loud, 1.0),
        "server_cpu_share": round(cpu / wall, 3),
        "flood_bytes_taken": sent.value,
    }


# --------------------------------------------------------------------------- 4


def address_hog(port: int, limit: int) -> dict[str, Any]:
    held: list[socket.socket] = []
    refusal: str | None = None
    with closing_all(held):
        while len(held) < limit:
            try:
                sock = connect(port, timeout=5.0)
                msg = Lines(sock).next()
            except (OSError, EOFError, ValueError) as exc:
                refusal = f"connect failed: {exc}"
                break
            if msg["type"] != "welcome":
                refusal = msg.get("code", msg["type"])
                sock.close()
                break
            held.append(sock)
            if len(held) % 100 == 0:
                for old in held:  # blank-line keepalive, as the hog in the issue did
                    with contextlib.suppress(OSError):
                        old.sendall(b"\n")
        start = time.monotonic()
        outcome = "in"
        try:
            sock = connect(port, source=FRESH_HOST)
            with sock:
                lines = Lines(sock)
                first = lines.next()
                if first["type"] != "welcome":
                    outcome = first.get("code", first["type"])
                else:
                    sock.sendall(b'{"type":"hello","name":"fresh"}\n'
                                 b'{"type":"list_tables","id":1}\n')
                    reply = lines.until("hello_ok")
                    if reply["type"] == "error":
                        outcome = reply["code"]
                    else:
                        lines.until("tables")
        except (OSError, EOFError) as exc:
            outcome = f"failed: {exc}"
        fresh_ms = (time.monotonic() - start) * 1000.0
        return {"hog_connections_held": len(held), "hog_refused_with": refusal,
                "fresh_client": outcome, "fresh_client_ms": round(fresh_ms, 3)}


# --------------------------------------------------------------------------- 5


def _guess(port: int, stop: Any, answered: Any) -> None:
    """Wrong passwords as fast as they are answered, a new connection whenever needed."""
    for sock in connections(port, stop, timeout=2.0):
        lines = Lines(sock)
        try:
            lines.until("welcome")
            number = 0
            while not stop.is_set():
                number += 1
                sock.sendall(b'{"type":"hello","name":"x","password":"guess%d"}\n' % number)
                msg = lines.until("hello_ok")
                if msg.get("code") == "bad_password":
                    with answered.get_lock():
                        answered.value += 1
                elif msg.get("code") == "rate_limited":
                    time.sleep(min(1.0, float(msg.get("retry_after") or 0.1)))
        except (OSError, EOFError, ValueError):
            continue


def password_guessing(seconds: float) -> dict[str, Any]:
    server = jackal_serve(["--password", "the right one"])
    try:
        ctx = mp.get_context("fork")
        stop = ctx.Event()
        answered = ctx.Value("q", 0)
        guessers = [ctx.Process(target=_guess, args=(server.port, stop, answered), daemon=True)
                    for _ in range(4)]
        start = time.monotonic()
        for guesser in guessers:
            guesser.start()
        time.sleep(seconds / 2)
        legit_start = time.monotonic()
        outcome = "in"
        try:
            sock = connect(server.port, source=FRESH_HOST)
            with sock:
                lines = Lines(sock)
                lines.until("welcome")
                sock.sendall(b'{"type":"hello","name":"owner","password":"the right one"}\n')
                reply = lines.until("hello_ok")
                if reply["type"] == "error":
                    outcome = reply["code"]
        except (OSError, EOFError) as exc:
            outcome = f"failed: {exc}"
        legit_ms = (time.monotonic() - legit_start) * 1000.0
        time.sleep(max(0.0, start + seconds - time.monotonic()))
        stop.set()
        wall = time.monotonic() - start
        for guesser in guessers:
            guesser.join(5)
            if guesser.is_alive():
                guesser.kill()
        return {"wrong_guesses_answered_per_s": round(answered.value / wall, 1),
                "right_password_from_elsewhere": outcome,
                "right_password_ms": round(legit_ms, 3)}
    finally:
        server.stop()


# --------------------------------------------------------------------------- 6 to 10


class Client:
    """A blocking hello'd connection that asks and waits for the reply to its request."""

    def __init__(self, port: int, name: str, source: str | None = None) -> None:
        self.sock = connect(port, source=source)
        self.lines = Lines(self.sock)
        self.ids = 0
        self.lines.until("welcome")
        self.hello = self.ask({"type": "hello", "name": name})

    def send(self, msg: dict[str, Any]) -> int:
        self.ids += 1
        self.sock.sendall(json.dumps({**msg, "id": self.ids}).encode() + b"\n")
        return self.ids

    def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        number = self.send(msg)
        while True:
            reply = self.lines.next()
            if reply.get("id") == number:
                return reply

    def close(self) -> None:
        self.sock.close()


def folder_bytes(folder: str) -> int:
    return sum(path.stat().st_size for path in Path(folder).iterdir() if path.is_file())


def serve_with(options: str, extra: Sequence[str] = (),
               records: str | None = None) -> ServerProcess:
    """A server with ``extra`` arguments and no pause or floor for its bots (options an
    older server does not have are left out)."""
    args = list(extra)
    for name, value in (("--bot-floor", "0"), ("--bot-pause", "0")):
        if name in options:
            args += [name, value]
    return jackal_serve(args, records)


@contextlib.contextmanager
def served(options: str, extra: Sequence[str] = ()) -> Iterator[tuple[ServerProcess, str]]:
    """:func:`serve_with` on a fresh records folder, stopped afterwards."""
    records = fresh_records_dir()
    server = serve_with(options, extra, records)
    try:
        yield server, records
    finally:
        server.stop()


def lobby_lockout(options: str) -> dict[str, Any]:
    with served(options) as (server, _records):
        made, refusal, start = 0, "", time.monotonic()
        while not refusal and made < 5000:
            client = Client(server.port, "hog")
            for _ in range(100):
                reply = client.ask({"type": "create_table"})
                if reply["type"] != "error":
                    made += 1
                    continue
                # One connection's own limit: the hog simply opens another connection.
                if "you already have" not in reply["message"]:
                    refusal = f"{reply['code']}: {reply['message']}"
                break
            client.close()
        seconds = time.monotonic() - start
        other = Client(server.port, "someone else", source=FRESH_HOST)
        reply = other.ask({"type": "create_table"})
        other.close()
        return {"tables_made_by_one_address": made, "seconds": round(seconds, 3),
                "then_refused_with": refusal,
                "another_address_creates": reply["type"] == "table_created"
                or reply.get("code")}


def many_addresses(options: str) -> dict[str, Any]:
    """Fifty addresses (127.0.4.x) take every table they can, then forty (127.0.5.x) every
    connection they can, at the server's defaults; each time a newcomer (``FRESH_HOST``)
    tries too (issue 31: they took all 1,000 tables and all 2,000 connections)."""
    report: dict[str, Any] = {}
    with served(options) as (server, _records):
        clients: list[Client] = []
        made, start = 0, time.monotonic()
        for number in range(50):
            refused = False
            while not refused:  # another connection at each connection's own limit
                client = Client(server.port, f"hog{number}", source=f"127.0.4.{number + 1}")
                clients.append(client)
                for _ in range(100):
                    reply = client.ask({"type": "create_table"})
                    if reply["type"] == "table_created":
                        made += 1
                        continue
                    refused = "you already have" not in reply["message"]
                    break
        report["tables_taken_by_50_addresses"] = made
        report["tables_seconds"] = round(time.monotonic() - start, 3)
        newcomer = Client(server.port, "newcomer", source=FRESH_HOST)
        reply = newcomer.ask({"type": "create_table"})
        report["newcomer_creates_a_table"] = reply["type"] == "table_created" or reply["code"]
        for client in [*clients, newcomer]:
            client.close()
    with served(options) as (server, _records), closing_all([]) as held:
        for number in range(40):
            for _ in range(50):
                sock = connect(server.port, source=f"127.0.5.{number + 1}")
                if Lines(sock).next()["type"] != "welcome":
                    sock.close()
                    break
                held.append(sock)
        report["connections_taken_by_40_addresses"] = len(held)
        with connect(server.port, source=FRESH_HOST) as sock:
            first = Lines(sock).next()
        report["newcomer_connects"] = first["type"] == "welcome" or first.get("code")
    return report


def card_spam(options: str, seconds: float) -> dict[str, Any]:
    with served(options) as (server, records):
        spammers = []
        for number in range(16):
            client = Client(server.port, f"spammer{number}", source=spread(number))
            table = client.ask({"type": "create_table"})["table"]
            client.ask({"type": "join", "table": table, "seat": "N"})
            spammers.append(client)
        before, cpu_before, start = folder_bytes(records), server.cpu_seconds(), time.monotonic()
        line = b'{"type":"conventions","card":"advanced"}\n' * 20
        refusals: dict[str, int] = {}
        while time.monotonic() < start + seconds:
            for client in spammers:
                client.sock.sendall(line)
            for client in spammers:
                for _ in range(20):
                    reply = client.lines.next()
                    if reply["type"] == "error":
                        refusals[reply["code"]] = refusals.get(reply["code"], 0) + 1
            time.sleep(0.1)  # 16 x 200 a second: under the rate limit
        wall = time.monotonic() - start
        for client in spammers:
            client.close()
        return {"record_bytes_per_s": round((folder_bytes(records) - before) / wall),
                "server_cpu_share": round((server.cpu_seconds() - cpu_before) / wall, 3),
                "refusals": refusals}


def bots_watched(options: str, seconds: float) -> dict[str, Any]:
    with served(options) as (server, records):
        host = Client(server.port, "host")
        table = host.ask({"type": "create_table", "target": 1_000_000})["table"]
        watcher = Client(server.port, "watcher")
        watcher.ask({"type": "spectate", "table": table})
        for seat in ("N", "E", "S", "W"):
            host.ask({"type": "add_bot", "table": table, "seat": seat, "strategy": "random"})
        cpu_before, start = server.cpu_seconds(), time.monotonic()
        watcher.sock.settimeout(0.5)
        deals, stopped = 0, None
        while time.monotonic() < start + seconds and stopped is None:
            try:
                msg = watcher.lines.next()
            except TimeoutError:
                continue
            if msg["type"] == "deal_ended":
                deals += 1
            elif msg["type"] == "error":
                stopped = msg["code"]
        wall = time.monotonic() - start
        cpu = server.cpu_seconds() - cpu_before
        for client in (host, watcher):
            client.close()
        return {"record_bytes_per_s": round(folder_bytes(records) / wall),
                "record_bytes": folder_bytes(records),
                "server_cpu_share": round(cpu / wall, 3), "deals_watched": deals,
                "stopped": stopped or f"no, still playing after {wall:.1f} s"}


def _wrong_tokens(port: int, stop: Any, answered: Any) -> None:
    """20 connections from one address, hellos with wrong tokens as fast as taken."""
    burst = b'{"type":"hello","name":"x","token":"%s"}\n' % (b"w" * 43) * 50
    socks: list[socket.socket] = []
    while not stop.is_set():
        while len(socks) < 20:
            try:
                sock = connect(port, source="127.0.0.3", timeout=2.0)
            except OSError:
                break
            sock.setblocking(False)
            socks.append(sock)
        for sock in list(socks):
            try:
                data = sock.recv(1 << 16)
                if not data:
                    raise ConnectionError
                with answered.get_lock():
                    answered.value += data.count(b"\n")
            except BlockingIOError:
                pass
            except OSError:
                socks.remove(sock)
                sock.close()
                continue
            with contextlib.suppress(BlockingIOError, OSError):
                sock.send(burst)
        time.sleep(0.001)


def wrong_tokens(options: str, seconds: float) -> dict[str, Any]:
    # 1,000 tables from 100 addresses: four times the capacity, so no address group's
    # share of a filling server (issue 31) gets in the way of this phase.
    extra = ["--max-per-address", "20", "--max-tables", "4000"]
    with served(options, extra) as (server, _records):
        for number in range(100):  # 1,000 tables, each with a seated (absent) player
            source = f"127.0.2.{number + 1}"
            host = Client(server.port, "host", source=source)
            for _ in range(10):
                table = host.ask({"type": "create_table"})["table"]
                seated = Client(server.port, "player", source=source)
                seated.ask({"type": "join", "table": table, "seat": "N"})
                seated.close()
            host.close()
        quiet = ping_round_trips(server.port, min(seconds, 3.0))
        bystander = Client(server.port, "bystander", source=FRESH_HOST)
        ctx = mp.get_context("fork")
        stop, answered = ctx.Event(), ctx.Value("q", 0)
        flooder = ctx.Process(target=_wrong_tokens, args=(server.port, stop, answered),
                              daemon=True)
        flooder.start()
        time.sleep(0.5)
        cpu_before, start = server.cpu_seconds(), time.monotonic()
        answered_before = answered.value
        try:
            loud = ping_round_trips(server.port, seconds, bystander.sock)
        finally:
            wall = time.monotonic() - start
            cpu = server.cpu_seconds() - cpu_before
            halt(stop, flooder)
        return {"quiet_ping_p50_ms": percentile_ms(quiet, 0.5),
                "quiet_ping_p99_ms": percentile_ms(quiet, 0.99),
                "flood_ping_p50_ms": percentile_ms(loud, 0.5),
                "flood_ping_p99_ms": percentile_ms(loud, 0.99),
                "wrong_tokens_answered_per_s": round((answered.value - answered_before)
                                                     / wall),
                "server_cpu_share": round(cpu / wall, 3)}


def _hinters(port: int, stop: Any, hints: Any, ask: bool = True) -> None:
    """Twelve tables of four people: a hint on every turn (unless not ``ask``), the card
    50 ms later."""
    people: list[tuple[Client, dict[str, Any]]] = []
    for number in range(12):
        source = f"127.0.3.{number + 1}"
        host = Client(port, "N", source=source)
        table = host.ask({"type": "create_table", "hints": True, "target": 1_000_000})
        for seat in ("N", "E", "S", "W"):
            person = host if seat == "N" else Client(port, seat, source=source)
            person.ask({"type": "join", "table": table["table"], "seat": seat})
            people.append((person, {}))
    for person, _ in people:
        person.send({"type": "ready"})
        person.sock.setblocking(False)
    while not stop.is_set():
        now = time.monotonic()
        for person, state in people:
            with contextlib.suppress(BlockingIOError):
                person.lines.buf += person.sock.recv(1 << 16)
            while b"\n" in person.lines.buf:
                msg = person.lines.next()
                if msg["type"] == "your_turn":
                    state.update(card=msg["hand"][0], at=now + 0.05,
                                 asked=person.send({"type": "hint"}) if ask else None)
                elif msg.get("id") is not None and msg["id"] == state.get("asked"):
                    state["asked"] = None
                    if msg["type"] == "hint":
                        with hints.get_lock():
                            hints.value += 1
                elif msg["type"] == "deal_ended":
                    person.send({"type": "ready"})
            if state.get("card") and state.get("asked") is None and now >= state["at"]:
                person.send({"type": "play", "card": state.pop("card")})
        time.sleep(0.002)


def bot_moves(player: Client, count: int) -> list[float]:
    """Seconds from each bot seat's ``turn`` to its ``played`` (N plays at once)."""
    times: list[float] = []
    started: dict[str, float] = {}
    while len(times) < count:
        msg = player.lines.next()
        if msg["type"] == "turn" and msg["seat"] != "N":
            started[msg["seat"]] = time.monotonic()
        elif msg["type"] == "played" and msg["seat"] in started:
            times.append(time.monotonic() - started.pop(msg["seat"]))
        elif msg["type"] == "your_turn":
            player.send({"type": "play", "card": msg["hand"][0]})
        elif msg["type"] == "deal_ended":
            player.send({"type": "ready"})
    return times


def _flooded_bot_moves(port: int, player: Client, seconds: float, ask: bool
                       ) -> tuple[list[float], float]:
    """The bot move times while the twelve tables play (asking for hints if ``ask``),
    and the hints answered a second."""
    ctx = mp.get_context("fork")
    stop, hints = ctx.Event(), ctx.Value("q", 0)
    flooder = ctx.Process(target=_hinters, args=(port, stop, hints, ask), daemon=True)
    flooder.start()
    time.sleep(2.0)  # the tables seated and playing
    while ask and hints.value < 20 and flooder.is_alive():
        bot_moves(player, 1)
    start, hints_before = time.monotonic(), hints.value
    loud: list[float] = []
    while time.monotonic() < start + seconds:
        loud += bot_moves(player, 1)
    wall = time.monotonic() - start
    halt(stop, flooder)
    return loud, (hints.value - hints_before) / wall


def hint_flood(options: str, seconds: float) -> dict[str, Any]:
    with served(options, ["--hints", "--between-deals", "0"]) as (server, _records):
        player = Client(server.port, "measured", source=FRESH_HOST)
        table = player.ask({"type": "create_table", "target": 1_000_000})["table"]
        player.ask({"type": "join", "table": table, "seat": "N"})
        for seat in ("E", "S", "W"):
            player.ask({"type": "add_bot", "table": table, "seat": seat,
                        "strategy": "expert"})
        player.send({"type": "ready"})
        quiet = bot_moves(player, 60)
        # The same twelve tables playing at the same pace without hints: what their
        # plays alone cost the measured table.
        plain, _ = _flooded_bot_moves(server.port, player, seconds, ask=False)
        loud, rate = _flooded_bot_moves(server.port, player, seconds, ask=True)
        return {"quiet_bot_move_p50_ms": percentile_ms(quiet, 0.5),
                "tables_without_hints_bot_move_p50_ms": percentile_ms(plain, 0.5),
                "flood_bot_move_p50_ms": percentile_ms(loud, 0.5),
                "flood_bot_move_p99_ms": percentile_ms(loud, 0.99),
                "hints_answered_per_s": round(rate, 1)}


ROUND_THREE = ("lobby_lockout", "card_spam", "bots_watched", "wrong_tokens", "hint_flood",
               "many_addresses")


# --------------------------------------------------------------------------- main


def progress(figures: dict[str, Any]) -> dict[str, Any]:
    """Show each phase's figures on stderr as soon as it ends (a run takes a while)."""
    print(json.dumps(figures), file=sys.stderr, flush=True)
    return figures


def measure_round_three(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    options = serve_help()
    report: dict[str, Any] = {}
    for name in names:
        if name == "lobby_lockout":
            report[name] = progress(lobby_lockout(options))
        elif name == "many_addresses":
            report[name] = progress(many_addresses(options))
        elif name == "card_spam":
            report[name] = progress(card_spam(options, args.seconds))
        elif name == "bots_watched":
            report[name] = progress(bots_watched(options, max(args.seconds, 20.0)))
        elif name == "wrong_tokens":
            report[name] = progress(wrong_tokens(options, args.seconds))
        elif name == "hint_flood":
            report[name] = progress(hint_flood(options, args.seconds))
    return report


def measure(args: argparse.Namespace) -> dict[str, Any]:
    options = serve_help()
    extra = list(args.server_arg)
    # Filling the lobby from one address needs more tables per connection than a
    # player would: lift that limit (when this server version has one), not the others.
    if "--max-tables-per-connection" in options:
        extra += ["--max-tables-per-connection", str(args.lobby_tables)]
    if "--max-tables-per-address" in options:
        extra += ["--max-tables-per-address", str(args.lobby_tables)]
    # A lobby of ``lobby_tables`` from one address group: the capacity is four times it,
    # as past half the capacity a group's share shrinks (docs/PROTOCOL.md, "Limits").
    extra += ["--max-tables", str(args.lobby_tables * 4)]
    server = jackal_serve(extra)
    report: dict[str, Any] = {}
    try:
        time.sleep(0.3)
        report["help_spam"] = progress(help_spam(server.port, server, args.seconds))
        report["lobby_spam"] = progress(lobby_spam(server.port, server, args.seconds,
                                                   args.lobby_tables))
        report["newline_flood"] = progress(newline_flood(server.port, server, args.seconds))
        report["address_hog"] = progress(address_hog(server.port, args.hog_limit))
    finally:
        code = server.stop()
    problems = server.problems()
    if code not in (0, None, -15):
        problems.append(f"jackal serve exited with status {code}")
    report["password_guessing"] = progress(password_guessing(args.seconds))
    report["server_problems"] = problems[:10]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="length of each spam, flood and guessing phase (default 5)")
    parser.add_argument("--lobby-tables", type=int, default=1000,
                        help="tables in the full lobby (default 1000)")
    parser.add_argument("--hog-limit", type=int, default=2100,
                        help="most connections the address hog tries (default 2100)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="extra argument for jackal serve (repeatable)")
    parser.add_argument("--only", metavar="NAMES",
                        help="run only these round-three phases, comma-separated: "
                             + ", ".join(ROUND_THREE))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    _raise_fd_limit()
    if args.only:
        names = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(names) - set(ROUND_THREE))
        if unknown:
            parser.error(f"unknown phase(s): {', '.join(unknown)}")
        report = measure_round_three(args, names)
        report["server_problems"] = []
    else:
        report = measure(args)
        problems = report.pop("server_problems")
        report.update(measure_round_three(args, ROUND_THREE))
        report["server_problems"] = problems
    if args.json:
        print(json.dumps(report))
    else:
        for section, figures in report.items():
            print(f"{section}:")
            if isinstance(figures, dict):
                for key, value in figures.items():
                    print(f"  {key:<32} {value}")
            else:
                print(f"  {figures}")
    return 0 if not report["server_problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
