"""docs/BOTS.md cannot drift: its session, its code and its options are checked here."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
from jackal.cli import bot as bot_cli
from jackal.server.config import ServerConfig
from jackal.server.listener import serve

DOC = (Path(__file__).resolve().parents[1] / "docs" / "BOTS.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", DOC, flags=re.S)
PYTHON = [code for lang, code in BLOCKS if lang == "python"]


@pytest.fixture
async def server_port(nursery: trio.Nursery) -> AsyncIterator[int]:
    port: int = await nursery.start(serve, ServerConfig(port=0))
    yield port


def _transcript() -> list[str]:
    for _, code in BLOCKS:
        lines: list[str] = code.splitlines()
        if lines and lines[0].startswith("< {\"type\":\"welcome\""):
            return lines
    raise AssertionError("no netcat session in docs/BOTS.md")


async def test_netcat_session_replays_against_the_server(server_port: int) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", server_port)
    buffer = b""

    async def receive_line() -> str:
        nonlocal buffer
        while b"\n" not in buffer:
            data = await stream.receive_some(65536)
            assert data, "the server closed the connection"
            buffer += data
        line, _, buffer = buffer.partition(b"\n")
        return line.decode()

    with trio.fail_after(20):
        for doc_line in _transcript():
            direction, text = doc_line[:2], doc_line[2:]
            if direction == "> ":
                await stream.send_all(text.encode() + b"\n")
                continue
            assert direction == "< ", doc_line
            actual = await receive_line()
            if "…" in text:  # shortened in the doc: the part shown must match exactly
                assert actual.startswith(text.split("…")[0]), (text, actual)
            else:
                got, want = json.loads(actual), json.loads(text)
                got.pop("version", None)
                want.pop("version", None)
                assert got == want
    await stream.aclose()


def test_strategy_example_and_offline_test_run() -> None:
    namespace: dict[str, object] = {}
    exec(PYTHON[0], namespace)  # the KeepPairs class
    exec(PYTHON[1], namespace)  # plays a seeded deal offline with it
    deal = namespace["deal"]
    assert getattr(deal, "is_over", False)


async def test_client_library_example_plays_a_match(server_port: int) -> None:
    code = PYTHON[2].replace("7878", str(server_port)).replace("target=100", "target=30")
    assert str(server_port) in code
    # The example calls trio.run itself, so it runs in a thread of its own.
    with trio.fail_after(30):
        await trio.to_thread.run_sync(exec, code, {})


def test_every_documented_bot_option_exists() -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    known = {opt for action in parser._actions for opt in action.option_strings}
    section = DOC[DOC.index("| option | meaning |"):DOC.index("What `jackal bot` does for you")]
    documented = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", section))
    assert documented and documented <= known, documented - known
