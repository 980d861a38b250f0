"""Answering ``hello``: the protocol version, the server password, the name a person
goes by, and a seat token that reclaims a seat (docs/PROTOCOL.md, hello). Wrong
passwords and tokens are limited per connection and per address."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable

import trio

from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import PROTOCOL_VERSION, HelloOk
from ..protocol.requests import Hello
from .config import ServerConfig
from .lobby import Lobby
from .member import Member
from .names import NameBook
from .net.ratelimit import (
    AddressLimits,
    GuessLimits,
    rate_limited,
    retry_hint,
)
from .seating import Outbox
from .table import Table

__all__ = ["MAX_BAD_PASSWORDS", "Greeter"]

log = logging.getLogger("jackal.server")

#: Wrong passwords one connection may send before it is closed (guessing is abuse).
MAX_BAD_PASSWORDS = 5


class Greeter:
    """Answers each connection's one ``hello`` (the state machine refuses a second)."""

    def __init__(self, config: ServerConfig, lobby: Lobby, names: NameBook,
                 addresses: AddressLimits, acted: Callable[[Outbox, Table], None]
                 ) -> None:
        self.config = config
        self.lobby = lobby
        self.names = names
        self.addresses = addresses
        self._acted = acted

    def hello(self, member: Member, msg: Hello) -> None:
        """Greet ``member``'s connection: check the password and the name, or reclaim the
        seat its token proves."""
        session, host = member.session, member.host
        if msg.protocol is not None and msg.protocol != PROTOCOL_VERSION:
            raise ProtocolError(ErrorCode.INVALID_MESSAGE,
                                f"field 'protocol': this server speaks protocol "
                                f"{PROTOCOL_VERSION}, not {msg.protocol}")
        password = self.config.password
        now = trio.current_time()
        if password is not None:
            # Not checked at all while throttled: guessing from this address goes no
            # faster than this.
            if _throttled(member, msg, self.addresses.passwords, "passwords"):
                return
            if not _same(msg.password or "", password):
                self.addresses.passwords.wrong(host, now)
                member.bad_passwords += 1
                raise ProtocolError(ErrorCode.BAD_PASSWORD, "wrong or missing password",
                                    fatal=member.bad_passwords >= MAX_BAD_PASSWORDS)
        if msg.token is None:
            self.names.check(msg.name, host, self.lobby.held_names())
            session.conn.accept_hello(msg.name)
            self.names.take(session, msg.name, host)
            session.deliver(HelloOk(id=msg.id, name=msg.name))
            log.info("connection #%d %s is %r", session.number, session.address, msg.name)
            return
        # Not looked up at all while throttled: wrong tokens cost the server little.
        if _throttled(member, msg, self.addresses.tokens, "tokens"):
            return
        found = self.lobby.find_token(msg.token)
        if found is None:
            self.addresses.tokens.wrong(host, now)
            raise ProtocolError(ErrorCode.BAD_TOKEN, "that token reclaims no seat")
        table, seat = found
        table.check_reclaim(seat)  # before anything changes or is told
        # A reclaim does not rename the seat: the name is the one the table shows.
        name = table.seats[seat].name or msg.name
        session.conn.accept_hello(name)
        self.names.take(session, name, host)  # the seat's own name: no check
        session.deliver(HelloOk(id=msg.id, name=name, table=table.id, seat=seat))
        self._acted(self.lobby.reclaim(session, table, seat, trio.current_time(), host),
                    table)
        log.info("connection #%d %s reclaimed %s at table %s", session.number, session.address,
                 seat, table.id)


def _throttled(member: Member, msg: Hello, guesses: GuessLimits, what: str) -> bool:
    """Whether ``member``'s address must wait before its next guess is checked; if
    so it is told (``rate_limited``) and nothing more of it is read until then."""
    now = trio.current_time()
    session = member.session
    wait = guesses.wait(member.host, now)
    if not wait:
        return False
    session.deliver(rate_limited(msg.id, f"too many wrong {what} from your address", wait))
    session.pause(now + retry_hint(wait))
    return True


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())
