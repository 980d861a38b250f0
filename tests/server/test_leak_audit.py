"""Hidden-information audit over 1,000+ seeded deals of real server traffic (issue 7.5).

A real server listens on port 0 in this process. Several tables play at once; every seat
is a raw client of ours (on every third table two seats are server-side bots instead),
over TCP or, for N and E and the late spectator of every eighth table, over the web
port's WebSocket as a browser's page (the streams are its text frames, audited alike:
each of those seats' partner is on TCP), and every table has a spectator from the start, a
second one who arrives in the middle of deal 1, and a North who hangs up in the middle of
deal 2 and reclaims the seat with its token. Every line each of those connections
receives is kept, and after each match the audit replays each connection's stream in
order:

- for each deal, the four hands are known independently: the engine's deal from the
  table's seed (and each seat's ``deal_started`` copy must equal its part of it); the
  order of plays comes from the first spectator's stream;
- from a deal's start (its ``deal_started``, or a mid-deal ``table_state`` whose rows
  must be exactly the first k plays) to its ``deal_ended``, every card named anywhere in
  a line a connection receives (any field, any text) must be in that connection's own
  hand or already played; a spectator owns no hand at all. Anything else is another
  seat's unplayed card: a leak.

Cards are found with a pattern over the raw JSON text, not by field name, so a leak in
a field nobody thought of (or inside an explanation's prose) is caught too.

Every seat plays from ``your_turn`` alone (the card it picks comes from that message's
hand), and the audit checks each ``your_turn`` against the truth: only its own seat gets
it, its hand is exactly the seat's unplayed cards and its rows exactly the plays so far.
The late spectator also sends ``sync`` and its snapshot is audited like the others.

The partner channel: every human seat plays a cheater too. On its second play of each
deal it asks the next seat (an opponent: a person or a bot) a question whose text is a
marker unique to it and the deal, and says another in the table's chat; it answers
every question it is asked with another marker; North also tries to create a table
named with a marker in deal 1 (a lobby entry its partner could read), and reclaims its
seat in deal 2 with a marker as its name. South lists the lobby on its third turn of
each deal. Nothing any seat typed may ever reach its partner or a spectator (checked
over the raw lines, so any field counts), while the opponent asked does get the
question: the channel was used. Nor may anything a seat times reach its partner during
a deal (``support.leaks.seat_timed_events``): a drop or a return only at the seat's turn
boundaries, its questions never; North's mid-deal reclaim is such an event.

Tables with an odd seed allow hints: there North asks for one on its first turn and plays
the card it names, so the private ``hint`` (cards and reasons in words) and the public
``hint_taken`` go through the same audit; elsewhere the request must be refused. Time:
the server and all clients share one process; about 45 s on a 2-core machine, in PARTS
parts with seeds of their own that a parallel run spreads over its workers. There is
no deadline for the whole audit (a loaded machine is slow, not stuck); a watchdog fails it
when no connection receives anything but keepalive for STALL_SECONDS.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

import msgspec
import pytest
import trio
import trio.testing
from jackal.game.cards import DECK, Card
from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.seats import SEATS, Seat
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from support.client import Msg, RawClient
from support.leaks import cards_named, seat_timed_events
from support.wsclient import WsLines

DEALS_WANTED = 1000
#: The audit's parts, each DEALS_WANTED // PARTS deals from seeds of its own (SEEDS_PER_PART
#: apart): one minute-long test held the end of a parallel run, four run side by side.
PARTS = 4
SEEDS_PER_PART = 2500
#: The hang guard: the audit fails when no connection receives a line for this long.
STALL_SECONDS = 30.0
PARALLEL_TABLES = 8
TARGET = 300
ALL_CARDS = frozenset(str(card) for card in DECK)


class AuditClient(RawClient):
    """The line client, counting what every connection receives (the watchdog's sign of
    life) and waiting as long as the watchdog allows: a loaded machine is slow, not stuck."""

    #: Lines (other than keepalive pings) received by every client so far.
    received = 0

    async def recv(self, timeout: float = math.inf) -> Msg:
        msg = await super().recv(timeout)
        if msg["type"] != "ping":  # keepalive would come from a stuck table too
            AuditClient.received += 1
        return msg


#: The server's ports: (TCP, web).
Ports = tuple[int, int]


async def dial(ports: Ports, local: str, websocket: bool) -> AuditClient:
    """A new connection from ``local``, its welcome read: over TCP, or over the web port's
    WebSocket as a browser's page connects (then each text frame is one line)."""
    if not websocket:
        return await AuditClient.connect(ports[0], local=local)
    client = AuditClient(await WsLines.open(ports[1], local=local))  # type: ignore[arg-type]
    await client.expect("welcome")
    return client


