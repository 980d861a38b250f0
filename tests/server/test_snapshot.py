"""The snapshot holds the evening: ``table_state`` carries the match so far, the last
deal's summary and the countdown between deals, the open questions each recipient may
know of (and no more), and the turn's clock, which a question on one's own turn stops
and a server restart starts again. Real servers, real sockets, the wire's bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.server.config import ServerConfig
from support.client import (
    SEATS,
    Msg,
    RawClient,
    alone_with_bots,
    greeted,
    open_table,
    play_out,
    sit,
    start_deal,
)
from support.server import QUIET, TIMEOUT, ServerProcess, running_server


def _no_countdown(ended: Msg) -> Msg:
    return {key: value for key, value in ended.items() if key != "next_deal_in"}


async def test_the_snapshot_carries_the_match_so_far_the_summary_and_the_countdown() -> None:
    config = ServerConfig(**QUIET, between_deals_seconds=600.0)
    async with running_server(config) as port:
        _lobby, human, table = await alone_with_bots(port, "N", "nora", target=100_000,
                                                     seed=11)
        ended_1 = (await _play_deal(human))
        assert 0 < ended_1["next_deal_in"] <= 600.0
        # A spectator who comes now sees the deal's summary, the match so far and the
        # countdown: what the player who never left saw.
        late = await greeted(port, "late")
        state = await late.request(type="spectate", table=table)
        assert state["status"] == "between_deals"
        assert _no_countdown(state["last_deal"]) == _no_countdown(ended_1)
        assert state["history"] == [_summary(ended_1, state["history"][0]["dealer"],
                                         state["history"][0])]
        assert 590.0 < state["next_deal_in"] <= 600.0
        assert "questions" not in state
        # Who is ready shows in the seats: nobody yet, then the player.
        assert not state["seats"][0]["ready"]
        # Deal 2, and its end: the history is the sum of the deals, oldest first.
        await human.request(type="ready")
        ended_2 = await _play_deal(human)
        synced = await human.request(type="sync")
        assert [entry["deal"] for entry in synced["history"]] == [1, 2]
        assert synced["history"][1] == _summary(ended_2, synced["history"][1]["dealer"],
                                                   synced["history"][1])
        assert synced["history"][1]["scores"] == ended_2["scores"]
        assert synced["history"][0]["dealer"] != synced["history"][1]["dealer"]
        assert _no_countdown(synced["last_deal"]) == _no_countdown(ended_2)
        # Once the next deal is on, no summary and no countdown: the deals stay.
        await human.request(type="ready")
        await human.wait_type("deal_started")
        playing = await human.request(type="sync")
        assert "last_deal" not in playing and "next_deal_in" not in playing
        assert len(playing["history"]) == 2


async def _play_deal(human: RawClient) -> Msg:
    await play_out(human, lambda msg: msg["type"] == "deal_ended", ready_between=False)
    return human.log[-1]


def _summary(ended: Msg, dealer: str, expert: Msg | None = None) -> dict[str, Any]:
    """The history entry ``ended`` makes; ``expert``: that entry, whose expert figure (a
    worker thread's, it may or may not be there yet) is taken as it is."""
    summary = {"deal": ended["deal"], "dealer": dealer, "penalty": ended["penalty"],
               "winner": ended["winner"], "victory_points": ended["victory_points"],
               "scores": ended["scores"], "information_cost": ended["information_cost"]}
    if expert is not None and "expert_cost" in expert:
        summary["expert_cost"] = expert["expert_cost"]
    return summary


async def _four(port: int, **options: Any) -> tuple[dict[str, RawClient], RawClient, str]:
    """Four people at a new table, a spectator, and the first deal dealt."""
    _lobby, table = await open_table(port, **options)
    people = {seat: await sit(port, table, seat) for seat in SEATS}
    watcher = await greeted(port, "watcher")
    await watcher.request(type="spectate", table=table)
    await start_deal(list(people.values()))
    return people, watcher, table


async def test_open_questions_reach_each_snapshot_as_the_events_did_and_no_further() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        people, watcher, _table = await _four(port, seed=5, turn_seconds=60)
        first = (await people["N"].wait_type("turn"))["seat"]
        asker = people[first]
        asked_seat = SEATS[(SEATS.index(first) + 1) % 4]  # an opponent
        partner_seat = SEATS[(SEATS.index(first) + 2) % 4]
        other_seat = SEATS[(SEATS.index(first) + 3) % 4]  # the asked seat's partner
        secret = "is your 7 from 77?"
        receipt = await asker.request(type="ask", seat=asked_seat, index=None, text=secret)
        qid = receipt["question"]
        await people[asked_seat].wait_type("question")

        def listed(state: Msg) -> list[Msg]:
            return list(state.get("questions", []))

        states = {seat: await people[seat].request(type="sync") for seat in SEATS}
        seen = {"question": qid, "seat": asked_seat, "asker": first, "text": secret}
        assert listed(states[first]) == [seen]
        assert listed(states[asked_seat]) == [seen]
        # The asker's partner learns nothing of it during the deal (not even that it was
        # asked: when is the asker's choice), nor does the asked seat's partner.
        assert "questions" not in states[partner_seat]
        assert "questions" not in states[other_seat]
        watched = await watcher.request(type="sync")
        assert "questions" not in watched
        for outsider in (states[partner_seat], states[other_seat], watched):
            assert secret not in str(outsider)
        # A client restarted by the asked player: its question is still there to answer.
        await people[asked_seat].aclose()
        back = await RawClient.connect(port, "back")
        await back.request(type="hello", name="back", token=people[asked_seat].token)
        reclaimed = await back.wait_type("table_state")
        assert listed(reclaimed) == [seen]
        answer = await back.request(type="answer", question=qid, text="yes")
        assert answer["type"] == "ok", answer
        after = await asker.request(type="sync")
        assert "questions" not in after


async def test_a_question_on_ones_own_turn_stops_ones_clock_until_the_answer() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        people, watcher, _table = await _four(port, seed=5, turn_seconds=60)
        first = (await people["N"].wait_type("turn"))["seat"]
        asker = people[first]
        asked_seat = SEATS[(SEATS.index(first) + 1) % 4]
        await asker.request(type="ask", seat=asked_seat, text="why?")
        stopped = await watcher.wait_type("clock")
        assert stopped["seat"] == first and stopped["stopped"] is True
        assert 0 < stopped["seconds"] <= 62.0
        # Player and spectator see the same stopped seconds, and they do not run.
        await trio.sleep(0.3)
        mine = await asker.request(type="sync")
        theirs = await watcher.request(type="sync")
        assert mine["clock_stopped"] is True and theirs["clock_stopped"] is True
        assert mine["turn_left"] == theirs["turn_left"] == stopped["seconds"]
        question = await people[asked_seat].wait_type("question")
        await people[asked_seat].request(type="answer", question=question["question"],
                                         text="because")
        running = await watcher.wait_type("clock")
        assert running["stopped"] is False and running["seconds"] == stopped["seconds"]
        synced = await watcher.request(type="sync")
        assert "clock_stopped" not in synced and synced["turn_left"] <= stopped["seconds"]
        # Running again: the spectator's seconds are the player's (read one after the other).
        player = await asker.request(type="sync")
        assert 0 <= synced["turn_left"] - player["turn_left"] < 1.0


@pytest.mark.subprocess
async def test_a_server_killed_mid_turn_runs_the_clock_again_and_the_substitute_plays(
        tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0")
    try:
        lobby, table = await open_table(server.port, seed=21, target=100_000,
                                        turn_seconds=5)
        north = await sit(server.port, table, "N", "nora")
        for seat in "ESW":
            await lobby.request(type="add_bot", table=table, seat=seat)
        await start_deal([north])
        await north.recv_until(lambda msg: msg["type"] == "turn" and msg["seat"] == "N")
        server.kill()
        server.start()
        # The player comes back at once, and sees a clock running again, in full.
        back = await RawClient.connect(server.port, "back")
        await back.request(type="hello", name="nora", token=north.token)
        state = await back.wait_type("table_state")
        assert state["turn"] == "N" and 3.0 < state["turn_left"] <= 5.0
        # Nobody plays: when the clock runs out, the substitute plays the card (the seat
        # is held for two minutes: it is the clock, not the hold).
        played = await back.recv_until(lambda msg: msg["type"] == "played", timeout=TIMEOUT)
        assert (played[-1]["seat"], played[-1]["by"]) == ("N", "clock")
        restored = [e["event"] for e in server.record_events()].index("restored")
        assert any(e["event"] == "play" and e.get("by") == "clock"
                   for e in server.record_events()[restored:])
    finally:
        server.stop()



async def test_this_deals_answers_reach_a_restarted_client_and_not_its_partner() -> None:
    """Issue 32 item 6: a client restarted mid-deal gets the answers to its questions
    (and the questions it answered) back in the snapshot, with how many it may still
    ask; its partner's snapshot holds none of it."""
    async with running_server(ServerConfig(**QUIET)) as port:
        people, _watcher, _table = await _four(port, seed=5)
        first = (await people["N"].wait_type("turn"))["seat"]
        asked_seat = SEATS[(SEATS.index(first) + 1) % 4]
        partner_seat = SEATS[(SEATS.index(first) + 2) % 4]
        asker = people[first]
        qid = (await asker.request(type="ask", seat=asked_seat, text="why?"))["question"]
        await people[asked_seat].wait_type("question")
        reply = await people[asked_seat].request(type="answer", question=qid, text="because")
        assert reply["type"] == "ok", reply
        await asker.wait_type("answer")
        await asker.aclose()
        back = await RawClient.connect(port, "back")
        await back.request(type="hello", name="back", token=asker.token)
        state = await back.wait_type("table_state")
        assert state["answered"] == [{"question": qid, "asker": first, "seat": asked_seat,
                                      "text": "why?", "answer": "because"}]
        assert state["questions_left"] == 2
        answered = (await people[asked_seat].request(type="sync"))["answered"]
        assert [q["answer"] for q in answered] == ["because"]
        partner = await people[partner_seat].request(type="sync")
        assert "answered" not in partner and "because" not in str(partner)
        assert partner["questions_left"] == 3
