"""A record's cards are typed ``Card`` as on the wire, written as the wire writes them, and
read back only in that spelling (a record holds what the server wrote, nothing looser)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from jackal.game.cards import Card
from jackal.game.seats import Seat
from jackal.server.records.events import (
    PlayEvent,
    RecordError,
    decode_event,
    encode_event,
    read_record,
)


def test_a_play_is_written_with_the_card_text_and_read_back_as_the_card() -> None:
    line = bytearray()
    encode_event(PlayEvent(seat=Seat.N, card=Card.parse("TS"), index=2, by="player", time=1.5),
                 line)
    assert bytes(line) == (b'{"event":"play","seat":"N","card":"TS","index":2,"by":"player",'
                           b'"time":1.5}\n')
    event = decode_event(bytes(line))
    assert isinstance(event, PlayEvent) and event.card is Card.parse("TS")


@pytest.mark.parametrize("card", ['"10S"', '"ts"', '"T\\u2660"', '"ZZ"', '""', "9", "null"])
def test_any_other_spelling_of_a_card_is_refused(card: str, tmp_path: Path) -> None:
    line = f'{{"event":"play","seat":"N","card":{card},"index":1,"time":1}}\n'.encode()
    with pytest.raises(msgspec.ValidationError, match=r"\$\.card"):
        decode_event(line)
    path = tmp_path / "m.jsonl"
    path.write_bytes(line)
    with pytest.raises(RecordError, match="line 1"):
        read_record(path)
