"""The table state machine on its own (no sockets): random action sequences.

Hypothesis drives random actions from six participants (some seated, some watching)
and checks, after every step: a refused action changed nothing at all (every
recipient's snapshot is identical), every request got exactly one direct reply, and no
message to anyone names a card another seat still holds.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.game.cards import Card
from jackal.game.errors import Refusal
from jackal.game.seats import SEATS, Seat
from jackal.protocol.codec import encode
from jackal.protocol.messages import ServerMessage
from jackal.server import views
from jackal.server.pause import GRID_SECONDS
from jackal.server.snapshot import bot_turn, bot_view, shown_deal, table_snapshot
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from support.peer import Peer


def _without_countdowns(state: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without the seconds that count down: a refused request may tell the
    table what time it is, and time passing is not a change."""
    state.pop("next_deal_in", None)
    state.pop("turn_left", None)
    if isinstance(state.get("last_deal"), dict):
        state["last_deal"].pop("next_deal_in", None)
    return state


def _snapshot(table: Table) -> list[Any]:
    snap = table_snapshot(table)
    shots: list[Any] = [_without_countdowns(json.loads(encode(views.table_state(snap, seat))))
             for seat in (*SEATS, None)]
    shots.append(sorted(table.disclosure.questions))
    shots.append([(s.kind, s.name, s.token_hash, s.ready, s.held_until, s.takeover,
                   s.peer) for s in table.seats.values()])
    shots.append(list(table.spectators))
    return shots


