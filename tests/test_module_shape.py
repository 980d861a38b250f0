"""Every module reads in one sitting: at most 600 lines, and a module docstring of at most
five lines saying what the module holds (behaviour belongs in docs/PROTOCOL.md and
docs/BOTS.md, design reasons beside the code they explain)."""

from __future__ import annotations

import ast
import subprocess
import tomllib
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


def test_every_package_folder_is_a_package_that_installs() -> None:
    """Each folder of code has its ``__init__.py`` and is listed in pyproject.toml, so a
    non-editable install ships it (a folder without one became a namespace package that an
    editable install still imported, hiding the defect until a fresh install)."""
    folders = sorted({path.parent for path in _modules()})
    assert [_name(folder) for folder in folders if not (folder / "__init__.py").exists()] == []
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    named = {"jackal." + _name(folder).replace("/", ".") for folder in folders}
    assert named == listed


@pytest.mark.subprocess
def test_git_ignores_no_source_file() -> None:
    """A source file git ignores is missing from every fresh clone (``records/`` once
    matched server/records/ and hid its ``__init__.py``)."""
    ignored = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--",
         *PACKAGES, "tests", "bench", "examples", "docs"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert [name for name in ignored if "__pycache__" not in name] == []


def test_the_test_folders_mirror_the_packages() -> None:
    """tests/server/net/ holds the tests of server/net/, and so on: a test folder names a
    package folder (tests/ itself keeps the checks of the whole tree; support/ is help)."""
    tests = ROOT / "tests"
    folders = {path.parent.relative_to(tests) for path in tests.rglob("test_*.py")}
    folders.discard(Path("."))
    assert folders, "no test folders found"
    assert sorted(str(folder) for folder in folders
                  if not (ROOT / folder / "__init__.py").exists()) == []
