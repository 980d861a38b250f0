"""SeatSession against the real server over real TCP, including a dropped connection.

To drop a connection the way a network does, the session talks to the server through the
tests' TCP proxy (tests/support/proxy.py); a blip resets both sockets of every link, and the
session must reconnect (through the proxy again) and reclaim its seat with its token.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import trio
from jackal.bots import make_strategy
from jackal.bots.base import View
from jackal.client.botrunner import play_match
from jackal.client.connection import ConnectionLost, open_connection
from jackal.client.session import Backoff, SeatSession, SessionLost
from jackal.client.session import SessionStatus as Status
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.explain import explain_play
from jackal.game.seats import SEATS, Seat
from jackal.protocol.messages import (
    AnswerMessage,
    DealEnded,
    DealStarted,
    Question,
    ServerMessage,
    Tables,
    TableState,
)
from jackal.protocol.requests import Ask, CreateTable, Hello, ListTables
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from support.proxy import CuttableProxy


async def start_relay(nursery: trio.Nursery, port: int) -> tuple[CuttableProxy, int]:
    relay = CuttableProxy(port)
    return relay, await nursery.start(relay.run)


class KillingStrategy:
    """Plays at random; when asked for play ``at`` of deal 1, cuts the connection first."""

    def __init__(self, relay: CuttableProxy, at: int) -> None:
        self.relay = relay
        self.at = at
        self.kills = 0
        self.rng = random.Random(3)

    def choose(self, view: View) -> Card:
        if view.deal_number == 1 and view.play_number == self.at and not self.kills:
            self.kills += 1
            trio.from_thread.run_sync(self.relay.blip)
        return self.rng.choice(view.hand)


@pytest.mark.parametrize("when", ["before_play", "play_in_flight"])
async def test_session_reclaims_seat_after_drop_mid_deal(server_port: int,
                                                         nursery: trio.Nursery,
                                                         when: str) -> None:
    """The connection is cut while the bot thinks about its 3rd card of deal 1, or just
    after its 3rd play reached the server but before the reply came back."""
    relay, relay_port = await start_relay(nursery, server_port)
    statuses: list[Status] = []
    session = SeatSession(
        "127.0.0.1", relay_port, name="dropper", seat=Seat.E,
        create=CreateTable(target=30, seed=11),
        bots={s: "random" for s in SEATS if s is not Seat.E},
        reconnect=Backoff(initial=0.05, maximum=0.2, give_up_after=10),
        on_status=lambda status, _detail: statuses.append(status))
    strategy = KillingStrategy(relay, at=3 if when == "before_play" else 99)
    with trio.fail_after(30):
        await nursery.start(session.run)
        assert session.token and session.seat is Seat.E

        # Check every deal against the server's own account of it.
        dealt: dict[int, list[Card]] = {}
        checked: list[int] = []
        snapshots: list[str] = []

        def check(event: ServerMessage) -> None:
            mirror = session.mirror
            if (when == "play_in_flight" and mirror.deal == 1 and not relay.cuts
                    and len(mirror.rows[Seat.E]) == 2):
                relay.cut_after = b'"type":"play"'
            if isinstance(event, TableState):  # on join and on reclaim
                snapshots.append(event.status)
                assert mirror.you is Seat.E and mirror.seats[Seat.E].name == "dropper"
                assert all(mirror.seats[s].kind == "bot" for s in SEATS if s is not Seat.E)
            elif isinstance(event, DealStarted):
                dealt[event.deal] = sorted(mirror.hand)
            elif isinstance(event, DealEnded):
                # Our row as the server reported it, plus the 5 cards the server says we
                # kept, are exactly the 13 we were dealt: no play lost, none doubled.
                row = mirror.rows[Seat.E]
                kept = list(event.hands[Seat.E])
                assert len(row) == 8 and sorted(row + kept) == dealt[event.deal]
                assert sorted(mirror.hand) == sorted(kept)
                checked.append(event.deal)

        result = await play_match(session, strategy, on_event=check)

    assert relay.cuts == 1 and strategy.kills == (when == "before_play")
    assert relay.accepted >= 2
    assert statuses[:3] == [Status.CONNECTED, Status.RECONNECTING, Status.CONNECTED]
    assert statuses[-1] is Status.CLOSED
    assert result.winner is not None and max(result.scores.values()) >= 30
    assert checked == sorted(dealt) and checked[0] == 1
    assert snapshots == ["waiting", "playing"]  # the join's, then the reclaim's mid-deal
    # With the reply lost, the bot cannot know its play counted until the reclaim shows it.
    assert result.plays == 8 * len(checked) - (when == "play_in_flight")


async def test_reclaim_with_a_bad_token_loses_the_seat(server_port: int,
                                                       nursery: trio.Nursery) -> None:
    relay, relay_port = await start_relay(nursery, server_port)
    statuses: list[tuple[Status, str]] = []
    session = SeatSession(
        "127.0.0.1", relay_port, name="forgetful", create=CreateTable(target=30),
        auto_ready=False, reconnect=Backoff(initial=0.05, maximum=0.1, give_up_after=5),
        on_status=lambda status, detail: statuses.append((status, detail)))
    with trio.fail_after(10):
        await nursery.start(session.run)
        session.token = "not-the-token"
        relay.blip()
        with pytest.raises(SessionLost):
            async for _ in session.events():
                pass
    assert statuses[-1][0] is Status.LOST
    assert "refused" in statuses[-1][1]


async def test_unreachable_server_fails_to_start(nursery: trio.Nursery,
                                                 refused_port: int) -> None:
    session = SeatSession("127.0.0.1", refused_port)
    with trio.fail_after(10), pytest.raises(ConnectionLost, match="cannot reach"):
        await nursery.start(session.run)
    assert session.status is Status.LOST


class SlowStrategy:
    """Thinks (blocking its thread) longer than the server lets a connection stay silent."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls = 0

    def choose(self, view: View) -> Card:
        self.calls += 1
        if self.calls <= 2:
            time.sleep(self.seconds)
        return view.hand[0]


