"""Text from other people: the one validator (protocol/text.py), and the server refusing
the red team's strings in every field over a real socket, naming the field."""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Any

import pytest
from jackal.game.conventions import builtin_card, card_to_json
from jackal.protocol.text import (
    CARD_NOTES,
    CHAT,
    NAME,
    TABLE_NAME,
    TextRefused,
    check_text,
    display_width,
    escape_text,
    fit_width,
)
from support.client import RawClient, alone_with_bots, greeted
from support.server import running_server

#: What the red team sent: a window title (OSC), a screen clear (CSI), a C1 CSI, a bidi
#: override, a zero-width space, and a BEL on its own.
RED_TEAM = ("\x1b]0;pwned\x07", "\x1b[2J", "a\x9b2J", "evil\u202egnp.exe", "ad\u200bmin",
            "ding\x07")
FULLWIDTH_32 = "Ｗ" * 32


@pytest.mark.parametrize("text", RED_TEAM)
def test_every_red_team_string_is_refused_and_named(text: str) -> None:
    with pytest.raises(TextRefused) as caught:
        check_text("name", text, NAME)
    assert caught.value.code == "bad_text"
    assert caught.value.message.startswith("field 'name': must not contain")
    assert not any(ch in caught.value.message for ch in "\x1b\x07\x9b\u202e\u200b")


@pytest.mark.slow
def test_the_refused_class_is_every_control_and_format_character() -> None:
    # The hand-written class must cover every Cc, Cf, Zl and Zp code point this Python
    # knows, and refuse nothing assigned to another category.
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        category = unicodedata.category(ch)
        if category == "Cs":
            continue
        refused = True
        try:
            check_text("x", ch, CHAT)
        except TextRefused as exc:
            refused = "must not contain" in exc.message
        else:
            refused = False
        if category in ("Cc", "Cf", "Zl", "Zp"):
            assert refused, f"U+{code:04X} ({category}) passes"
        elif category != "Cn" and code not in DEFAULT_IGNORABLE:
            assert not refused, f"U+{code:04X} ({category}) refused"


def _ranges(*spans: tuple[int, int]) -> frozenset[int]:
    return frozenset(code for first, last in spans for code in range(first, last + 1))


# Unicode 15.1's definition (DerivedCoreProperties.txt): Default_Ignorable_Code_Point =
# Other_Default_Ignorable_Code_Point + Cf + Variation_Selector - White_Space
# - U+FFF9..FFFB - U+13430..13440 - Prepended_Concatenation_Mark; the three lists below
# are PropList.txt's, Cf is this Python's unicodedata.
OTHER_IGNORABLE = _ranges((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5),
                          (0x2065, 0x2065), (0x3164, 0x3164), (0xFFA0, 0xFFA0),
                          (0xFFF0, 0xFFF8), (0xE0000, 0xE0000), (0xE0002, 0xE001F),
                          (0xE0080, 0xE00FF), (0xE01F0, 0xE0FFF))
VARIATION_SELECTORS = _ranges((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F),
                              (0xE0100, 0xE01EF))
PREPENDED_MARKS = _ranges((0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F),
                          (0x0890, 0x0891), (0x08E2, 0x08E2), (0x110BD, 0x110BD),
                          (0x110CD, 0x110CD))
DEFAULT_IGNORABLE = (OTHER_IGNORABLE | VARIATION_SELECTORS | frozenset(
    code for code in range(sys.maxunicode + 1)
    if unicodedata.category(chr(code)) == "Cf" and not chr(code).isspace())) \
    - _ranges((0xFFF9, 0xFFFB), (0x13430, 0x13440)) - PREPENDED_MARKS


def _refuses(rule: Any, text: str) -> bool:
    try:
        check_text("x", text, rule)
    except TextRefused:
        return True
    return False


def test_default_ignorables_are_derived_and_refused() -> None:
    """Every Default_Ignorable_Code_Point: refused in names and table names; in free text
    too, but the variation selectors (an emoji's colour). The derived set is the one the
    Unicode data lists: 4,174 code points, the ranges the issue names among them."""
    assert len(DEFAULT_IGNORABLE) == 4174
    for spot in (0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F,
                 0x200B, 0x200F, 0x202A, 0x202E, 0x2060, 0x2065, 0x206F, 0x3164, 0xFE00,
                 0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0, 0xFFF8, 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A,
                 0xE0000, 0xE0001, 0xE0100, 0xE01EF, 0xE0FFF):
        assert spot in DEFAULT_IGNORABLE, hex(spot)
    for code in (0x0600, 0xFFF9, 0x13430, 0x2800, 0x0020, 0x1100, 0xE1000):
        assert code not in DEFAULT_IGNORABLE, hex(code)
    for code in sorted(DEFAULT_IGNORABLE):
        ch = chr(code)
        assert _refuses(NAME, f"ab{ch}c"), f"U+{code:04X} passes in a name"
        assert _refuses(TABLE_NAME, f"ab{ch}c"), f"U+{code:04X} passes in a table name"
        assert _refuses(CHAT, f"ab{ch}c") == (code not in VARIATION_SELECTORS), hex(code)


