"""The evening around the game, in real terminals (tmux) against the real ``jackal serve``:
the lobby survives every refusal and says what is wrong with the connection, and a
client SIGKILLed and started again shows the evening as a client that never left does
(the deals so far, the question waiting for an answer, the clock and the log). Every
wait is for something on a screen or in the record, never a fixed sleep."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.client import LineClient, create_table
from support.screens import header, human_turns, open_client, shows
from support.server import JACKAL, ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]


def in_lobby_connected(screen: str) -> bool:
    return "lobby" in header(screen) and header(screen).endswith("connected") \
        and "Stopped" not in screen


def test_the_lobby_survives_every_refusal(tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0")
    try:
        address = f"127.0.0.1:{server.port}"
        busy = create_table(server.port, {"E": "greedy", "S": "greedy", "W": "greedy"},
                            name="busy", target=1_000_000, seed=4)
        private = create_table(server.port, {}, name="closed", private=True)
        ann = open_client(terminals, tmp_path, "ann", address, "--table", busy, "--seat", "N")
        ann.wait(shows("N ann (you)"), "ann at the busy table")
        # --table naming no table: the lobby says so, connected.
        bob = open_client(terminals, tmp_path, "bob", address, "--table", "nosuch")
        screen = bob.wait(lambda s: "no_such_table" in s and in_lobby_connected(s),
                          "the refusal on the lobby screen")
        assert "DISCONNECTED" not in screen
        # Enter on the full table (any seat): refused, and still in the lobby.
        bob.wait(shows("busy"), "the busy table listed")
        bob.keys("Enter")
        bob.wait(shows("free: none"), "the seat prompt")
        bob.keys("Enter")
        bob.wait(lambda s: "table_full" in s and in_lobby_connected(s), "table_full")
        # A taken seat, and a seat at another table while a person of this address (ann)
        # plays a deal: the same. (The private table's not_invited: test_private_tmux.)
        carl = open_client(terminals, tmp_path, "carl", address, "--table", busy,
                           "--seat", "E")
        carl.wait(lambda s: "seat_taken" in s and in_lobby_connected(s), "seat_taken")
        dora = open_client(terminals, tmp_path, "dora", address, "--table", private)
        dora.wait(lambda s: "lobby_closed" in s and in_lobby_connected(s), "lobby_closed")
        # The lobby still works after all that: bob watches ann's table.
        bob.keys("s")
        bob.wait(shows("Spectating: no hand"), "bob watching")
    finally:
        server.stop()


def test_a_wrong_password_and_a_missing_server_say_what_they_are(
        tmp_path: Path, terminals: list[Tmux], refused_port: int) -> None:
    server = ServerProcess(tmp_path, "--password", "sesame")
    try:
        eve = open_client(terminals, tmp_path, "eve", f"127.0.0.1:{server.port}",
                          "--password", "open")
        screen = eve.wait(shows("bad_password"), "the refusal")
        assert "No tables yet" not in screen and "press c" not in screen
    finally:
        server.stop()
    fay = Tmux([*JACKAL, "play", "--server", f"127.0.0.1:{refused_port}", "--name", "fay",
                "--no-bell"], tmp_path, name="fay",
               env={"XDG_STATE_HOME": str(tmp_path / "state-fay")})
    terminals.append(fay)
    screen = fay.wait(shows(f"cannot reach 127.0.0.1:{refused_port}"), "cannot reach")
    assert "Connection lost" not in screen and "No tables yet" not in screen
    assert "UNREACHABLE" in header(screen)


class Opponent(threading.Thread):
    """East, over the line protocol: plays its lowest card on its turns, says ready after
    each deal, and on North's first turn of deal 2 asks North a question."""

    QUESTION = "why lead that card?"

    def __init__(self, port: int, table: str) -> None:
        super().__init__(daemon=True)
        self.client = LineClient(port, "eli")
        self.client.request({"type": "join", "table": table, "seat": "E"})
        self.client.request({"type": "ready"})
        self.asked = threading.Event()
        self.stop = threading.Event()

    @classmethod
    def at_new_table(cls, port: int) -> tuple[str, Opponent]:
        """A new table with greedy bots at S and W, and East playing there (started)."""
        table = create_table(port, {"S": "greedy", "W": "greedy"}, target=100_000, seed=8,
                             turn_seconds=120)
        opponent = cls(port, table)
        opponent.start()
        return table, opponent

    def end(self) -> None:
        """Stop reading and close East's connection."""
        self.stop.set()
        with contextlib.suppress(OSError):  # the server may have closed it already
            self.client.sock.shutdown(2)
        self.join(5)
        self.client.close()

    def send(self, **msg: Any) -> None:
        self.client.sock.sendall(json.dumps(msg).encode() + b"\n")

    def run(self) -> None:
        deal = 0
        while not self.stop.is_set():
            try:
                line = self.client.reader.readline()
            except (OSError, ValueError):  # closed under us at the end of the test
                return
            if not line:
                return
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "ping":
                self.send(type="pong")
            elif kind == "deal_started":
                deal = msg["deal"]
            elif kind == "your_turn":
                self.send(type="play", card=msg["hand"][0])
            elif kind == "deal_ended":
                self.send(type="ready")
            elif kind == "turn" and msg["seat"] == "N" and deal >= 2 \
                    and not self.asked.is_set():
                self.send(type="ask", seat="N", text=self.QUESTION)
                self.asked.set()


