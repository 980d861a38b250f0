"""Handler tables for the client's consumers of server messages: :class:`Handlers` maps
each message type to its handler and names the types a consumer ignores on purpose. A
test walks every consumer's table against the protocol's ``ServerMessage`` union, so a
new message type cannot go unhandled by oversight, as ``your_turn`` once did."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar, get_args

from ..protocol.messages import ServerMessage

__all__ = ["SERVER_MESSAGE_TYPES", "Handlers"]

#: Every type a server may send, as the protocol's union names them.
SERVER_MESSAGE_TYPES: frozenset[type] = frozenset(get_args(ServerMessage))

_H = TypeVar("_H")


class Handlers(Generic[_H]):
    """``handlers`` by message type, and the types ``ignored`` on purpose (disjoint)."""

    __slots__ = ("handlers", "ignored")

    def __init__(self, handlers: Mapping[type, _H], ignored: Iterable[type] = ()) -> None:
        self.handlers: dict[type, _H] = dict(handlers)
        self.ignored = frozenset(ignored)
        both = self.handlers.keys() & self.ignored
        if both:
            raise ValueError(f"both handled and ignored: {_names(both)}")

    def get(self, msg: ServerMessage) -> _H | None:
        """The handler of ``msg``'s type; None when it is ignored (or unknown)."""
        return self.handlers.get(type(msg))

    def unaccounted(self) -> frozenset[type]:
        """Server message types neither handled nor ignored (a test wants none)."""
        return SERVER_MESSAGE_TYPES - self.handlers.keys() - self.ignored

    def strays(self) -> frozenset[type]:
        """Types named here that are no server message (a test wants none)."""
        return frozenset(self.handlers.keys() | self.ignored) - SERVER_MESSAGE_TYPES


def _names(types: Iterable[type]) -> str:
    return ", ".join(sorted(t.__name__ for t in types))
