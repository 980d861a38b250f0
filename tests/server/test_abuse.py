"""A live server under abuse keeps serving (issue 7.1), and the load benchmark runs (7.4).

One real ``jackal serve`` subprocess (so its memory is measured alone, from /proc). A table
of four well-behaved raw clients plays a whole match while, at the same time, other
connections throw at the same server:

- random bytes, invalid UTF-8, deeply nested JSON, huge numbers: ``bad_json`` or
  ``invalid_message`` per line, and the connection stays usable;
- a wrong-typed value in every field of every client message (and an unknown field in
  each): ``invalid_message`` naming the field, with the request's ``id`` echoed;
- a 10 MB line without a newline: ``line_too_long``, then the server closes;
- a flood of thousands of messages at once: ``rate_limited`` with ``retry_after``, then
  the server closes the connection;
- connections that never say hello: ``timeout`` after the hello timeout, then closed;
- half-closed connections: every request sent before the half-close is answered, even
  an unterminated last line, then the server closes;
- a client that never reads while it watches a busy bots-only table: dropped.

The good table must finish with no error and no stalled play; afterwards a new client
says hello and plays a match normally, the server logged no internal error, and its
resident memory is back near where it was before the abuse. About 5-10 s.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.protocol.codec import CLIENT_TYPES, encode
from jackal.protocol.errors import ErrorCode
from jackal.protocol.help import HELP_ENTRIES
from jackal.protocol.messages import Error
from jackal.server.config import ServerConfig
from msgspec import inspect as mi
from support import ROOT
from support.client import RawClient
from support.server import ServerProcess

SEATS = ("N", "E", "S", "W")
HELLO_TIMEOUT = 3.0
#: The good table's match must never wait this long for a play to come back.
MAX_PLAY_LATENCY = 2.0
#: RSS may grow this much over the whole abuse: allocator slack, a few finished tables and
#: caches warming. A leak of the abusive traffic itself (10 MB lines, 5,000-message floods,
#: queues of dropped clients) would be far larger.
MEMORY_MARGIN_KIB = 16 * 1024


def rss_kib(server: ServerProcess) -> int:
    """The server process's resident memory, from /proc."""
    assert server.proc is not None
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]


async def wait_for_log(server: ServerProcess, pattern: str, timeout: float) -> str:
    with trio.fail_after(timeout):
        while True:
            for line in server.log().splitlines():
                if re.search(pattern, line):
                    return line
            await trio.sleep(0.05)


@asynccontextmanager
async def clients(port: int, count: int, **kwargs: Any) -> AsyncIterator[list[RawClient]]:
    """``count`` connections, their welcomes read, closed at the end."""
    opened = [await RawClient.connect(port, **kwargs) for _ in range(count)]
    try:
        yield opened
    finally:
        for client in opened:
            await client.aclose()


async def still_open(client: RawClient) -> None:
    """A ping still gets its pong: the connection survived."""
    await client.send(type="ping", id="alive?")
    assert await client.recv() == {"type": "pong", "id": "alive?"}


# --------------------------------------------------------------------------- the good table


async def play_match(port: int, name: str, seed: int, target: int, pace: float = 0.0) -> int:
    """Four raw clients play a whole match; every message must be a good one. Plays made."""
    latencies: list[float] = []
    async with clients(port, 4) as seats:
        for seat, client in zip(SEATS, seats, strict=True):
            await client.hello(f"{name}-{seat}")
        await seats[0].send(type="create_table", name=name, target=target, seed=seed)
        table = (await seats[0].expect("table_created"))["table"]
        for seat, client in zip(SEATS, seats, strict=True):
            await client.send(type="join", table=table, seat=seat)
            await client.expect("joined")
            await client.send(type="ready")

        async def run_seat(seat: str, client: RawClient) -> None:
            hand: list[str] = []
            sent = 0.0
            while True:
                msg = await client.recv()
                kind = msg["type"]
                assert kind != "error", f"{name} {seat}: {msg}"
                if kind == "deal_started":
                    hand = list(msg["hand"])
                elif kind == "turn" and msg["seat"] == seat:
                    await trio.sleep(pace)
                    sent = time.monotonic()
                    await client.send(type="play", card=hand.pop(), id="p")
                elif kind == "played" and msg.get("id") == "p":
                    latencies.append(time.monotonic() - sent)
                elif kind == "deal_ended" and max(msg["scores"].values()) < target:
                    await client.send(type="ready")
                elif kind == "match_ended":
                    return

        async with trio.open_nursery() as nursery:
            for seat, client in zip(SEATS, seats, strict=True):
                nursery.start_soon(run_seat, seat, client)
    assert latencies and max(latencies) < MAX_PLAY_LATENCY, max(latencies, default=None)
    return len(latencies)