#: Every WEB_EVERY-th table has seats over the WebSocket (a share, not all: each line
#: costs more there, on both sides, and the audit's time is the suite's).
WEB_EVERY = 8


def over_websocket(seed: int) -> frozenset[Seat | None]:
    """Who of table ``seed`` connects over the WebSocket: on every WEB_EVERY-th table, one
    seat of each side (each with its partner on TCP), N (who reclaims its seat and asks for
    a hint) and E, and the late spectator (``None``); elsewhere nobody."""
    return frozenset({Seat.N, Seat.E, None} if seed % WEB_EVERY == 1 else ())


async def until(client: AuditClient, kind: str) -> Msg:
    """Read until a message of ``kind``; an ``error`` on the way fails the test."""
    msg = (await client.recv_until(lambda m: m["type"] in (kind, "error"), math.inf))[-1]
    assert msg["type"] == kind, msg
    return msg


@dataclass
class Audit:
    deals: int = 0
    lines: int = 0
    matches: int = 0
    leaks: list[str] = field(default_factory=list)
    #: Mid-deal table_state snapshots audited, and seats reclaimed mid-deal.
    snapshots: int = 0
    #: expert_cost lines (a finished deal's expert figures) received during a later deal.
    expert_costs: int = 0
    reclaims: int = 0
    #: your_turn messages checked against the true hand and rows.
    your_turns: int = 0
    #: Deals played at tables with WebSocket seats, and the lines those seats received
    #: (the audit read them all).
    ws_deals: int = 0
    ws_lines: int = 0
    #: Hints North received (tables that allow them) and refusals (tables that do not).
    hints: int = 0
    refused_hints: int = 0
    #: Markers typed (questions, answers, a table name, a name) that reached the
    #: opponent they were for, and partner-channel leaks found.
    typed_seen: int = 0
    partner_leaks: list[str] = field(default_factory=list)
    #: One match's streams, kept to prove the audit can fail (see the end of the test).
    sample: tuple[int, list[Stream], Typed] | None = None


Stream = tuple[Seat | None, list[bytes]]
#: What each seat typed during the match's deals: unique markers, as bytes.
Typed = dict[Seat, set[bytes]]


#: Around every marker: the partner check looks for markers only in lines that hold it.
MARK = b"zz"


def marker(kind: str, seed: int, seat: Seat, deal: int) -> str:
    """Text a seat types, unique to it: lowercase letters and digits, so the card pattern
    never takes it for a card."""
    return f"zz{kind}{seed}x{seat.value.lower()}x{deal}zz"


def check_partner_channel(seed: int, streams: list[Stream], typed: Typed,
                          audit: Audit) -> None:
    """Nothing a seat typed reaches its partner or a spectator (in any line, ever: the
    server never sends it later either); the opponents it was for do get some of it."""
    for seat, lines in streams:
        # A spectator could be any seat's partner's second connection.
        forbidden = typed[seat.partner] if seat is not None else set().union(*typed.values())
        opponents = [] if seat is None else [typed[o] for o in SEATS if o.team is not seat.team]
        allowed: set[bytes] = set().union(*opponents)
        for line in lines:
            if MARK not in line:  # every marker holds it, so no marker is in this line
                continue
            during = _without_review(line)
            leaked = [mark for mark in forbidden if mark in during]
            if leaked:
                audit.partner_leaks.append(f"seed {seed}: {seat or 'spectator'} got "
                                           f"{leaked[0]!r} in {line[:300]!r}")
            audit.typed_seen += sum(1 for mark in allowed if mark in line)
        if seat is not None:
            audit.partner_leaks += [f"seed {seed}: {breach}"
                                    for breach in seat_timed_events(lines, seat.value)]


