"""The package's import graph: no cycles between modules, no forbidden layer crossings.

The graph is read from the source with ``ast`` (nothing is imported), so imports inside
functions and under ``if TYPE_CHECKING:`` count as much as top-level ones: a cycle that
only the type checker sees is still two modules that cannot be understood apart.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parent.parent
PACKAGES = ("game", "protocol", "server", "client", "bots", "cli")

#: Which of our packages each package may import: a layer sees only the layers below it.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "game": frozenset(),
    "protocol": frozenset({"game"}),
    "bots": frozenset({"game"}),
    "server": frozenset({"game", "protocol", "bots"}),
    "client": frozenset({"game", "protocol", "bots"}),
    "cli": frozenset(PACKAGES),
}

#: Known crossings being removed by work in progress, each with who removes it. An entry
#: that no longer occurs fails the test, so the list can only shrink.
KNOWN_CROSSINGS: frozenset[tuple[str, str]] = frozenset()
#: Known cycles (each a strongly connected set of modules, sorted), likewise shrinking only.
KNOWN_CYCLES: frozenset[tuple[str, ...]] = frozenset()


def _module_name(path: Path) -> str:
    rel = path.relative_to(TOP).with_suffix("")
    parts = rel.parts
    return ".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((TOP / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _resolve(target: str) -> str | None:
    """The module of ours ``target`` names (a dotted name below ``jackal``), if any."""
    while target:
        if target in MODULES:
            return target
        target = target.rpartition(".")[0]
    return None


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every module of ours that ``module`` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("jackal."):
                    found = _resolve(alias.name.removeprefix("jackal."))
                    if found is not None:
                        yield found
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["jackal", *package.split(".")]
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
                origin = origin.removeprefix("jackal").removeprefix(".")
            elif node.module is not None and node.module.startswith("jackal."):
                origin = node.module.removeprefix("jackal.")
            else:
                continue
            for alias in node.names:
                # `from . import views` names a module; `from .table import Table` a name.
                found = _resolve(f"{origin}.{alias.name}") or _resolve(origin)
                if found is not None and found != module:
                    yield found


GRAPH: dict[str, frozenset[str]] = {
    module: frozenset(_imports(module, path)) for module, path in MODULES.items()}


def _layer(module: str) -> str:
    return module.partition(".")[0]


def _crossings() -> set[tuple[str, str]]:
    return {(module, target) for module, targets in GRAPH.items() for target in targets
            if _layer(target) != _layer(module)
            and _layer(target) not in MAY_IMPORT[_layer(module)]}


def _cycles() -> set[tuple[str, ...]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(GRAPH[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read() -> None:
    # A reader that silently saw nothing would pass every check below.
    assert {"game.cards", "protocol.connection", "server.hub", "client.connection",
            "bots.base", "cli.main"} <= MODULES.keys()
    assert "game.cards" in GRAPH["game.deal"]
    assert {"protocol.connection", "protocol.messages"} <= GRAPH["protocol"]
    assert "game.seats" in GRAPH["server.table"]


def test_no_import_cycles() -> None:
    cycles = _cycles()
    assert cycles - KNOWN_CYCLES == set(), "import cycles between modules"
    assert KNOWN_CYCLES - cycles == set(), "fixed: remove from KNOWN_CYCLES"


def test_layers_are_respected() -> None:
    crossings = _crossings()
    assert crossings - KNOWN_CROSSINGS == set(), "forbidden imports between layers"
    assert KNOWN_CROSSINGS - crossings == set(), "fixed: remove from KNOWN_CROSSINGS"


#: Rooms inside a layer: the modules of each may be imported only by the room itself and
#: the modules listed (the terminal UI sits on the client library, never under it).
ROOMS: dict[str, frozenset[str]] = {
    "client.tui": frozenset({"cli.play"}),
}


def test_rooms_are_entered_only_from_above() -> None:
    wrong = sorted((module, target) for module, targets in GRAPH.items()
                   for target in targets for room, allowed in ROOMS.items()
                   if target.startswith(room + ".") and not module.startswith(room)
                   and module not in allowed)
    assert wrong == [], "imports into a room from outside it"
    assert all(any(module.startswith(room + ".") for module in MODULES) for room in ROOMS)


@pytest.mark.parametrize("source", [
    "from ..server import hub\n", "from jackal.server.hub import Hub\n",
    "import jackal.server.hub\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..server.hub import Hub\n",
    "def f() -> None:\n    from ..server.net import listener\n",
])
def test_every_import_form_is_seen(source: str, tmp_path: Path) -> None:
    # The reader must see each way of writing an import, or a crossing could hide in it.
    fake = tmp_path / "connection.py"  # read as client/connection.py: only the name counts
    fake.write_text(source)
    seen = set(_imports("client.connection", fake))
    assert seen & {"server.hub", "server.net.listener"}, source


def test_the_architecture_map_names_only_modules_that_exist() -> None:
    """docs/ARCHITECTURE.md, the map a newcomer reads first, names real modules and
    every package."""
    doc = (TOP / "docs" / "ARCHITECTURE.md").read_text()
    packages = "|".join(PACKAGES)
    # Nested paths too (`server/net/session.py`, `client/tui/app.py`).
    named = set(re.findall(rf"`((?:{packages})/(?:\w+/)*\w+\.py)`", doc))
    assert len(named) > 20
    assert sorted(path for path in named if not (TOP / path).exists()) == []
    assert all(f"`{package}/`" in doc for package in PACKAGES)