def _card_strings(obj: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(obj, str) and len(obj) == 2 and obj[1] in "SHDC" and obj[0] in \
            "A23456789TJQK":
        found.add(obj)
    elif isinstance(obj, list):
        for item in obj:
            found |= _card_strings(item)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key != "hand":
                found |= _card_strings(value)
    return found


ACTIONS = st.lists(
    st.tuples(
        st.integers(0, 5),  # who
        st.sampled_from(["join", "join_any", "spectate", "leave", "ready", "play_bad",
                         "add_bot", "disconnect", "conventions", "explain", "ask", "answer",
                         "tick", "chat", "pause", "resume", *["play"] * 8,
                         *["bot_play"] * 3]),
        st.integers(0, 3),  # a seat
        st.integers(0, 12),  # a card choice / index
    ),
    min_size=50,
    max_size=300,
)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=ACTIONS, seed=st.integers(0, 2**32), seated=st.booleans())
def test_random_actions_keep_the_table_consistent(actions: list[tuple[int, str, int, int]],
                                                  seed: int, seated: bool) -> None:
    peers = [Peer(f"p{i}") for i in range(6)]
    # Made by p5's connection, as the hub makes it: p5 may add bots without a seat.
    table = Table("t1", TableOptions(name="fuzz", target=60, seed=seed, hold_seconds=5,
                                     between_deals_seconds=3), creator=peers[5])
    now = 0.0
    if seated:
        # Half the examples start mid-match: three humans and a bot, all ready.
        for i in range(3):
            table.join(peers[i], peers[i].name, SEATS[i])
        table.add_bot(peers[5], Seat.W, "random")
        for i in range(3):
            table.ready(peers[i])
        assert table.status == "playing"
    for step, (who, action, seat_i, pick) in enumerate(actions):
        now += 1.0
        if table.pausing.due_at is not None and table.pausing.due_at <= now:
            # The table's task applies votes that wait (a drop's, a leave's) at their
            # grid time.
            for target, msg in table.tick(table.pausing.due_at):
                target.deliver(msg)
        if seated and step % 5:
            # Seated examples are mostly play, so many deals get finished; every fifth
            # step is a random action that may disturb the match.
            turn = bot_turn(table)
            action, pick = ("bot_play", pick) if turn is not None else ("play", pick | 1)
        peer = peers[who]
        seat = SEATS[seat_i]
        before = _snapshot(table)
        counts = [len(p.got) for p in peers]
        rid = f"r{step}"
        out: list[tuple[Any, ServerMessage]] = []
        try:
            if action == "join":
                out = table.join(peer, peer.name, seat, rid)[1]
            elif action == "join_any":
                out = table.join(peer, peer.name, None, rid)[1]
            elif action == "spectate":
                out = table.spectate(peer, rid)
            elif action == "leave":
                out = table.leave(peer, rid, now)
            elif action == "ready":
                out = table.ready(peer, rid)
            elif action in ("play", "play_bad"):
                deal = table.match.deal
                if action == "play" and deal is not None and deal.turn is not None:
                    mover = table.seats[deal.turn].peer
                    if isinstance(mover, Peer) and pick % 4:
                        # Mostly let the seat to move play, so deals get played out.
                        peer, who = mover, peers.index(mover)
                mine = table.seating.seat_of(peer)
                deal = table.match.deal
                hand = deal.hand(mine) if deal is not None and mine is not None else ()
                if action == "play" and hand:
                    card = hand[pick % len(hand)]
                else:  # text that is no card never gets here: the codec refuses it
                    card = Card.parse(["AS", "KH", "10C"][pick % 3])
                out = table.play(peer, card, now, rid)
            elif action == "add_bot":
                out = table.add_bot(peer, seat, "random" if pick % 3 else "nope", rid)
            elif action == "disconnect":
                out = table.disconnect(peer, now)
                rid = ""
            elif action == "conventions":
                spec = ["none", "beginner", "bogus"][pick % 3]
                out = table.set_conventions(peer, spec, rid)
            elif action == "explain":
                table.disclosure.explain(shown_deal(table), table.deal_conventions, seat,
                                         pick % 8 + 1)
                rid = ""
            elif action == "ask":
                out = table.ask(peer, seat, "why?", None, rid)
            elif action == "answer":
                out = table.answer(peer, f"q{pick}", "because", rid)
            elif action == "chat":
                out = table.chat.say(table.status, peer, peer.name, "hello", rid)
                # A seat never talks during a deal (partners talk only through cards).
                assert table.seating.seat_of(peer) is None or table.status != "playing"
            elif action in ("pause", "resume"):
                vote = table.pause if action == "pause" else table.end_pause
                out = vote(peer, now, rid)
                # A vote takes effect (and is answered) at the next grid time: go there.
                due = table.pausing.due_at
                assert due is not None and now < due <= now + GRID_SECONDS
                now = due
                out += table.tick(now)
            elif action == "tick":
                now += 10.0
                out = table.tick(now)
                rid = ""
            elif action == "bot_play":
                turn = bot_turn(table)
                if turn is not None:
                    hand = bot_view(table, turn).hand
                    out = table.bot_play(turn, hand[pick % len(hand)], now)
                rid = ""
        except Refusal as exc:  # the table's or the engine's
            # Refused: nothing changed and nobody was told anything.
            assert exc.code and exc.message
            assert _snapshot(table) == before, (action, exc)
            assert [len(p.got) for p in peers] == counts
            continue
        for target, msg in out:
            target.deliver(msg)
        if rid:
            # Exactly one direct reply for the requester (the rest are events).
            replies = [m for m in peer.got[counts[who]:] if getattr(m, "id", None) == rid]
            assert len(replies) == 1, (action, peer.got[counts[who]:])
        # No message names a card that some other seat still holds.
        deal = table.match.deal
        for i, p in enumerate(peers):
            mine = table.seating.seat_of(p)
            for msg in p.got[counts[i]:]:
                # Spectators' chat never reaches a seat.
                assert mine is None or getattr(msg, "channel", None) != "spectators", msg
                named = _card_strings(msg_to_obj(msg))
                if deal is None:
                    continue
                for other in SEATS:
                    if other is mine:
                        continue
                    hidden = {str(c) for c in deal.hand(other)}
                    assert not named & hidden, (p, msg, other)
                own_hand = getattr(msg, "hand", None)
                if own_hand is not None:
                    assert mine is not None
                    assert set(own_hand) <= set(deal.dealt_hand(mine))
    # The status always matches the match's own state.
    if table.match.is_over:
        assert table.status == "over"
    if table.status == "playing":
        assert table.match.deal is not None


def msg_to_obj(msg: ServerMessage) -> Any:
    return json.loads(encode(msg))


def test_seat_is_an_enum_on_the_wire() -> None:
    table = Table("t1", TableOptions(name="x", target=10, seed=1))
    peer = Peer("a")
    _, out = table.join(peer, "a", Seat.S, 1)
    for target, msg in out:
        target.deliver(msg)
    joined = json.loads(encode(peer.got[0]))
    assert joined["seat"] == "S" and len(joined["token"]) >= 43