def _without_review(line: bytes) -> bytes:
    """``line`` less a finished deal's questions and answers (``deal_ended.questions``,
    also inside a snapshot's ``last_deal``): everyone at the table reads them once the deal
    is over, as its review, when they can tell nobody anything about a hand in play."""
    msg = msgspec.json.decode(line)
    ended = msg if msg["type"] == "deal_ended" else msg.get("last_deal")
    if not isinstance(ended, dict) or "questions" not in ended:
        return line
    del ended["questions"]
    return msgspec.json.encode(msg)


def check_match(seed: int, streams: list[Stream], audit: Audit, typed: Typed) -> None:
    """Replay every kept stream of one match against the independently known hands, and
    check the partner channel.

    ``streams`` holds (seat or None for a spectator, lines received in order); the first
    spectator's stream must cover the whole match (it is the reference for play order).
    """
    # Ground truth per deal: the engine's deal from the table seed, checked against each
    # seat's own deal_started copy; the order of plays from the reference spectator.
    hands: dict[int, dict[Seat, frozenset[str]]] = {}
    dealers: dict[int, Seat] = {}
    order: dict[int, list[tuple[Seat, str]]] = {}
    reference = next(lines for seat, lines in streams if seat is None)
    current = 0
    for line in reference:
        msg = msgspec.json.decode(line)
        if msg["type"] == "deal_started":
            current = msg["deal"]
            dealers[current] = Seat(msg["dealer"])
            order[current] = []
        elif msg["type"] == "played":
            order[current].append((Seat(msg["seat"]), msg["card"]))
    assert dealers, "no deal was played"
    for number, dealer in dealers.items():
        engine = Deal.from_seed(deal_seed(seed, number), dealer)
        hands[number] = {s: frozenset(str(c) for c in engine.dealt_hand(s)) for s in SEATS}
        assert frozenset().union(*hands[number].values()) == ALL_CARDS
    audit.deals += len(dealers)
    for seat, lines in streams:
        audit.lines += len(lines)
        audit_stream(seed, seat, lines, hands, order, audit)
    check_partner_channel(seed, streams, typed, audit)


def audit_stream(seed: int, seat: Seat | None, lines: list[bytes],
                 hands: dict[int, dict[Seat, frozenset[str]]],
                 order: dict[int, list[tuple[Seat, str]]], audit: Audit) -> None:
    """One connection's lines, in order: no card outside its hand and the played ones."""
    who = seat or "spectator"
    deal: int | None = None
    public: set[str] = set()
    for line in lines:
        msg = msgspec.json.decode(line)
        kind = msg["type"]
        if kind == "deal_started":
            deal, public = msg["deal"], set()
            if seat is not None:
                assert frozenset(msg["hand"]) == hands[deal][seat], f"{seat} dealt wrongly"
            else:
                assert "hand" not in msg, f"a spectator got a hand: {msg}"
        elif kind == "table_state":
            # A snapshot mid-deal (late spectator, reclaimed seat): its rows must be exactly
            # the first k plays of the deal, and only then do they count as public.
            deal = msg["deal"] if msg["status"] == "playing" else None
            if deal is not None:
                rows = msg["rows"]
                k = sum(len(row) for row in rows.values())
                for s in SEATS:
                    assert rows[s] == [c for who_, c in order[deal][:k] if who_ is s], rows
                public = {card for _, card in order[deal][:k]}
                if seat is not None:
                    assert set(msg["hand"]) == hands[deal][seat] - public, msg["hand"]
                else:
                    assert "hand" not in msg, f"a spectator got a hand: {msg}"
        if kind == "your_turn":
            assert seat is not None and msg["seat"] == seat, f"{who} got {msg}"
            assert deal is not None and msg["deal"] == deal, msg
            k = len(public)
            assert set(msg["hand"]) == hands[deal][seat] - public, msg["hand"]
            assert {row["seat"]: row["cards"] for row in msg["rows"]} == {
                s.value: [c for who_, c in order[deal][:k] if who_ is s] for s in SEATS}
            audit.your_turns += 1
        if deal is None:
            continue
        if kind == "expert_cost":
            audit.expert_costs += 1
        if kind == "played":
            owner = Seat(msg["seat"])
            assert msg["card"] in hands[deal][owner], f"{owner} played {msg['card']}"
            public.add(msg["card"])
        if kind == "deal_ended":
            deal = None
            continue
        own = hands[deal][seat] if seat is not None else frozenset()
        hidden = cards_named(line) - own - public
        if hidden:
            audit.leaks.append(f"seed {seed} deal {deal}: {who} saw {sorted(hidden)} "
                               f"in {line[:300]!r}")
            if kind == "table_state":
                audit.snapshots += 1
        elif kind == "table_state" and deal is not None:
            audit.snapshots += 1


