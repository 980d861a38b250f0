"""Our own card: built in, valid, the default for the expert, and documented as it is."""

from __future__ import annotations

import re

from jackal.arena.run import ArenaConfig
from jackal.game.conventions import Answer, NoMeaning, Promise, builtin_card, validate_card
from support import ROOT

DOC = ROOT / "docs" / "CONVENTIONS.md"


def test_advanced_is_a_valid_builtin_and_the_experts_default() -> None:
    card = validate_card(builtin_card("advanced"))
    assert card.name == "advanced"
    assert ArenaConfig(ns="expert", ew="beginner", deals=1).cards() == (
        card, builtin_card("beginner"))


def test_documented_table_matches_the_card_file() -> None:
    section = DOC.read_text(encoding="utf-8").split("## Our own card: advanced")[1]
    card = builtin_card("advanced")
    rows = re.findall(r"^\| ([\d, ]+) \| ([^|]+) \|", section, flags=re.MULTILINE)
    described: dict[int, str] = {}
    for plays, rule in rows:
        for play in plays.split(","):
            described[int(play)] = rule.strip()
    assert sorted(described) == list(range(1, 9))
    for play, text in described.items():
        rule = card.rule(play)
        if isinstance(rule, Promise):
            assert text == f"promise, offset {rule.offset:+d}"
        elif isinstance(rule, Answer):
            assert text == f"answer play {rule.play}"
        else:
            assert isinstance(rule, NoMeaning) and text == "no meaning"
    assert f"Low cards are A to {card.low_max}" in card.notes
