"""The look of ``jackal play``: its colours, and the keys ``?`` lists."""

from __future__ import annotations

from prompt_toolkit.styles import Style

__all__ = ["KEY_HELP", "STYLE"]

STYLE = Style.from_dict({
    "header": "bg:ansiblue ansiwhite bold",
    "header.status.ok": "bg:ansiblue ansiwhite",
    "header.status.bad": "bg:ansired ansiwhite bold",
    "score": "bold",
    "card.red": "ansired bold",
    "card.black": "bold",
    "card.group": "underline",
    "cursor": "reverse",
    "meaning": "ansibrightblack",
    "turn": "ansigreen bold",
    "label": "",
    "label.you": "bold",
    "gone": "ansiyellow",
    "notice.info": "ansicyan",
    "notice.error": "ansired bold",
    "prompt": "bold",
    "log.good": "ansigreen",
    "log.warn": "ansiyellow",
    "log.error": "ansired",
    "log.answer": "ansimagenta bold",
    "log.chat": "ansiblue",
    "footer": "reverse",
    "newest": "ansiyellow bold",
    "kept": "underline",
    "title": "bold underline",
    "dim": "ansibrightblack",
})


#: (keys, what they do) for the table screen and the lobby; ``?`` shows them all.
KEY_HELP: dict[str, list[tuple[str, str]]] = {
    "Table": [
        ("Left / Right", "move along your hand"),
        ("Enter", "play the card under the cursor (or the one you typed)"),
        ("7h, th, 10s, q♠", "type a card, then Enter to play it (Backspace edits)"),
        ("mouse click", "click a card of your hand to play it"),
        ("e", "an opponent's card: its meaning, then ask a question"),
        ("r", "reply to a question an opponent asked you"),
        ("c", "show both partnerships' convention cards"),
        ("l", "show the whole event log"),
        ("h", "the match so far: penalties, points, information cost"),
        ("x", "hint: the expert's card for you, and why (if HINTS)"),
        ("n / g", "ready, next deal, rematch after the match / g: lobby after it"),
        ("b", "before the match or after it: a bot in a free seat ('E', 'E random')"),
        ("o", "after the match: the rematch's target and your card ('500 advanced')"),
        ("m / p", "chat (not during a deal) / pause: ask, agree, resume"),
        ("Esc", "clear what you typed, close a panel"),
    ],
    "Under the cards": [
        ("7s", "promises a pair of sevens (as the partnership's card says)"),
        ("7s?", "the same, or a spare high card with nothing to promise"),
        ("+7 / -7", "answers partner: holds a seven / holds none"),
        ("-", "a signal card that promises nothing (an edge rank)"),
        (".", "a free discard: no meaning"),
        ("*", "marks the newest card on the table"),
        ("~", "the clock or the substitute played it for an absent or late player"),
    ],
    "Ask panel": [
        ("Left / Right", "previous / next opponent card"),
        ("Enter", "write a free-text question to the card's player"),
    ],
    "Lobby": [
        ("Up / Down", "choose a table"),
        ("Enter", "join the table (you pick the seat; private: your invitation code)"),
        ("s", "watch the table as a spectator (if its creator allows it)"),
        ("c", "create a table (name, target, cards, hints, clock, private)"),
        ("b", "add a server-side bot to a free seat"),
        ("g", "refresh the list"),
        ("m", "chat with the lobby"),
    ],
    "Anywhere": [
        ("?", "this help (any key closes it)"),
        ("Ctrl-Q / Ctrl-C", "quit (asks first during a match)"),
    ],
}

