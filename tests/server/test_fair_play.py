"""Fair play at the table (issue 21): the attacks of hostile players, over real sockets.

Each test plays an attack the issue names against a real server on port 0 and checks
that it fails: a hand passed to partner inside a question, questions to bots without
end, a stranger starting a match with ``add_bot``, a clock too short to play by, the
lobby hiding the clock, records and saved tokens readable by other local users.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
from jackal.client.seat_store import SeatStore
from jackal.client.tui.events import apply
from jackal.client.tui.lobby_screen import render_lobby
from jackal.client.tui.state import Mode, TuiState
from jackal.protocol import messages as m
from jackal.server.config import ServerConfig
from support.client import (
    RawClient,
    create_table,
    greeted,
    open_table,
    play_out,
    sit,
    start_deal,
)
from support.server import QUIET, ServerProcess, running_server

# --------------------------------------------------------------------- questions


async def test_a_question_to_a_bot_carries_no_text_to_partner_or_spectators() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        creator, table = await open_table(port, seed=3)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        for seat in "EW":
            await creator.request(type="add_bot", table=table, seat=seat)
        # The cheater's partner may also watch from a second connection.
        spy = await greeted(port, "spy")
        await spy.request(type="spectate", table=table)
        await start_deal([north, south])
        secret = "my hand: " + " ".join(north.hand)
        receipts = [await north.request(type="ask", seat=seat, index=None, text=secret)
                    for seat in "EWE"]
        assert [r["type"] for r in receipts] == ["question"] * 3
        # Bots answer at once, but the deal's allowance is spent all the same: a fourth
        # is refused, to a bot as to a person.
        refused = await north.request(type="ask", seat="W", text=secret)
        assert refused["type"] == "error" and refused["code"] == "too_many_questions", refused
        await north.request(type="ping")  # each answer came right after its receipt
        asked = [msg for msg in north.log if msg["type"] == "answer"]
        assert len(asked) == 3 and all(a["question_text"] == secret for a in asked)
        # Partner: told nothing during the deal (nor the spy), everything at its end.
        await south.request(type="sync")
        await spy.request(type="sync")  # what the spy has been sent so far
        for outsider in (south, spy):
            assert not any("my hand" in str(msg) for msg in outsider.log), outsider.log
        for outsider in (south, spy):
            assert not any(msg["type"] in ("question_asked", "answer", "question")
                           for msg in outsider.log)
        async with trio.open_nursery() as nursery:
            for player in (north, south):
                nursery.start_soon(play_out, player, lambda m: m["type"] == "deal_ended")
        told = south.log[-1]["questions"]
        assert [(q["asker"], q["seat"], q["text"]) for q in told] == [
            ("N", "E", secret), ("N", "W", secret), ("N", "E", secret)]
        assert [q["answer"] for q in told] == [a["text"] for a in asked]


# --------------------------------------------------------------------- names


async def test_a_name_in_use_from_another_address_is_refused_look_alikes_too() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port)
        alice = await greeted(port, "alice", "127.0.0.1")
        await alice.join(table, "N")
        # Another machine: the same name, in capitals, with a Cyrillic a, in full width.
        for name in ("alice", "ALICE", "\u0430lice", "\uff41\uff4c\uff49\uff43\uff45", "AIice"):
            other = await RawClient.connect(port, "mallory", "127.0.0.2")
            refused = await other.request(type="hello", name=name)
            assert refused["type"] == "error", (name, refused)
            assert refused["code"] == "name_taken", refused
            assert refused["message"].startswith("field 'name'"), refused
            await other.aclose()
        # Her own second window (same address) may go by her name; others by theirs.
        window = await greeted(port, "alice", "127.0.0.1")
        assert (await greeted(port, "alicia", "127.0.0.2")).log[-1]["name"] == "alicia"
        # While her seat is held for her, the name stays hers...
        bob = await sit(port, table, "S", "bob")
        await alice.aclose()
        await window.aclose()
        await bob.wait_type("player_gone")
        late = await RawClient.connect(port, "late", "127.0.0.2")
        assert (await late.request(type="hello", name="Alice"))["code"] == "name_taken"
        # ...and once she has left and closed, it is free (the refusal changed nothing).
        back = await RawClient.connect(port, "alice")
        assert (await back.request(type="hello", name="alice", token=alice.token)
                )["seat"] == "N"
        assert (await back.request(type="leave"))["type"] == "ok"
        await back.aclose()
        await bob.wait_type("player_left")
        assert (await late.request(type="hello", name="Alice"))["type"] == "hello_ok"


async def test_a_person_may_not_take_a_bots_name() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        for name in ("random bot", "Expert", "r\u0430ndom-bot", "greedy_bot", "BOT"):
            person = await RawClient.connect(port, "person")
            refused = await person.request(type="hello", name=name)
            assert refused["type"] == "error", (name, refused)
            assert refused["code"] == "name_reserved", refused
            await person.aclose()
        # Names that merely contain the word are people's.
        for name in ("minimal-bot", "Abbot", "expert remote"):
            await greeted(port, name)
        # What the server calls its bots, the lobby and the table show as bots.
        host, table = await open_table(port)
        await host.request(type="add_bot", table=table, seat="E", strategy="random")
        player = await sit(port, table, "N", "ann")
        listing = (await host.request(type="list_tables"))["tables"][0]
        assert listing["kinds"] == {"N": "human", "E": "bot", "S": "empty", "W": "empty"}
        state = await player.request(type="sync")
        assert [(s["name"], s["kind"]) for s in state["seats"][:2]] == [
            ("ann", "human"), ("random bot", "bot")]


# --------------------------------------------------------------------- table control


async def test_only_a_seated_player_or_the_creator_may_add_a_bot() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        creator, table = await open_table(port)
        friend = await sit(port, table, "N")
        stranger = await greeted(port, "stranger")
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        # Friends are gathering: a stranger (or someone merely watching) filling the
        # seats would start the match without them.
        for griefer in (stranger, watcher):
            refused = await griefer.request(type="add_bot", table=table, seat="E")
            assert refused["type"] == "error" and refused["code"] == "not_at_table", refused
        state = await friend.request(type="sync")
        assert [s["kind"] for s in state["seats"]] == ["human", "empty", "empty", "empty"]
        # The seated player and the creator may.
        assert (await friend.request(type="add_bot", table=table, seat="E"))["type"] == "ok"
        assert (await creator.request(type="add_bot", table=table, seat="W"))["type"] == "ok"


async def test_a_clock_under_five_seconds_is_refused_naming_the_field() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        host = await greeted(port, "host")
        # 1e-300 let the clock play 7 of a victim's 8 cards.
        for seconds in (1e-300, 0.5, 4.999):
            refused = await host.request(type="create_table", turn_seconds=seconds)
            assert refused["type"] == "error", refused
            assert refused["code"] == "invalid_message", refused
            assert refused["message"].startswith("field 'turn_seconds'"), refused
        refused = await host.request(type="create_table", turn_seconds=-1)
        assert refused["code"] == "invalid_message" and "turn_seconds" in refused["message"]
        # Not a number at all: JSON has no NaN, and the line is refused whole.
        await host.send_raw(b'{"type":"create_table","id":"nan","turn_seconds":NaN}\n')
        nan = (await host.recv_until(lambda msg: msg["type"] == "error"))[-1]
        assert nan["code"] in ("bad_json", "invalid_message"), nan
        listing = await host.request(type="list_tables")
        assert listing["tables"] == []  # none of them made a table
        for seconds in (5, 0):  # the least clock, and none
            assert (await host.request(type="create_table", turn_seconds=seconds)
                    )["type"] == "table_created"


async def test_the_lobby_shows_the_clock_and_the_client_draws_it() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        host = await greeted(port, "host")
        timed = (await host.request(type="create_table", name="timed",
                                    turn_seconds=30))["table"]
        untimed = (await host.request(type="create_table", name="untimed"))["table"]
        await host.request(type="add_bot", table=timed, seat="E", strategy="random")
        reply = await host.request(type="list_tables")
    entries = {info["table"]: info for info in reply["tables"]}
    assert entries[timed]["turn_seconds"] == 30
    assert entries[untimed]["turn_seconds"] is None  # no clock
    state = TuiState(mode=Mode.LOBBY)
    apply(state, msgspec.convert(reply, m.Tables))
    lines = "".join(piece[1] for piece in render_lobby(state)).splitlines()
    # Each table takes two lines: its settings, then its seats.
    at = next(i for i, line in enumerate(lines) if "untimed" not in line and "timed" in line)
    assert "CLOCK 30s" in lines[at] and "[bot] random" in lines[at + 1]
    assert "CLOCK" not in next(line for line in lines if "untimed" in line)


# --------------------------------------------------------------------- a seat left mid-match


async def _two_households(port: int, table: str) -> dict[str, RawClient]:
    """pN and pS sit down from 127.0.0.1, pE and pW from 127.0.0.2."""
    players = {}
    for seat, host in zip("NESW", ["127.0.0.1", "127.0.0.2"] * 2, strict=True):
        players[seat] = await greeted(port, f"p{seat}", host)
        await players[seat].join(table, seat)
    return players


async def test_an_opponents_second_connection_cannot_take_a_seat_left_mid_match() -> None:
    # One household plays N and S from 127.0.0.1, another E and W from 127.0.0.2.
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port, seed=8, bot_takeover=False)
        players = await _two_households(port, table)
        await start_deal(list(players.values()))
        south = players["S"]
        peeker = await greeted(port, "peeker", "127.0.0.2")  # East's second connection
        # While S's seat is held (its connection dropped), only its token takes it.
        await south.aclose()
        held = await peeker.request(type="join", table=table, seat="S")
        assert held["type"] == "error" and held["code"] == "seat_taken", held
        south = await RawClient.connect(port, "pS")
        assert (await south.request(type="hello", name="pS", token=players["S"].token)
                )["seat"] == "S"
        # S leaves for good; nobody may sit down there and read the hand, with or
        # without naming the seat: not the opponents' address, not East itself.
        assert (await south.request(type="leave"))["type"] == "ok"
        asks: list[dict[str, Any]] = [{"table": table, "seat": "S"}, {"table": table}]
        for fields in asks:
            refused = await peeker.request(type="join", **fields)
            assert refused["type"] == "error", refused
            assert refused["code"] == "seat_vacated", refused
        assert (await players["E"].request(type="leave"))["type"] == "ok"
        refused = await players["E"].request(type="join", table=table, seat="S")
        assert refused["code"] == "seat_vacated", refused
        # Nor a connection from an address never seen at the table: it may be North's
        # or East's second connection from elsewhere (the attack read E's 13 cards so).
        elsewhere = await greeted(port, "elsewhere", "127.0.0.3")
        refused = await elsewhere.request(type="join", table=table, seat="S")
        assert refused["code"] == "seat_vacated", refused
        assert not any("hand" in msg for msg in (*peeker.log, *elsewhere.log))


async def _friends_table(port: int, host_address: str | None = None
                         ) -> tuple[RawClient, str, dict[str, str], dict[str, RawClient]]:
    """A private table (no bot takeover) made by ``host`` (from ``host_address``), N and S
    seated by their codes from 127.0.0.1, E and W from 127.0.0.2; not yet ready.
    Returns the host, the table, its invitation codes and the players by seat."""
    host = await greeted(port, "host", host_address)
    made = await host.request(type="create_table", name="friends", private=True, seed=8,
                              bot_takeover=False)
    table, codes = made["table"], made["invitations"]
    players = {}
    for seat, address in zip("NESW", ["127.0.0.1", "127.0.0.2"] * 2, strict=True):
        players[seat] = await greeted(port, f"p{seat}", address)
        joined = await players[seat].request(type="join", table=table, seat=seat,
                                             invite=codes[seat])
        assert joined["type"] == "joined", joined
    return host, table, codes, players


async def test_a_seat_left_mid_match_takes_the_creators_invitation() -> None:
    """At a private table the creator's code for the seat seats a stand-in; the
    opponents' address is still refused (``opponent_address``)."""
    async with running_server(ServerConfig(**QUIET)) as port:
        _host, table, codes, players = await _friends_table(port)
        await start_deal(list(players.values()))
        assert (await players["S"].request(type="leave"))["type"] == "ok"
        peeker = await greeted(port, "peeker", "127.0.0.2")
        refused = await peeker.request(type="join", table=table, seat="S", invite=codes["S"])
        assert refused["code"] == "opponent_address", refused
        stand_in = await greeted(port, "stand-in", "127.0.0.3")
        joined = await stand_in.request(type="join", table=table, seat="S", invite=codes["S"])
        assert joined["type"] == "joined", joined
        state = await stand_in.wait_type("table_state")
        assert len(state["hand"]) == 13