@pytest.mark.slow
async def test_keepalive_continues_while_the_strategy_thinks(nursery: trio.Nursery) -> None:
    config = ServerConfig(port=0, ping_interval=0.1, ping_timeout=0.1,
                          between_deals_seconds=600)
    port: int = await nursery.start(serve, config)
    statuses: list[Status] = []
    session = SeatSession("127.0.0.1", port, seat=Seat.N, create=CreateTable(target=1),
                          bots={s: "random" for s in SEATS if s is not Seat.N},
                          on_status=lambda status, _detail: statuses.append(status))
    strategy = SlowStrategy(0.6)  # three times what a silent connection survives
    with trio.fail_after(20):
        await nursery.start(session.run)
        result = await play_match(session, strategy)
    assert strategy.calls == result.plays == 8 * result.deals
    assert statuses == [Status.CONNECTED, Status.CLOSED]  # never dropped, never reconnected


async def test_session_reclaims_its_seat_after_a_server_restart(tmp_path: Path,
                                                                nursery: trio.Nursery) -> None:
    """The server stops cleanly mid-deal and starts again on the same records directory
    (at another port, behind the same relay): the session reclaims its seat there."""
    config = ServerConfig(port=0, records_dir=tmp_path, between_deals_seconds=600)
    first_server = trio.CancelScope()

    async def run_first(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        with first_server:
            await serve(config, task_status=task_status)

    relay, relay_port = await start_relay(nursery, await nursery.start(run_first))
    restart_now = trio.Event()

    async def restart() -> None:
        await restart_now.wait()
        first_server.cancel()  # sends server_shutdown, closes every connection
        relay.target = ("127.0.0.1", await nursery.start(serve, config))

    nursery.start_soon(restart)
    statuses: list[tuple[Status, str]] = []
    session = SeatSession(
        "127.0.0.1", relay_port, name="survivor", seat=Seat.N,
        create=CreateTable(target=30, seed=5),
        bots={s: "random" for s in SEATS if s is not Seat.N},
        reconnect=Backoff(initial=0.05, maximum=0.2, give_up_after=10),
        on_status=lambda status, detail: statuses.append((status, detail)))

    def watch(_event: ServerMessage) -> None:
        if session.mirror.deal == 1 and len(session.mirror.rows[Seat.N]) == 3:
            restart_now.set()

    with trio.fail_after(20):
        await nursery.start(session.run)
        result = await play_match(session, KillingStrategy(relay, at=99), on_event=watch)
    assert restart_now.is_set()
    kinds = [status for status, _ in statuses]
    assert kinds[:3] == [Status.CONNECTED, Status.RECONNECTING, Status.CONNECTED]
    # Either the server's goodbye or the bare close, whichever the client saw first.
    assert "server shutdown" in statuses[1][1] or "closed" in statuses[1][1]
    assert result.plays == 8 * result.deals and max(result.scores.values()) >= 30


async def test_bot_answers_an_opponents_question_from_its_card(server_port: int,
                                                               nursery: trio.Nursery) -> None:
    """N (a scripted session) asks the bot at E about its first card; E answers from its
    side's declared card and N (the asking side) gets the answer."""
    bot = SeatSession("127.0.0.1", server_port, name="answerer", seat=Seat.E,
                      create=CreateTable(target=1, seed=3, conventions_ew="beginner"),
                      bots={Seat.S: "random", Seat.W: "random"})
    with trio.fail_after(20):
        await nursery.start(bot.run)
        assert bot.table is not None
        asker = SeatSession("127.0.0.1", server_port, name="asker", table=bot.table,
                            seat=Seat.N)
        nursery.start_soon(play_match, bot, make_strategy("random", 1))
        await nursery.start(asker.run)
        answers: list[tuple[AnswerMessage, str]] = []
        asked = False
        async for event in asker.events():
            mirror = asker.mirror
            if isinstance(event, AnswerMessage):
                # What E's first card means under E-W's card, as N can work out itself.
                meaning = explain_play(builtin_card("beginner"), mirror.history(), Seat.E, 1)
                answers.append((event, f"(bot) {meaning.card}: {meaning.text}"))
            if not asked and mirror.rows[Seat.E]:
                receipt = await asker.request(Ask(seat=Seat.E, text="what was that?", index=1))
                assert isinstance(receipt, Question) and receipt.asker == "N"
                asked = True
            if asker.my_turn:
                await asker.play(mirror.hand[0])
    assert asked and len(answers) == 1
    answer, expected = answers[0]
    assert answer.seat == "E" and answer.text == expected


async def test_leave_frees_the_seat_and_ends_the_session(server_port: int,
                                                         nursery: trio.Nursery) -> None:
    statuses: list[Status] = []
    session = SeatSession("127.0.0.1", server_port, name="leaver", seat=Seat.W,
                          create=CreateTable(target=30), auto_ready=False,
                          on_status=lambda status, _detail: statuses.append(status))
    with trio.fail_after(10):
        await nursery.start(session.run)
        first = await session.events().__anext__()
        assert isinstance(first, TableState) and session.mirror.you is Seat.W
        await session.leave()
        async for _ in session.events():  # ends normally: the session is over
            pass
        async with open_connection("127.0.0.1", server_port) as conn:
            await conn.request(Hello(name="looker"))
            lobby = await conn.request(ListTables())
    assert isinstance(lobby, Tables)
    assert [t.seats.get(Seat.W) for t in lobby.tables if t.table == session.table] == [None]
    assert statuses == [Status.CONNECTED, Status.CLOSED]
