"""The markers say what a test does: ``subprocess`` on every test that starts a process
(a server, the CLI, tmux, a bot program), ``tmux`` on every test that drives a terminal
in tmux, and on no other test. Read from the source with ``ast``, following the test's
own helpers, fixtures and the support modules it imports, so a new test cannot forget
its marker and ``pytest -m "not slow"`` stays quick (conftest.py makes both ``slow``).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: Modules whose names start a process wherever they are used.
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing"})
#: Calls that start a process, by their attribute name (trio.run_process, os.fork, ...).
PROCESS_CALLS = frozenset({"run_process", "open_process", "fork", "spawnv", "execv"})
TMUX_NAMES = frozenset({"Tmux"})
#: Test modules by import name: pytest imports each by its file name (the folders mirror
#: the packages and carry no ``__init__.py``), so file names are unique across tests/.
TEST_FILES = {path.stem: path for path in TESTS.rglob("test_*.py")}


@cache
def _module(name: str) -> ast.Module | None:
    """A module of tests/ by its import name (``test_x``, ``support.server``)."""
    path = TEST_FILES.get(name) or TESTS.joinpath(*name.split(".")).with_suffix(".py")
    return ast.parse(path.read_text(), str(path)) if path.exists() else None


@cache
def _scope(name: str) -> dict[str, tuple[str, str]]:
    """Names a test module binds: ``name -> (module, definition)``; a module's own
    definitions, names imported from other test modules, and conftest's fixtures.
    Process modules bind to ``("", "process")``."""
    tree = _module(name)
    assert tree is not None
    found: dict[str, tuple[str, str]] = {}
    conftest = _module("conftest")
    if conftest is not None and name != "conftest":
        found.update((node.name, ("conftest", node.name)) for node in conftest.body
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = (name, node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROCESS_MODULES:
                    found[alias.asname or alias.name] = ("", "process")
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                if node.module.split(".")[0] in PROCESS_MODULES:
                    found[alias.asname or alias.name] = ("", "process")
                elif _module(node.module) is not None:
                    found[alias.asname or alias.name] = (node.module, alias.name)
    return found


def _definition(module: str, name: str) -> ast.AST | None:
    """A top-level definition, or a method as ``Class.method``."""
    tree = _module(module)
    assert tree is not None
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in name.split("."):
        node = next((node for node in body if isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == part),
            None)
        if node is None:
            return None
        body = node.body
    return node


def _does(module: str, name: str, what: frozenset[str], seen: frozenset[tuple[str, str]]
          = frozenset()) -> bool:
    """Whether ``name`` of ``module`` (a function, a class or a fixture), or anything of
    ours it uses, starts a process (``what`` empty) or uses one of the ``what`` names."""
    node = _definition(module, name)
    if node is None or (module, name) in seen:
        return False
    seen = seen | {(module, name)}
    scope = _scope(module)
    used: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            used.add(inner.id)
        elif isinstance(inner, ast.arg):
            used.add(inner.arg)  # a fixture, by its parameter's name
        elif isinstance(inner, ast.Attribute) and not what and inner.attr in PROCESS_CALLS:
            return True
    if what and used & what:
        return True
    for used_name in used - {name}:
        target = scope.get(used_name)
        if target is None:
            continue
        if target == ("", "process"):
            if not what:
                return True
            continue
        if _does(*target, what, seen):
            return True
    return False


def starts_process(module: str, name: str) -> bool:
    return _does(module, name, frozenset())


def drives_tmux(module: str, name: str) -> bool:
    return _does(module, name, TMUX_NAMES)


def _marks(decorators: list[ast.expr]) -> set[str]:
    """The ``pytest.mark.X`` names among decorators (or a ``pytestmark`` value)."""
    found: set[str] = set()
    for decorator in decorators:
        for node in ast.walk(decorator):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "mark":
                found.add(node.attr)
    return found


def collected() -> list[tuple[str, str, set[str]]]:
    """Every test function: (module, name, the markers it carries)."""
    found = []
    for path in sorted(TEST_FILES.values()):
        tree = _module(path.stem)
        assert tree is not None
        module_marks = _marks([node.value for node in tree.body if isinstance(node, ast.Assign)
                               and any(isinstance(target, ast.Name) and target.id == "pytestmark"
                                       for target in node.targets)])
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and node.name.startswith("test_"):
                found.append((path.stem, node.name,
                              module_marks | _marks(node.decorator_list)))
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                class_marks = module_marks | _marks(node.decorator_list)
                found.extend((path.stem, f"{node.name}.{method.name}",
                              class_marks | _marks(method.decorator_list))
                             for method in node.body
                             if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
                             and method.name.startswith("test_"))
    return found


@pytest.mark.parametrize(("marker", "check"), [("subprocess", starts_process),
                                               ("tmux", drives_tmux)])
def test_every_test_that_starts_a_process_or_tmux_says_so(marker: str, check: object) -> None:
    assert callable(check)
    wrong = [f"{module}::{name}" + (" (unmarked)" if check(module, name) else " (marked)")
             for module, name, marks in collected()
             if check(module, name) != (marker in marks)]
    assert not wrong, f"{marker} marker wrong on: {wrong}"


def test_the_checker_follows_helpers_fixtures_and_support_modules() -> None:
    # run_bot (a helper of test_client_bot) runs the CLI: imported, then called.
    assert starts_process("test_exec_host",
                          "test_a_your_turn_only_bot_plays_through_a_server_restart")
    # run_jackal: a conftest fixture, named as a parameter.
    assert starts_process("test_cli_conventions", "test_show_prints_the_card_in_words")
    # Tmux, from support.tmux, through the terminals fixture (conftest).
    assert drives_tmux("test_chat_tmux",
                       "test_chat_in_the_lobby_and_at_the_table_but_not_during_a_deal")
    assert not starts_process("test_scoring",
                              "TestTeamPenalty.test_pair_costs_25_for_the_pair")
    assert not drives_tmux("test_exec_host",
                           "test_a_program_that_always_crashes_is_not_restarted_forever")
