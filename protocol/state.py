"""The protocol state machine of one connection, both ends of it, in one table
(:data:`TRANSITIONS`): nothing else in the code base decides what a connection may do in
which state; the server session and the client connection only drive it. How the machine
works, and the table drawn out, is the comment below."""

# How the machine works
# ---------------------
# Each end of a connection is in one :class:`ConnState`. What may happen next is written
# down once, in :data:`TRANSITIONS`: for each :class:`Role` and state, a map from a
# *trigger* to its *outcome*.
#
# A trigger is one of:
#
# - a message type received from the peer (``Hello``, ``Pong``, ...), with the key
#   :data:`ANY_MESSAGE` standing for every message type the state does not name;
# - one of our own moves (:class:`Move`): we accepted the peer's ``hello``, the peer broke
#   the framing (so we must close), we close.
#
# An outcome is either the next state or a :class:`Refusal`: the received message breaks
# the protocol in this state, the peer is answered with the refusal's error code and the
# state stays as it is (the connection goes on, as every decoding error does).
#
# Two kinds of error come out of the machine, as in h11:
#
# - :class:`~jackal.protocol.errors.RemoteProtocolError`: the *peer* broke the protocol
#   (a refused message, a bad line). It carries the stable code to answer with.
# - :class:`~jackal.protocol.errors.LocalProtocolError`: *our own* code asked for a move the
#   table does not allow in this state (accepting a second hello, sending on a closed
#   connection). That is a bug here, never something to tell the peer.
#
# The server's end (role ``SERVER``, what a server knows of one client):
#
# =============  ===============================  ==========================================
# state          trigger                          outcome
# =============  ===============================  ==========================================
# AWAIT_HELLO    ``hello`` ``help`` ``ping``      stay (a ``hello`` is handed to the server,
#                ``pong``                         which checks password or token)
# AWAIT_HELLO    any other message                refused: ``hello_first``
# AWAIT_HELLO    ACCEPT_HELLO (ours)              OPEN
# OPEN           ``hello``                        refused: ``not_allowed`` (a second hello)
# OPEN           any other message                stay
# AWAIT_HELLO,   BROKEN_FRAMING (ours: a line     MUST_CLOSE: nothing more is read; the one
# OPEN           over the cap)                    message left to send is the error
# any but        CLOSE (ours)                     CLOSED
# CLOSED
# =============  ===============================  ==========================================
#
# The client's end (role ``CLIENT``): AWAIT_WELCOME -> OPEN on ``welcome`` (other messages
# pass meanwhile: a full server says ``server_full`` without greeting); ``server_shutdown``
# -> CLOSED; BROKEN_FRAMING -> MUST_CLOSE; CLOSE -> CLOSED.
#
# CLOSED has no entries: a closed connection receives nothing and sends nothing. Sending is
# allowed in every state but CLOSED (in MUST_CLOSE only the final error is sent).

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import msgspec

from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .messages import MessageId, ServerShutdown, Welcome
from .requests import Hello, Help, Ping, Pong

__all__ = ["ANY_MESSAGE", "TRANSITIONS", "ConnState", "Move", "Refusal", "Role", "StateMachine"]


class Role(Enum):
    """Which end of the connection a machine is."""

    SERVER = "server"
    CLIENT = "client"


class ConnState(Enum):
    AWAIT_HELLO = "await_hello"  # server: fresh connection, no accepted hello yet
    AWAIT_WELCOME = "await_welcome"  # client: the server has not greeted yet
    OPEN = "open"
    MUST_CLOSE = "must_close"  # the framing is lost: send the last error, then close
    CLOSED = "closed"


class Move(Enum):
    """Things our own side does to the connection."""

    ACCEPT_HELLO = "accept_hello"
    BROKEN_FRAMING = "broken_framing"
    CLOSE = "close"


class _AnyMessage:
    def __repr__(self) -> str:
        return "ANY_MESSAGE"


