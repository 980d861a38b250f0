"""The package's import graph: no cycles between modules, no forbidden layer crossings,
and rooms inside a layer (client/tui, server/net, server/records) entered and left only
where their rules below say.

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
PACKAGES = ("game", "protocol", "server", "client", "bots", "arena", "cli")

#: Which of our packages each package may import: a layer sees only the layers below it.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "game": frozenset(),
    "protocol": frozenset({"game"}),
    "bots": frozenset({"game"}),
    "server": frozenset({"game", "protocol", "bots"}),
    "client": frozenset({"game", "protocol", "bots"}),
    # Measuring bots: in-process (game, bots) and at a server through the client library.
    # Nothing below imports it: what the server shares with it (the yardstick, the
    # deal-play loop) lives in bots/.
    "arena": frozenset({"game", "protocol", "bots", "client"}),
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


def _crossings(graph: dict[str, frozenset[str]] = GRAPH) -> set[tuple[str, str]]:
    return {(module, target) for module, targets in graph.items() for target in targets
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


def _under(module: str, name: str) -> bool:
    """``module`` is ``name`` or lies in the package ``name``."""
    return module == name or module.startswith(name + ".")


def _rule(rules: dict[str, frozenset[str]], module: str) -> str | None:
    """The most specific key of ``rules`` that ``module`` lies under (a module's own entry
    before its room's), if any."""
    keys = [key for key in rules if _under(module, key)]
    return max(keys, key=len) if keys else None


#: Rooms inside a layer: the modules of each may be imported only by the room itself and
#: the modules listed; a module of a room may have an entry of its own, which wins.
ROOMS: dict[str, frozenset[str]] = {
    # The terminal UI sits on the client library, never under it.
    "client.tui": frozenset({"cli.play"}),
    # The network edge is the hub's: the hub and the greeter hand it lines (the hub's
    # record of a connection, its member, holds its session and quotas), server bots
    # think behind its thread slots. No table, lobby or record touches a connection.
    # The WebSocket's stream reads its socket and is written by the edge's transport.
    "server.net": frozenset({"server.hub", "server.hello", "server.member", "server.bots",
                            "server.web.gateway", "server.web.wsstream"}),
    # Only what starts a server goes in by the listener: jackal serve, play (a local
    # table) and tournament, and the package's own `serve`.
    "server.net.listener": frozenset({"server", "cli.serve", "cli.play", "cli.tournament"}),
    # The web port (the page and its WebSocket) is started by the listener alone, which
    # hands it the admission that makes a session of each WebSocket.
    "server.web": frozenset({"server.net.listener"}),
    # The tournament's table director (client connections, programs) is the engine of
    # jackal tournament alone: the arena in-process and the tournament on paper do no I/O.
    "arena.director": frozenset({"cli.tournament"}),
    # The Dask runner needs the optional cluster extra: only jackal arena --scheduler
    # loads it.
    "arena.cluster": frozenset({"cli.arena"}),
}

#: What a room's modules may import from the rest of their own layer: only modules under
#: the names listed (and their own room's). The most specific entry wins, as in ROOMS.
_RECORD_READERS = ("server.records.events", "server.records.files", "server.records.replay",
                   "server.records.stats")
REACHES: dict[str, frozenset[str]] = {
    # The edge knows the server only by its settings...
    "server.net": frozenset({"server.config"}),
    # ...and the listener, which hands each accepted connection to the hub.
    "server.net.listener": frozenset({"server.config", "server.hub", "server.net",
                                      "server.web"}),
    # The web port knows the edge's limits per address and its transport (which writes a
    # WebSocket's frames as it writes TCP lines), never the hub or a table.
    "server.web": frozenset({"server.net.ratelimit", "server.net.transport"}),
    # Records know the table they write and restore, never the network, the hub or the
    # lobby.
    "server.records": frozenset({"server.config", "server.names", "server.seating",
                                 "server.table", "server.table_options"}),
    # Reading a record needs no table: jackal replay, review and stats load none, and a
    # reader never reaches the writing side (recording, desk, restore).
    **{reader: frozenset({*_RECORD_READERS, "server.names", "server.table_options"})
       for reader in _RECORD_READERS},
}


def _intruders(graph: dict[str, frozenset[str]]) -> set[tuple[str, str]]:
    """Imports into a room (by ROOMS) from a module not allowed in."""
    wrong = set()
    for module, targets in graph.items():
        for target in targets:
            room = _rule(ROOMS, target)
            if room is not None and not _under(module, room) and module not in ROOMS[room]:
                wrong.add((module, target))
    return wrong


def _overreaches(graph: dict[str, frozenset[str]]) -> set[tuple[str, str]]:
    """Imports out of a room (by REACHES) to a module of its layer it may not see."""
    wrong = set()
    for module, targets in graph.items():
        room = _rule(REACHES, module)
        if room is None:
            continue
        for target in targets:
            if (_layer(target) == _layer(module) and not _under(target, room)
                    and not any(_under(target, name) for name in REACHES[room])):
                wrong.add((module, target))
    return wrong


def _exists(name: str) -> bool:
    return any(_under(module, name) for module in MODULES)


def test_rooms_are_entered_only_from_above() -> None:
    assert sorted(_intruders(GRAPH)) == [], "imports into a room from outside it"
    # A rule about a module that is gone, or allowing one, says nothing: it must go too.
    named = {*ROOMS, *(name for allowed in ROOMS.values() for name in allowed)}
    assert sorted(name for name in named if not _exists(name)) == []


def test_rooms_reach_only_what_they_must() -> None:
    assert sorted(_overreaches(GRAPH)) == [], "imports out of a room it may not make"
    named = {*REACHES, *(name for allowed in REACHES.values() for name in allowed)}
    assert sorted(name for name in named if not _exists(name)) == []


@pytest.mark.parametrize(("module", "source", "rule"), [
    # The table side does not touch a connection.
    ("server.table", "from .net.session import Session\n", "rooms"),
    ("server.records.desk", "from ..net import session\n", "rooms"),
    # Nothing but what starts a server goes in by the listener, the hub included.
    ("server.hub", "from .net.listener import serve\n", "rooms"),
    # Only the listener starts the web port; the web port reaches no hub or session.
    ("server.hub", "from .web.gateway import Gateway\n", "rooms"),
    ("server.web.gateway", "from ..hub import Hub\n", "reaches"),
    ("server.web.gateway", "from ..net.session import Session\n", "reaches"),
    ("cli.replay", "from ..server.net.listener import serve\n", "rooms"),
    # The edge does not know the hub (but for the listener), nor any record.
    ("server.net.session", "from ..hub import Hub\n", "reaches"),
    ("server.net.transport", "from ..records.files import RecordFile\n", "reaches"),
    # Records know neither the network edge nor the hub.
    ("server.records.desk", "from ..net.keepalive import Keepalive\n", "reaches"),
    ("server.records.restore", "from ..hub import Hub\n", "reaches"),
    # A reader loads no table, and nothing of the writing side.
    ("server.records.replay", "from ..table import Table\n", "reaches"),
    ("server.records.stats", "from .recording import Recording\n", "reaches"),
    ("server.records.events", "from .restore import restore_tables\n", "reaches"),
    # Only jackal tournament drives the tables; the arena's other modules do no I/O.
    ("cli.arena", "from ..arena.director import play_tables\n", "rooms"),
    ("arena.run", "from .director import play_table\n", "rooms"),
    ("arena.tournament", "from .director import DirectorSettings\n", "rooms"),
    # Dask is loaded only where --scheduler asks for it.
    ("cli.tournament", "from ..arena.cluster import run_on_cluster\n", "rooms"),
    ("arena.run", "from .cluster import run_batches\n", "rooms"),
])
def test_each_room_rule_refuses_a_counter_example(module: str, source: str, rule: str,
                                                  tmp_path: Path) -> None:
    # The rules must catch the import they are written against, or they only look strict.
    fake = tmp_path / "fake.py"  # read as `module`: only the name counts
    fake.write_text(source)
    added = frozenset(_imports(module, fake))
    assert added and not added <= GRAPH[module], source  # a new import, read as one
    check = {"rooms": _intruders, "reaches": _overreaches}[rule]
    caught = check({**GRAPH, module: GRAPH[module] | added}) - check(GRAPH)
    assert caught == {(module, target) for target in added}, source


@pytest.mark.parametrize(("module", "source"), [
    # Nothing below the arena imports it: not the server, not a strategy, not the client.
    ("server.deal_summary", "from ..arena.deal import play_deal\n"),
    ("bots.expert_pair", "from ..arena.deal import ArenaConfig\n"),
    ("client.exec_host", "from ..arena.tournament import Entry\n"),
    # The arena starts no server and leans on no command line.
    ("arena.director", "from ..server import serve\n"),
    ("arena.director", "from ..cli.program_clock import add_program_clock\n"),
])
def test_each_layer_rule_refuses_a_counter_example(module: str, source: str,
                                                   tmp_path: Path) -> None:
    fake = tmp_path / "fake.py"  # read as `module`: only the name counts
    fake.write_text(source)
    added = frozenset(_imports(module, fake))
    assert added and not added <= GRAPH[module], source
    caught = _crossings({**GRAPH, module: GRAPH[module] | added}) - _crossings()
    assert caught == {(module, target) for target in added}, source


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
    assert any(path.count("/") > 1 for path in named)  # the nested ones are read too
    assert sorted(path for path in named if not (TOP / path).exists()) == []
    assert all(f"`{package}/`" in doc for package in PACKAGES)


def _bench_imports(source: str) -> set[str]:
    """The top-level names a bench file imports, and "tests" if it reaches into tests/
    through a path (``sys.path.insert(..., "tests")``, as the benches once did)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            names.add(node.module.partition(".")[0])
        elif isinstance(node, ast.Constant) and node.value == "tests":
            names.add("tests")
    return names


def test_bench_never_imports_the_tests_support_library() -> None:
    """bench/ measures the package as a user runs it: what a bench shares with a test
    lives in bench/benchkit/ (which the test imports), never in tests/support/."""
    files = sorted((TOP / "bench").rglob("*.py"))
    assert len(files) > 5 and any(path.parent.name == "benchkit" for path in files)
    wrong = {str(path.relative_to(TOP)): found for path in files
             if (found := _bench_imports(path.read_text()) & {"support", "tests", "conftest"})}
    assert wrong == {}


@pytest.mark.parametrize("source", [
    "from support.server import ServerProcess\n", "import support.bot_timing\n",
    "import sys\nsys.path.insert(0, str(HERE / 'tests'))\n",
])
def test_a_bench_reaching_into_tests_is_seen(source: str) -> None:
    assert _bench_imports(source) & {"support", "tests"}, source
