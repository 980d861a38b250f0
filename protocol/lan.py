"""How a server is found on the LAN: the DNS-SD service type every Jackal server
announces, and its TXT record, written by the server's announcement and read by
``jackal play --lan`` (one format for both sides). DNS-SD TXT values are text, so each
key is: ``protocol``, ``name``, ``password`` (``yes``/``no``), ``web`` and ``tables``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["NAME_MAX", "SERVICE_TYPE", "LanRecord"]

#: The DNS-SD service type a Jackal server announces and ``jackal play --lan`` browses.
SERVICE_TYPE = "_jackal._tcp.local."
#: The most characters of a server's name a record carries and a list shows (a TXT
#: string holds 255 bytes; a list line stays one line).
NAME_MAX = 40


@dataclass(frozen=True)
class LanRecord:
    """A server's TXT record: the protocol it speaks, its name, whether ``hello`` needs a
    password, its web page's port (when it serves one) and its table count (None: a key
    left out, or a number that is not one)."""

    name: str | None
    protocol: int | None = None
    password: bool = False
    web_port: int | None = None
    tables: int | None = None

    def encode(self) -> dict[str, str]:
        """The TXT record's keys and values (a key whose value is None is left out; the
        name cut to :data:`NAME_MAX`)."""
        name = None if self.name is None else self.name[:NAME_MAX]
        txt = {"protocol": _text(self.protocol), "name": name,
               "password": "yes" if self.password else "no",
               "web": _text(self.web_port), "tables": _text(self.tables)}
        return {key: value for key, value in txt.items() if value is not None}

    @classmethod
    def decode(cls, txt: Mapping[str, str]) -> LanRecord:
        """The record as a browse read it (whatever the network said: a value that does
        not parse counts as left out)."""
        return cls(name=txt.get("name") or None, protocol=_number(txt.get("protocol")),
                   password=txt.get("password") == "yes", web_port=_number(txt.get("web")),
                   tables=_number(txt.get("tables")))


def _text(number: int | None) -> str | None:
    return None if number is None else str(number)


def _number(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None
