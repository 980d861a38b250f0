"""What ``{"type":"help"}`` answers: every client message, a summary, a pasteable example
and the type of its reply.

The examples are real protocol lines: a test decodes each one, and another checks that
every client message type has an entry, so this list cannot drift from requests.py.
"""

from __future__ import annotations

from .messages import HelpEntry, HelpReply, MessageId
from .replies import reply_tags

__all__ = ["HELP_ENTRIES", "help_reply"]


def _entry(kind: str, summary: str, example: str) -> HelpEntry:
    """The entry of message type ``kind``, naming its replies (from the reply table)."""
    return HelpEntry(kind, summary, example, list(reply_tags(kind)))


#: One entry per client message type, in the order a newcomer would use them.
HELP_ENTRIES: tuple[HelpEntry, ...] = (
    _entry("hello", "introduce yourself first; token reclaims a held seat, password if the "
                       "server has one",
              '{"type":"hello","name":"alice","protocol":1,"client":"nc"}'),
    _entry("help", "list every message you can send (allowed before hello)",
              '{"type":"help"}'),
    _entry("ping", "check the server is there; it answers pong (allowed before hello)",
              '{"type":"ping","id":1}'),
    _entry("pong", "answer the server's ping so it knows you are alive",
              '{"type":"pong"}'),
    _entry("list_tables", "show the lobby, a page of tables from \"offset\" (0 first): "
                             "seats, status, seeded",
              '{"type":"list_tables"}'),
    _entry("create_table", "open a table (it does not seat you); all fields optional; "
                              "private: a code per seat",
              '{"type":"create_table","name":"evening","target":300,"seed":7,'
              '"conventions_ns":"beginner","conventions_ew":"advanced","bot_takeover":true,'
              '"turn_seconds":60,"hints":true,"private":false,"allow_spectators":true}'),
    _entry("join", "sit in \"seat\" N/E/S/W or any free one (private table: with its "
                      "\"invite\" code); keep the token",
              '{"type":"join","table":"t1","seat":"N"}'),
    _entry("spectate", "watch a table without seeing anyone's hand",
              '{"type":"spectate","table":"t1"}'),
    _entry("add_bot", "put a server-side bot in an empty seat (private table: creator, "
                         "or the seat's \"invite\" code)",
              '{"type":"add_bot","table":"t1","seat":"E","strategy":"random"}'),
    _entry("leave", "give up your seat, or stop watching",
              '{"type":"leave"}'),
    _entry("ready", "say you are ready; play starts when every human seat is ready",
              '{"type":"ready"}'),
    _entry("rematch", "after match_ended: play again here, once all have asked; "
                         "\"target\" proposes a new one",
              '{"type":"rematch","target":100}'),
    _entry("play", "play a card from your hand when it is your turn",
              '{"type":"play","card":"7H"}'),
    _entry("conventions", "declare your partnership's card: a built-in name or a whole "
                             "card object",
              '{"type":"conventions","card":"beginner"}'),
    _entry("explain", "ask what the index-th card (1..8) in a seat's row means",
              '{"type":"explain","seat":"E","index":2}'),
    _entry("ask", "ask an opponent a free-text question about their play",
              '{"type":"ask","seat":"E","text":"what did your 9S say?","index":3}'),
    _entry("answer", "answer a question you were asked, by its question id",
              '{"type":"answer","question":"q1","text":"it promises a pair"}'),
    _entry("sync", "get a fresh table_state of your table (and your_turn on your turn)",
              '{"type":"sync"}'),
    _entry("hint", "on your turn, where the table allows hints: the expert's card and "
                      "why (everyone is told you asked)",
              '{"type":"hint"}'),
    _entry("chat", "say a line: in the lobby, at your table (not during a deal), or to "
                      "the other spectators",
              '{"type":"chat","text":"good evening"}'),
    _entry("pause", "seated, during a match: ask for a pause, or agree to one",
              '{"type":"pause"}'),
    _entry("resume", "seated: end the pause, or withdraw the request",
              '{"type":"resume"}'),
)


def help_reply(id: MessageId | None = None) -> HelpReply:
    """The ``help`` reply, echoing the request's ``id``."""
    return HelpReply(messages=list(HELP_ENTRIES), id=id)
