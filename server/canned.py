"""Replies that never change (the ``help`` list, about 4 KiB), encoded once for the whole
server and spliced with each request's ``id`` (:class:`CannedReply`)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from ..protocol.codec import encode
from ..protocol.help import help_reply
from ..protocol.messages import MessageId, ServerMessage

__all__ = ["HELP", "CannedReply"]

_encode_value = msgspec.json.Encoder().encode


class CannedReply:
    """A reply encoded once; :meth:`parts` gives the pieces for one request's ``id``.

    Each answer is the shared body, one ``bytes`` object every connection's queue refers
    to, and a few bytes of tail carrying the id: ``help`` asked a thousand times costs a
    thousand small tails. The splice needs the encoder to write ``id`` last; that is
    checked when the reply is built, and if it ever stops being true the reply is encoded
    per request.
    """

    def __init__(self, build: Callable[[MessageId | None], ServerMessage]) -> None:
        self._build = build
        self._plain = encode(build(None))
        self._open = self._plain[:-2]  # without the closing "}\n"
        self._spliceable = (self._plain.endswith(b"}\n")
                            and encode(build(0)) == self._open + b',"id":0}\n')

    def parts(self, msg_id: MessageId | None) -> tuple[bytes, ...]:
        """The reply to a request with ``msg_id``, as pieces to send one after another."""
        if msg_id is None:
            return (self._plain,)
        if not self._spliceable:
            return (encode(self._build(msg_id)),)
        return (self._open, b',"id":' + _encode_value(msg_id) + b"}\n")


#: The answer to ``{"type":"help"}``.
HELP = CannedReply(help_reply)
