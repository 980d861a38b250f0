"""The LAN side of the commands: ``jackal play --lan`` lists the servers found by multicast
DNS and asks which one to join (a number, or an address typed by hand), and ``jackal serve``
prints its web page's address as a QR code for a phone's camera."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

import segno

from ..client.connection import parse_address
from ..client.discovery import BROWSE_SECONDS, FoundServer, browse

__all__ = ["choose", "find_server", "print_qr"]

NONE_FOUND = ("No Jackal server answered on the LAN. Is one started with "
              "'jackal serve --host 0.0.0.0' (announced unless --no-announce), and does "
              "the network carry multicast (some guest Wi-Fi does not)?")


def print_qr(url: str, out: TextIO) -> None:
    """``url`` as a QR code drawn with half blocks (two rows of modules per line), with
    its quiet zone, then the address in words for those who type it."""
    code = segno.make(url, error="m", micro=False)
    print(f"Open {url} on a phone on the same network, or scan:", file=out)
    code.terminal(out=out, compact=True, border=2)
    out.flush()


def choose(found: list[FoundServer], ask: Callable[[str], str] | None,
           say: Callable[[str], None]) -> FoundServer | None:
    """The server to join among ``found``: the one picked by number, or an address typed
    instead (the prompt takes both; a malformed one is asked again). ``ask`` (None: nobody
    to ask) returns a line typed; Enter picks the only server found, or quits. Without
    anyone to ask, a single server is joined and several are an error (said through
    ``say``). None: quit."""
    for number, server in enumerate(found, 1):
        say(f"  {number}. {server.describe()}")
    if ask is None:
        if len(found) == 1:
            say(f"Joining {found[0].address}.")
            return found[0]
        say(NONE_FOUND if not found else
            "Several servers were found: run jackal play --lan in a terminal to pick one, "
            "or name one with --server HOST:PORT.")
        return None
    if not found:
        say(NONE_FOUND)
    label = (f"Server number 1-{len(found)} or HOST:PORT" if found else "Server HOST:PORT")
    default = " (Enter: 1)" if len(found) == 1 else " (Enter: quit)"
    while True:
        try:
            answer = ask(f"{label}{default}: ").strip()
        except EOFError:
            return None
        if not answer:
            return found[0] if len(found) == 1 else None
        if answer.isdigit():
            if 1 <= int(answer) <= len(found):
                return found[int(answer) - 1]
            say(f"There is no server {answer} in the list.")
            continue
        if answer.lower() in ("q", "quit"):
            return None
        try:  # an address typed by hand, read as --server reads it
            host, port = parse_address(answer)
        except ValueError as exc:
            say(str(exc))
            continue
        return FoundServer(name=answer, host=host, port=port)


def find_server(ask: Callable[[str], str] | None, say: Callable[[str], None] = print,
                seconds: float = BROWSE_SECONDS) -> FoundServer | None:
    """Browse the LAN for ``seconds`` and let the user choose (see :func:`choose`)."""
    say(f"Looking for Jackal servers on the LAN ({seconds:g} s)...")
    try:
        found = browse(seconds)
    except OSError as exc:  # no network that can do multicast at all
        say(f"Cannot look for servers on the LAN: {exc}")
        found = []
    return choose(found, ask, say)
