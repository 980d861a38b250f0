"""Every consumer of server messages accounts for every message type, and ``your_turn``
reaches the terminal client's screen: the prompt and the bell hang on it."""

from __future__ import annotations

import pytest
import trio
from jackal.client.botrunner import BOT_HANDLERS
from jackal.client.connection import ROUTES, also_an_event
from jackal.client.handlers import SERVER_MESSAGE_TYPES, Handlers
from jackal.client.mirror import MIRROR_HANDLERS
from jackal.client.session import SeatSession
from jackal.client.tui.events import SCREEN_HANDLERS, on_message
from jackal.client.tui.state import TuiState
from jackal.game.seats import SEATS, Seat
from jackal.protocol import messages as m
from jackal.protocol.requests import CreateTable

CONSUMERS: dict[str, Handlers[object]] = {
    "jackal bot": BOT_HANDLERS,  # type: ignore[dict-item]
    "connection": ROUTES,  # type: ignore[dict-item]
    "mirror": MIRROR_HANDLERS,  # type: ignore[dict-item]
    "screen": SCREEN_HANDLERS,  # type: ignore[dict-item]
}


@pytest.mark.parametrize("name", sorted(CONSUMERS))
def test_every_server_message_is_handled_or_ignored(name: str) -> None:
    table = CONSUMERS[name]
    assert len(SERVER_MESSAGE_TYPES) > 30  # the union was read, not an empty tuple
    missing = sorted(t.__name__ for t in table.unaccounted())
    assert not missing, f"{name} neither handles nor ignores {missing}"
    assert not table.strays(), f"{name} names types the server never sends"


def test_a_type_cannot_be_both_handled_and_ignored() -> None:
    with pytest.raises(ValueError, match="Turn"):
        Handlers({m.Turn: print}, ignored=[m.Turn])


def test_replies_that_carry_table_state_are_events_too() -> None:
    assert also_an_event(m.PauseState(seat=Seat.N, paused=False))
    assert not also_an_event(m.HelloOk(name="x"))


async def test_your_turn_prompts_and_rings_once_per_turn(server_port: int) -> None:
    """Through a real server, a seat session and the screen's handlers: each of our turns
    comes as one ``your_turn``, and the prompt and the bell come with it."""
    session = SeatSession("127.0.0.1", server_port, seat=Seat.S, create=CreateTable(target=1),
                          bots={s: "random" for s in SEATS if s is not Seat.S})
    state = TuiState()
    state.mirror = session.mirror
    turns = 0
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)
            async for event in session.events():
                state.bell.take()
                on_message(state, event, session.change)
                if isinstance(event, m.YourTurn):
                    turns += 1
                    assert event.seat is Seat.S and session.my_turn
                    assert state.notice.text.startswith("Your turn") and state.bell.take()
                    await session.play(sorted(session.mirror.hand)[0])
                    if turns == 3:
                        break
                else:
                    assert not state.bell.due, event
            await session.aclose()
    assert turns == 3