# --------------------------------------------------------------------------- the abuse


def accepted_kinds(t: mi.Type) -> set[str]:
    """The JSON kinds a field type accepts (ignoring ranges and lengths)."""
    if isinstance(t, mi.UnionType):
        return set().union(*(accepted_kinds(x) for x in t.types))
    if isinstance(t, mi.Metadata):
        return accepted_kinds(t.type)
    if isinstance(t, mi.LiteralType):
        return {json_kind(v) for v in t.values}
    if isinstance(t, (mi.EnumType, mi.CustomType)):  # Seat/Team, Card: text on the wire
        return {"str"}
    simple = {mi.StrType: "str", mi.IntType: "int", mi.BoolType: "bool", mi.NoneType: "null",
              mi.FloatType: "float"}
    for cls, kind in simple.items():
        if isinstance(t, cls):
            return {kind, "int"} if kind == "float" else {kind}
    if isinstance(t, (mi.StructType, mi.DictType, mi.TypedDictType, mi.DataclassType)):
        return {"object"}
    if isinstance(t, (mi.ListType, mi.TupleType, mi.VarTupleType, mi.SetType)):
        return {"array"}
    return {"str", "int", "bool", "null", "float", "object", "array"}  # Any


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", list: "array", dict: "object"}[type(value)]


#: The fields that hold a convention card (by name or inline), per message type.
CARD_SPECS = {"conventions": ("card",), "create_table": ("conventions_ns", "conventions_ew")}
CANDIDATES: tuple[Any, ...] = (12345, "text", True, [1, 2], {"x": 1}, None, 1.5)


def wrong_field_lines() -> list[tuple[str, str, bytes]]:
    """For every client message and field: (type, field, a line with a wrong-typed value).

    Each line starts from the message's own help example (so every other field is
    valid) and carries an ``id`` naming the case, except when ``id`` is the field.
    """
    examples = {entry.type: json.loads(entry.example) for entry in HELP_ENTRIES}
    cases = []
    for kind, cls in sorted(CLIENT_TYPES.items()):
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        for fld in info.fields:
            wrong = next(v for v in CANDIDATES if json_kind(v) not in accepted_kinds(fld.type))
            msg = {**examples[kind], "id": f"{kind}.{fld.name}"}
            msg[fld.encode_name] = wrong
            cases.append((kind, fld.encode_name, json.dumps(msg).encode() + b"\n"))
        extra = {**examples[kind], "id": f"{kind}.surprise", "surprise": 1}
        cases.append((kind, "surprise", json.dumps(extra).encode() + b"\n"))
    return cases


async def abuse_wrong_types(port: int) -> None:
    cases = wrong_field_lines()
    assert len(cases) > len(CLIENT_TYPES) * 2
    async with clients(port, 1) as (client,):
        await client.hello()
        await client.send_raw(b"".join(line for _, _, line in cases))
        for kind, name, line in cases:
            reply = await client.recv()
            # A convention card of the wrong shape is a bad card, as an unknown name is.
            code = "bad_conventions" if name in CARD_SPECS.get(kind, ()) else "invalid_message"
            assert reply["type"] == "error" and reply["code"] == code, (line, reply)
            assert f"'{name}" in reply["message"], (line, reply)
            assert reply.get("id") == (None if name == "id" else f"{kind}.{name}"), reply
        await still_open(client)


