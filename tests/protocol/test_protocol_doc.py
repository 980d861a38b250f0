"""docs/PROTOCOL.md's complete session, replayed against a real server (issue 3, docs).

The transcript between ``<!-- transcript: begin -->`` and ``<!-- transcript: end -->`` is
a list of lines ``X> json`` (connection X sends) and ``X< json`` (connection X receives),
X being the seat letter of one of four connections; ``#`` lines are comments. The test
opens the four connections to a server on port 0 and walks the list: it sends each ``>``
line and reads the next line of that connection for each ``<`` line, comparing the two
as JSON values. Placeholders (JSON strings) in expected lines:

- ``"<version>"``: any string;
- ``"<token X>"``: any string of at least 40 characters, remembered as X's token; a
  sent line may use the same placeholder to send it back;
- ``"<card NAME>"``: exactly the built-in convention card NAME.

At the end no connection may have anything left unread.
``python tests/protocol/test_protocol_doc.py`` plays the same script against a fresh server
and prints a new transcript to paste into the document when the protocol changes on purpose.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest
import trio
from jackal.game.conventions import builtin_card
from jackal.game.deal import PLAYS_PER_DEAL
from jackal.protocol.codec import CLIENT_TYPES
from jackal.protocol.replies import reply_tags
from jackal.server.config import DEFAULT_PORT, ServerConfig
from jackal.server.net.listener import serve
from jackal.server.records.events import RecordEvent

# Not support.ROOT: this file also runs as a script, where tests/ is not on sys.path.
DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
LINE_RE = re.compile(r"^([NESW])([<>]) (.*)$")
PLACEHOLDER_RE = re.compile(r"^<(version|token [NESW]|card [a-z_]+)>$")
CONNECTIONS = ("N", "E", "S", "W")
#: Generous per-line wait; a healthy local server answers in milliseconds.
LINE_TIMEOUT = 10.0


def transcript_lines(text: str) -> list[tuple[str, str, str]]:
    """The ``(connection, direction, json)`` steps of the document's transcript."""
    begin = text.index("<!-- transcript: begin -->")
    end = text.index("<!-- transcript: end -->")
    steps = []
    for raw in text[begin:end].splitlines():
        match = LINE_RE.match(raw.rstrip())
        if match:
            steps.append((match.group(1), match.group(2), match.group(3)))
    return steps


def _wire(value: Any) -> Any:
    """``value`` as it looks after a trip over the wire (JSON encode, then decode)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def matches(expected: Any, actual: Any, tokens: dict[str, str], where: str = "$") -> list[str]:
    """Differences between an expected value (with placeholders) and the actual one."""
    if isinstance(expected, str) and PLACEHOLDER_RE.match(expected):
        name = expected[1:-1]
        if name == "version":
            return [] if isinstance(actual, str) else [f"{where}: {actual!r} is not a string"]
        if name.startswith("token "):
            if not isinstance(actual, str) or len(actual) < 40:
                return [f"{where}: {actual!r} does not look like a token"]
            tokens[name] = actual
            return []
        card = _wire(builtin_card(name.removeprefix("card ")))
        return [] if actual == card else [f"{where}: not the built-in {name!r}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        problems = []
        if set(expected) != set(actual):
            problems.append(f"{where}: keys {sorted(actual)} instead of {sorted(expected)}")
        for key in expected.keys() & actual.keys():
            problems += matches(expected[key], actual[key], tokens, f"{where}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        problems = []
        for number, (exp, act) in enumerate(zip(expected, actual, strict=True)):
            problems += matches(exp, act, tokens, f"{where}[{number}]")
        return problems
    return [] if expected == actual and type(expected) is type(actual) else [
        f"{where}: expected {expected!r}, got {actual!r}"]


class Line:
    """One raw TCP connection read line by line."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buf = b""

    async def send(self, text: str) -> None:
        await self.stream.send_all(text.encode() + b"\n")

    async def recv(self) -> bytes:
        while b"\n" not in self.buf:
            data = await self.stream.receive_some(65536)
            if not data:
                raise EOFError("the server closed the connection")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    async def leftover(self, wait: float) -> bytes:
        """Whatever arrives within ``wait`` seconds (nothing, if the transcript is whole)."""
        with trio.move_on_after(wait):
            while True:
                data = await self.stream.receive_some(65536)
                if not data:
                    break
                self.buf += data
        return self.buf


