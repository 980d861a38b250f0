"""What the LAN announcement says: its TXT record's keys and its DNS label, made safe."""

from __future__ import annotations

from jackal.protocol.messages import PROTOCOL_VERSION
from jackal.server.net.announce import Announcement, _label, txt_record


def test_the_txt_record_says_ports_protocol_name_password_and_tables() -> None:
    what = Announcement("0.0.0.0", 7878, 8080, "Friday night", password=True)
    assert txt_record(what, 3) == {"protocol": str(PROTOCOL_VERSION), "name": "Friday night",
                                   "password": "yes", "web": "8080", "tables": "3"}
    # No web page, no password: the web key is left out, not sent empty.
    bare = Announcement("0.0.0.0", 7878, None, "x", password=False)
    assert txt_record(bare, None) == {"protocol": str(PROTOCOL_VERSION), "name": "x",
                                      "password": "no"}


def test_the_label_has_no_dot_no_control_character_and_fits_63_bytes() -> None:
    assert _label("jackal.lan\x1b[2J night\n") == "jackal lan [2J night"
    assert _label(" \t") == "Jackal"
    long = _label("ä" * 60)
    assert len(long.encode()) <= 63 and long == "ä" * 31
