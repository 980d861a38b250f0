"""The LAN announcement's TXT record: what the server writes, the browse reads back, and
what the network may say instead (anything) reads as keys left out."""

from __future__ import annotations

from jackal.protocol.lan import NAME_MAX, LanRecord


def test_a_record_reads_back_as_it_was_written() -> None:
    full = LanRecord(name="Friday", protocol=1, password=True, web_port=8080, tables=3)
    assert LanRecord.decode(full.encode()) == full
    bare = LanRecord(name="x", protocol=1)
    assert bare.encode() == {"protocol": "1", "name": "x", "password": "no"}
    assert LanRecord.decode(bare.encode()) == bare


def test_what_the_network_may_say_instead_reads_as_left_out() -> None:
    odd = LanRecord.decode({"name": "", "protocol": "one", "password": "YES",
                            "web": "-1", "tables": "1e3", "extra": "ignored"})
    assert odd == LanRecord(name=None)


def test_a_long_name_is_announced_cut_to_what_a_list_shows() -> None:
    long = LanRecord(name="n" * 300, protocol=1)
    assert long.encode()["name"] == "n" * NAME_MAX
    assert len("=".join(("name", long.encode()["name"])).encode()) <= 255  # one TXT string
