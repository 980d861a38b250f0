"""Convention cards as data: built-ins, validation naming the field, TOML/JSON round trips."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jackal.game import MalformedInput
from jackal.game.conventions import (
    BUILTIN_CARDS,
    Answer,
    CardError,
    ConventionCard,
    NoMeaning,
    Promise,
    builtin_card,
    card_from_json,
    card_from_toml,
    card_to_json,
    card_to_toml,
    load_card_file,
    resolve_card,
    validate_card,
)
from support import ROOT
from support.cards import valid_cards

DOCS = ROOT / "docs" / "CONVENTIONS.md"
NONES = (NoMeaning(),) * 8

# ----------------------------------------------------------------------------- built-ins


def test_beginner_is_exactly_the_clarified_seed_system() -> None:
    card = builtin_card("beginner")
    assert card.name == "beginner"
    assert card.low_max == 7  # low A..7, high 8..K
    assert card.plays == (
        Promise(offset=-1, count=2, fallback="high"),
        Promise(offset=1, count=2, fallback="high"),
        Promise(offset=-1, count=2, fallback="high"),
        Answer(play=1), Answer(play=2), Answer(play=3),
        NoMeaning(), NoMeaning(),
    )
    assert card.is_low(7) and not card.is_low(8)
    assert card.description and card.notes


def test_none_card_says_nothing() -> None:
    card = builtin_card("none")
    assert card.plays == NONES


def test_every_shipped_card_file_is_a_builtin_named_after_its_file() -> None:
    game_dir = ROOT / "game"
    files = sorted(p.name[len("card_"):-len(".toml")] for p in game_dir.glob("card_*.toml"))
    assert {"beginner", "none"} <= set(files)
    assert sorted(BUILTIN_CARDS) == files
    for name, card in BUILTIN_CARDS.items():
        assert card.name == name
        assert validate_card(card) is card


def test_builtin_lookup_and_resolve(tmp_path: Path) -> None:
    assert builtin_card(" Beginner ") is BUILTIN_CARDS["beginner"]
    with pytest.raises(CardError, match="no built-in convention card named 'nope'"):
        builtin_card("nope")
    assert resolve_card("none") is BUILTIN_CARDS["none"]
    mine = tmp_path / "mine.toml"
    mine.write_text(card_to_toml(_custom()), encoding="utf-8")
    assert resolve_card(str(mine)) == _custom()
    # A server passes names off the wire with allow_files=False: files are never read.
    with pytest.raises(CardError, match="no built-in"):
        resolve_card(str(mine), allow_files=False)
    with pytest.raises(CardError, match="no such card file"):
        resolve_card(str(tmp_path / "missing.json"))
    with pytest.raises(CardError, match="neither a built-in card"):
        resolve_card("missing")


def test_card_files_by_extension_and_content(tmp_path: Path) -> None:
    card = _custom()
    (tmp_path / "a.json").write_text(card_to_json(card), encoding="utf-8")
    (tmp_path / "b.toml").write_text(card_to_toml(card), encoding="utf-8")
    (tmp_path / "c.card").write_text(card_to_json(card, indent=0), encoding="utf-8")
    (tmp_path / "d.card").write_text(card_to_toml(card), encoding="utf-8")
    for name in ("a.json", "b.toml", "c.card", "d.card"):
        assert load_card_file(tmp_path / name) == card


# ----------------------------------------------------------------------------- round trips


def _custom() -> ConventionCard:
    return ConventionCard(
        name="Our \"odd\" card",
        description="Tabs\tand quotes \" and backslashes \\ survive.",
        notes='Line one.\n"""Triple quotes""" and a trailing backslash \\\n\n  indented\n',
        low_max=5,
        plays=(Promise(offset=2, count=1, fallback="low"), Promise(offset=-3, count=3),
               Answer(play=1), Answer(play=2), Promise(offset=0, count=2),
               Answer(play=5), NoMeaning(), Promise(offset=12, count=4, fallback="low")),
    )


def test_custom_card_round_trips_through_toml_and_json() -> None:
    card = _custom()
    assert card_from_toml(card_to_toml(card)) == card
    assert card_from_json(card_to_json(card)) == card
    assert card_from_json(card_to_json(card, indent=0).encode()) == card
    # Each writer's output is what the other format would read, too.
    assert card_from_toml(card_to_toml(card_from_json(card_to_json(card)))) == card


def test_toml_output_is_readable() -> None:
    text = card_to_toml(builtin_card("beginner"))
    # Defaults are left out and every play is one commented line.
    assert '{ kind = "promise", offset = -1 },  # play 1' in text
    assert '{ kind = "answer", play = 3 },  # play 6' in text
    assert 'notes = """\nLow cards are A to 7' in text


