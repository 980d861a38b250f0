"""Server-side bots cannot be predicted, and their failures do not flood the log (issue 12).

The ``random`` bot once drew from a generator seeded 1, 2, 3... by a process-wide
counter: an opponent who replayed that generator knew which card of the sorted hand it
would pick, and so learned the hand. Here a watcher records two deals of four server-side
``random`` bots at a table whose seed the test knows (so it can rebuild every hand the
bots held), and then tries every small seed: none may reproduce any bot's choices. The
same search finds the seed at once when the choices did come from a small seed, so it
is a real test.
"""

from __future__ import annotations

import logging

import pytest
import trio
from jackal.bots import View
from jackal.bots.random_bot import RandomStrategy
from jackal.game.cards import Card, parse_card, parse_hand
from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.seats import SEATS, Seat
from jackal.server.bots import BotPool
from jackal.server.config import ServerConfig
from jackal.server.net.threadslots import ThreadSlots
from support.client import Msg, RawClient, open_table
from support.server import running_server

TABLE_SEED = 4242
#: Every seed below this is tried (the old counter gave 1, 2, 3, ...).
SMALL_SEEDS = 5000

#: One bot's decisions in order: the hand it chose from (as the server held it) and its card.
Decisions = list[tuple[tuple[Card, ...], Card]]


def decisions_by_seat(log: list[Msg]) -> dict[Seat, Decisions]:
    """Replay the watched deals to see each seat's hand at each of its turns."""
    out: dict[Seat, Decisions] = {seat: [] for seat in SEATS}
    deal: Deal | None = None
    for msg in log:
        if msg["type"] == "deal_started":
            deal = Deal.from_seed(deal_seed(TABLE_SEED, msg["deal"]), Seat(msg["dealer"]))
        elif msg["type"] == "played" and deal is not None:
            seat, card = Seat(msg["seat"]), parse_card(msg["card"])
            out[seat].append((deal.hand(seat), card))
            deal.play(card, seat)
    return out


def seeds_reproducing(decisions: Decisions, seeds: range) -> list[int]:
    """Every seed whose ``random`` strategy makes exactly these decisions."""
    found = []
    for seed in seeds:
        strategy = RandomStrategy(seed)
        for hand, card in decisions:
            view = View(seat=Seat.N, hand=hand, history=(), dealer=Seat.W)
            if strategy.choose(view) != card:
                break
        else:
            found.append(seed)
    return found


async def watch_bots_play(port: int, deals: int) -> list[Msg]:
    lobby, table = await open_table(port, seed=TABLE_SEED, target=100_000)
    watcher = await RawClient.connect(port, "watcher")
    await watcher.hello()
    await watcher.request(type="spectate", table=table)
    for seat in SEATS:
        await lobby.request(type="add_bot", table=table, seat=seat, strategy="random")
    seen = 0

    def enough(msg: Msg) -> bool:
        nonlocal seen
        seen += msg["type"] == "deal_ended"
        return bool(seen >= deals)

    await watcher.recv_until(enough, timeout=60)
    return watcher.log


@pytest.mark.slow
async def test_server_bots_cannot_be_replayed_from_a_small_seed(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    async with running_server(ServerConfig(port=0)) as port:
        log = await watch_bots_play(port, deals=2)
    by_seat = decisions_by_seat(log)
    for seat, decisions in by_seat.items():
        assert len(decisions) == 16, (seat, len(decisions))
        # 16 choices: a chance match for one seed is about 1 in 10^14, so any hit is real.
        assert seeds_reproducing(decisions, range(SMALL_SEEDS)) == [], seat


def test_the_seed_search_finds_a_small_seed() -> None:
    """Decisions of a bot seeded 3 (as the old counter would) are found at once."""
    deal = Deal.from_seed(deal_seed(TABLE_SEED, 1), Seat.N)
    bot = RandomStrategy(3)
    decisions: Decisions = []
    while not deal.is_over:
        seat = deal.turn
        assert seat is not None
        hand = deal.hand(seat)
        card = bot.choose(View(seat=seat, hand=hand, history=(), dealer=Seat.N))
        decisions.append((hand, card))
        deal.play(card, seat)
    assert 3 in seeds_reproducing(decisions, range(SMALL_SEEDS))


def test_every_bot_gets_its_own_unpredictable_strategy() -> None:
    pool = BotPool(threads=1, think_seconds=1.0)
    first = pool.strategy("t1", Seat.N, "random")
    second = pool.strategy("t1", Seat.E, "random")
    again = pool.strategy("t1", Seat.N, "random")
    assert first is again and first is not second
    hand = tuple(parse_hand("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))
    view = View(seat=Seat.N, hand=hand, history=(), dealer=Seat.W)
    runs = {tuple(strategy.choose(view) for _ in range(12))
            for strategy in (pool.strategy(f"t{n}", Seat.N, "random") for n in range(8))}
    assert len(runs) == 8  # with small shared seeds some would coincide or repeat


class Broken:
    """A strategy that always fails."""

    def choose(self, _view: View) -> Card:
        raise IndexError("list index out of range")


async def test_a_failing_strategy_is_logged_once_per_table_and_seat(
        caplog: pytest.LogCaptureFixture) -> None:
    pool = BotPool(threads=1, think_seconds=5.0)
    hand = (parse_card("2S"), parse_card("KD"))
    view = View(seat=Seat.N, hand=hand, history=(), dealer=Seat.W)
    for table in ("t1", "t1", "t1", "t2"):
        pool._strategies[(table, Seat.N, "random")] = Broken()
        with caplog.at_level(logging.WARNING, logger="jackal.server"):
            assert await pool.choose(table, Seat.N, "random", view) == min(hand)
    failures = [r for r in caplog.records if "failed" in r.getMessage()]
    assert [r.getMessage().split()[3] for r in failures] == ["t1", "t2"]
    assert all(r.exc_info is not None for r in failures)


async def test_people_s_tables_get_the_next_thread_before_bots_only_tables() -> None:
    slots = ThreadSlots(1)
    order: list[str] = []
    await slots.acquire(attended=False)  # taken: everyone below waits

    async def want(name: str, attended: bool) -> None:
        await slots.acquire(attended)
        order.append(name)
        slots.release(attended)

    async with trio.open_nursery() as nursery:
        for number in range(3):
            nursery.start_soon(want, f"bots{number}", False)
            await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(want, "people", True)
        await trio.testing.wait_all_tasks_blocked()
        assert slots.waiting == 4
        slots.release(attended=False)
    assert order == ["people", "bots0", "bots1", "bots2"]
    assert slots.free == 1
