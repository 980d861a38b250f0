"""docs/BOTS.md cannot drift: its session, its code and its options are checked here."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pytest
import trio
from jackal.cli import bot as bot_cli
from jackal.game.cards import Card
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from support import ROOT
from support.records import lines

DOC = (ROOT / "docs" / "BOTS.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", DOC, flags=re.S)
PYTHON = [code for lang, code in BLOCKS if lang == "python"]


@pytest.fixture
def server_config() -> ServerConfig:
    """server_port's server keeps its default pause between deals: the examples play on."""
    return ServerConfig(port=0)


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


async def test_client_library_example_plays_a_match(nursery: trio.Nursery,
                                                     tmp_path: Path) -> None:
    """The example creates a table, sits at S with three server bots and plays every card
    of S until the match is over: the server's record of it says so."""
    port: int = await nursery.start(serve, ServerConfig(port=0, records_dir=tmp_path))
    code = PYTHON[2].replace("7878", str(port)).replace("target=100", "target=30")
    assert str(port) in code and "target=30" in code
    # The example calls trio.run itself, so it runs in a thread of its own.
    with trio.fail_after(30):
        await trio.to_thread.run_sync(exec, code, {})
    [record] = tmp_path.glob("*.jsonl")
    events = lines(record)
    seats = {e["seat"]: (e["kind"], e.get("strategy") or e.get("name"))
             for e in events if e["event"] == "seat"}
    assert seats == {"S": ("human", "me"), "N": ("bot", "beginner"), "E": ("bot", "random"),
                     "W": ("bot", "random")}, seats
    end = events[-1]
    assert end["event"] == "match_end" and max(end["scores"].values()) >= 30, end
    # Every card of S came over the example's connection (no substitute, no clock).
    by = [e["by"] for e in events if e["event"] == "play" and e["seat"] == "S"]
    deals = sum(1 for e in events if e["event"] == "deal")
    assert deals >= 1 and by == ["player"] * 8 * deals, (deals, by)


def test_every_documented_bot_option_exists() -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    known = {opt for action in parser._actions for opt in action.option_strings}
    section = DOC[DOC.index("| option | meaning |"):DOC.index("What `jackal bot` does for you")]
    documented = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", section))
    assert documented and documented <= known, documented - known


def says(text: str) -> None:
    """docs/BOTS.md states ``text`` (compared with runs of white space collapsed)."""
    assert " ".join(text.split()) in " ".join(DOC.split()), f"docs/BOTS.md no longer says: {text}"


def test_bot_help_and_doc_agree_on_the_default_seat() -> None:
    """BOTS.md said a created table seats the bot at S while --help said any free seat
    (issue 25); the code does both, each in its case, and now both texts say so. The
    cases themselves run in test_client_bot.py (seated at S of a created table; a free
    seat of a joined one)."""
    says("| `--table T`, `--seat S` | join table T (at seat S, else any free seat) |")
    says("create a table, sit at `--seat` (default S)")
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    seat = next(a for a in parser._actions if "--seat" in a.option_strings)
    assert seat.help is not None
    assert "default: S at a table the bot creates" in seat.help
    assert "with --table, any free seat" in seat.help


# A program that answers garbage to every your_turn and notes the hand it was shown.
GARBAGE = '''
import json, sys
for line in sys.stdin:
    turn = json.loads(line)
    with open("hands.txt", "a") as f:
        f.write(f"{turn['play']} {' '.join(turn['hand'])}\\n")
    print("not a card", flush=True)
'''


@pytest.mark.subprocess
async def test_the_exec_fallback_is_the_first_card_of_the_hand(server_port: int,
                                                                tmp_path: Path) -> None:
    """BOTS.md once called it "the lowest card of the hand" (issue 25): it is the first card
    in hand order, which the host plays for every move of a program answering garbage."""
    says("In each case the host plays the fallback card: the first card of the hand as "
         "`your_turn` lists it (by suit S, H, D, C, then by rank, ace low, so `4S` before "
         "`AH`).")
    (tmp_path / "garbage.py").write_text(GARBAGE)
    with trio.fail_after(60):
        done = await trio.run_process(
            [sys.executable, "-m", "jackal.cli.main", "bot", "--server",
             f"127.0.0.1:{server_port}", "--exec", f"{sys.executable} garbage.py",
             "--target", "1", "--fill", "random"],
            capture_stdout=True, capture_stderr=True, check=False, cwd=tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    shown = dict(line.split(" ", 1) for line in (tmp_path / "hands.txt").read_text()
                 .splitlines())
    played = dict(re.findall(r"deal 1 play (\d): (\w\w) \(fallback: garbage\)", err))
    assert len(played) == 8 and played.keys() == shown.keys(), err
    for play, card in played.items():
        hand = shown[play].split()
        assert card == hand[0], (play, card, hand)
        assert [Card.parse(c) for c in hand] == sorted(Card.parse(c) for c in hand)


FIRST_CARD = '''
import json, sys
for line in sys.stdin:
    print(json.loads(line)["hand"][0], flush=True)
'''


@pytest.mark.subprocess
async def test_a_bot_is_a_person_to_the_bot_pause(nursery: trio.Nursery,
                                                 tmp_path: Path) -> None:
    """BOTS.md: the server's bots wait --bot-pause before each card at a table where only
    a jackal bot --exec sits, as for people. A lower bound only (a sleep never ends
    early): the three bots' 24 cards of deal 1 take at least 24 pauses."""
    says("to the server your bot is a person like any other: a seat taken by a connection, "
         "whether `jackal bot`, an `--exec` program's host or your own client.")
    says("start it with `jackal serve --bot-pause 0`")
    pause = 0.2
    port: int = await nursery.start(serve, ServerConfig(port=0, bot_pause_seconds=pause))
    (tmp_path / "first.py").write_text(FIRST_CARD)
    started = trio.current_time()
    with trio.fail_after(60):
        done = await trio.run_process(
            [sys.executable, "-m", "jackal.cli.main", "bot", "--server", f"127.0.0.1:{port}",
             "--exec", f"{sys.executable} first.py", "--target", "1", "--fill", "greedy"],
            capture_stdout=True, capture_stderr=True, check=False, cwd=tmp_path)
    elapsed = trio.current_time() - started
    assert done.returncode == 0, done.stderr.decode()
    assert elapsed >= 24 * pause, elapsed