async def seat_loop(client: AuditClient, seat: Seat, redial: Callable[[], Awaitable[AuditClient]],
                    token: str, reclaim: bool, extra: list[AuditClient], audit: Audit,
                    seed: int, typed: Typed) -> None:
    """Play this seat's turns, each from its ``your_turn`` alone, until match_ended.

    North asks for a hint on its first turn of deal 1 and plays the card it names (on a
    table that does not allow hints the refusal is counted and it plays as usual).

    With ``reclaim``, on its 4th turn of deal 2 the seat hangs up instead of playing,
    reconnects (``redial``: from the same address, over the same transport), reclaims
    the seat with its token, and plays on from the ``your_turn`` that follows the
    snapshot. Its lines go on in the same list, as one stream.

    And it cheats as the module notes say, each typed text a marker kept in ``typed``.
    """
    hand: list[str] = []
    deal = 0

    def typing(kind: str) -> str:
        text = marker(kind, seed, seat, deal)
        typed[seat].add(text.encode())
        return text

    while True:
        msg = await client.recv()
        kind = msg["type"]
        if kind == "deal_started":
            deal = msg["deal"]
        elif kind == "question" and "id" not in msg:  # asked by an opponent: answer
            await client.send(type="answer", question=msg["question"], text=typing("a"))
            continue
        elif kind == "your_turn" and seat is Seat.S and msg["play"] == 3:
            await client.send(type="list_tables")  # read the lobby partner may have written
        elif kind == "error" and msg.get("id") in ("ask", "mktable", "chat"):
            # The asked seat was away (held), no table may be made mid-deal, no chat.
            assert msg["code"] == {"ask": "not_allowed", "chat": "chat_closed"}.get(
                msg["id"], msg["code"]), msg
            continue
        elif kind == "table_created":  # its name is in the lobby, for partner to read
            audit.partner_leaks.append(f"seed {seed}: {seat} made table {msg['name']!r} "
                                       f"during deal {deal}")
            continue
        elif kind in ("question", "answer", "ok", "tables", "chat"):
            continue
        if kind == "your_turn" and msg["play"] == 2:
            await client.send(type="ask", id="ask", seat=seat.next.value, text=typing("q"))
            await client.send(type="chat", id="chat", text=typing("c"))
            if seat is Seat.N and deal == 1:  # once a match: a made table stays a while
                await client.send(type="create_table", id="mktable", name=typing("t"))
        if kind == "error" and msg.get("id") == "hint":
            assert msg["code"] == "hints_off", msg
            audit.refused_hints += 1
            await client.send(type="play", card=hand[0])
            continue
        assert kind != "error", msg
        if kind == "hint":
            assert msg["card"] in hand and msg["seat"] == seat, msg
            audit.hints += 1
            await client.send(type="play", card=msg["card"])
        elif kind == "your_turn" and seat is Seat.N and (msg["deal"], msg["play"]) == (1, 1):
            hand = msg["hand"]
            await client.send(type="hint", id="hint")
        elif kind == "your_turn":
            if reclaim and msg["deal"] == 2 and msg["play"] == 4:
                reclaim = False
                await client.stream.aclose()
                lines = client.lines  # the new connection's lines go on in the same stream
                client = await redial()
                lines.extend(client.lines)
                client.lines = lines
                extra.append(client)
                await client.send(type="hello", name=typing("n"), token=token)
                assert (await until(client, "hello_ok"))["seat"] == seat
                state = await until(client, "table_state")
                assert state["turn"] == seat and state["deal"] == 2, state
                continue  # its your_turn comes next
            # Vary the choice so rows differ between tables: cycle through the hand.
            hand = msg["hand"]
            await client.send(type="play", card=hand[len(client.lines) % len(hand)])
        elif kind == "deal_ended" and msg["winner"] is not None and \
                max(msg["scores"].values()) >= TARGET:
            continue  # match_ended follows
        elif kind == "deal_ended":
            await client.send(type="ready")
        elif kind == "match_ended":
            return