@pytest.mark.parametrize("name", ["nora\u034f", "expert bot\u3164", "\u3164", "\u115f\u1160",
                                  "x\uffa0", "\u2800", "nora\u2800", "heart\u2764\ufe0f",
                                  "n\U000e0100ora", "   ", "\u3000"])
def test_invisible_looking_names_are_refused(name: str) -> None:
    with pytest.raises(TextRefused) as caught:
        check_text("name", name, NAME)
    assert caught.value.code == "bad_text"
    assert "field 'name': must" in caught.value.message
    # Chat keeps an emoji's colour and the braille blank, and refuses the rest.
    assert _refuses(CHAT, name) == (name not in ("heart\u2764\ufe0f", "n\U000e0100ora", "\u2800",
                                                  "nora\u2800", "   ", "\u3000"))


def test_width_counts_wide_characters_twice() -> None:
    assert display_width("abc") == 3
    assert display_width(FULLWIDTH_32) == 64
    assert display_width("e\u0301") == 1  # a combining accent takes no column
    check_text("name", "Ｗ" * 16, NAME)
    with pytest.raises(TextRefused, match="at most 32 columns"):
        check_text("name", "Ｗ" * 17, NAME)
    assert display_width(fit_width(FULLWIDTH_32, 12)) <= 12
    assert fit_width(FULLWIDTH_32, 12).endswith("…")
    assert fit_width("short", 12) == "short"


def test_multiline_fields_keep_newlines_and_tabs_only() -> None:
    check_text("notes", "one\n\ttwo", CARD_NOTES)
    with pytest.raises(TextRefused, match="U\\+000A"):
        check_text("name", "one\ntwo", NAME)
    with pytest.raises(TextRefused, match="U\\+000D"):
        check_text("notes", "one\r\ntwo", CARD_NOTES)


def test_escape_makes_every_refused_character_visible() -> None:
    for text in RED_TEAM:
        shown = escape_text(text)
        check_text("shown", shown, CHAT)  # nothing left that the check refuses
    assert escape_text("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert escape_text("evil\u202egnp") == "evil\\u202egnp"
    assert escape_text("a\nb", multiline=True) == "a\nb"
    assert escape_text("a\nb") == "a\\x0ab"


async def _refused(peer: RawClient, field: str, **msg: Any) -> None:
    reply = await peer.request(**msg)
    assert reply["type"] == "error", reply
    assert reply["code"] == "bad_text", reply
    assert reply["message"].startswith(f"field '{field}': "), reply


async def _card_refused(peer: RawClient, field: str, text: str, **msg: Any) -> None:
    """A card's own format already refuses C0 controls (``bad_conventions``, naming the
    field as "field 'card': notes: ..."); the rest of the red team's strings are
    ``bad_text``."""
    if not any(ord(ch) < 0x20 or ch == "\x7f" for ch in text):
        await _refused(peer, field, **msg)
        return
    reply = await peer.request(**msg)
    assert reply["type"] == "error", reply
    assert reply["code"] == "bad_conventions", reply
    top, _, inner = field.partition(".")
    assert reply["message"].startswith(f"field '{top}': {inner}: "), reply


def _card_with(field: str, text: str) -> dict[str, Any]:
    card: dict[str, Any] = json.loads(card_to_json(builtin_card("beginner")))
    if field == "when":
        card["tolerance"] = {"promise": {"one_in": 10, "when": text}}
    else:
        card[field] = text
    return card


async def test_the_server_refuses_them_in_every_field_over_a_socket() -> None:
    async with running_server() as port:
        client = await RawClient.connect(port, "red")
        for text in (*RED_TEAM, FULLWIDTH_32):
            await _refused(client, "name", type="hello", name=text)
        for text in RED_TEAM:
            await _refused(client, "client", type="hello", name="ok", client=text)
        await client.hello("red")  # still usable, and a plain name passes
        for text in (*RED_TEAM, FULLWIDTH_32):
            await _refused(client, "name", type="create_table", name=text)
        for text in RED_TEAM:
            for field, where in (("name", "name"), ("description", "description"),
                                 ("notes", "notes"),
                                 ("when", "tolerance.promise.when")):
                await _card_refused(client, f"conventions_ns.{where}", text,
                                    type="create_table", conventions_ns=_card_with(field, text))
                await _card_refused(client, f"conventions_ew.{where}", text,
                                    type="create_table", conventions_ew=_card_with(field, text))
        # A card's notes may run over several lines; a wide name within 32 columns passes.
        ok = await client.request(type="create_table", name="Ｗ" * 16,
                                  conventions_ns=_card_with("notes", "line one\nline two"))
        assert ok["type"] == "table_created", ok
        assert ok["name"] == "Ｗ" * 16

        _, human, _ = await alone_with_bots(port, "N", "asker")
        for text in RED_TEAM:
            await _card_refused(human, "card.notes", text, type="conventions",
                                card=_card_with("notes", text))
            await _refused(human, "text", type="ask", seat="E", text=text)
            await _refused(human, "text", type="answer", question="q1", text=text)
        receipt = await human.request(type="ask", seat="E", text="what does 9S mean?")
        assert receipt["type"] == "question", receipt
        other = await greeted(port, "bystander")
        tables = await other.request(type="list_tables")
        shown = json.dumps(tables, ensure_ascii=False)
        assert not any(ch in shown for ch in "\x1b\x07\x9b\u202e\u200b")
