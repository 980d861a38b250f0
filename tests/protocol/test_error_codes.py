"""One error vocabulary: ErrorCode is exactly what docs/PROTOCOL.md documents, every
refusal (the engine's IllegalAction, the protocol's ProtocolError) carries one, its
members travel as the same text as ever, a newer server's code still decodes, and no
source file compares a code with a bare string."""

from __future__ import annotations

import ast
import re

import msgspec
import pytest
from jackal.game.errors import IllegalAction, JackalError, Refusal
from jackal.protocol import ErrorCode, ProtocolError, RemoteProtocolError
from jackal.protocol.codec import decode_server, encode
from jackal.protocol.messages import Error
from support import ROOT

DOC = ROOT / "docs" / "PROTOCOL.md"
#: The source folders whose code may compare error codes.
SOURCES = ("game", "protocol", "server", "client", "bots", "arena", "cli", "examples")


def documented_codes() -> set[str]:
    """The first column of the table under "## Error codes"."""
    text = DOC.read_text()
    section = text[text.index("\n## Error codes"):]
    section = section[:section.index("\n## ", 1)]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))


def test_every_documented_code_is_an_error_code_and_back() -> None:
    documented = documented_codes()
    assert len(documented) > 40  # the table was found and read
    assert documented == {code.value for code in ErrorCode}


def test_every_refusal_carries_an_error_code() -> None:
    assert issubclass(ProtocolError, Refusal) and issubclass(RemoteProtocolError, Refusal)
    assert issubclass(IllegalAction, Refusal) and issubclass(IllegalAction, JackalError)
    engine = IllegalAction(ErrorCode.NOT_IN_HAND, "N does not hold 7H")
    assert engine.code is ErrorCode.NOT_IN_HAND and engine.message == str(engine)
    with pytest.raises(ValueError, match="made_up"):
        IllegalAction("made_up", "x")  # type: ignore[arg-type]
    newer = ErrorCode("from_a_newer_server")  # a stand-in, as a decoded unknown code is
    with pytest.raises(ValueError, match="from_a_newer_server"):
        ProtocolError(newer, "x")


@pytest.mark.parametrize("code", list(ErrorCode))
def test_a_code_travels_as_its_text(code: ErrorCode) -> None:
    line = encode(Error(code=code, message="m", id=3))
    assert msgspec.json.decode(line)["code"] == code.value
    decoded = decode_server(line)
    assert isinstance(decoded, Error) and decoded.code is code and code.known


def test_a_newer_servers_code_still_decodes() -> None:
    """A client built against this list reads an error whose code it does not know: the
    code keeps its text (to show) and equals no member, so every comparison says no."""
    decoded = decode_server(b'{"type":"error","code":"brand_new","message":"m","id":1}')
    assert isinstance(decoded, Error)
    code = decoded.code
    assert code == "brand_new" and str(code) == f"{code}" == "brand_new"
    assert isinstance(code, ErrorCode) and not code.known
    assert code not in list(ErrorCode) and code != ErrorCode.INTERNAL
    assert encode(decoded) == encode(Error(code=ErrorCode.INTERNAL, message="m", id=1)
                                     ).replace(b"internal", b"brand_new")


def _bare_comparisons(source: str, name: str) -> list[str]:
    """``x.code == "text"``, ``x.code in ("a", "b")`` and the like in one file."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(isinstance(side, ast.Attribute) and side.attr == "code" for side in sides):
            continue
        for side in sides:
            items = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            if any(isinstance(item, ast.Constant) and isinstance(item.value, str)
                   for item in items):
                found.append(f"{name}:{node.lineno}")
    return found


def test_no_source_compares_a_code_with_a_bare_string() -> None:
    found = [hit for folder in SOURCES for path in sorted((ROOT / folder).rglob("*.py"))
             for hit in _bare_comparisons(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == []


def test_the_comparison_scan_finds_what_it_looks_for() -> None:
    bad = ('def f(e, code):\n    return e.code == "bad_token" or e.code in ("x",)\n'
           'def g(e):\n    return "x" != e.code or e.code is ErrorCode.X or e.name == "x"\n')
    assert _bare_comparisons(bad, "bad.py") == ["bad.py:2", "bad.py:2", "bad.py:4"]