async def test_a_seat_taken_again_by_its_side_during_the_deal_keeps_its_name() -> None:
    """N leaves mid-deal and sits down again from its address (with the creator's code)
    under a name that carries its hand: partner and spectators would read it in
    ``player_joined``. The seat keeps the name it had, as a reclaim does; someone from
    elsewhere sits under their own."""
    async with running_server(ServerConfig(**QUIET)) as port:
        host, table, codes, players = await _friends_table(port, "127.0.0.5")
        assert (await host.request(type="spectate", table=table))["type"] == "table_state"
        watcher = host
        await start_deal(list(players.values()))
        north, south = players["N"], players["S"]
        assert (await north.request(type="leave"))["type"] == "ok"
        await south.wait_type("player_left")
        marker = "AS KS QS 7H"
        again = await greeted(port, marker, "127.0.0.1")
        await again.request(type="join", table=table, seat="N", invite=codes["N"])
        for reader in (south, watcher):
            joined = await reader.wait_type("player_joined")
            assert joined["seat"] == "N" and joined["name"] == "pN", joined
        shot = await south.request(type="sync")
        assert [s["name"] for s in shot["seats"] if s["seat"] == "N"] == ["pN"]
        assert not [msg for msg in (*south.log, *watcher.log) if marker in str(msg)]
        # A stand-in from another address is who they say they are.
        assert (await again.request(type="leave"))["type"] == "ok"
        stand_in = await greeted(port, "stand-in", "127.0.0.3")
        await stand_in.request(type="join", table=table, seat="N", invite=codes["N"])
        joined = await south.wait_type("player_joined")
        assert joined["name"] == "stand-in", joined