def test_array_of_tables_form_loads() -> None:
    text = 'name = "t"\n' + '[[plays]]\nkind = "promise"\noffset = -1\n' + \
        '[[plays]]\nkind = "none"\n' * 7
    card = card_from_toml(text)
    assert card.plays == (Promise(offset=-1),) + (NoMeaning(),) * 7
    assert card.low_max == 7 and card.notes == "" and card.description == ""


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=60)
# Unicode surrogates cannot be encoded as UTF-8 at all.
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_rule_1 = st.one_of(st.builds(NoMeaning), st.builds(
    Promise, offset=st.integers(-12, 12), count=st.integers(1, 4),
    fallback=st.sampled_from(["high", "low"])))


@st.composite
def _cards(draw: st.DrawFn) -> ConventionCard:
    plays: list[Promise | Answer | NoMeaning] = []
    for i in range(8):
        promises = [j + 1 for j, rule in enumerate(plays) if isinstance(rule, Promise)]
        answer = bool(promises) and draw(st.booleans())
        if answer:
            plays.append(Answer(play=draw(st.sampled_from(promises))))
        else:
            plays.append(draw(_rule_1))
        assert len(plays) == i + 1
    name = draw(_text.filter(lambda s: bool(s.strip()) and len(s) <= 32))
    notes = draw(st.text(st.characters(codec="utf-8", exclude_categories=_SURROGATES,
                                       exclude_characters="\x00\x01\x02\x03\x04\x05\x06\x07"
                                       "\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16"
                                       "\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f\r"),
                         max_size=200))
    return ConventionCard(name=name, description=draw(_text), notes=notes,
                          low_max=draw(st.integers(1, 12)), plays=tuple(plays),
                          tolerance=draw(valid_cards()).tolerance)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_cards())
def test_any_valid_card_round_trips(card: ConventionCard) -> None:
    assert card_from_toml(card_to_toml(card)) == card
    assert card_from_json(card_to_json(card)) == card


# ----------------------------------------------------------------------------- bad cards

_GOOD = card_to_toml(builtin_card("beginner"))


def _toml_with_plays(*plays: str, extra: str = "") -> str:
    return f'name = "x"\n{extra}plays = [{", ".join(plays)}]\n'


_FILL = ['{ kind = "none" }'] * 5


@pytest.mark.parametrize(("text", "field", "words"), [
    (_toml_with_plays('{ kind = "promise", offset = -1 }', '{ kind = "promise", offset = 1 }',
                      '{ kind = "promise", offset = 20 }', *_FILL),
     "plays[2].offset", "must be -12..12"),
    (_toml_with_plays('{ kind = "promise", offset = 1, count = 0 }', *(_FILL + ["{kind='none'}"]
                                                                       * 2)),
     "plays[0].count", "must be 1..4"),
    (_toml_with_plays('{ kind = "promise", offset = 1, fallback = "middle" }',
                      *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].fallback", "middle"),
    (_toml_with_plays('{ kind = "promise", offset = "one" }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].offset", "expected int, got str"),
    (_toml_with_plays('{ kind = "promise" }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].offset", "required"),
    (_toml_with_plays('{ kind = "promise", ofset = 1 }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].ofset", "unknown field"),
    (_toml_with_plays('{ kind = "bluff" }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].kind", "bluff"),
    (_toml_with_plays('{ offset = 1 }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].kind", "required"),
    (_toml_with_plays(*_FILL), "plays", "exactly 8"),
    (_toml_with_plays(*(_FILL * 2)), "plays", "exactly 8"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3), extra="low_max = 13\n"),
     "low_max", "must be 1..12"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3), extra="low_max = 0\n"),
     "low_max", "must be 1..12"),
    ('plays = []\n', "name", "required"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3)).replace('"x"', '"  "'),
     "name", "must not be empty"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3)).replace('"x"', '"' + "n" * 33 + '"'),
     "name", "at most 32"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3), extra='description = "a\\nb"\n'),
     "description", "one line"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3), extra='notes = "bell\\u0007"\n'),
     "notes", "control characters"),
    (_toml_with_plays(*(_FILL + ["{kind='none'}"] * 3), extra="colour = 1\n"),
     "colour", "unknown field"),
    # Answers: only to an earlier play of partner that is a promise.
    (_toml_with_plays('{ kind = "answer", play = 1 }', *(_FILL + ["{kind='none'}"] * 2)),
     "plays[0].play", "play 1 cannot answer"),
    (_toml_with_plays('{ kind = "promise", offset = -1 }', '{ kind = "answer", play = 2 }',
                      *_FILL, "{kind='none'}"),
     "plays[1].play", "earlier play of partner, 1..1"),
    (_toml_with_plays('{ kind = "promise", offset = -1 }', '{ kind = "answer", play = 3 }',
                      *_FILL, "{kind='none'}"),
     "plays[1].play", "earlier play"),
    (_toml_with_plays('{ kind = "none" }', '{ kind = "answer", play = 1 }',
                      *_FILL, "{kind='none'}"),
     "plays[1].play", "not a promise"),
    (_toml_with_plays('{ kind = "promise", offset = 1 }', '{ kind = "answer", play = 1 }',
                      '{ kind = "answer", play = 2 }', *_FILL),
     "plays[2].play", "not a promise"),
    (_toml_with_plays('{ kind = "promise", offset = 1 }', '{ kind = "answer", play = 0 }',
                      *_FILL, "{kind='none'}"),
     "plays[1].play", "1..1"),
])
def test_bad_cards_are_rejected_naming_the_field(text: str, field: str, words: str) -> None:
    with pytest.raises(CardError) as caught:
        card_from_toml(text)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ")
    assert words in str(caught.value)
    assert isinstance(caught.value, MalformedInput)  # one thing for callers to catch
    # The same card as JSON fails the same way.
    try:
        import tomllib
        data = tomllib.loads(text)
    except Exception:  # pragma: no cover - every case above is valid TOML
        return
    with pytest.raises(CardError) as again:
        card_from_json(msgspec.json.encode(data))
    assert again.value.field == field


