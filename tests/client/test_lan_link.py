"""The lobby link comes back by itself after a network cut (through the cuttable TCP
proxy of tests/support/proxy.py), against the real server on real sockets."""

from __future__ import annotations

import pytest
import trio
from jackal.client.connection import Connection, ServerError, connect
from jackal.client.lobby_link import LobbyLink
from jackal.client.session import Backoff
from jackal.protocol.messages import TableCreated, Tables
from jackal.protocol.requests import CreateTable, ListTables, Spectate
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from support.proxy import CuttableProxy

FAST = Backoff(initial=0.05, maximum=0.2)


async def _server(nursery: trio.Nursery, **options: object) -> int:
    port: int = await nursery.start(serve, ServerConfig(port=0, **options))  # type: ignore[arg-type]
    return port


async def test_the_link_reconnects_after_a_cut_and_says_when_it_tries_next(
        nursery: trio.Nursery) -> None:
    proxy = CuttableProxy(await _server(nursery))
    await nursery.start(proxy.run)
    statuses: list[tuple[str, float | None]] = []
    greeted: list[Connection] = []
    spectating: list[str] = []

    async def on_connected(conn: Connection) -> None:
        # What a client re-does after every reconnect: watch its table again.
        greeted.append(conn)
        if spectating:
            await conn.request(Spectate(table=spectating[0]))

    link = LobbyLink("127.0.0.1", proxy.port, name="ada", backoff=FAST,
                     on_status=lambda s, _d, r: statuses.append((s, r)),
                     on_connected=on_connected)
    with trio.fail_after(20):
        await nursery.start(link.run)
        created = await link.request(CreateTable(name="evening"))
        assert isinstance(created, TableCreated)
        await link.request(Spectate(table=created.table))
        spectating.append(created.table)

        proxy.cut()
        while not any(s == "reconnecting" for s, _ in statuses):
            await trio.sleep(0.01)
        # Every failed attempt announces the next one, with its delay.
        retry = next(r for s, r in statuses if s == "reconnecting")
        assert retry is not None and 0 < retry < 1
        await trio.sleep(0.3)  # a few attempts fail while the network is down
        assert link.conn is None and proxy.accepted > 2
        proxy.restore()
        while link.conn is None:
            await trio.sleep(0.01)
        assert statuses[-1] == ("connected", None) and len(greeted) == 2
        # The new connection works, and the server has us watching again.
        tables = await link.request(ListTables())
        assert isinstance(tables, Tables)
        assert [t.table for t in tables.tables] == [created.table]
    nursery.cancel_scope.cancel()


async def test_a_wrong_password_stops_the_link(nursery: trio.Nursery) -> None:
    port = await _server(nursery, password="secret")
    statuses: list[str] = []
    link = LobbyLink("127.0.0.1", port, name="ada", password="guess", backoff=FAST,
                     on_status=lambda s, _d, _r: statuses.append(s))
    with trio.fail_after(10), pytest.raises(ServerError, match="bad_password"):
        await link.run()
    assert statuses == ["lost"]
    nursery.cancel_scope.cancel()


async def test_a_silent_cut_freezes_the_link_until_restored(nursery: trio.Nursery) -> None:
    # The proxy's other kind of blip: bytes stop, nothing closes (half-open).
    proxy = CuttableProxy(await _server(nursery))
    await nursery.start(proxy.run)
    with trio.fail_after(20):
        conn = await connect(nursery, "127.0.0.1", proxy.port)
        proxy.cut(silent=True)
        with trio.move_on_after(0.3) as waited:
            await conn.request(ListTables())
        assert waited.cancelled_caught  # no answer while the link is frozen
        proxy.restore()  # frozen links do not thaw: they are reset
        while not conn.closed:
            await trio.sleep(0.01)
        await conn.aclose()
        again = await connect(nursery, "127.0.0.1", proxy.port)
        await again.aclose()
    nursery.cancel_scope.cancel()
