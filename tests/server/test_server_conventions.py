"""Conventions over real sockets: declaration, explanations, private questions."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import trio
from jackal.game.conventions import ConventionCard, builtin_card
from jackal.game.explain import explain_play
from jackal.game.seats import Seat
from jackal.protocol.codec import encode
from jackal.server.config import ServerConfig
from support.client import RawClient, alone_with_bots, greeted, open_table, seat_four, start_deal
from support.server import QUIET, running_server


async def _table_with_spectator(port: int, **options: Any
                                ) -> tuple[str, list[RawClient], RawClient]:
    _, table = await open_table(port, **options)
    spectator = await greeted(port, "spec")
    state = await spectator.request(type="spectate", table=table)
    assert state["type"] == "table_state" and "you" not in state and "hand" not in state
    return table, await seat_four(port, table), spectator


async def _drain(client: RawClient, seconds: float = 0.2) -> list[dict[str, Any]]:
    """Everything that arrives within ``seconds`` (nothing more is expected after)."""
    got: list[dict[str, Any]] = []
    with trio.move_on_after(seconds):
        while True:
            got.append(await client.recv())
    return got


async def test_declaration_reaches_everyone_including_spectators() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, clients, spectator = await _table_with_spectator(port, conventions_ew="none")
        north, east = clients[0], clients[1]
        state = next(m for m in east.log if m["type"] == "table_state")
        assert state["conventions"]["NS"]["name"] == "beginner"
        assert state["conventions"]["EW"]["name"] == "none"
        inline = msgspec.to_builtins(builtin_card("beginner"))
        inline["name"] = "our own"
        reply = await east.request(type="conventions", card=inline)
        assert reply["type"] == "ok" and reply["request"] == "conventions"
        for client in [*clients, spectator]:
            changed = await client.wait_type("conventions_changed")
            assert changed["team"] == "EW" and changed["card"]["name"] == "our own"
        reply = await north.request(type="conventions", card="none")
        assert reply["type"] == "ok"
        for client in [*clients, spectator]:
            changed = await client.wait_type("conventions_changed")
            assert changed["team"] == "NS"
            assert msgspec.convert(changed["card"], ConventionCard) == builtin_card("none")
        bad = dict(inline, plays=inline["plays"][:3])
        reply = await north.request(type="conventions", card=bad)
        assert reply["type"] == "error" and reply["code"] in ("bad_conventions",
                                                                "invalid_message")
        state = await spectator.request(type="spectate", table=state["table"])
        assert state["conventions"]["EW"]["name"] == "our own"
        assert state["conventions"]["NS"]["name"] == "none"


async def _start_and_play(clients: list[RawClient], plays: int) -> list[tuple[str, str]]:
    """Everyone ready; the seats play their lowest card until ``plays`` cards are down."""
    await start_deal(clients)
    history: list[tuple[str, str]] = []
    first = next(m for m in clients[0].log if m["type"] == "deal_started")["first"]
    order = "NESW"
    seat = first
    for _ in range(plays):
        mover = clients[order.index(seat)]
        reply = await mover.request(type="play", card=mover.hand.pop(0))
        assert reply["type"] == "played", reply
        history.append((seat, reply["card"]))
        seat = order[(order.index(seat) + 1) % 4]
    return history


async def test_explain_from_an_opponents_connection() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, clients, spectator = await _table_with_spectator(port, seed=99)
        history = await _start_and_play(clients, 8)
        from jackal.game.cards import parse_card

        parsed = tuple((Seat(s), parse_card(c)) for s, c in history)
        first_seat = history[0][0]
        opponent = clients[("NESW".index(first_seat) + 1) % 4]
        for index in (1, 2):
            reply = await opponent.request(type="explain", seat=first_seat, index=index)
            assert reply["type"] == "explanation", reply
            expected = explain_play(builtin_card("beginner"), parsed, Seat(first_seat), index)
            assert reply["card"] == str(expected.card)
            assert reply["text"] == expected.text
            assert reply["meaning"] == msgspec.json.decode(encode(expected.data))
            assert "kind" in reply["meaning"]
        # Spectators may ask for explanations too; a card not yet played is an error.
        reply = await spectator.request(type="explain", seat=first_seat, index=1)
        assert reply["type"] == "explanation"
        reply = await opponent.request(type="explain", seat=first_seat, index=5)
        assert reply["type"] == "error" and "index" in reply["message"]


@pytest.mark.slow
async def test_ask_and_answer_stay_between_the_two_sides() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, clients, spectator = await _table_with_spectator(port, seed=5)
        await _start_and_play(clients, 4)
        north, east, south, west = clients
        for client in [*clients, spectator]:
            await _drain(client)
        receipt = await east.request(type="ask", seat="N", index=1, text="what does it mean?")
        assert receipt["type"] == "question" and receipt["asker"] == "E"
        qid = receipt["question"]
        asked = await north.wait_type("question")
        assert asked["question"] == qid and asked["text"] == "what does it mean?"
        assert asked["asker"] == "E" and "id" not in asked
        reply = await south.request(type="answer", question=qid, text="not yours")
        assert reply["code"] == "no_such_question"
        reply = await north.request(type="answer", question=qid, text="a pair, maybe")
        assert reply == {"type": "ok", "request": "answer", "id": reply["id"]}
        answer = await east.wait_type("answer")
        assert answer == {"type": "answer", "question": qid, "seat": "N",
                          "question_text": "what does it mean?", "text": "a pair, maybe"}
        # Nobody else learns of the question during the deal: not the asker's partner
        # (when it is asked is the asker's choice), nor North's partner, nor a spectator.
        for outsider in (west, south, spectator):
            got = await _drain(outsider)
            seen = outsider.log
            assert not any(m["type"] in ("question", "answer") for m in seen), got
            assert not any("pair, maybe" in str(m) or "what does it" in str(m) for m in seen)
        # The question is closed once answered.
        reply = await north.request(type="answer", question=qid, text="again")
        assert reply["code"] == "no_such_question"


async def test_bots_answer_questions_from_their_card() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, east, _ = await alone_with_bots(port, "E", "pE", seed=12)
        # Play until North (a bot) has played its first card.
        while not any(m["type"] == "played" and m["seat"] == "N" for m in east.log):
            msg = await east.recv()
            if msg["type"] == "turn" and msg["seat"] == "E":
                await east.send(type="play", card=east.hand.pop(0))
        north_first = next(m["card"] for m in east.log
                           if m["type"] == "played" and m["seat"] == "N")
        receipt = await east.request(type="ask", seat="N", index=1, text="meaning?")
        assert receipt["type"] == "question"
        answer = await east.wait_type("answer")
        assert answer["question"] == receipt["question"] and answer["seat"] == "N"
        explained = await east.request(type="explain", seat="N", index=1)
        assert north_first in answer["text"] and explained["text"] in answer["text"]