async def replay(port: int, steps: list[tuple[str, str, str]]) -> None:
    conns = {name: Line(await trio.open_tcp_stream("127.0.0.1", port)) for name in CONNECTIONS}
    tokens: dict[str, str] = {}
    try:
        for number, (who, direction, text) in enumerate(steps, 1):
            if direction == ">":
                for name, token in tokens.items():
                    text = text.replace(f'"<{name}>"', f'"{token}"')
                await conns[who].send(text)
                continue
            with trio.fail_after(LINE_TIMEOUT):
                line = await conns[who].recv()
            problems = matches(msgspec.json.decode(text), msgspec.json.decode(line), tokens)
            assert not problems, (f"transcript step {number} ({who}<): "
                                  + "; ".join(problems) + f"\n  got: {line.decode()}")
        for who, conn in conns.items():
            assert await conn.leftover(0.3) == b"", f"{who} received lines the doc does not show"
    finally:
        for conn in conns.values():
            await conn.stream.aclose()


@pytest.mark.slow
async def test_transcript_in_protocol_doc_matches_a_real_server() -> None:
    steps = transcript_lines(DOC.read_text(encoding="utf-8"))
    assert len(steps) > 250, "the transcript should play a whole deal"
    assert {who for who, _, _ in steps} == set(CONNECTIONS)
    assert any('"match_ended"' in text for _, _, text in steps)
    async with trio.open_nursery() as nursery:
        # The expert figure from a thread of this process: a worker process starts at
        # a low priority, and on a busy machine its first figure can take longer
        # than a line's timeout (tests/server/test_expert_pool.py covers the processes).
        port = await nursery.start(serve, ServerConfig(host="127.0.0.1", port=0,
                                                       expert_workers=0))
        with trio.fail_after(60):
            await replay(port, steps)
        nursery.cancel_scope.cancel()


def test_the_reply_table_in_protocol_doc_is_the_code() -> None:
    """Each request's row names the reply types protocol/replies.py has for it."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("<!-- replies: begin -->"):text.index("<!-- replies: end -->")]
    rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", block, re.M)
    documented = {request: tuple(re.findall(r"`(\w+)`", replies)) for request, replies in rows}
    assert len(rows) == len(documented)  # no request twice
    assert documented == {kind: reply_tags(kind) for kind in CLIENT_TYPES}


def test_the_record_table_in_protocol_doc_is_the_format() -> None:
    """Every record event has a row, which names each field the event carries (``time``
    aside), and no row names an event the format does not have."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("<!-- record: begin -->"):text.index("<!-- record: end -->")]
    rows = re.findall(r"^\| `(\w+)` \| [^|]* \| (.*) \|$", block, re.M)
    documented = dict(rows)
    assert len(rows) == len(documented)  # no event twice
    events = {cls.__struct_config__.tag: cls for cls in get_args(RecordEvent)}
    assert set(documented) == set(events)
    for tag, cls in events.items():
        fields = {field.name for field in msgspec.structs.fields(cls)} - {"time"}
        missing = fields - set(re.findall(r"`(\w+)`", documented[tag]))
        assert not missing, f"the `{tag}` row does not name {sorted(missing)}"


def test_documented_limits_are_the_server_defaults() -> None:
    """The numbers in the Limits table (and elsewhere) are ServerConfig's own defaults."""
    text = DOC.read_text(encoding="utf-8")
    c = ServerConfig()
    expected = [
        f"default port is **{DEFAULT_PORT}**",
        f"| line length | {c.max_line} bytes |",
        f"| connections | {c.max_connections} |",
        f"| tables | {c.max_tables} |",
        f"| idle tables | {c.idle_table_seconds:g} s |",
        f"| hello timeout | {c.hello_timeout:g} s |",
        f"| rate | {c.rate_per_second:g} messages/s sustained, bursts of {c.rate_burst:g} ",
        f"| flood | {c.flood_limit} rate-limited messages in a row |",
        f"after {c.flood_limit} refusals in a row",
        f"| outgoing bytes | {c.send_buffer} bytes per connection |",
        f"| connections per address group | {c.max_per_address}, ",
        f"| tables per connection | {c.max_tables_per_connection} |",
        f"| tables per address group | {c.max_tables_per_address}, ",
        f"(after {c.orphan_table_seconds:g} s once the connection that created it has closed)",
        f"| wrong tokens | {c.token_guesses_per_minute:g} per minute per address, "
        f"{c.token_guess_burst:g} at once |",
        f"| unattended tables | {c.unattended_seconds:g} s |",
        f"| wrong passwords | {c.password_guesses_per_minute:g} per minute per address, "
        f"{c.password_guess_burst:g} at once |",
        f"| hints | {c.hints_per_minute:g} per minute per connection, {c.hint_burst:g} at once |",
        f"| lobby page | {c.lobby_page} tables |",
        f"up to {c.lobby_page} tables",
        f"| seat hold | {c.hold_seconds:g} s |",
        f"held** ({c.hold_seconds:g} s by default)",
        f"| between deals | {c.between_deals_seconds:g} s |",
        f"| keepalive | `ping` after {c.ping_interval:g} s of silence | `timeout` and closed if "
        f"still silent {c.ping_timeout:g} s later |",
        f"silent for {c.ping_interval:g} s gets a `ping`",
        f"within\n{c.ping_timeout:g} s more",
    ]
    missing = [line for line in expected if line not in text]
    assert not missing, missing