async def spectator_loop(client: AuditClient, plays_seen: trio.Event | None = None) -> None:
    """Watch to the end of the match; set ``plays_seen`` after the 10th play of deal 1."""
    plays = 0
    while True:
        msg = await client.recv()
        if msg["type"] == "played":
            plays += 1
            if plays == 10 and plays_seen is not None:
                plays_seen.set()
        if msg["type"] == "match_ended":
            return


async def late_spectator(dial_in: Callable[[], Awaitable[AuditClient]], table: str,
                         plays_seen: trio.Event, streams: list[Stream],
                         extra: list[AuditClient], name: str) -> None:
    """Start watching in the middle of deal 1: the snapshot must show rows, no hand."""
    await plays_seen.wait()
    client = await dial_in()
    extra.append(client)
    await client.send(type="hello", name=name)
    await until(client, "hello_ok")
    await client.send(type="spectate", table=table)
    streams.append((None, client.lines))
    await until(client, "table_state")
    await client.send(type="sync")  # a second mid-deal snapshot, audited the same way
    await spectator_loop(client)


async def play_match(ports: Ports, seed: int, bots: tuple[Seat, ...], audit: Audit) -> None:
    """One table: create, seat humans and bots, spectate, play the match, audit it.

    A second spectator arrives in the middle of deal 1, and N drops and reclaims its
    seat in the middle of deal 2, so mid-deal snapshots are audited too.
    """
    humans = [seat for seat in SEATS if seat not in bots]
    # Each table's people come from an address of their own: a deal at one table closes
    # the lobby to its address (PROTOCOL.md, "The lobby during a deal"), not to the others.
    local = f"127.0.{seed // 200}.{seed % 200 + 10}"
    websocket = over_websocket(seed)

    def redial(who: Seat | None) -> Callable[[], Awaitable[AuditClient]]:
        return lambda: dial(ports, local, who in websocket)

    clients = {seat: await redial(seat)() for seat in humans}
    watcher = await AuditClient.connect(ports[0], local=local)
    everyone: list[tuple[Seat | None, AuditClient]] = [*clients.items(), (None, watcher)]
    extra: list[AuditClient] = []
    tokens: dict[Seat, str] = {}
    typed: Typed = {seat: set() for seat in SEATS}
    try:
        for seat, client in everyone:
            await client.send(type="hello", name=f"audit{seed}-{seat or 'spec'}")
            await until(client, "hello_ok")
        await watcher.send(type="create_table", name=f"audit{seed}", target=TARGET, seed=seed,
                           hints=seed % 2 == 1, id="c")
        table = (await until(watcher, "table_created"))["table"]
        await watcher.send(type="spectate", table=table)
        await until(watcher, "table_state")
        for seat in bots:
            await watcher.send(type="add_bot", table=table, seat=seat, strategy="random")
            await until(watcher, "ok")
        for seat, client in clients.items():
            await client.send(type="join", table=table, seat=seat)
            tokens[seat] = (await until(client, "joined"))["token"]
        for client in clients.values():
            await client.send(type="ready")
        streams: list[Stream] = [(seat, client.lines) for seat, client in everyone]
        plays_seen = trio.Event()
        async with trio.open_nursery() as nursery:
            for seat, client in clients.items():
                nursery.start_soon(seat_loop, client, seat, redial(seat), tokens[seat],
                                   seat is Seat.N, extra, audit, seed, typed)
            nursery.start_soon(spectator_loop, watcher, plays_seen)
            nursery.start_soon(late_spectator, redial(None), table, plays_seen, streams, extra,
                               f"late {local}")
    finally:
        for client in [client for _, client in everyone] + extra:
            await client.stream.aclose()
    deals_before = audit.deals
    check_match(seed, streams, audit, typed)
    if websocket:
        audit.ws_deals += audit.deals - deals_before
        audit.ws_lines += sum(len(client.lines) for seat, client in clients.items()
                              if seat in websocket)
    audit.matches += 1
    audit.reclaims += sum(1 for line in clients[Seat.N].lines if b'"hello_ok"' in line) - 1
    if audit.sample is None and not bots:
        audit.sample = (seed, streams, typed)


