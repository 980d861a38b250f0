"""Finding Jackal servers on the LAN: browse multicast DNS for the service type servers
announce (``_jackal._tcp.local.``) for a moment and read what each says of itself in its
TXT record (:class:`FoundServer`). Blocking, with zeroconf's own thread doing the network
work: call it before an event loop starts, or from a worker thread."""

from __future__ import annotations

import ipaddress
import threading
import time
from dataclasses import dataclass

from zeroconf import DNSQuestionType, IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

from ..protocol.lan import NAME_MAX, SERVICE_TYPE, LanRecord
from ..protocol.messages import PROTOCOL_VERSION
from ..protocol.text import escape_text
from .seat_store import server_key

__all__ = ["BROWSE_SECONDS", "FoundServer", "browse"]

#: How long ``jackal play --lan`` listens for answers.
BROWSE_SECONDS = 2.0


@dataclass(frozen=True)
class FoundServer:
    """One server found: where to connect and what its TXT record says (``None`` for a
    key a server left out)."""

    name: str
    host: str
    port: int
    web_port: int | None = None
    protocol: int | None = None
    password: bool = False
    tables: int | None = None

    @property
    def address(self) -> str:
        """``HOST:PORT`` as ``--server`` takes it (``[v6]:PORT`` for IPv6)."""
        return server_key(self.host, self.port)

    @property
    def web_url(self) -> str | None:
        """The web page's address, when the server serves one."""
        if self.web_port is None:
            return None
        return f"http://{server_key(self.host, self.web_port)}/"

    def describe(self) -> str:
        """One line for a list: name, address, web page, tables, password, and a protocol
        other than this client's (its hello would be refused). The name is whatever the
        network said: escaped and cut, so it cannot drive the terminal."""
        parts = [escape_text(self.name[:NAME_MAX]), self.address]
        if self.protocol is not None and self.protocol != PROTOCOL_VERSION:
            parts.append(f"protocol {self.protocol}, not this client's {PROTOCOL_VERSION}")
        if self.web_url:
            parts.append(f"web {self.web_url}")
        if self.tables is not None:
            parts.append(f"{self.tables} table{'' if self.tables == 1 else 's'}")
        if self.password:
            parts.append("password")
        return "  ".join(parts)


def _pick_address(addresses: list[str]) -> str | None:
    """The address to connect to: the first IPv4 address off loopback, else IPv4 loopback
    (a server on this machine only), else the first IPv6 one; link-local IPv6 needs a scope
    the record does not carry, so it comes last."""
    def rank(text: str) -> tuple[int, int]:
        address = ipaddress.ip_address(text)
        return (address.version, int(address.is_loopback) + 2 * int(address.is_link_local))
    return min(addresses, key=rank) if addresses else None


def _decode(properties: dict[bytes, bytes | None]) -> dict[str, str]:
    return {key.decode("utf-8", "replace"): (value or b"").decode("utf-8", "replace")
            for key, value in properties.items()}


def browse(seconds: float = BROWSE_SECONDS) -> list[FoundServer]:
    """The Jackal servers that answer within ``seconds``, by name (a server found but not
    resolved in that time, or with no address, is left out). Raises OSError when this
    machine cannot do multicast DNS at all (no network)."""
    names: list[str] = []
    lock = threading.Lock()

    def seen(zeroconf: Zeroconf, service_type: str, name: str,  # noqa: ARG001
             state_change: ServiceStateChange) -> None:
        with lock:
            if state_change is ServiceStateChange.Removed:
                names[:] = [known for known in names if known != name]
            elif name not in names:
                names.append(name)

    # IPv4 only: servers announce their IPv4 addresses (an IPv6 browse also fails
    # noisily on loopback), and a LAN evening is IPv4 in practice.
    zeroconf = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        # Answers asked by multicast (QM), not unicast (QU): on a machine that also runs a
        # server, a unicast answer to port 5353 may be handed to the server's socket (they
        # share the port) and never reach us.
        browser = ServiceBrowser(zeroconf, SERVICE_TYPE, handlers=[seen],
                                 question_type=DNSQuestionType.QM)
        time.sleep(seconds)
        browser.cancel()
        with lock:
            pending = list(names)
        found = []
        for name in pending:
            # Usually answered from the cache the browse filled; else asked once more.
            info = zeroconf.get_service_info(SERVICE_TYPE, name, timeout=1000,
                                             question_type=DNSQuestionType.QM)
            if info is None or info.port is None:
                continue
            host = _pick_address(info.parsed_addresses())
            if host is None:
                continue
            record = LanRecord.decode(_decode(info.properties))
            found.append(FoundServer(
                name=record.name or name.removesuffix("." + SERVICE_TYPE), host=host,
                port=info.port, web_port=record.web_port, protocol=record.protocol,
                password=record.password, tables=record.tables))
    finally:
        zeroconf.close()
    return sorted(found, key=lambda server: (server.name.casefold(), server.address))
