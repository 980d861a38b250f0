"""Text that people type for other people to read: :func:`check_text` refuses what can move
a terminal's cursor, rewrite its title or reorder what is shown, and text too wide for its
field; :func:`escape_text` makes text received or recorded before the check safe to
print. Pure: no I/O."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..game.conventions import ConventionCard
from .errors import ErrorCode, RemoteProtocolError
from .messages import MessageId
from .requests import AnswerQuestion, Ask, Chat, ClientMessage, Conventions, CreateTable, Hello

__all__ = [
    "ANSWER",
    "CARD_LINE",
    "CARD_NAME",
    "CARD_NOTES",
    "CHAT",
    "CLIENT_NAME",
    "NAME",
    "QUESTION",
    "TABLE_NAME",
    "TextRefused",
    "TextRule",
    "check_card_text",
    "check_client_text",
    "check_text",
    "display_width",
    "escape_quoted",
    "escape_text",
    "fit_width",
]


@dataclass(frozen=True, slots=True)
class TextRule:
    """What one kind of field accepts: at most ``width`` columns; ``multiline`` allows
    newlines and tabs (a card's notes), which are refused everywhere else."""

    width: int
    multiline: bool = False
    #: A name people are known by: the glyph variation selectors free text keeps (for
    #: emoji, say) are refused too, as are characters that render blank (U+2800) and a
    #: name of nothing but spaces, so no name can differ from another invisibly.
    strict: bool = False


NAME = TextRule(32, strict=True)
TABLE_NAME = TextRule(32, strict=True)
QUESTION = TextRule(1000)
ANSWER = TextRule(1000)
#: A ``chat`` line.
CHAT = TextRule(500)
CARD_NAME = TextRule(32, strict=True)
#: A card's description and each tolerance's ``when``.
CARD_LINE = TextRule(200)
CARD_NOTES = TextRule(4000, multiline=True)
#: ``hello.client``: a program's name and version, shown in the server's log.
CLIENT_NAME = TextRule(64, strict=True)

# Every code point of the general categories Cc (C0, DEL, C1), Cf (format: bidi
# controls, zero-width characters, soft hyphen, tags, ...), Zl and Zp (line and paragraph
# separators), and every Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode
# 15.1: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector, less White_Space,
# U+FFF9-FFFB, U+13430-1343F and the prepended concatenation marks), as ranges, since
# Python's unicodedata lacks the property; tests/protocol/test_protocol_text.py derives
# the set from unicodedata and these lists and checks the class. A class is one C-level
# scan; a loop over unicodedata.category is ~20x slower, and every question and name
# passes through here.
_C0 = "\x00-\x1f"
#: C0 less tab and newline, which a multi-line field keeps.
_C0_MULTILINE = "\x00-\x08\x0b-\x1f"
#: Cc past C0, Cf, Zl, Zp and the default ignorables but the variation selectors.
_REFUSED = (
    "\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
#: The default ignorables free text keeps: variation selectors choose a glyph's form (an
#: emoji's colour, an ideograph's variant, a Mongolian letter's shape) and add no text.
_VARIATION_SELECTORS = "\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"
#: Not ignorable, yet drawn as nothing: refused in names (a strict rule) only.
_BLANK = "\u2800"
_BAD_ONE_LINE = re.compile(f"[{_C0}{_REFUSED}]")
_BAD_MULTILINE = re.compile(f"[{_C0_MULTILINE}{_REFUSED}]")
_BAD_STRICT = re.compile(f"[{_C0}{_REFUSED}{_VARIATION_SELECTORS}{_BLANK}]")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                  "\u2066\u2067\u2068\u2069")
_HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
_ZERO_WIDTH = frozenset("\u180e\u200b\u200c\u200d\u2060\ufeff")


class TextRefused(RemoteProtocolError):
    """A text field holds what :func:`check_text` refuses; the code is ``bad_text`` and
    ``field`` names the field (``name``, ``text``, ``conventions_ns.notes``, ...)."""

    def __init__(self, field: str, problem: str, *, id: MessageId | None = None) -> None:
        super().__init__(ErrorCode.BAD_TEXT, f"field '{field}': {problem}", id=id)
        self.field = field
        self.problem = problem


def _kind(ch: str) -> str:
    if ch in _BIDI:
        return "a bidi control"
    if ch in _ZERO_WIDTH:
        return "a zero-width character"
    if unicodedata.category(ch) == "Cc":
        return "a control character"
    if ch in _HANGUL_FILLERS:
        return "a Hangul filler"
    if ch == _BLANK:
        return "a blank-looking character"
    if unicodedata.category(ch) == "Mn":
        return "a variation selector or other invisible mark"
    return "an invisible format character"


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide and fullwidth characters count
    two, combining marks none, everything else one."""
    if text.isascii():
        return len(text)
    return sum(map(_char_width, text))


def check_text(field: str, value: str, rule: TextRule, *, id: MessageId | None = None) -> str:
    """Return ``value`` if ``rule`` allows it, else raise :class:`TextRefused` naming
    ``field`` and the first offending character (as ``U+XXXX``, never raw); ``id`` is the
    request's, for the error to echo."""
    pattern = _BAD_STRICT if rule.strict else _BAD_MULTILINE if rule.multiline \
        else _BAD_ONE_LINE
    bad = pattern.search(value)
    if bad is not None:
        ch = bad.group()
        raise TextRefused(field, f"must not contain {_kind(ch)} (U+{ord(ch):04X} at "
                                 f"character {bad.start() + 1})", id=id)
    if rule.strict and value and not value.strip():
        raise TextRefused(field, "must have a visible character, not only spaces", id=id)
    width = display_width(value)
    if width > rule.width:
        raise TextRefused(field, f"at most {rule.width} columns wide, a wide character "
                                 f"counting two (got {width})", id=id)
    return value


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF \
        else f"\\U{code:08x}"


def escape_text(text: str, *, multiline: bool = False) -> str:
    """``text`` safe to print: every character :func:`check_text` would refuse becomes a
    visible escape (ESC is ``\\x1b``, U+202E is ``\\u202e``). ``multiline`` keeps
    newlines and tabs. For text that may predate the check: old records, other servers."""
    return (_BAD_MULTILINE if multiline else _BAD_ONE_LINE).sub(_escape_one, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells the rest as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _toml_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_quoted(document: str, *, toml: bool = False) -> str:
    """A JSON (or, with ``toml``, TOML) document safe to print and still the same data:
    each character :func:`check_text` refuses becomes the format's own ``\\uXXXX``
    escape. Such characters can only stand inside the document's strings, where the
    escape means the very same character; newlines and tabs are left alone."""
    return _BAD_MULTILINE.sub(_toml_escape if toml else _json_escape, document)


def fit_width(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns (ending in "…" when cut), so a name of
    wide characters takes no more room on screen than a name of narrow ones."""
    if display_width(text) <= width:
        return text
    if width <= 0:
        return ""
    out: list[str] = []
    used = 0
    for ch in text:
        w = _char_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def check_card_text(field: str, card: ConventionCard, *, id: MessageId | None = None) -> None:
    """Check every text of an inline convention card; ``field`` is where the card sat
    (``card``, ``conventions_ns``), so the error says ``conventions_ns.notes`` (``""``
    for a card on its own: ``notes``)."""
    at = f"{field}." if field else ""
    check_text(f"{at}name", card.name, CARD_NAME, id=id)
    check_text(f"{at}description", card.description, CARD_LINE, id=id)
    check_text(f"{at}notes", card.notes, CARD_NOTES, id=id)
    check_text(f"{at}tolerance.promise.when", card.tolerance.promise.when, CARD_LINE, id=id)
    check_text(f"{at}tolerance.answer.when", card.tolerance.answer.when, CARD_LINE, id=id)


def check_client_text(msg: ClientMessage) -> None:
    """Check every field of ``msg`` that other people will read (see :func:`check_text`).

    The server applies it to each decoded client message, so no handler sees text that
    could drive a terminal. Messages with no such field pass at the cost of one match.
    """
    match msg:
        case Hello():
            check_text("name", msg.name, NAME, id=msg.id)
            if msg.client is not None:
                check_text("client", msg.client, CLIENT_NAME, id=msg.id)
        case CreateTable():
            if msg.name is not None:
                check_text("name", msg.name, TABLE_NAME, id=msg.id)
            for field, spec in (("conventions_ns", msg.conventions_ns),
                                ("conventions_ew", msg.conventions_ew)):
                if isinstance(spec, ConventionCard):
                    check_card_text(field, spec, id=msg.id)
        case Conventions():
            if isinstance(msg.card, ConventionCard):
                check_card_text("card", msg.card, id=msg.id)
        case Ask():
            check_text("text", msg.text, QUESTION, id=msg.id)
        case AnswerQuestion():
            check_text("text", msg.text, ANSWER, id=msg.id)
        case Chat():
            check_text("text", msg.text, CHAT, id=msg.id)
        case _:
            pass