async def abuse_garbage(port: int) -> None:
    """Random bytes, invalid UTF-8, nesting, huge numbers: one error per line, stays open."""
    rng = random.Random(7)
    noise = bytes(rng.randrange(256) for _ in range(3000)).replace(b"\n", b"\n\x00")
    lines = [line for line in noise.split(b"\n") if line.rstrip(b"\r").strip()]
    cases: list[tuple[bytes, str]] = [(line, "bad_json") for line in lines]
    cases += [
        (b'{"type":"hello","name":"\xff\xfe"}', "bad_json"),
        (b"\xc3\x28\xa0\xa1", "bad_json"),
        (b"[" * 30000 + b"]" * 30000, "bad_json"),
        (b'{"type":"help","id":' + b"[" * 20000 + b"]" * 20000 + b"}", "bad_json"),
        (b'{"type":"create_table","target":1' + b"0" * 5000 + b"}", "bad_json"),
        (b'{"type":"ping","id":' + b"9" * 30 + b"}", "invalid_message"),
        (b'{"type":"create_table","target":1e400}', "bad_json"),
        (b'{"type":"create_table","target":99999999999}', "invalid_message"),
        (b"9" * 60000, "bad_json"),
        (b'"just a string"', "invalid_message"),
        (b'{"no_type":1}', "invalid_message"),
        (b'{"type":"launch_missiles"}', "unknown_type"),
    ]
    async with clients(port, 1) as (client,):
        await client.hello()
        for line, code in cases:
            await client.send_raw(line + b"\n")
            reply = await client.recv()
            assert reply["type"] == "error" and reply["code"] == code, (line[:80], reply)
        await still_open(client)


async def abuse_long_line(port: int) -> None:
    """10 MB without a newline: line_too_long, then the server closes."""
    async with clients(port, 1) as (client,):
        await client.hello()
        chunk = b"x" * 65536

        async def pour() -> None:
            try:
                for _ in range(10 * 1024 * 1024 // len(chunk)):
                    await client.send_raw(chunk)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the server hung up part way through, as it should

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pour)
            seen = await client.eof()
            nursery.cancel_scope.cancel()
        assert [m["code"] for m in seen] == ["line_too_long"], seen


async def abuse_flood(port: int) -> None:
    """5,000 messages at once: a burst is served, then rate_limited, then the door."""
    async with clients(port, 1) as (client,):
        await client.hello()
        flood = b"".join(b'{"type":"ping","id":%d}\n' % n for n in range(5000))
        with trio.move_on_after(5):  # the server may hang up before taking it all
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await client.send_raw(flood)
        seen = await client.eof()
    kinds = [m["type"] for m in seen]
    limited = [m for m in seen if m.get("code") == "rate_limited"]
    assert kinds.count("pong") >= 50, kinds[:5]
    # Each refusal says when to try again (rounded to the millisecond, so a token due in
    # under half a millisecond reads 0.0); the last one, which closes, does not.
    assert len(limited) > 1 and all(m["retry_after"] >= 0 for m in limited[:-1])
    assert any(m["retry_after"] > 0 for m in limited[:-1]), limited[:3]
    assert seen[-1]["code"] == "rate_limited" and "retry_after" not in seen[-1], seen[-1]
    assert len(seen) < 5000, "a flood must not be answered in full"
    print(f"flood of 5000: {kinds.count('pong')} pongs, {len(limited)} rate_limited, closed")


async def abuse_no_hello(port: int) -> None:
    """Twenty connections that never say hello are closed with timeout."""
    async with clients(port, 20) as idle:
        start = time.monotonic()
        for client in idle:
            seen = await client.eof(HELLO_TIMEOUT + 10)
            assert [m.get("code") for m in seen] == ["timeout"], seen
        assert time.monotonic() - start >= HELLO_TIMEOUT - 0.5


async def abuse_half_close(port: int) -> None:
    """Requests sent before a half-close are answered (even an unterminated last one)."""
    async with clients(port, 3) as (first, second, third):
        await first.send_raw(b'{"type":"hello","name":"half"}\n{"type":"ping","id":1}\n')
        await first.stream.send_eof()
        assert [m["type"] for m in await first.eof()] == ["hello_ok", "pong"]
        await second.send_raw(b'{"type":"ping","id":2}')  # no newline at all
        await second.stream.send_eof()
        assert await second.eof() == [{"type": "pong", "id": 2}]
        await third.stream.send_eof()
        assert await third.eof() == []


