"""The request -> reply table: for each client message, the server message types that answer
it when it succeeds (an ``error`` otherwise), carrying its ``id``. Read by the client's
``Connection.request``, by the ``help`` entries and by a test that sends every request to
a real server. What else a request makes the server send is docs/PROTOCOL.md's."""

from __future__ import annotations

from .messages import (
    ChatMessage,
    Error,
    Explanation,
    HelloOk,
    HelpReply,
    HintReply,
    Joined,
    Ok,
    PauseState,
    Played,
    Question,
    ServerMessage,
    ServerPong,
    TableCreated,
    Tables,
    TableState,
)
from .requests import (
    AddBot,
    AnswerQuestion,
    Ask,
    Chat,
    ClientMessage,
    Conventions,
    CreateTable,
    Explain,
    Hello,
    Help,
    Hint,
    Join,
    Leave,
    ListTables,
    Pause,
    Ping,
    Play,
    Pong,
    Ready,
    Rematch,
    Resume,
    Spectate,
    Sync,
)

__all__ = ["REPLIES", "expects_reply", "is_reply", "reply_tags"]

#: Each client message type -> the types of its reply on success. ``pong`` answers the
#: server's ``ping`` and is itself answered by nothing. ``ok`` names its request in
#: ``request``.
REPLIES: dict[type[ClientMessage], tuple[type[ServerMessage], ...]] = {
    Hello: (HelloOk,),
    Help: (HelpReply,),
    Ping: (ServerPong,),
    Pong: (),
    ListTables: (Tables,),
    CreateTable: (TableCreated,),
    Join: (Joined,),
    Spectate: (TableState,),
    AddBot: (Ok,),
    Leave: (Ok,),
    Ready: (Ok,),
    Rematch: (Ok,),
    Play: (Played,),
    Conventions: (Ok,),
    Explain: (Explanation,),
    Ask: (Question,),
    AnswerQuestion: (Ok,),
    Sync: (TableState,),
    Hint: (HintReply,),
    Chat: (ChatMessage,),
    Pause: (PauseState,),
    Resume: (PauseState,),
}


def _tag(kind: type[ClientMessage] | type[ServerMessage]) -> str:
    tag = kind.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


#: The same table by wire ``type``, for tools that read JSON (``help``, tests).
_BY_TAG: dict[str, tuple[str, ...]] = {
    _tag(request): tuple(_tag(reply) for reply in replies)
    for request, replies in REPLIES.items()}


def reply_tags(request_type: str) -> tuple[str, ...]:
    """The wire ``type`` of each reply to a request of wire type ``request_type``."""
    return _BY_TAG[request_type]


def expects_reply(msg: ClientMessage) -> bool:
    """Whether the server answers ``msg`` (every client message but ``pong``)."""
    return bool(REPLIES[type(msg)])


def is_reply(msg: ClientMessage, reply: ServerMessage) -> bool:
    """Whether ``reply`` is what the table says answers ``msg``: one of its reply types,
    or an ``error``; an ``ok`` must name ``msg``'s type."""
    if isinstance(reply, Error):
        return True
    if not isinstance(reply, REPLIES[type(msg)]):
        return False
    return not isinstance(reply, Ok) or reply.request == _tag(type(msg))
