"""Names people go by: one person per name, and no person named like a server's bot. Two
names are the same when their keys meet (:func:`name_keys`: NFKC, case and look-alike
letters); the hub keeps who uses which key, and the rules clients rely on are
docs/PROTOCOL.md's (``hello``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

from ..bots.registry import STRATEGIES
from ..protocol.errors import ErrorCode, ProtocolError

__all__ = ["DEFAULT_NAME", "NameBook", "name_keys", "poses_as_bot"]

#: The name of a ``hello`` that gives none: it names nobody, so any number may use it.
DEFAULT_NAME = "anonymous"

# Direction marks that the table wraps around right-to-left look-alikes: not part of them.
_MARKS = dict.fromkeys(map(ord, "\u200e\u200f"))
_SPACES = re.compile(r"\s+")
_SEPARATORS = re.compile(r"[\W_]+")


@cache
def _look_alikes() -> dict[str, str]:
    """Each character of a look-alike class to its class's smallest member."""
    classes: dict[str, set[str]] = {}
    for char, alikes in confusables_data.items():
        members = {char} | {glyph for alike in alikes
                            if len(glyph := alike["c"].translate(_MARKS)) == 1}
        # The table lists each class from every member (each member's entry names the
        # others): join what overlaps. "rn" for "m" would need more than a character map.
        for member in list(members):
            members |= classes.get(member, set())
        for member in members:
            classes[member] = members
    return {char: min(members) for char, members in classes.items()}


def _skeleton(text: str) -> str:
    alikes = _look_alikes()
    return "".join(alikes.get(char, char) for char in text)


@cache
def name_keys(name: str) -> frozenset[str]:
    """What a name is compared by: names whose keys meet could be taken for one.

    The keys are the NFKC form with each character replaced by one of its class of
    look-alikes (Unicode's confusables, as ``confusable_homoglyphs`` ships them), case
    folded before and after the replacement: ``AIice`` (a capital i) meets ``alice``,
    ``b0t`` meets ``BOT``, and ``аlice`` (a Cyrillic а) meets ``alice``.
    """
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    return frozenset((_skeleton(text.casefold()), _skeleton(text).casefold(),
                      _skeleton(text.upper()).casefold()))


def _bare(name: str) -> frozenset[str]:
    """The keys with spaces, punctuation and underscores gone ("Random_Bot", "randombot")."""
    return frozenset(_SEPARATORS.sub("", key) for key in name_keys(name))


@cache
def _bot_labels() -> frozenset[str]:
    """What the server calls its bots: "random bot", the strategy names, "substitute"."""
    labels = {"bot", "bots", "substitute"}
    for strategy in STRATEGIES:
        labels |= {strategy, f"{strategy} bot"}
    return frozenset().union(*(_bare(label) for label in labels))


def poses_as_bot(name: str) -> bool:
    """A person's name that reads as one of the server's bots (``random bot``,
    ``Expert``, ``expert-bot``, with any look-alike letters)."""
    return not _bare(name).isdisjoint(_bot_labels())


class NameBook:
    """The names connected people use, by key, with the address each connects from.

    A name is free for a connection when nobody else uses it, or only connections from
    the same address do (one person's second window, or both seats of their program:
    nobody is being posed as). ``DEFAULT_NAME`` is always free.
    """

    def __init__(self) -> None:
        self._users: dict[str, dict[Hashable, str]] = {}

    def check(self, name: str, host: str, held: Iterable[tuple[str, str | None]] = ()
              ) -> None:
        """Refuse ``name`` for a person connecting from ``host``: ``name_reserved`` when it
        reads as a server bot, ``name_taken`` when a person from another address uses it,
        connected or away from a ``held`` seat (its name and its player's address)."""
        if poses_as_bot(name):
            raise ProtocolError(ErrorCode.NAME_RESERVED,
                                f"field 'name': {name!r} reads as one of the server's bots; "
                                f"a person must not pose as a bot")
        if name == DEFAULT_NAME:
            return
        keys = name_keys(name)
        taken = any(other != host for key in keys for other in self._users.get(key, {}).values())
        # A held seat whose player's address is unknown (restored after a restart) does
        # not count: its player may be the one asking, from a second connection.
        taken = taken or any(other is not None and other != host
                             and not keys.isdisjoint(name_keys(seat_name))
                             for seat_name, other in held)
        if taken:
            raise ProtocolError(ErrorCode.NAME_TAKEN,
                                f"field 'name': {name!r} (or a name that looks the same) is "
                                f"used by someone connected; choose another")

    def take(self, who: Hashable, name: str, host: str) -> None:
        """``who`` (a connection) goes by ``name`` from now on."""
        for key in name_keys(name):
            self._users.setdefault(key, {})[who] = host

    def release(self, who: Hashable, name: str) -> None:
        """``who`` is gone: its name is free again (unless others of its address use it)."""
        for key in name_keys(name):
            users = self._users.get(key)
            if users is not None:
                users.pop(who, None)
                if not users:
                    del self._users[key]
