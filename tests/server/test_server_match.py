"""A whole match over real TCP, and hidden information over many deals."""

from __future__ import annotations

import pytest
import trio
from jackal.server.config import ServerConfig
from support.client import (
    RawClient,
    greeted,
    new_table,
    open_table,
    play_out,
    ready_all,
    seat_four,
    sit,
)
from support.leaks import check_no_leaks
from support.server import running_server


async def test_four_raw_clients_play_a_whole_match() -> None:
    async with running_server() as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        table = await new_table(lobby, name="quick", target=1, seed=11)
        listing = await lobby.request(type="list_tables")
        assert [t["table"] for t in listing["tables"]] == [table]
        clients = await seat_four(port, table)
        # The first joiner saw the others arrive; everyone got a table_state on joining.
        for client in clients:
            state = next(m for m in client.log if m["type"] == "table_state")
            assert state["you"] == client.seat and state["status"] == "waiting"
        for client in clients:
            reply = await client.request(type="ready")
            assert reply == {"type": "ok", "request": "ready", "id": reply["id"]}
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "match_ended")
        for client in clients:
            ended = [m for m in client.log if m["type"] == "deal_ended"]
            assert ended, "no deal ended"
            last = ended[-1]
            assert set(last["hands"]) == {"N", "E", "S", "W"}
            assert all(len(hand) == 5 for hand in last["hands"].values())
            assert set(last["penalty"]) == {"NS", "EW"}
            assert set(last["breakdown"]) == {"NS", "EW"}
            final = client.log[-1]
            assert final["type"] == "match_ended"
            assert final["scores"][final["winner"]] >= 1
            assert final["scores"] == last["scores"]
            # Every play was announced to everyone with its place in the row.
            played = [m for m in client.log if m["type"] == "played"]
            assert len(played) == 32 * len(ended)
            assert {m["index"] for m in played} == set(range(1, 9))
            check_no_leaks(client.log, client.seat, 11)
        # The lobby shows the table as over.
        listing = await lobby.request(type="list_tables")
        assert listing["tables"][0]["status"] == "over"


async def test_played_reply_carries_the_id_only_for_the_player() -> None:
    async with running_server() as port:
        _, table = await open_table(port, seed=3)
        clients = await seat_four(port, table)
        await ready_all(clients)
        started = [await c.wait_type("deal_started") for c in clients]
        first = started[0]["first"]
        mover = next(c for c in clients if c.seat == first)
        reply = await mover.request(type="play", card=started[clients.index(mover)]["hand"][0])
        assert reply["type"] == "played" and reply["seat"] == first and reply["index"] == 1
        for other in clients:
            if other is not mover:
                msg = await other.wait_type("played")
                assert "id" not in msg and msg["card"] == reply["card"]


@pytest.mark.slow
@pytest.mark.usefixtures("quick_expert_pair")
async def test_no_seat_or_spectator_sees_hidden_cards_over_50_deals() -> None:
    """Three raw-socket humans, one server bot and a spectator; every message checked."""
    seed = 2024
    config = ServerConfig(port=0, between_deals_seconds=0.0, rate_per_second=1e6)
    async with running_server(config) as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        table = await new_table(lobby, target=1_000_000, seed=seed)
        watcher = await greeted(port, "spec")
        assert (await watcher.request(type="spectate", table=table))["type"] == "table_state"
        humans = [await sit(port, table, seat) for seat in ("N", "E", "S")]
        assert (await lobby.request(type="add_bot", table=table, seat="W"))["type"] == "ok"
        for client in humans:
            await client.request(type="ready")

        def fiftieth(msg: dict[str, object]) -> bool:
            return msg["type"] == "deal_ended" and msg["deal"] == 50

        async with trio.open_nursery() as nursery:
            for client in humans:
                # Play a varying card so hands differ from the sorted order.
                nursery.start_soon(play_out, client, fiftieth,
                                   lambda hand: hand[len(hand) // 2], True, 120.0)
            nursery.start_soon(watcher.recv_until, fiftieth, 120.0)
        total = 0
        for client in humans:
            total += check_no_leaks(client.log, client.seat, seed)
        total += check_no_leaks(watcher.log, None, seed)
        assert sum(1 for m in watcher.log if m["type"] == "deal_ended") == 50
        assert total > 50 * 32 * 4
