"""No lockout by many addresses (issue 31 item 4): limits key on the address group (IPv6
/64, IPv4 itself), a group's share shrinks as the server fills, and the last tenth of the
tables and connections waits for groups that hold nothing yet. Real server, real sockets
on port 0, fifty loopback source addresses (127.0.0.x) attacking one after the other."""

from __future__ import annotations

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.net.ratelimit import address_group, share_refusal
from support.client import RawClient, connect_from
from support.server import QUIET, running_server

ATTACKERS = [f"127.0.0.{10 + number}" for number in range(50)]
NEWCOMER = "127.0.0.200"


@pytest.mark.parametrize(("address", "group"), [
    ("127.0.0.5:4000", "127.0.0.5"),
    ("10.1.2.3:80", "10.1.2.3"),
    ("::ffff:10.1.2.3:80", "10.1.2.3"),
    ("2001:db8:1:2:aaaa:bbbb:cccc:dddd:5000", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::1:5000", "2001:db8:1:2::/64"),
    ("2001:db8:1:3::1:5000", "2001:db8:1:3::/64"),
    ("fe80::1%eth0:22", "fe80::/64"),
    ("?", "?"),
])
def test_an_address_group_is_an_ipv4_address_or_an_ipv6_slash_64(address: str,
                                                                  group: str) -> None:
    assert address_group(address) == group


def test_the_share_shrinks_past_half_and_the_last_tenth_waits_for_newcomers() -> None:
    # Below half: only the fixed limit per group.
    assert share_refusal(19, 499, 1000, 20) is None
    assert share_refusal(20, 10, 1000, 20) == "group"
    # Past half: the share shrinks with the free part of the upper half.
    assert share_refusal(10, 750, 1000, 20) == "share"
    assert share_refusal(9, 750, 1000, 20) is None
    # The last tenth: only for groups holding nothing.
    assert share_refusal(1, 900, 1000, 20) == "reserved"
    assert share_refusal(0, 999, 1000, 20) is None
    assert share_refusal(0, 1000, 1000, 20) == "full"


async def _hello(client: RawClient, name: str) -> bool:
    """Read the welcome (False if refused instead) and say hello."""
    first = await client.recv()
    if first["type"] != "welcome":
        assert first.get("code") == "server_full", first
        return False
    reply = await client.hello(name)
    assert reply["type"] == "welcome" or reply.get("type") != "error", reply
    return True


async def test_fifty_addresses_cannot_take_every_table_from_a_newcomer() -> None:
    """Today's lockout was 50 addresses x 20 tables = every table of 1,000; here 600."""
    config = ServerConfig(max_tables=600, max_tables_per_address=20,
                          max_tables_per_connection=20, rate_per_second=1e5, rate_burst=1e5,
                          **QUIET)
    async with running_server(config) as port:
        held: dict[str, int] = {}
        clients: list[RawClient] = []
        for number, source in enumerate(ATTACKERS):
            client = await connect_from(port, source)
            clients.append(client)
            assert await _hello(client, f"hog{number}")
            held[source] = 0
            while held[source] < 20:
                reply = await client.request(type="create_table")
                if reply["type"] != "table_created":
                    assert reply["code"] in ("server_full", "not_allowed"), reply
                    break
                held[source] += 1
        # They got a lot, but neither every table nor the newcomers' tenth.
        assert 300 < sum(held.values()) < 600, held
        newcomer = await connect_from(port, NEWCOMER)
        assert await _hello(newcomer, "newcomer")
        reply = await newcomer.request(type="create_table")
        assert reply["type"] == "table_created", reply
        for client in [*clients, newcomer]:
            await client.aclose()


async def test_fifty_addresses_cannot_take_every_connection_from_a_newcomer() -> None:
    """Today's lockout was 40 addresses x 50 connections = all 2,000; here 600."""
    config = ServerConfig(max_connections=600, max_per_address=20, **QUIET)
    async with running_server(config) as port:
        clients: list[RawClient] = []
        held = 0
        for source in ATTACKERS:
            for _ in range(20):
                client = await connect_from(port, source)
                clients.append(client)
                first = await client.recv()
                if first["type"] != "welcome":
                    assert first.get("code") == "server_full", first
                    break
                held += 1
        assert 300 < held < 600, held
        newcomer = await connect_from(port, NEWCOMER)
        assert (await newcomer.recv())["type"] == "welcome"
        with trio.fail_after(10):
            for client in [*clients, newcomer]:
                await client.aclose()