def test_syntax_errors_and_wrong_shapes() -> None:
    with pytest.raises(CardError, match="not valid TOML"):
        card_from_toml("name = ")
    with pytest.raises(CardError, match="not valid JSON"):
        card_from_json("{nope")
    with pytest.raises(CardError, match="expected object"):
        card_from_json("[1, 2]")
    with pytest.raises(CardError) as caught:
        card_from_json('{"name": "x", "plays": "eight"}')
    assert caught.value.field == "plays"


def test_cards_are_validated_when_built_or_decoded() -> None:
    with pytest.raises(CardError) as caught:
        ConventionCard(name="x", plays=NONES[:7])
    assert caught.value.field == "plays"
    with pytest.raises(CardError, match=r"plays\[3\]\.play"):
        ConventionCard(name="x", plays=(Promise(offset=1),) * 3 + (Answer(play=4),) + NONES[:4])
    with pytest.raises(CardError, match=r"plays\[7\]: not a rule"):
        ConventionCard(name="x", plays=(*NONES[:7], "none"))  # type: ignore[arg-type]
    # Inside another message (as the protocol decodes an inline card) the field is named
    # with its place in that message.
    class Wrapper(msgspec.Struct):
        card: ConventionCard

    bad = {"card": {"name": "x", "low_max": 99, "plays": [{"kind": "none"}] * 8}}
    with pytest.raises(msgspec.ValidationError, match=r"low_max: must be 1..12.*\$\.card"):
        msgspec.json.decode(msgspec.json.encode(bad), type=Wrapper)


# ----------------------------------------------------------------------------- the docs


def _doc_blocks(language: str) -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    # Only our part of the file: the advanced card's section is tested by its owner.
    text = text.split("## Our own card: advanced")[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def test_every_card_example_in_the_docs_loads() -> None:
    tomls, jsons = _doc_blocks("toml"), _doc_blocks("json")
    assert len(tomls) >= 2 and len(jsons) >= 1
    cards = [card_from_toml(block) for block in tomls] + [card_from_json(b) for b in jsons]
    assert all(isinstance(card, ConventionCard) for card in cards)
    # The beginner card printed in the docs is the built-in one (notes aside).
    shown = next(card for card in cards if card.name == "beginner")
    real = builtin_card("beginner")
    assert (shown.plays, shown.low_max, shown.description) == (
        real.plays, real.low_max, real.description)


def test_the_error_shown_in_the_docs_is_the_real_one() -> None:
    example = re.search(r"jackal conventions check: mine\.toml: (.*)", DOCS.read_text())
    assert example is not None
    text = _toml_with_plays('{ kind = "promise", offset = -1 }',
                            '{ kind = "promise", offset = 1 }',
                            '{ kind = "promise", offset = 20 }', *_FILL)
    with pytest.raises(CardError) as caught:
        card_from_toml(text)
    assert str(caught.value) == example.group(1)
