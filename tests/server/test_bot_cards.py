"""A card a bot played for a human's seat (the clock's or the substitute's) stays marked
for everyone who comes back: ``table_state.bot_cards`` says what the ``played`` events
said, and a restarted server reads the same marks from its record (issue 32 item 1).

A real server on port 0 with a quick clock; N and S never play, so the clock's
substitute plays for them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.records.events import read_record
from jackal.server.records.replay import replay
from support.client import greeted, open_table, sit, start_deal
from support.server import running_server

pytestmark = pytest.mark.slow


def _marks(state: dict[str, Any]) -> set[tuple[str, int, str]]:
    return {(card["seat"], card["index"], card["by"]) for card in state.get("bot_cards") or ()}


async def test_a_snapshot_and_the_record_mark_the_cards_the_clock_played(
        tmp_path: Path) -> None:
    config = ServerConfig(port=0, hold_seconds=30, between_deals_seconds=600,
                          min_turn_seconds=0.1, records_dir=tmp_path)
    async with running_server(config) as port:
        lobby, table = await open_table(port, turn_seconds=0.2, target=100_000)
        for seat in ("E", "W"):
            assert (await lobby.request(type="add_bot", table=table, seat=seat,
                                        strategy="random"))["type"] == "ok"
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        await start_deal([north, south])
        with trio.fail_after(60):
            # Two of the clock's cards, then what a newcomer is shown.
            while sum(m.get("by") == "clock" for m in watcher.log) < 2:
                await watcher.wait_type("played")
            seen = {(m["seat"], m["index"], m["by"]) for m in watcher.log
                    if m["type"] == "played" and m.get("by")}
            late = await greeted(port, "late")
            state = await late.request(type="spectate", table=table)
    assert state["type"] == "table_state"
    played_since = {(m["seat"], m["index"], m["by"]) for m in watcher.log
                    if m["type"] == "played" and m.get("by")}
    # Every mark the events gave up to the snapshot is in it, and nothing else: the
    # bots' own seats and the cards played by players are unmarked.
    assert seen <= _marks(state) <= played_since
    assert all(seat in ("N", "S") and by == "clock" for seat, _, by in _marks(state))
    record = next(tmp_path.glob("*.jsonl"))
    last = None
    for step in replay(read_record(record).events):
        last = step.state
    assert last is not None
    assert {(seat.value, index, by) for (seat, index), by in last.bot_cards.items()} \
        == played_since