# --------------------------------------------------------------------- files


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.subprocess
def test_records_and_the_state_folder_are_private(private_state_dir: Path,
                                                  tmp_path: Path) -> None:
    # As an older server left them: a 0755 state folder and records folder.
    state = private_state_dir / "jackal"
    records = state / "records"
    records.mkdir(parents=True)
    for folder in (state, records):
        folder.chmod(0o755)
    # The most permissive umask: the modes must not depend on it.
    server = ServerProcess(tmp_path, umask=0, records=False)
    try:
        create_table(server.port, {"E": "random"})
    finally:
        server.stop()
    made = list(records.glob("*.jsonl"))
    assert made, server.log()
    assert {_mode(path) for path in made} == {0o600}  # every deal's seed is in there
    assert (_mode(state), _mode(records)) == (0o700, 0o700)
    # A records folder named with --records that does not exist yet is made private too.
    (tmp_path / "other").mkdir()
    again = ServerProcess(tmp_path / "other", umask=0)
    try:
        create_table(again.port, {})
    finally:
        again.stop()
    assert _mode(again.records) == 0o700
    assert {_mode(path) for path in again.records.glob("*.jsonl")} == {0o600}


def test_the_saved_seats_folder_is_made_private_when_it_was_not(tmp_path: Path) -> None:
    folder = tmp_path / "jackal"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    store = SeatStore(folder)
    store.save("h:1", "t1", "N", "a-token")
    assert (_mode(folder), _mode(store.path)) == (0o700, 0o600)