async def watchdog(progress: Callable[[], int], stall_seconds: float) -> None:
    """Fail if ``progress()`` stands still for ``stall_seconds``: a hang guard that does
    not depend on how fast the machine is (a loaded one is slow, not stuck)."""
    last = progress()
    while True:
        await trio.sleep(stall_seconds)
        now = progress()
        if now == last:
            raise AssertionError(f"no line received for {stall_seconds:g} s (after {now}): "
                                 "the server or a client is stuck")
        last = now


@pytest.mark.slow
@pytest.mark.usefixtures("quick_expert_pair")
@pytest.mark.parametrize("part", range(PARTS))
async def test_no_seat_ever_sees_another_seats_unplayed_cards(part: int) -> None:
    wanted = DEALS_WANTED // PARTS
    audit = Audit()
    config = ServerConfig(host="127.0.0.1", port=0, web_port=0, rate_per_second=1000.0,
                          rate_burst=1000.0)
    AuditClient.received = 0
    async with trio.open_nursery() as server:
        web: list[int] = []
        port = await server.start(partial(serve, config, web_started=web.append))
        # Instead of a deadline for the whole audit, which a busy machine can miss:
        # the traffic must keep moving.
        server.start_soon(watchdog, lambda: AuditClient.received, STALL_SECONDS)
        seeds = iter(range(1 + part * SEEDS_PER_PART, (part + 1) * SEEDS_PER_PART))

        async def worker() -> None:
            while audit.deals < wanted:
                seed = next(seeds)
                # Every third table has two server-side bots (a seat each side).
                bots = (Seat.E, Seat.S) if seed % 3 == 0 else ()
                await play_match((port, web[0]), seed, bots, audit)

        async with trio.open_nursery() as workers:
            for _ in range(PARALLEL_TABLES):
                workers.start_soon(worker)
        server.cancel_scope.cancel()
    assert not audit.leaks, "\n".join(audit.leaks[:10])
    assert not audit.partner_leaks, "\n".join(audit.partner_leaks[:10])
    # The cheats were made: each human seat's question of every deal reached its target.
    assert audit.typed_seen >= audit.deals * 2
    assert audit.deals >= wanted
    # The audit really looked at traffic: tens of lines per deal and connection, over
    # the WebSocket too (one table in WEB_EVERY, at least one seat a table).
    assert audit.lines > audit.deals * 4 * 32
    assert audit.ws_deals >= audit.deals // (2 * WEB_EVERY)
    assert audit.ws_lines > audit.ws_deals * 32
    # Mid-deal snapshots were audited too: a late spectator and a reclaimed seat per table.
    assert audit.snapshots >= audit.matches and audit.reclaims >= audit.matches * 9 // 10
    # The expert figures of finished deals came during later deals, and were audited.
    assert audit.expert_costs >= audit.deals
    # Each human seat played every card from a your_turn that was checked card by card.
    assert audit.your_turns >= audit.deals * 2 * 8
    # Hints were asked and answered on tables that allow them, refused on the others.
    assert audit.hints >= audit.matches // 3 and audit.refused_hints >= audit.matches // 3
    assert audit.hints + audit.refused_hints == audit.matches
    print(f"audited {audit.deals} deals, {audit.matches} matches, {audit.lines} lines, "
          f"{audit.snapshots} mid-deal snapshots, {audit.reclaims} reclaims, "
          f"{audit.ws_lines} lines to WebSocket seats in {audit.ws_deals} deals, "
          f"{audit.your_turns} your_turn, {audit.hints} hints")

    # And it can fail: slip one unplayed card of E into a line N receives mid-deal.
    assert audit.sample is not None
    seed, streams, typed = audit.sample
    by_seat = {seat: lines for seat, lines in streams if seat is not None}
    north = list(by_seat[Seat.N])
    start = next(i for i, line in enumerate(north) if b'"deal_started"' in line)
    east_hand = next(msgspec.json.decode(line)["hand"] for line in by_seat[Seat.E]
                     if b'"deal_started"' in line)
    north.insert(start + 1, b'{"type":"turn","seat":"E","hint":"%s"}' % east_hand[0].encode())
    caught = Audit()
    check_match(seed, [(seat, north if seat is Seat.N else lines) for seat, lines in streams],
                caught, typed)
    assert len(caught.leaks) == 1 and east_hand[0] in caught.leaks[0]
    # The partner check too: one of N's markers in a line S receives.
    south = [*by_seat[Seat.S], b'{"type":"answer","question_text":"%s"}' % min(typed[Seat.N])]
    caught = Audit()
    check_partner_channel(seed, [(seat, south if seat is Seat.S else lines)
                                 for seat, lines in streams], typed, caught)
    assert len(caught.partner_leaks) == 1 and "S got" in caught.partner_leaks[0]
    # And the timing check: N's drop told to S in the middle of S's own turn.
    turn = next(i for i, line in enumerate(by_seat[Seat.S])
                if line.startswith(b'{"type":"turn","seat":"S"'))
    south = list(by_seat[Seat.S])
    south.insert(turn + 1, b'{"type":"player_gone","seat":"N","seconds":120.0}')
    caught = Audit()
    check_partner_channel(seed, [(seat, south if seat is Seat.S else lines)
                                 for seat, lines in streams], typed, caught)
    assert len(caught.partner_leaks) == 1 and "mid-turn" in caught.partner_leaks[0]


