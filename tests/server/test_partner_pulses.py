"""Partner channels through events a seat times (issue 30, items 5, 6 and 8), attacked as
cheating partners would, over real sockets: S (or N) sends symbols by dropping and
reclaiming its seat, by asking questions that opponents answer at once, or by the delay
of a pause vote; its partner decodes what it receives. Each symbol must look the same to
the partner: it decodes less than 1 bit where these channels used to carry every symbol."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio
import trio.testing
from jackal.server.config import ServerConfig
from support.client import Msg, RawClient, greeted, open_table, seat_four, sit, start_deal
from support.leaks import decoded_bits
from support.server import QUIET, running_server

#: What S can send per deal: that many pulses (0 to 3, within every cap).
SYMBOLS = (0, 1, 2, 3)


def test_decoded_bits_counts_what_the_receiver_tells_apart() -> None:
    assert decoded_bits([(s, s) for s in SYMBOLS]) == 2.0  # each seen differently
    assert decoded_bits([(s, ()) for s in SYMBOLS]) == 0.0  # all seen alike
    assert decoded_bits([(0, "a"), (1, "a"), (2, "b"), (3, "b")]) == 1.0


async def _watch(port: int, table: str) -> RawClient:
    watcher = await greeted(port, "watcher")
    assert (await watcher.request(type="spectate", table=table))["type"] == "table_state"
    return watcher


async def _watched_deal(port: int, seed: int) -> tuple[dict[str, RawClient], RawClient]:
    """Four players by seat at a new table of a long match, a spectator watching it, and
    the first deal dealt (each player's ``hand`` is its hand)."""
    _, table = await open_table(port, seed=seed, target=100_000)
    clients = await seat_four(port, table)
    players = dict(zip("NESW", clients, strict=True))
    watcher = await _watch(port, table)
    await start_deal(clients)
    return players, watcher


async def _next_turn(watcher: RawClient) -> str | None:
    """The seat whose turn the table announces next (None: the deal ended)."""
    msg = (await watcher.recv_until(lambda m: m["type"] in ("turn", "deal_ended")))[-1]
    return msg["seat"] if msg["type"] == "turn" else None


async def _play(client: RawClient) -> None:
    """``client``'s seat plays the first card of its hand (from a fresh snapshot: its
    ``your_turn`` may have been read past already)."""
    state = await client.request(type="sync")
    reply = await client.request(type="play", card=state["hand"][0])
    assert reply["type"] == "played", reply


def _deal_span(log: list[Msg], deal: int) -> list[Msg]:
    """The messages of one deal, from its ``deal_started`` to before its ``deal_ended``."""
    start = next(i for i, m in enumerate(log)
                 if m["type"] == "deal_started" and m["deal"] == deal)
    end = next(i for i, m in enumerate(log[start:], start) if m["type"] == "deal_ended")
    return log[start:end]


async def _deals(players: dict[str, RawClient], watcher: RawClient,
                 on_turn: Callable[[str, int, dict[str, RawClient]], Awaitable[None]]
                 ) -> int:
    """Play one deal per symbol with every seat a connection of ours; ``on_turn`` (an
    async function) runs at the start of each turn before its seat plays. Returns the
    number of deals played."""
    for deal in range(1, len(SYMBOLS) + 1):
        while (seat := await _next_turn(watcher)) is not None:
            await on_turn(seat, deal, players)
            await _play(players[seat])
        if deal < len(SYMBOLS):
            for client in players.values():
                await client.request(type="ready")
    return len(SYMBOLS)


async def test_reclaim_pulses_tell_partner_nothing() -> None:
    """S drops and reclaims its seat during N's turn, as many times as the symbol says;
    N reads ``player_gone``/``player_back`` (and ``seats`` in a ``sync``)."""
    async with running_server(ServerConfig(**QUIET)) as port:
        players, watcher = await _watched_deal(port, seed=21)
        token = players["S"].token
        pulsed: set[int] = set()

        async def pulse(seat: str, deal: int, players: dict[str, RawClient]) -> None:
            if seat != "N" or deal in pulsed:
                return
            pulsed.add(deal)
            for _ in range(SYMBOLS[deal - 1]):
                await players["S"].aclose()
                back = await RawClient.connect(port, "pS")
                reply = await back.request(type="hello", name="pS", token=token)
                assert reply["type"] == "hello_ok", reply
                back.seat, back.token = "S", token
                players["S"] = back
            shot = await players["N"].request(type="sync")
            players["N"].log.append({"type": "seen", "seats": shot["seats"]})

        await _deals(players, watcher, pulse)
        north = players["N"]
        await north.recv_until(lambda m: m["type"] == "deal_ended"
                               and m["deal"] == len(SYMBOLS))
        observed = []
        for deal, symbol in enumerate(SYMBOLS, 1):
            span = _deal_span(north.log, deal)
            seen = tuple((m["type"], m.get("seat"), str(m.get("seats")))
                         for m in span if m["type"] in (
                             "player_gone", "player_back", "bot_takeover", "seen"))
            observed.append((symbol, seen))
        assert decoded_bits(observed) < 1, observed


async def test_a_fourth_reclaim_in_one_deal_is_refused() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        _, table = await open_table(port, seed=21)
        clients = await seat_four(port, table)
        await start_deal(clients)
        south, token = clients[2], clients[2].token
        for _ in range(3):
            await south.aclose()
            south = await RawClient.connect(port, "pS")
            assert (await south.request(type="hello", name="pS", token=token)
                    )["type"] == "hello_ok"
        await south.aclose()
        late = await RawClient.connect(port, "pS")
        refused = await late.request(type="hello", name="pS", token=token)
        assert refused["type"] == "error" and refused["code"] == "too_many_reclaims", refused


async def test_question_pulses_to_bots_tell_partner_nothing() -> None:
    """N asks the bots (which answer at once) as many questions as the symbol says, on
    its first turn of each deal; S reads whatever reaches it during the deal."""
    async with running_server(ServerConfig(**QUIET)) as port:
        creator, table = await open_table(port, seed=5, target=100_000)
        north, south = await sit(port, table, "N"), await sit(port, table, "S")
        for bot in "EW":
            assert (await creator.request(type="add_bot", table=table, seat=bot)
                    )["type"] == "ok"
        watcher = await _watch(port, table)
        await start_deal([north, south])
        players = {"N": north, "S": south}
        asked: set[int] = set()
        refused_index: list[str] = []
        for deal, symbol in enumerate(SYMBOLS, 1):
            while (seat := await _next_turn(watcher)) is not None:
                if seat not in players:
                    continue  # a bot's turn
                if seat == "N" and deal not in asked:
                    asked.add(deal)
                    if deal == 1:
                        # An index is a free number unless it names a card played.
                        bad = await north.request(type="ask", seat="W", index=8, text="?")
                        refused_index.append(str(bad.get("code", bad["type"])))
                    for number in range(symbol):
                        receipt = await north.request(type="ask", seat="EW"[number % 2],
                                                      text=f"q{number}")
                        assert receipt["type"] == "question", receipt
                await _play(players[seat])
            if deal < len(SYMBOLS):
                for client in players.values():
                    await client.request(type="ready")
        await south.recv_until(lambda m: m["type"] == "deal_ended" and m["deal"] == len(SYMBOLS))
        observed = []
        for deal, symbol in enumerate(SYMBOLS, 1):
            span = _deal_span(south.log, deal)
            seen = tuple((m["type"], m.get("index")) for m in span if m["type"] in (
                "question_asked", "answer", "question"))
            observed.append((symbol, seen))
        assert decoded_bits(observed) < 1, observed
        assert refused_index == ["not_played"], refused_index
        # Once each deal ended, partner saw its partner's questions (the review).
        ends = [m for m in south.log if m["type"] == "deal_ended"]
        assert [len(m.get("questions", [])) for m in ends] == list(SYMBOLS)


async def test_pause_vote_delays_tell_partner_nothing(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    """N asks for a pause on its turn; S withdraws it after a delay that is the symbol
    (50 ms steps); N times the ``pause_state`` that says so."""
    async with running_server(ServerConfig(**QUIET)) as port:
        players, watcher = await _watched_deal(port, seed=9)
        north, south = players["N"], players["S"]
        symbols = [0, 3, 7]  # N may ask 3 times a match
        observed: list[tuple[int, float]] = []
        while (seat := await _next_turn(watcher)) is not None:
            if seat == "N" and len(observed) < len(symbols):
                symbol = symbols[len(observed)]
                reply = await north.request(type="pause")
                assert reply["type"] == "pause_state" and reply["asked_by"] == "N", reply
                asked_at = trio.current_time()
                await south.recv_until(lambda m: m["type"] == "pause_state")
                await trio.sleep(symbol * 0.05)
                await south.send(type="resume")
                told = await north.recv_until(lambda m: m["type"] == "pause_state"
                                              and m.get("asked_by") is None, timeout=30)
                assert told[-1]["paused"] is False
                observed.append((symbol, round(trio.current_time() - asked_at, 3)))
            await _play(players[seat])
        assert len(observed) == len(symbols)
        assert decoded_bits(observed) < 1, observed