def test_a_client_killed_and_started_again_shows_the_evening_as_before(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--between-deals", "1")
    opponent: Opponent | None = None
    try:
        table, opponent = Opponent.at_new_table(server.port)
        address = f"127.0.0.1:{server.port}"
        ann = open_client(terminals, tmp_path, "ann", address, "--table", table, "--seat", "N")
        # Deal 1 played out; on North's first turn of deal 2, East asks North.
        human_turns([ann], opponent.asked.is_set, "deal 1 and East's question")
        before = ann.wait(shows("asks you"), "the question on ann's screen")
        shown = re.search(r"(\d+)s left", before)
        assert shown is not None, before
        ann.kill_program()
        again = open_client(terminals, tmp_path, "ann", address)
        screen = again.wait(shows("You took your seat back"), "the seat taken back")
        # The log tells the match so far, the question, and where the match stands.
        assert "Deal 1:" in screen and "your turn" in screen, screen
        assert f"asks you: {Opponent.QUESTION}" in screen, screen
        # The clock runs on the screen where it was (the server's, not a fresh one).
        left = re.search(r"(\d+)s left", again.wait(lambda s: "s left" in s, "the clock"))
        assert left is not None and int(left.group(1)) <= int(shown.group(1))
        # h: the deals so far; r: the question to answer.
        again.keys("h")
        history = again.wait(shows("score    info   expert"), "the deals panel")
        assert re.search(r"\s1\s+[NESW]\s+\d+-\d+\s", history), history
        again.keys("Escape")
        again.keys("r")
        prompt = again.wait(shows(f"question \"{Opponent.QUESTION}\":"), "the answer prompt")
        assert "Your answer to E" in prompt, prompt  # it says what it asks for
    finally:
        if opponent is not None:
            opponent.end()
        server.stop()


def test_a_server_killed_with_a_question_open_keeps_it_and_its_number(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    """Issue 32 item 2, at 66x23: East's question to North is open when the server is
    SIGKILLed; started again, North's r still shows it, and her answer to it reaches the
    record after the restart, under an id the record holds once."""
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--between-deals", "1")
    opponent: Opponent | None = None
    try:
        table, opponent = Opponent.at_new_table(server.port)
        ann = open_client(terminals, tmp_path, "ann", f"127.0.0.1:{server.port}",
                          "--table", table, "--seat", "N", width=66, height=23)
        human_turns([ann], opponent.asked.is_set, "deal 1 and East's question")
        ann.wait(shows("asks you"), "the question on ann's screen")
        server.kill()
        ann.wait(lambda s: "RECONNECTING" in header(s), "RECONNECTING")
        server.start()
        ann.wait(lambda s: "connected" in header(s) and "Your turn" in s, "back, on her turn")
        ann.keys("r")
        prompt = ann.wait(shows("Your answer to E"), "the answer prompt after the restart")
        assert "Nobody has asked you" not in prompt, prompt
        ann.keys("just a low card", "Enter")
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60
        while not any(e["event"] == "answer" for e in events):
            assert time.monotonic() < deadline, f"no answer in the record: {events}"
            time.sleep(0.1)
            events = server.record_events()
        asked = [e["question"] for e in events if e["event"] == "question"]
        assert len(asked) == len(set(asked)), asked  # no question id twice
        answer = next(e for e in events if e["event"] == "answer")
        assert answer["question"] == asked[0] and answer["seat"] == "N", answer
        assert events.index(answer) > [e["event"] for e in events].index("restored")
    finally:
        if opponent is not None:
            opponent.end()
        server.stop()


def test_a_client_started_again_between_deals_keeps_the_summary_until_n(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    """Back in the seat after the deal, the deal summary waits for the player's n: the
    client does not say ready for them (with bots at the other seats, that started the
    next deal at once and the summary was gone before it was seen)."""
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--bot-floor", "0",
                           "--between-deals", "300")
    try:
        table = create_table(server.port, {"E": "greedy", "S": "greedy", "W": "greedy"},
                             target=100_000, seed=8)
        address = f"127.0.0.1:{server.port}"
        ann = open_client(terminals, tmp_path, "ann", address, "--table", table, "--seat", "N")

        def play_deal_1(screen: str) -> bool:
            if "Your turn" in screen:
                ann.keys("Enter")
            return "Press n when ready" in screen

        before = ann.wait(play_deal_1, "the end of deal 1", timeout=60)
        kept = [line for line in before.splitlines() if line.startswith(" Hand ")]
        assert kept and "(dealt" not in kept[0], before
        ann.kill_program()
        again = open_client(terminals, tmp_path, "ann", address)
        screen = again.wait(shows("You took your seat back"), "the seat taken back")
        # The client's requests on taking the seat back were answered before that line was
        # shown, so the server's word on the table is final here.
        lobby = LineClient(server.port, "lobby")
        try:
            listed = lobby.request({"type": "list_tables"})["tables"]
        finally:
            lobby.close()
        assert [t["status"] for t in listed if t["table"] == table] == ["between_deals"]
        assert "Dealt hands" in screen and "waiting for: N. n: ready" in screen, screen
        # The hand row shows the five kept, as it did before the client went.
        assert [line for line in screen.splitlines() if line.startswith(" Hand ")] == kept
        again.keys("n")
        again.wait(shows("Deal 2:"), "deal 2 after n")
    finally:
        server.stop()


def test_a_server_killed_mid_turn_runs_the_clock_and_the_substitute_plays(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0")
    try:
        table = create_table(server.port, {"E": "greedy", "S": "greedy", "W": "greedy"},
                             target=100_000, seed=9, turn_seconds=6)
        wes = open_client(terminals, tmp_path, "wes", f"127.0.0.1:{server.port}",
                          "--table", table, "--seat", "N")
        wes.wait(shows("Your turn"), "wes's turn")
        server.kill()
        wes.wait(lambda s: "RECONNECTING" in header(s), "RECONNECTING")
        server.start()
        wes.wait(lambda s: "connected" in header(s) and "s left" in s,
                 "back, with the clock running")
        # Wes does nothing: when the clock runs out the substitute plays that card.
        screen = wes.wait(lambda s: re.search(r"substitute played \w\w for you", s)
                          is not None, "the substitute's card")
        assert "your time ran out" in screen
        events = server.record_events()
        restart = [e["event"] for e in events].index("restored")
        after = [e for e in events[restart:] if e["event"] == "play" and e["seat"] == "N"]
        assert after and after[0].get("by") == "clock", after
    finally:
        server.stop()
