"""Issue 14 on a real server: ``your_turn``, ``sync``, and the fixes a bot author asked for.

Every test speaks raw JSON lines to a server on port 0 (``support.client.RawClient``),
exactly as a third-party bot would.
"""

from __future__ import annotations

from typing import Any

import trio
import trio.testing
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.seats import Seat
from jackal.protocol.messages import FEATURES
from jackal.server.config import ServerConfig
from support.client import (
    SEATS,
    Msg,
    RawClient,
    alone_with_bots,
    greeted,
    open_table,
    play_out,
    ready_all,
    seat_four,
    sit,
)
from support.server import running_server

ORDER = "NESW"


def _check_your_turn(msg: Msg, client: RawClient, state: Msg | None = None) -> None:
    """``msg`` agrees with what the seat saw: its hand, the public rows, whose turn."""
    assert msg["type"] == "your_turn" and msg["seat"] == client.seat
    first = msg["first"]
    assert first == ORDER[(ORDER.index(msg["dealer"]) + 1) % 4]
    seats = [row["seat"] for row in msg["rows"]]
    assert seats == [ORDER[(ORDER.index(first) + i) % 4] for i in range(4)]
    mine = next(row["cards"] for row in msg["rows"] if row["seat"] == client.seat)
    assert msg["play"] == len(mine) + 1 and 1 <= msg["play"] <= 8
    assert len(msg["hand"]) == 13 - len(mine)
    cards = [Card.parse(c) for c in msg["hand"]]
    assert cards == sorted(cards)
    assert "deadline" not in msg  # no table has a clock yet
    assert set(msg["conventions"]) == {"NS", "EW"} and set(msg["scores"]) == {"NS", "EW"}
    if state is not None:
        assert msg["hand"] == sorted(state["hand"], key=Card.parse)
        assert {row["seat"]: row["cards"] for row in msg["rows"]} == state["rows"]


async def test_your_turn_follows_turn_for_the_seat_to_move_only() -> None:
    async with running_server() as port:
        _, table = await open_table(port, target=1, seed=21, conventions_ew="advanced")
        clients = await seat_four(port, table)
        spectator = await greeted(port, "watcher")
        await spectator.request(type="spectate", table=table)
        await ready_all(clients)
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(play_out, client, lambda m: m["type"] == "deal_ended")
            nursery.start_soon(spectator.recv_until, lambda m: m["type"] == "deal_ended")
    assert all(m["type"] != "your_turn" for m in spectator.log)
    total = 0
    for client in clients:
        log = client.log
        for number, msg in enumerate(log):
            if msg["type"] == "your_turn":
                total += 1
                # Straight after the turn naming this seat, never anywhere else.
                assert log[number - 1] == {"type": "turn", "seat": client.seat}
                _check_your_turn(msg, client)
                assert msg["deal"] == 1 and msg["target"] == 1
                assert msg["conventions"] == {"NS": "beginner", "EW": "advanced"}
            elif msg["type"] == "turn" and msg["seat"] == client.seat:
                assert log[number + 1]["type"] == "your_turn"
    assert total == 32


async def test_a_bot_reading_only_your_turn_plays_a_whole_match() -> None:
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "W", "stateless", target=120, seed=4)
        plays = 0
        with trio.fail_after(60):
            while True:
                msg = await human.recv()
                if msg["type"] == "your_turn":
                    reply = await human.request(type="play", card=msg["hand"][-1])
                    assert reply["type"] == "played", reply
                    assert reply["index"] == msg["play"]
                    plays += 1
                elif msg["type"] == "deal_ended":
                    await human.send(type="ready")
                elif msg["type"] == "match_ended":
                    break
    assert plays % 8 == 0 and plays >= 8


async def test_a_reclaimed_seat_gets_table_state_then_your_turn() -> None:
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "N", "ann", target=100, seed=3)
        await human.recv_until(lambda m: m["type"] == "your_turn")
        await human.aclose()
        back = await RawClient.connect(port, "ann")
        await back.hello(token=human.token)
        state = await back.wait_type("table_state")
        turn = await back.recv()
        back.seat = "N"
        _check_your_turn(turn, back, state)


async def test_sync_gives_a_seat_its_hand_and_a_spectator_none() -> None:
    async with running_server() as port:
        lobby, human, table = await alone_with_bots(port, "E", "ann", target=100, seed=8)
        first = await human.recv_until(lambda m: m["type"] == "your_turn")
        await human.send(type="play", card=first[-1]["hand"][0])
        await human.wait_type("played")
        state = await human.request(type="sync")
        assert state["type"] == "table_state" and state["you"] == "E"
        assert len(state["hand"]) == 12 and first[-1]["hand"][0] not in state["hand"]
        assert state["first"] == first[-1]["first"]
        await lobby.request(type="spectate", table=table)
        watched = await lobby.request(type="sync")
        assert watched["type"] == "table_state" and "hand" not in watched
        assert "you" not in watched and watched["rows"]["E"] == [first[-1]["hand"][0]]
        outsider = await greeted(port, "outsider")
        refused = await outsider.request(type="sync")
        assert refused["type"] == "error" and refused["code"] == "not_seated"


async def test_sync_on_your_turn_is_followed_by_your_turn() -> None:
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "S", "ann", target=100, seed=2)
        await human.recv_until(lambda m: m["type"] == "your_turn")
        state = await human.request(type="sync")
        again = await human.recv()
        _check_your_turn(again, human, state)


