"""Every module reads in one sitting: at most 600 lines, and a module docstring of at most
five lines saying what the module holds (behaviour belongs in docs/PROTOCOL.md and
docs/BOTS.md, design reasons beside the code they explain)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import ROOT

PACKAGES = ("game", "protocol", "server", "client", "bots", "cli", "arena")
MAX_LINES = 600
MAX_DOCSTRING_LINES = 5


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _docstring_lines(source: str) -> int:
    doc = ast.get_docstring(ast.parse(source), clean=False)
    return 0 if doc is None else len(doc.strip().splitlines())


def test_the_modules_are_found() -> None:
    names = {_name(path) for path in _modules()}
    assert {"game/cards.py", "server/table.py", "client/tui/app.py", "cli/main.py"} <= names


@pytest.mark.parametrize(("source", "lines"), [
    ('"""One line."""\n', 1),
    ('"""\nOne line after a newline.\n"""\nx = 1\n', 1),
    ('"""One.\n\nThree, with a blank line."""\n', 3),
    ("# a comment\n'''One.\nTwo.'''\n", 2),
    ("x = 1\n", 0),
])
def test_docstring_lines_are_counted(source: str, lines: int) -> None:
    assert _docstring_lines(source) == lines


def test_no_module_is_over_600_lines() -> None:
    long = {_name(path): n for path in _modules()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_module_docstrings_are_five_lines_at_most() -> None:
    long = {_name(path): n for path in _modules()
            if (n := _docstring_lines(path.read_text())) > MAX_DOCSTRING_LINES}
    assert long == {}, "module docstrings over five lines"
