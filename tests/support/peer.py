"""The fake peer: a connection as a table or the lobby sees it, driven in-process without
sockets. It keeps every message delivered to it, so a test reads what the table said."""

from __future__ import annotations

from jackal.protocol.messages import ServerMessage


class Peer:
    """A table participant that keeps what it is sent, in ``got``."""

    def __init__(self, name: str = "peer") -> None:
        self.name = name
        self.got: list[ServerMessage] = []

    def deliver(self, msg: ServerMessage) -> None:
        self.got.append(msg)

    def __repr__(self) -> str:
        return f"<{self.name}>"
