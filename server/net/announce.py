"""The server's announcement on the LAN: a DNS-SD service (``_jackal._tcp.local.``) over
multicast DNS, with the TCP port and, in its TXT record, the web port, the protocol version,
the server's name, whether a password is needed and how many tables are open. zeroconf runs
its own thread; every call into it here goes through a trio worker thread, so it never
blocks the server's loop, and a network without multicast costs one warning, not the server."""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ifaddr
import trio
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf

from ...protocol.lan import SERVICE_TYPE, LanRecord
from ...protocol.messages import PROTOCOL_VERSION

__all__ = ["Announcement", "announce", "default_name", "loopback_host",
           "txt_record"]

log = logging.getLogger("jackal.server")

#: How often the table count in the TXT record is looked at (and re-announced if changed).
TABLES_EVERY = 5.0


@dataclass(frozen=True)
class Announcement:
    """What the server says about itself: the address it listens on (``host``), its ports,
    its name and whether ``hello`` needs a password."""

    host: str
    port: int
    web_port: int | None
    name: str
    password: bool


def default_name() -> str:
    """The name a server is announced under unless given: ``Jackal on HOSTNAME``."""
    return f"Jackal on {_short_hostname() or 'this machine'}"


def txt_record(what: Announcement, tables: int | None) -> dict[str, str]:
    """The TXT record of ``what`` with ``tables`` open (see :class:`...protocol.lan.LanRecord`)."""
    return LanRecord(name=what.name, protocol=PROTOCOL_VERSION, password=what.password,
                     web_port=what.web_port, tables=tables).encode()


def _multicast(adapter: ifaddr.Adapter) -> bool:
    """The interface carries multicast (Linux says so in its flags; elsewhere, assume it
    does). Loopback usually does not, until ``ip link set lo multicast on``."""
    try:
        flags = Path(f"/sys/class/net/{adapter.name}/flags").read_text()
    except OSError:
        return True
    return bool(int(flags, 16) & _IFF_MULTICAST)


#: The interface flag that says it carries multicast (linux/if.h).
_IFF_MULTICAST = 0x1000
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _addresses(host: str) -> tuple[list[Address], list[str] | InterfaceChoice, IPVersion]:
    """The addresses to announce, the interfaces to announce them on, the IP version.

    A server on every address (``0.0.0.0``, ``::``) is announced on every interface with
    this machine's addresses of that family, loopback left out unless it is all there is
    (a client on the LAN must not be sent to its own 127.0.0.1). A server on one address
    is announced with that address on that address's interface only: ``--host 127.0.0.1``
    is found by browsers on this machine (where loopback carries multicast), never the LAN.
    Only interfaces that carry multicast count; with none, OSError says so.
    """
    everywhere = host in ("", "0.0.0.0", "::")
    if everywhere:
        wanted: Address | None = None
        family = 6 if host == "::" else 4
    else:
        try:
            wanted = ipaddress.ip_address(host)
        except ValueError:  # a host name: the address it stands for (listened on as such)
            wanted = ipaddress.ip_address(socket.getaddrinfo(host, None)[0][4][0])
        family = wanted.version
    found: list[Address] = []
    silent: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ipaddress.ip_address(ip.ip if isinstance(ip.ip, str) else ip.ip[0])
            if address.version != family or address.is_link_local or (
                    wanted is not None and address != wanted):
                continue
            if _multicast(adapter):
                found.append(address)
            else:
                silent.append(adapter.name)
    if not found:
        raise OSError(f"no interface for --host {host or '0.0.0.0'} carries multicast"
                      + (f" ({', '.join(sorted(set(silent)))} does not)" if silent else ""))
    outside = [a for a in found if not a.is_loopback]
    version = IPVersion.V6Only if family == 6 else IPVersion.V4Only
    if everywhere or family == 6:
        return outside or found, InterfaceChoice.All, version
    return found, [str(a) for a in found], version


def loopback_host(host: str) -> bool:
    """``host`` is a loopback address or name (reachable from this machine only)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _short_hostname() -> str:
    """This machine's name without its domain (empty if it has none)."""
    return socket.gethostname().split(".")[0]


class _Announcer:
    """One zeroconf instance and its service; every method blocks (run it in a thread)."""

    def __init__(self, what: Announcement) -> None:
        self.what = what
        self.zeroconf: Zeroconf | None = None
        self.info: ServiceInfo | None = None

    def register(self, tables: int | None) -> str:
        addresses, interfaces, version = _addresses(self.what.host)
        label = _short_hostname() or "jackal"
        self.info = ServiceInfo(
            SERVICE_TYPE, f"{_label(self.what.name)}.{SERVICE_TYPE}", port=self.what.port,
            addresses=[a.packed for a in addresses], server=f"{_label(label)}.local.",
            properties=txt_record(self.what, tables))
        self.zeroconf = Zeroconf(interfaces=interfaces, ip_version=version)
        # Two servers with one name (two on this machine): the second is renamed "... (2)".
        self.zeroconf.register_service(self.info, allow_name_change=True)
        return ", ".join(str(a) for a in addresses)

    def update(self, tables: int) -> None:
        assert self.zeroconf is not None and self.info is not None
        self.info = ServiceInfo(
            SERVICE_TYPE, self.info.name, port=self.info.port,
            addresses=self.info.addresses, server=self.info.server,
            properties=txt_record(self.what, tables))
        self.zeroconf.update_service(self.info)

    def close(self) -> None:
        if self.zeroconf is not None:
            # Sends the goodbye (a zero TTL), so browsers drop the server at once.
            self.zeroconf.close()
            self.zeroconf = None


def _label(text: str) -> str:
    """A DNS label: at most 63 bytes of UTF-8, no dots (a dot would split the name), no
    control characters (zeroconf refuses them; the TXT record keeps the name as given)."""
    cleaned = "".join(" " if c == "." or not c.isprintable() else c for c in text)
    cleaned = " ".join(cleaned.split()) or "Jackal"
    while len(cleaned.encode()) > 63:
        cleaned = cleaned[:-1]
    return cleaned


async def announce(what: Announcement, tables: Callable[[], int] | None = None) -> None:
    """Announce ``what`` on the LAN until cancelled, then withdraw it (shielded, so a
    stopping server still says goodbye). ``tables``: the number of open tables, put in the
    TXT record and re-announced when it changes. A failure (no multicast, no address, no
    network at all) is logged once as a warning; the server serves on, unannounced."""
    announcer = _Announcer(what)
    count = tables() if tables is not None else None
    try:
        try:
            where = await trio.to_thread.run_sync(announcer.register, count)
        except Exception as exc:  # zeroconf's own errors and OSError alike: serve on
            # A loopback server (jackal serve's default) serves no LAN anyway: no warning
            # at every start because its loopback, as usual, carries no multicast.
            say = log.info if loopback_host(what.host) else log.warning
            say("not announced on the LAN: %s", exc or type(exc).__name__)
            return
        log.info("announced %s as %r (%s) at %s",
                 "to this machine only" if where.startswith(("127.", "::1")) else "on the LAN",
                 what.name, SERVICE_TYPE, where)
        while True:
            await trio.sleep(TABLES_EVERY)
            if tables is not None and tables() != count:
                count = tables()
                try:
                    await trio.to_thread.run_sync(announcer.update, count)
                except Exception as exc:  # the network went away: the next look may work
                    log.debug("announcement not updated: %s", exc)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(announcer.close)
            if announcer.info is not None:
                log.info("announcement withdrawn")