#: The trigger key for every message type a state does not name itself.
ANY_MESSAGE = _AnyMessage()


@dataclass(frozen=True)
class Refusal:
    """A received message the protocol does not allow here: answer ``code``, change nothing."""

    code: ErrorCode
    message: str


Trigger = type[msgspec.Struct] | Move | _AnyMessage
Outcome = ConnState | Refusal

_SAY_HELLO = Refusal(ErrorCode.HELLO_FIRST, 'say hello first: {"type":"hello","name":"you"}')
_CLOSING: dict[Trigger, Outcome] = {
    Move.BROKEN_FRAMING: ConnState.MUST_CLOSE,
    Move.CLOSE: ConnState.CLOSED,
}

#: role -> state -> trigger -> outcome. The comment at the top says how to read it.
TRANSITIONS: dict[Role, dict[ConnState, dict[Trigger, Outcome]]] = {
    Role.SERVER: {
        ConnState.AWAIT_HELLO: {
            Hello: ConnState.AWAIT_HELLO,
            Help: ConnState.AWAIT_HELLO,
            Ping: ConnState.AWAIT_HELLO,
            Pong: ConnState.AWAIT_HELLO,
            ANY_MESSAGE: _SAY_HELLO,
            Move.ACCEPT_HELLO: ConnState.OPEN,
            **_CLOSING,
        },
        ConnState.OPEN: {
            Hello: Refusal(ErrorCode.NOT_ALLOWED, "you already said hello"),
            ANY_MESSAGE: ConnState.OPEN,
            **_CLOSING,
        },
        ConnState.MUST_CLOSE: {Move.CLOSE: ConnState.CLOSED},
        ConnState.CLOSED: {},
    },
    Role.CLIENT: {
        ConnState.AWAIT_WELCOME: {
            Welcome: ConnState.OPEN,
            ServerShutdown: ConnState.CLOSED,
            ANY_MESSAGE: ConnState.AWAIT_WELCOME,
            **_CLOSING,
        },
        ConnState.OPEN: {
            ServerShutdown: ConnState.CLOSED,
            ANY_MESSAGE: ConnState.OPEN,
            **_CLOSING,
        },
        ConnState.MUST_CLOSE: {Move.CLOSE: ConnState.CLOSED},
        ConnState.CLOSED: {},
    },
}

_INITIAL = {Role.SERVER: ConnState.AWAIT_HELLO, Role.CLIENT: ConnState.AWAIT_WELCOME}


class StateMachine:
    """One end's state, moved only through :data:`TRANSITIONS`."""

    __slots__ = ("role", "state")

    def __init__(self, role: Role) -> None:
        self.role = role
        self.state = _INITIAL[role]

    def receive(self, msg_type: type[msgspec.Struct], msg_id: MessageId | None = None) -> None:
        """The peer sent a message of ``msg_type``: move, or raise RemoteProtocolError.

        On a closed connection nothing is received: that is our own misuse.
        """
        table = TRANSITIONS[self.role][self.state]
        outcome = table.get(msg_type, table.get(ANY_MESSAGE))
        if outcome is None:
            raise LocalProtocolError(
                f"{self.role.value} connection in state {self.state.name} cannot receive "
                f"{msg_type.__name__}")
        if isinstance(outcome, Refusal):
            raise RemoteProtocolError(outcome.code, outcome.message, id=msg_id)
        self.state = outcome

    def move(self, move: Move) -> None:
        """Our side does ``move``; raise LocalProtocolError if this state does not allow it."""
        outcome = TRANSITIONS[self.role][self.state].get(move)
        if not isinstance(outcome, ConnState):
            raise LocalProtocolError(
                f"{self.role.value} connection in state {self.state.name} cannot "
                f"{move.value}")
        self.state = outcome

    def check_send(self) -> None:
        """Raise LocalProtocolError if nothing may be sent any more."""
        if self.state is ConnState.CLOSED:
            raise LocalProtocolError(f"{self.role.value} connection is closed: cannot send")
