"""A chat line and a pause are one shape each, wherever they travel (``chat`` and
``table_state.chat``, ``pause_state`` and ``table_state.pause``, a record's ``chat``
line), and sharing them changed no byte of what is written: the keys keep their order."""

from __future__ import annotations

from jackal.game.seats import Seat
from jackal.protocol.codec import decode_server, encode
from jackal.protocol.messages import (
    ChatLine,
    ChatMessage,
    PauseInfo,
    PauseState,
    TableState,
)
from jackal.server.records.events import ChatEvent, decode_event, encode_event


def test_the_chat_event_and_the_record_line_are_the_table_state_line() -> None:
    assert issubclass(ChatMessage, ChatLine) and issubclass(ChatEvent, ChatLine)
    said = ChatMessage(channel="table", name="nora", text="good luck", seat=Seat.N, id=7)
    assert encode(said) == (b'{"type":"chat","channel":"table","name":"nora",'
                            b'"text":"good luck","seat":"N","id":7}\n')
    assert decode_server(encode(said)) == said
    recorded = bytearray()
    encode_event(ChatEvent(channel="spectators", name="sam", text="hi", time=3.5), recorded)
    assert bytes(recorded) == (b'{"event":"chat","channel":"spectators","name":"sam",'
                               b'"text":"hi","seat":null,"time":3.5}\n')
    assert decode_event(bytes(recorded)) == ChatEvent(channel="spectators", name="sam",
                                                      text="hi", time=3.5)


def test_pause_state_is_the_table_state_pause_with_who_changed_it() -> None:
    assert issubclass(PauseState, PauseInfo)
    news = PauseState(seat=Seat.E, paused=False, asked_by=Seat.N, agreed=[Seat.N], id="p1")
    assert encode(news) == (b'{"type":"pause_state","seat":"E","paused":false,'
                            b'"asked_by":"N","agreed":["N"],"id":"p1"}\n')
    assert decode_server(encode(news)) == news
    state = TableState(table="t1", name="x", target=1, status="playing", seats=[],
                       conventions={}, scores={}, deal=1, dealer=Seat.N, first=Seat.E,
                       turn=Seat.E, rows={},
                       chat=[ChatLine(channel="spectators", name="sam", text="hi")],
                       pause=PauseInfo(paused=True, asked_by=Seat.N, agreed=[Seat.N, Seat.E]))
    assert encode(state).endswith(b'"chat":[{"channel":"spectators","name":"sam","text":"hi"}],'
                                  b'"pause":{"paused":true,"asked_by":"N","agreed":["N","E"]}}\n')
