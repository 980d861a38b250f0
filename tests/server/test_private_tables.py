"""Private tables: seats taken only with their invitation codes (issue 21, item 4).

Everything goes over real sockets to a real server; the restart test SIGKILLs a
``jackal serve`` process and starts it again on the same records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.tokens import normalize_invite
from support.client import SEATS, RawClient, greeted
from support.server import QUIET, ServerProcess, running_server

Msg = dict[str, object]


async def private_table(port: int, **options: Any) -> tuple[RawClient, str, dict[str, str]]:
    """A creator named ``host`` and a private table it made: its id and the codes."""
    host = await greeted(port, "host")
    reply = await host.request(type="create_table", name="friends", private=True, **options)
    assert reply["type"] == "table_created", reply
    assert reply["private"] is True
    codes = reply["invitations"]
    assert isinstance(codes, dict) and set(codes) == set(SEATS)
    return host, str(reply["table"]), codes


async def refused(client: RawClient, code: str, **msg: Any) -> Msg:
    reply = await client.request(**msg)
    assert reply["type"] == "error" and reply["code"] == code, reply
    return reply


async def test_a_stranger_cannot_take_any_seat_of_a_private_table() -> None:
    """The attack: a connection that was invited to nothing joins every seat of a table."""
    async with running_server(ServerConfig(**QUIET)) as port:
        _host, table, _codes = await private_table(port)
        stranger = await greeted(port, "stranger")
        for seat in SEATS:
            await refused(stranger, "not_invited", type="join", table=table, seat=seat)
            await refused(stranger, "not_invited", type="add_bot", table=table, seat=seat)
        await refused(stranger, "not_invited", type="join", table=table)
        lobby = await stranger.request(type="list_tables")
        info = lobby["tables"][0]
        assert info["kinds"] == {seat: "empty" for seat in SEATS}, info


async def test_only_the_seats_own_code_opens_it() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _host, table, codes = await private_table(port)
        guest = await greeted(port, "guest")
        await refused(guest, "not_invited", type="join", table=table, seat="N",
                      invite="aaaa-bbbb-cccc-dddd")
        # Another seat's code is not this seat's.
        await refused(guest, "not_invited", type="join", table=table, seat="N",
                      invite=codes["E"])
        joined = await guest.request(type="join", table=table, seat="N", invite=codes["N"])
        assert joined["type"] == "joined" and joined["seat"] == "N", joined
        # Without ``seat`` the code picks its own seat; case and blanks do not matter.
        other = await greeted(port, "other")
        joined = await other.request(type="join", table=table,
                                     invite=f"  {codes['W'].upper()} ")
        assert joined["type"] == "joined" and joined["seat"] == "W", joined
        # Read out and typed back with spaces, dots or none (issue 32): still the code.
        groups = codes["S"].upper().split("-")
        for typed in (" ".join(groups), ". ".join(groups), "".join(groups)):
            assert normalize_invite(typed) == codes["S"]
        spaced = await greeted(port, "spaced")
        joined = await spaced.request(type="join", table=table, invite=" ".join(groups))
        assert joined["type"] == "joined" and joined["seat"] == "S", joined
        # A code opens its seat only: taken now, so a second holder is told so.
        third = await greeted(port, "third")
        await refused(third, "seat_taken", type="join", table=table, invite=codes["N"])


async def test_creator_or_a_code_holder_may_add_a_bot() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        host, table, codes = await private_table(port)
        assert (await host.request(type="add_bot", table=table, seat="E"))["type"] == "ok"
        helper = await greeted(port, "helper")
        await refused(helper, "not_invited", type="add_bot", table=table, seat="S")
        reply = await helper.request(type="add_bot", table=table, seat="S", invite=codes["S"])
        assert reply["type"] == "ok", reply


async def test_spectators_only_when_the_creator_allows_them() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _host, closed, _codes = await private_table(port)
        _host2, open_, _codes2 = await private_table(port, allow_spectators=True)
        watcher = await greeted(port, "watcher")
        await refused(watcher, "no_spectators", type="spectate", table=closed)
        state = await watcher.request(type="spectate", table=open_)
        assert state["type"] == "table_state", state
        listing = {info["table"]: info
                   for info in (await watcher.request(type="list_tables"))["tables"]}
        assert listing[closed]["allow_spectators"] is False
        assert listing[open_]["allow_spectators"] is True


async def test_the_lobby_shows_privacy_and_the_creator() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _host, private, _codes = await private_table(port)
        alice = await greeted(port, "alice")
        created = await alice.request(type="create_table", name="open")
        assert "invitations" not in created and "private" not in created, created
        public = created["table"]
        listing = {info["table"]: info
                   for info in (await alice.request(type="list_tables"))["tables"]}
        assert (listing[private]["private"], listing[private]["creator"]) == (True, "host")
        assert (listing[public]["private"], listing[public]["creator"]) == (False, "alice")
        # A public table still seats anyone, with or without a code.
        bob = await greeted(port, "bob")
        assert (await bob.request(type="join", table=public, seat="N"))["type"] == "joined"


@pytest.mark.subprocess
def test_codes_survive_a_server_sigkill_and_restart(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    try:
        async def before() -> tuple[str, dict[str, str], str]:
            _host, table, codes = await private_table(server.port)
            north = await greeted(server.port, "north")
            joined = await north.request(type="join", table=table, seat="N",
                                         invite=codes["N"])
            return table, codes, joined["token"]

        table, codes, token = trio.run(before)
        text = "".join(path.read_text() for path in server.records.glob("*.jsonl"))
        for code in codes.values():
            assert code not in text, "a code was written to the record"
        header = json.loads(text.splitlines()[0])
        assert header["event"] == "table" and set(header["invites"]) == set(SEATS)
        server.kill()
        server.start()

        async def after() -> None:
            port = server.port
            stranger = await greeted(port, "stranger")
            for seat in ("E", "S", "W"):
                await refused(stranger, "not_invited", type="join", table=table, seat=seat)
            await refused(stranger, "no_spectators", type="spectate", table=table)
            info = (await stranger.request(type="list_tables"))["tables"][0]
            assert (info["private"], info["creator"]) == (True, "host"), info
            east = await greeted(port, "east")
            joined = await east.request(type="join", table=table, invite=codes["E"])
            assert joined["type"] == "joined" and joined["seat"] == "E", joined
            # The seat taken before the kill comes back with its token, as always.
            back = await RawClient.connect(port, "north")
            reply = await back.request(type="hello", name="north", token=token)
            assert (reply["type"], reply["seat"]) == ("hello_ok", "N"), reply

        trio.run(after)
    finally:
        server.stop()



def test_a_record_whose_invitations_miss_a_seat_is_refused() -> None:
    """A header naming codes for only some seats would leave a seat that nobody, not even
    its invitee, could take: restore refuses the record instead."""
    from jackal.game.seats import Seat
    from jackal.server.records.events import RecordError, TableEvent
    from jackal.server.records.replay import replay

    header = TableEvent(table="t1", name="x", target=1, seed=1, bot_takeover=True,
                        hold_seconds=1.0, between_deals_seconds=1.0,
                        invites={Seat.N: "0" * 64, Seat.E: "1" * 64, Seat.S: "2" * 64})
    with pytest.raises(RecordError, match="all four seats"):
        list(replay([header]))