def test_placeholders_are_checked() -> None:
    """The comparison is strict where it should be (so the replay can really fail)."""
    tokens: dict[str, str] = {}
    assert matches({"a": "<token N>"}, {"a": "x" * 43}, tokens) == []
    assert tokens == {"token N": "x" * 43}
    assert matches({"a": "<token N>"}, {"a": "short"}, {})
    assert matches({"a": 1}, {"a": 1, "b": 2}, {})
    assert matches({"a": [1, 2]}, {"a": [2, 1]}, {})
    assert matches({"a": 1}, {"a": True}, {})
    assert matches({"c": "<card beginner>"}, {"c": {"name": "beginner"}}, {})
    beginner = _wire(builtin_card("beginner"))
    assert matches({"c": "<card beginner>"}, {"c": beginner}, {}) == []


# --------------------------------------------------------------------------- regenerating

SEED = 11
TARGET = 1


def _json(**fields: Any) -> str:
    return msgspec.json.encode(fields).decode()


async def _generate(port: int) -> list[str]:
    """Play the documented script and write down what happens, in replayable order."""
    conns = {name: Line(await trio.open_tcp_stream("127.0.0.1", port)) for name in CONNECTIONS}
    out: list[str] = []
    hands: dict[str, list[str]] = {}
    turn: list[str] = []
    finished: list[bool] = []
    expert: set[str] = set()
    card = msgspec.json.encode(builtin_card("beginner")).decode()
    secrets_seen: dict[str, str] = {}

    def placeholders(text: str) -> str:
        text = text.replace(card, '"<card beginner>"')
        text = re.sub(r'"version":"[^"]*"', '"version":"<version>"', text)
        for name, token in secrets_seen.items():
            text = text.replace(token, f"<token {name}>")
        return text

    async def drain() -> None:
        await trio.sleep(0.15)
        for who, conn in conns.items():
            while True:
                with trio.move_on_after(0.02):
                    line = await conn.recv()
                    msg = msgspec.json.decode(line)
                    if msg["type"] == "joined":
                        secrets_seen[who] = msg["token"]
                    if msg["type"] == "deal_started":
                        hands[who] = list(msg["hand"])
                    if msg["type"] == "turn" and who == "N":
                        turn.append(msg["seat"])
                    if msg["type"] == "match_ended" and who == "N":
                        finished.append(True)
                    if msg["type"] == "expert_cost":
                        expert.add(who)
                    out.append(f"{who}< {placeholders(line.decode())}")
                    continue
                break

    async def send(who: str, text: str) -> None:
        out.append(f"{who}> {placeholders(text)}")
        await conns[who].send(text)
        await drain()

    await drain()
    names = {"N": "nora", "E": "eero", "S": "saga", "W": "wilma"}
    for who in CONNECTIONS:
        await send(who, _json(type="hello", name=names[who]))
    out.append("# N creates a table (seed and target fixed) and everyone sits down")
    await send("N", _json(type="create_table", name="doc", target=TARGET, seed=SEED, id=1))
    for who in CONNECTIONS:
        await send(who, _json(type="join", table="t1", seat=who, id=f"j{who}"))
    out.append("# everyone says ready; the last ready starts the deal")
    for who in CONNECTIONS:
        await send(who, _json(type="ready"))
    out.append("# a request out of turn is refused and changes nothing")
    wrong = next(w for w in CONNECTIONS if w != turn[-1])
    await send(wrong, _json(type="play", card=hands[wrong][0], id=99))
    out.append("# the deal: on its turn each seat plays the first card of its hand")
    plays = 0
    while not finished:
        who = turn[-1]
        plays += 1
        if plays == PLAYS_PER_DEAL:
            out.append("# the 32nd play ends the deal; a team has reached the target: match over")
        await send(who, _json(type="play", card=hands[who].pop(0), id=plays))
    out.append("# a while later: what the expert pair loses on the same hands")
    with trio.fail_after(30):
        while len(expert) < len(conns):
            await drain()
    for conn in conns.values():
        await conn.stream.aclose()
    return out


async def _print_transcript() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve, ServerConfig(host="127.0.0.1", port=0))
        for line in await _generate(port):
            print(line)
        nursery.cancel_scope.cancel()


if __name__ == "__main__":
    trio.run(_print_transcript)
    sys.exit(0)