def test_the_timing_check_allows_turn_boundaries_only() -> None:
    """The partner-channel rule on a made-up stream of S's: N's news right before N's
    ``turn``, right after N's ``played`` or right before ``deal_ended`` is fine; anywhere
    else it is a time N chose. A question N asked never reaches S during the deal."""
    def lines(*msgs: str) -> list[bytes]:
        return [b'{"type":"deal_started","deal":1}', *(m.encode() for m in msgs),
                b'{"type":"deal_ended"}']
    gone = '{"type":"player_gone","seat":"N","seconds":120.0}'
    back = '{"type":"player_back","seat":"N"}'
    ok = lines('{"type":"played","seat":"E","card":"2S"}', gone, '{"type":"turn","seat":"N"}',
               '{"type":"played","seat":"N","card":"3S"}', back,
               '{"type":"turn","seat":"E"}', gone)
    assert seat_timed_events(ok, "S") == []
    pulse = lines('{"type":"turn","seat":"W"}', gone, back, '{"type":"played","seat":"W"}')
    assert len(seat_timed_events(pulse, "S")) == 2
    asked = lines('{"type":"question_asked","question":"q1","seat":"E","asker":"N"}',
                  '{"type":"answer","question":"q1","seat":"E","text":"x"}')
    assert len(seat_timed_events(asked, "S")) == 2
    mine = lines('{"type":"question","id":"a","question":"q2","seat":"E","asker":"S",'
                 '"text":"?"}', '{"type":"answer","question":"q2","seat":"E","text":"x"}')
    assert seat_timed_events(mine, "S") == []


def test_card_pattern_finds_cards_anywhere() -> None:
    """The detector itself: cards in any field or prose, not inside longer words."""
    line = b'{"type":"x","hand":["7H","TS"],"text":"my 10C promised AS","w":"KSX","t":"a-QD"}'
    assert cards_named(line) == {"7H", "TS", "TC", "AS", "QD"}
    assert cards_named(b'{"type":"turn","seat":"S"}') == set()
    assert Card.parse("10C") == Card.parse("TC")


async def test_the_watchdog_spares_a_slow_run_and_fails_a_stuck_one(
        autojump_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    lines = 0

    async def slow() -> None:  # a line every 20 s: slow, but alive
        nonlocal lines
        while True:
            await trio.sleep(20)
            lines += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        with trio.move_on_after(600) as alive:
            await watchdog(lambda: lines, 30)
        nursery.cancel_scope.cancel()
    assert alive.cancelled_caught  # ten minutes of slow traffic, and no failure
    with pytest.raises(AssertionError, match="no line received for 30 s"):
        await watchdog(lambda: lines, 30)
