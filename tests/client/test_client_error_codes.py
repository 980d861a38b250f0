"""The client reads an ``error``'s code as an ErrorCode over a real socket: a code of this
version is its member (compared with ``is``), and a newer server's code, unknown here,
still arrives as a ServerError whose code keeps its text, the connection usable after."""

from __future__ import annotations

import pytest
import trio
from jackal.client.connection import ServerError, open_connection
from jackal.protocol import ErrorCode
from jackal.protocol.messages import HelloOk
from jackal.protocol.requests import Hello, ListTables
from support.fake_server import Peer, fake_server


async def test_error_codes_arrive_as_error_codes_known_or_not() -> None:
    async def script(peer: Peer) -> None:
        msg = await peer.receive()
        await peer.send({"type": "error", "code": "seat_taken", "message": "taken",
                         "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "error", "code": "too_early_in_the_day", "message": "later",
                         "id": msg["id"]})
        msg = await peer.receive()
        await peer.send({"type": "hello_ok", "name": "a", "id": msg["id"]})
        await trio.sleep_forever()

    async with fake_server(script) as (_, port), open_connection("127.0.0.1", port) as conn:
        with pytest.raises(ServerError) as known:
            await conn.request(ListTables())
        assert known.value.code is ErrorCode.SEAT_TAKEN and known.value.code.known
        with pytest.raises(ServerError) as newer:
            await conn.request(ListTables())
        code = newer.value.code
        assert isinstance(code, ErrorCode) and not code.known
        assert code == "too_early_in_the_day" and newer.value.message == "later"
        assert "too_early_in_the_day: later" in str(newer.value)
        assert isinstance(await conn.request(Hello(name="a")), HelloOk)
