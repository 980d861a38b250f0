"""``jackal conventions`` run as a real subprocess, as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from jackal.game.conventions import (
    BUILTIN_CARDS,
    Answer,
    ConventionCard,
    NoMeaning,
    Promise,
    builtin_card,
    card_from_json,
    card_from_toml,
    card_to_json,
)
from jackal.game.explain import describe_card

pytestmark = pytest.mark.subprocess


def jackal(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jackal.cli.main", "conventions", *args],
                          input=stdin, capture_output=True, text=True, timeout=30, check=False)


def test_list_shows_every_builtin_with_its_description() -> None:
    done = jackal("list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(BUILTIN_CARDS)
    for line, (name, card) in zip(lines, BUILTIN_CARDS.items(), strict=True):
        assert line.split()[0] == name
        assert line.endswith(card.description)


def test_show_prints_the_card_in_words() -> None:
    done = jackal("show", "beginner")
    assert done.returncode == 0, done.stderr
    assert done.stdout == describe_card(builtin_card("beginner"))
    flat = " ".join(done.stdout.split())
    assert "Play 1: promises a pair of the rank one below the card played" in flat
    assert "Play 8: no meaning" in flat
    assert "Low cards: A..7; high cards: 8..K." in done.stdout


def test_show_json_and_toml_give_back_the_same_card() -> None:
    as_json = jackal("show", "beginner", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert card_from_json(as_json.stdout) == builtin_card("beginner")
    as_toml = jackal("show", "none", "--toml")
    assert as_toml.returncode == 0, as_toml.stderr
    assert card_from_toml(as_toml.stdout) == builtin_card("none")


def test_show_and_check_a_custom_file(tmp_path: Path) -> None:
    card = ConventionCard(name="mine", low_max=6, plays=(
        Promise(offset=2, count=1), Answer(play=1), *(NoMeaning(),) * 6))
    path = tmp_path / "mine.json"
    path.write_text(card_to_json(card), encoding="utf-8")
    shown = jackal("show", str(path))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("mine\n")
    flat = " ".join(shown.stdout.split())
    assert "Play 1: promises at least one card of the rank 2 above" in flat
    assert "Play 2: answers partner's play 1: a low card (A..6)" in flat
    checked = jackal("check", str(path))
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "ok\n", "")


def test_check_a_bad_card_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\nplays = [\n' + '{ kind = "promise", offset = -1 },\n' * 2
                    + '{ kind = "promise", offset = 20 },\n'
                    + '{ kind = "none" },\n' * 5 + "]\n", encoding="utf-8")
    done = jackal("check", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "plays[2].offset: must be -12..12" in done.stderr
    assert str(path) in done.stderr


def test_check_from_stdin() -> None:
    good = jackal("check", "-", stdin=card_to_json(builtin_card("beginner")))
    assert (good.returncode, good.stdout) == (0, "ok\n")
    bad = jackal("check", "-", stdin='name = "x"\nlow_max = 13\nplays = []\n')
    assert bad.returncode == 2 and bad.stdout == ""
    assert "standard input: " in bad.stderr and "low_max: must be 1..12" in bad.stderr


def test_unknown_names_and_missing_files_exit_2(tmp_path: Path) -> None:
    unknown = jackal("show", "nonsense")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "neither a built-in card" in unknown.stderr
    missing = jackal("check", str(tmp_path / "absent.toml"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert "no such card file" in missing.stderr
