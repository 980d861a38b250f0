"""The one-command game's setup and the ``jackal play`` options (no terminal needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from jackal.bots.registry import substitute_strategy
from jackal.cli import play
from jackal.client.embedded import EmbeddedGame, seat_strategy
from jackal.game.conventions import BUILTIN_CARDS, ConventionCard, builtin_card, card_to_toml
from jackal.game.seats import Seat
from support import ROOT


@pytest.mark.parametrize("card", sorted(BUILTIN_CARDS))
def test_the_default_bots_are_the_substitute_for_each_sides_card(card: str) -> None:
    """By name or inline, a side's default bot is what bots.substitute_strategy names."""
    assert seat_strategy(card) == substitute_strategy(builtin_card(card))
    assert seat_strategy(builtin_card(card)) == substitute_strategy(builtin_card(card))


def test_bots_fill_the_other_seats_with_partner_and_opponents() -> None:
    game = EmbeddedGame(seat=Seat.E, partner="greedy", opponents="random")
    assert game.bots() == {Seat.W: "greedy", Seat.N: "random", Seat.S: "random"}


def test_conventions_go_to_the_right_partnership() -> None:
    south = EmbeddedGame(seat=Seat.S, conventions="advanced", their_conventions="none")
    east = EmbeddedGame(seat=Seat.E, conventions="advanced", their_conventions="none")
    assert (south.create_table().conventions_ns, south.create_table().conventions_ew) == \
        ("advanced", "none")
    assert (east.create_table().conventions_ns, east.create_table().conventions_ew) == \
        ("none", "advanced")


def test_play_again_deals_new_cards_from_a_given_seed() -> None:
    game = EmbeddedGame(seed=40, target=120, name="ada")
    first, second = game.create_table(1), game.create_table(2)
    assert (first.seed, second.seed) == (40, 41)
    assert first.target == second.target == 120
    assert first.name == "ada's game" and second.name == "ada's game 2"
    assert EmbeddedGame().create_table(3).seed is None
    # Nobody named ($USER unset): not "you's game".
    assert EmbeddedGame(name="you").create_table(1).name == "Your game"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_no_bell_help_names_both_bells_as_the_readme_does() -> None:
    """--no-bell silences the turn's bell and the clock's warning (TuiState rings both
    only with ``bell``); its help said only the first."""
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert ("do not ring the terminal bell when it becomes your turn or your time on a "
            "clock is nearly up") in text
    readme = " ".join((ROOT / "README.md").read_text()
                      .split())
    assert "`--no-bell` (no terminal bell when it becomes your turn or your time is nearly " \
           "up)" in readme


def test_options_and_defaults() -> None:
    args = parse()
    # No seat given: S in the built-in game, any free seat at a --table.
    assert args.seat is None and args.target == 300 and args.server is None
    assert args.table is None and args.bell and not args.confirm
    assert args.conventions == "beginner" and args.partner is None
    args = parse("--seat", "w", "--target", "50", "--seed", "9", "--symbols")
    assert args.seat is Seat.W and args.target == 50 and args.seed == 9 and args.symbols


@pytest.mark.parametrize("argv", [["--seat", "X"], ["--target", "0"], ["--target", "ten"]])
def test_bad_options_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse(*argv)
    assert exit_info.value.code == 2


def test_card_files_are_read_by_the_client_and_built_ins_go_by_name(tmp_path: Path) -> None:
    mine = ConventionCard(name="house", plays=builtin_card("beginner").plays,
                          description="our house card")
    path = tmp_path / "house.toml"
    path.write_text(card_to_toml(mine), encoding="utf-8")
    assert play._card_spec("Beginner") == "beginner"
    loaded = play._card_spec(str(path))
    assert isinstance(loaded, ConventionCard) and loaded.name == "house"
    with pytest.raises(ValueError, match="nope"):
        play._card_spec(str(tmp_path / "nope.toml"))


def test_fill_partner_and_opponents_choose_the_bots() -> None:
    """--partner and --opponents win over --fill, which wins over each side's card."""
    expert = substitute_strategy(builtin_card("beginner"))
    assert play.bot_strategies(parse(), "beginner", "beginner") == (expert, expert)
    assert play.bot_strategies(parse("--fill", "greedy"), "beginner", "none") == \
        ("greedy", "greedy")
    assert play.bot_strategies(parse("--fill", "greedy", "--partner", "beginner"),
                               "beginner", "none") == ("beginner", "greedy")
    assert play.bot_strategies(parse("--opponents", "random"), "beginner", "none") == \
        (expert, "random")


@pytest.mark.parametrize("option", ["--fill", "--partner", "--opponents"])
def test_a_bot_strategy_must_be_built_in(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The game's bots play in the server, which has only its built-in strategies."""
    with pytest.raises(SystemExit) as exited:
        parse(option, "mybots:Clever")
    assert exited.value.code == 2
    assert "invalid choice: 'mybots:Clever'" in capsys.readouterr().err
