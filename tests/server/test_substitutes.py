"""Every seat that needs a bot gets the one ``bots.substitute_strategy`` names for its
partnership's declared card (issue 13): ``add_bot`` without a strategy, the clock's
substitute for one card, and the substitute for a player who left or whose hold ran out.

A real server on port 0 with no ``takeover_strategy`` set; the strategies the server's
bot pool builds are recorded, and the wire shows the names it announces.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
from jackal.bots.registry import substitute_strategy
from jackal.game.conventions import BUILTIN_CARDS, builtin_card
from jackal.game.seats import Seat
from jackal.server import bots as server_bots
from jackal.server.config import ServerConfig
from support.client import greeted, open_table, sit, start_deal
from support.server import running_server

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("card", sorted(BUILTIN_CARDS))
async def test_every_bot_a_seat_needs_is_the_substitute_for_its_card(
        card: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = substitute_strategy(builtin_card(card))
    built: list[tuple[Seat, str]] = []
    real_strategy = server_bots.BotPool.strategy

    def spy(self: server_bots.BotPool, table_id: str, seat: Seat, name: str) -> Any:
        built.append((seat, name))
        return real_strategy(self, table_id, seat, name)

    monkeypatch.setattr(server_bots.BotPool, "strategy", spy)
    config = ServerConfig(port=0, hold_seconds=0.2, between_deals_seconds=600,
                          min_turn_seconds=0.1)  # a quick clock, for a quick test
    async with running_server(config) as port:
        # The other side declares "none": each side's bots follow their own card.
        lobby, table = await open_table(port, conventions_ns=card, conventions_ew="none",
                                        turn_seconds=0.2, target=100_000)
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        for seat in ("E", "W"):  # add_bot without a strategy
            assert (await lobby.request(type="add_bot", table=table, seat=seat))["type"] == "ok"
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        state = await north.request(type="sync")
        names = {row["seat"]: row["name"] for row in state["seats"]}
        assert names["E"] == names["W"] == f"{substitute_strategy(builtin_card('none'))} bot"
        await start_deal([north, south])
        with trio.fail_after(60):
            # N and S never play: the clock's substitute plays for them, one card each.
            await watcher.recv_until(lambda m: m["type"] == "played" and m.get("by") == "clock")
            clocked = next(m["seat"] for m in watcher.log if m.get("by") == "clock")
            # S leaves mid-match, N's connection drops and its hold runs out.
            await south.request(type="leave")
            await north.aclose()
            taken: dict[str, str] = {}
            while len(taken) < 2:
                event = await watcher.wait_type("bot_takeover")
                taken[event["seat"]] = event["strategy"]
            # Both substitutes then play (N's "by" the substitute, S's seat is a bot's now).
            for seat in ("N", "S"):
                await watcher.recv_until(
                    lambda m, seat=seat: m["type"] == "played" and m["seat"] == seat)  # type: ignore[misc]
    assert taken == {"N": expected, "S": expected}
    assert (Seat(clocked), expected) in built
    ns_bots = {name for seat, name in built if seat in (Seat.N, Seat.S)}
    assert ns_bots == {expected}