async def test_welcome_lists_the_optional_features() -> None:
    async with running_server() as port:
        client = await RawClient.connect(port, "c")
    welcome = client.log[0]
    assert welcome["features"] == list(FEATURES)
    assert {"your_turn", "sync"} <= set(FEATURES)


async def test_an_invalid_inline_card_is_bad_conventions() -> None:
    card = builtin_card("beginner")
    broken: dict[str, Any] = {"name": card.name, "plays": []}
    async with running_server() as port:
        _, table = await open_table(port)
        client = await sit(port, table, "N")
        reply = await client.request(type="conventions", card=broken)
        assert reply["code"] == "bad_conventions", reply
        lobby = await greeted(port, "lobby2")
        reply = await lobby.request(type="create_table", conventions_ew=broken)
        assert reply["code"] == "bad_conventions", reply
        reply = await client.request(type="conventions", card="no-such-card")
        assert reply["code"] == "bad_conventions", reply


async def test_server_shutdown_always_says_why() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(_serve_until_cancelled)
        client = await greeted(port, "c")
        nursery.cancel_scope.cancel()
    got = await client.eof()
    assert got[-1]["type"] == "server_shutdown" and got[-1]["reason"]


async def _serve_until_cancelled(*, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    from jackal.server.net.listener import serve

    await serve(ServerConfig(port=0), task_status=task_status)


async def test_explain_of_a_card_not_yet_played_is_one_code() -> None:
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "N", "ann", target=100, seed=5)
        before = await human.request(type="explain", seat="W", index=8)
        await human.recv_until(lambda m: m["type"] == "your_turn")
        later = await human.request(type="explain", seat="W", index=8)
        assert before["code"] == later["code"] == "not_played", (before, later)


async def test_reclaiming_a_live_seat_is_player_gone_then_player_back() -> None:
    async with running_server() as port:
        _, table = await open_table(port)
        ann = await sit(port, table, "N", "ann")
        bob = await sit(port, table, "E", "bob")
        again = await RawClient.connect(port, "ann2")
        ok = await again.hello(name="annette", token=ann.token)
        state = await again.wait_type("table_state")
        names = {seat["seat"]: seat["name"] for seat in state["seats"]}
        # A reclaim does not rename the seat: hello_ok and table_state agree.
        assert ok["name"] == names["N"] == "ann"
        seen = await bob.recv_until(lambda m: m["type"] == "player_back")
        kinds = [m["type"] for m in seen if m["type"] in ("player_gone", "player_back")]
        assert kinds == ["player_gone", "player_back"]
        assert (await ann.wait_type("error"))["code"] == "bad_token"


async def test_deal_ended_names_victory_points_and_penalties_apart() -> None:
    async with running_server() as port:
        _, human, _ = await alone_with_bots(port, "S", "ann", target=1, seed=9)
        await play_out(human, lambda m: m["type"] == "deal_ended")
    ended = human.log[-1]
    assert ended["victory_points"] == ended["points"]
    for groups in ended["breakdown"].values():
        for group in groups:
            assert group["penalty"] == group["points"]
        assert sum(group["penalty"] for group in groups) in ended["penalty"].values()


async def test_error_messages_name_fields_one_way() -> None:
    async with running_server() as port:
        client = await greeted(port, "c")
        replies = [
            await client.request(type="join", table=7),
            await client.request(type="join"),
            await client.request(type="explain", seat="N", index=9),
            await client.request(type="list_tables", extra=1),
        ]
        _, table = await open_table(port)
        seated = await sit(port, table, "N")
        replies.append(await seated.request(type="play", card="ZZ"))
    fields = ["table", "table", "index", "extra", "card"]
    for reply, field in zip(replies, fields, strict=True):
        assert reply["type"] == "error"
        assert reply["message"].startswith(f"field '{field}': "), reply["message"]


async def test_list_tables_gives_seat_kinds() -> None:
    async with running_server(ServerConfig(port=0)) as port:
        lobby, table = await open_table(port)
        await lobby.request(type="add_bot", table=table, seat="E")
        ann = await sit(port, table, "N", "ann")
        bob = await sit(port, table, "S", "bob")
        await bob.aclose()
        await ann.wait_type("player_gone")
        listing = (await lobby.request(type="list_tables"))["tables"][0]
    assert listing["kinds"] == {"N": "human", "E": "bot", "S": "held", "W": "empty"}
    assert listing["spectators"] == 0


async def test_answer_carries_the_question() -> None:
    async with running_server() as port:
        _, table = await open_table(port, target=100, seed=12)
        clients = await seat_four(port, table)
        await ready_all(clients)
        north, east = clients[0], clients[1]
        asked = await north.request(type="ask", seat="E", text="do you play beginner?")
        question = await east.wait_type("question")
        await east.request(type="answer", question=question["question"], text="yes")
        answer = await north.wait_type("answer")
    assert answer["question_text"] == "do you play beginner?"
    assert answer["question"] == asked["question"] and answer["text"] == "yes"


async def test_table_state_says_who_leads() -> None:
    async with running_server() as port:
        _, table = await open_table(port, target=100, seed=13)
        clients = await seat_four(port, table)
        waiting = clients[3].log[-1]
        assert waiting["type"] == "table_state" and waiting["first"] is None
        await ready_all(clients)
        started = await clients[0].wait_type("deal_started")
        state = await clients[0].request(type="sync")
    assert state["first"] == started["first"] == Seat(started["dealer"]).next.value
    assert set(SEATS) == set(state["rows"])