async def abuse_never_reads(server: ServerProcess) -> None:
    """A spectator of a busy table that never reads is dropped; the table goes on."""
    port = server.port
    async with clients(port, 1) as (host,), clients(port, 1, rcvbuf=4096) as (sloth,):
        await host.hello("bot-host")
        await host.send(type="create_table", name="busy", target=4000, seed=5)
        table = (await host.expect("table_created"))["table"]
        await sloth.send(type="hello", name="sloth")
        await sloth.send(type="spectate", table=table)
        await sloth.send_raw(b'{"type":"help"}\n' * 90)  # big replies it will never read
        for seat in SEATS:
            await host.send(type="add_bot", table=table, seat=seat, strategy="random")
            await host.expect("ok")
        await wait_for_log(server, r"not reading, dropped", timeout=30)
        # Now read what the kernel buffered: the stream must end (the server hung up).
        with trio.fail_after(20):
            while True:
                data = b""
                with suppress(trio.BrokenResourceError):
                    data = await sloth.stream.receive_some(65536)
                if not data:
                    break
        await still_open(host)


@pytest.mark.subprocess
async def test_server_survives_abuse_while_a_table_plays(tmp_path: Path) -> None:
    # The bots' move-time floor (fair play, not load) would stretch three matches of bots
    # past the time limit; this test is about abuse, so its bots answer at once.
    server = ServerProcess(tmp_path, "--host", "127.0.0.1", "--hello-timeout",
                           str(HELLO_TIMEOUT), "--bot-floor", "0", records=False)
    try:
        with trio.fail_after(90):
            await play_match(server.port, "warmup", seed=1, target=150)
            before = rss_kib(server)
            async with trio.open_nursery() as nursery:
                # The good table paces itself so that its match spans the whole abuse.
                nursery.start_soon(play_match, server.port, "good", 2, 300, 0.01)
                nursery.start_soon(abuse_wrong_types, server.port)
                nursery.start_soon(abuse_garbage, server.port)
                nursery.start_soon(abuse_long_line, server.port)
                nursery.start_soon(abuse_flood, server.port)
                nursery.start_soon(abuse_no_hello, server.port)
                nursery.start_soon(abuse_half_close, server.port)
                nursery.start_soon(abuse_never_reads, server)
            # Afterwards a newcomer says hello and plays a whole match normally.
            assert await play_match(server.port, "after", seed=3, target=300) > 0
            after = rss_kib(server)
    finally:
        server.stop()
    log = server.log().splitlines()
    problems = [line for line in log if "Traceback" in line or " ERROR " in line]
    assert not problems, "\n".join(problems[:20])
    assert any("flooding, closed" in line for line in log)
    print(f"server RSS before abuse {before} KiB, after {after} KiB")
    assert after - before < MEMORY_MARGIN_KIB, (before, after)


def test_default_flood_limit_is_reached_before_the_send_buffer_overflows() -> None:
    """A flood written in one go is answered with a burst of replies, then flood-limit
    refusals, all queued before anything is written: the send buffer must hold them, or
    the flooder is dropped as a slow reader without the documented ``rate_limited``.
    Every request costs a token per whole KiB of its reply on top of its own, so the
    replies to a burst come to less than a KiB per token of the burst."""
    config = ServerConfig()
    refusal = encode(Error(id="x" * 64, code=ErrorCode.RATE_LIMITED, retry_after=12345.678,
                           message="too many messages; wait 12345.678 s"))
    assert (config.rate_burst * 1024 + config.flood_limit * len(refusal)
            < config.send_buffer)


def test_wrong_field_cases_cover_every_field_of_every_message() -> None:
    cases = wrong_field_lines()
    covered = {(kind, name) for kind, name, _ in cases}
    for kind, cls in CLIENT_TYPES.items():
        for name in cls.__struct_encode_fields__:
            assert (kind, name) in covered
    # A wrong value is really wrong: e.g. play's card gets a non-string.
    play_card = next(line for kind, name, line in cases if (kind, name) == ("play", "card"))
    assert not isinstance(json.loads(play_card)["card"], str)


@pytest.mark.subprocess
def test_load_benchmark_small_run() -> None:
    """CI's small-size run of bench/server_load.py: zero errors and every field reported."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "server_load.py"), "--tables", "4",
         "--target", "100", "--procs", "1", "--json"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    for key in ("tables", "plays_per_s", "p50_ms", "p99_ms", "errors", "server_peak_kib",
                "baseline_ratio"):
        assert key in report, key
    assert report["tables"] == 4 and report["errors"] == 0 and report["matches"] == 4
    assert report["plays_per_s"] > 0 and report["baseline_ratio"] > 0
    assert 0 < report["p50_ms"] <= report["p99_ms"]
    assert report["server_peak_kib"] > 0
