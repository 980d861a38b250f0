"""The deal summary (issue 24): the four dealt hands, the best keeps, the information
cost and the expert pair's figure, over real sockets; no hand before the deal's end."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from pathlib import Path
from typing import Any, cast

import trio
from jackal.bots.base import View
from jackal.bots.expert import ExpertStrategy
from jackal.bots.expert_pair import EXPERT_PAIR_STREAM
from jackal.game.cards import parse_card
from jackal.game.conventions import builtin_card
from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.rng import derive_seed
from jackal.game.seats import SEATS as SEAT_ORDER
from jackal.game.seats import Seat, Team
from jackal.server.config import ServerConfig
from jackal.server.net.threadslots import MOST_GIVEN_WAY, run_behind_moves
from support.client import SEATS, RawClient, open_table, play_out, start_deal
from support.server import QUIET, running_server
from support.tui import penalty
from support.yardstick import brute_force_best

MATCH_SEED = 23
CARD_BYTES = re.compile(rb'"([A2-9TJQK][SHDC])"')
TEAM_SEATS = {"NS": ("N", "S"), "EW": ("E", "W")}


class Tap:
    """A socket stream that keeps every byte it receives, as a cheater's client would."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.raw = b""

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.stream.receive_some(max_bytes)
        self.raw += data
        return data

    async def send_all(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def aclose(self) -> None:
        await self.stream.aclose()


async def tapped(port: int, name: str) -> tuple[RawClient, Tap]:
    tap = Tap(await trio.open_tcp_stream("127.0.0.1", port))
    client = RawClient(cast(trio.SocketStream, tap), name)
    assert (await client.recv())["type"] == "welcome"
    await client.hello()
    return client, tap


def before_the_end(raw: bytes, seat: str | None, own: set[str]) -> int:
    """Check every line up to the first ``deal_ended``: each card it names is the
    recipient's own or already played. Returns how many lines were read."""
    played: set[str] = set()
    lines = raw.split(b"\n")
    for number, line in enumerate(lines):
        if b'"type":"deal_ended"' in line:
            return number
        assert b'"dealt"' not in line and b'"best"' not in line, line
        if b'"type":"played"' in line:  # the card it shows is public from now on
            played.add(json.loads(line)["card"])
        named = {card.decode() for card in CARD_BYTES.findall(line)}
        leaked = named - own - played
        assert not leaked, (seat, leaked, line)
    raise AssertionError(f"{seat}: no deal_ended in what it received")


def expert_cost_by_hand(dealt: dict[str, list[str]], dealer: str,
                        best: dict[str, int]) -> dict[str, int]:
    """The expert pair's figure worked out here: expert bots seeded as the server says
    (from the deal's seed) play the dealt hands under the table's card (beginner)."""
    deal = Deal([[parse_card(c) for c in dealt[seat]] for seat in SEATS], Seat(dealer))
    card = builtin_card("beginner")
    cards = {Team.NS: card, Team.EW: card}
    bots = {seat: ExpertStrategy(derive_seed(deal_seed(MATCH_SEED, 1), EXPERT_PAIR_STREAM,
                                             seat.ordinal)) for seat in SEAT_ORDER}
    while (seat := deal.turn) is not None:
        deal.play(bots[seat].choose(View.from_deal(deal, seat, conventions=cards)), seat)
    kept = {seat.value: [str(c) for c in deal.kept(seat)] for seat in SEAT_ORDER}
    return {team: penalty(kept[a] + kept[b]) - best[team]
            for team, (a, b) in TEAM_SEATS.items()}


async def test_the_deal_summary_shows_everything_once_the_deal_is_over(tmp_path: Path) -> None:
    records = tmp_path / "records"
    async with running_server(ServerConfig(records_dir=records, **QUIET)) as port:
        _lobby, table = await open_table(port, seed=MATCH_SEED, target=1000)
        people: dict[str, RawClient] = {}
        taps: dict[str | None, Tap] = {}
        for seat in SEATS:
            people[seat], taps[seat] = await tapped(port, f"p{seat}")
            await people[seat].join(table, seat)
        watcher, taps[None] = await tapped(port, "watcher")
        await watcher.request(type="spectate", table=table)
        await start_deal(list(people.values()))
        async with trio.open_nursery() as nursery:
            for client in people.values():
                nursery.start_soon(play_out, client, lambda m: m["type"] == "deal_ended",
                                   (lambda hand: hand[0]), False)
        await watcher.wait_type("deal_ended")
        ended: dict[str, Any] = people["N"].log[-1]
        started = next(m for m in people["N"].log if m["type"] == "deal_started")
        real = Deal.from_seed(deal_seed(MATCH_SEED, 1), Seat(started["dealer"]))
        dealt = {seat.value: [str(c) for c in real.dealt_hand(seat)] for seat in SEAT_ORDER}

        # Nobody, spectator included, had any other seat's unplayed card before the end.
        for where, tap in taps.items():
            own = set(dealt[where]) if where is not None else set()
            assert before_the_end(tap.raw, where, own) > 40

        # The same summary for everyone, with every hand, checked against the rules here.
        for client in [*people.values(), watcher]:
            same = next(m for m in client.log if m["type"] == "deal_ended")
            assert same == ended
        assert ended["dealt"] == dealt
        for team, (a, b) in TEAM_SEATS.items():
            kept = ended["hands"][a] + ended["hands"][b]
            assert set(ended["hands"][a]) <= set(dealt[a]) and len(kept) == 10
            assert ended["penalty"][team] == penalty(kept)
            best = brute_force_best(tuple(parse_card(c) for c in dealt[a]),
                                    tuple(parse_card(c) for c in dealt[b]))
            shown = ended["best"][team]
            assert shown["penalty"] == best
            assert set(shown["hands"]) == {a, b}
            assert all(len(shown["hands"][s]) == 5 and set(shown["hands"][s]) <= set(dealt[s])
                       for s in (a, b))
            assert penalty(shown["hands"][a] + shown["hands"][b]) == best
            assert ended["information_cost"][team] == penalty(kept) - best >= 0

        # A while later, the expert pair's figure on the same hands, to everyone.
        best_of = {team: ended["best"][team]["penalty"] for team in TEAM_SEATS}
        expected = expert_cost_by_hand(dealt, started["dealer"], best_of)
        for client in [*people.values(), watcher]:
            got = await client.wait_type("expert_cost", timeout=60)
            assert got == {"type": "expert_cost", "deal": 1, "information_cost": expected}
        state = await people["E"].request(type="sync")
        assert state["history"][0]["information_cost"] == ended["information_cost"]
        assert state["history"][0]["expert_cost"] == expected
        tokens = {seat: client.token for seat, client in people.items()}

    # The record keeps it, and a restarted server shows it again.
    lines = [json.loads(line) for path in records.glob("*.jsonl")
             for line in path.read_text().splitlines()]
    assert {"deal": 1, "information_cost": expected} in [
        {k: v for k, v in line.items() if k in ("deal", "information_cost")}
        for line in lines if line["event"] == "expert"]
    async with running_server(ServerConfig(records_dir=records, **QUIET)) as port:
        back = RawClient(await trio.open_tcp_stream("127.0.0.1", port), "pN")
        await back.recv()
        await back.hello(token=tokens["N"])
        state = await back.wait_type("table_state")
        assert state["history"][0]["expert_cost"] == expected
        assert state["history"][0]["information_cost"] == ended["information_cost"]


def test_the_play_through_gives_way_to_people_s_moves_for_as_long_as_they_think() -> None:
    """The expert pair's work (no slot of the bots', a thread of its own) waits at each
    Python call while a people's move runs, with no limit, unlike a hint."""
    no_moves = threading.Event()  # a people's move thinks
    steps: list[int] = []

    def work() -> str:
        for number in range(50):
            steps.append(number)
            _step()
        return "done"

    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(
        run_behind_moves(no_moves, work, most=math.inf)))
    thread.start()
    time.sleep(MOST_GIVEN_WAY + 0.3)  # past a hint's limit: still waiting
    assert len(steps) <= 1 and not result
    no_moves.set()  # the move ends
    thread.join(10)
    assert result == ["done"] and steps == list(range(50))


def _step() -> None:
    """A Python call, where a thread under run_behind_moves may be stopped."""
