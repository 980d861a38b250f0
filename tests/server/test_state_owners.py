"""Who writes a table's state, read from the source with ``ast``: only table.py writes a
table's fields (its parts are handed what they read and return what they decided), only
``Table._changed`` moves its ``version``, and only seating.py writes a seat's fields (every
other module changes a seat through :class:`server.seating.Seating`'s methods).

The check goes by the names the code uses: a table is ``table`` or ``self`` in table.py,
a seat is a ``slot``, a ``SeatSlot`` or an item of some ``seats`` mapping. A module that
hid a write behind another name would pass, which is why the names are kept."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from jackal.server.seating import SeatSlot

SERVER = Path(__file__).resolve().parents[2] / "server"
SLOT_FIELDS = frozenset(field.name for field in dataclasses.fields(SeatSlot))
#: Methods that change the container they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "clear", "update",
                      "setdefault", "add", "discard", "remove"})


def _writes(tree: ast.AST) -> Iterator[tuple[ast.expr, ast.FunctionDef | None]]:
    """Every assignment target in ``tree`` (tuples unpacked, ``del`` and the container of
    a mutating call included) with the function it is in."""
    def visit(node: ast.AST, func: ast.FunctionDef | None) -> Iterator[
            tuple[ast.expr, ast.FunctionDef | None]]:
        if isinstance(node, ast.FunctionDef):
            func = node
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATORS:
            targets = [node.func.value]  # ``table.spectators.pop(peer)`` writes that dict
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            else:
                yield target, func
        for child in ast.iter_child_nodes(node):
            yield from visit(child, func)
    yield from visit(tree, None)


def _root(expr: ast.expr) -> str | None:
    """The name an attribute or item chain starts from (``table`` in ``table.a.b[c]``)."""
    while isinstance(expr, ast.Attribute | ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _is_seat(expr: ast.expr) -> bool:
    """``expr`` names a seat: a ``slot`` variable or an item of a ``seats`` mapping."""
    if isinstance(expr, ast.Name):
        return "slot" in expr.id
    return isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) \
        and expr.value.attr == "seats"


def _modules() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def _offences(name: str, source: str) -> list[str]:
    """The writes in module ``name`` (its file name) of state it does not own."""
    wrong = []
    for target, func in _writes(ast.parse(source)):
        # A variable named ``table`` may be bound anywhere; its fields are table.py's.
        of_table = name != "table.py" and not isinstance(target, ast.Name) \
            and _root(target) == "table"
        of_seat = name != "seating.py" and isinstance(target, ast.Attribute) \
            and target.attr in SLOT_FIELDS and _is_seat(target.value)
        bump = name == "table.py" and isinstance(target, ast.Attribute) \
            and target.attr == "version" and _root(target) == "self" \
            and (func is None or func.name not in ("__init__", "_changed"))
        if of_table or of_seat or bump:
            wrong.append(f"{target.lineno}: {ast.unparse(target)}")
    return wrong


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(SERVER)))
def test_only_the_table_writes_its_fields_and_only_seating_a_seats(path: Path) -> None:
    assert _offences(path.name, path.read_text(encoding="utf-8")) == [], \
        f"{path}: state written by a module that does not own it"


def test_the_check_sees_the_writes_it_forbids() -> None:
    """The writes this round removed are caught (the check can fail), and the owners'
    own writes are not."""
    removed = ("slot.ready = True\n"
               "table.seats[seat].takeover = True\n"
               "slot.peer, slot.held_until = None, 1.0\n"
               "table.version += 1\n"
               "del table.spectators[peer]\n"
               "self.seats[seat].shown = None\n"
               "table.spectators.pop(peer, None)\n")
    assert _offences("holds.py", removed) == [
        "1: slot.ready", "2: table.seats[seat].takeover", "3: slot.held_until",
        "3: slot.peer", "4: table.version", "5: table.spectators[peer]",
        "6: self.seats[seat].shown", "7: table.spectators"]
    assert _offences("seating.py", "slot.ready = True\n") == []
    bump = "def tick(self):\n    self.version += 1\n"
    assert _offences("table.py", bump) == ["2: self.version"]
    assert _offences("table.py", bump.replace("tick", "_changed")) == []
