"""Every public name of the protocol package is used by the server or the client.

The package's ``__all__`` is its public surface; a name there that neither the server nor
the client uses is either dead or a second way of doing something, so it fails here. The
uses are read with ``ast`` from the source (imports of the name from ``jackal.protocol``
or any of its modules, or attribute access on an imported protocol module).
"""

from __future__ import annotations

import ast

import jackal.protocol
import pytest
from support import ROOT

TOP = ROOT


def _used_names(package: str) -> set[str]:
    used: set[str] = set()
    for path in sorted((TOP / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        # `from ..protocol` in server/hub.py, `from ...protocol` in server/net/session.py
        depth = len(path.relative_to(TOP).parts)
        module_aliases: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                origin = node.module or ""
                from_protocol = (origin.startswith("protocol") and node.level == depth) or \
                    origin.startswith("jackal.protocol")
                if from_protocol:
                    for alias in node.names:
                        used.add(alias.name)
                        module_aliases.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in module_aliases):
                used.add(node.attr)  # e.g. `from ..protocol import messages as m; m.Hello`
    return used


@pytest.mark.slow
def test_every_public_protocol_name_is_used_by_server_or_client() -> None:
    used = _used_names("server") | _used_names("client")
    public = set(jackal.protocol.__all__)
    assert len(public) >= 10  # the surface is read at all
    assert sorted(public - used) == []


def test_the_reader_sees_imports() -> None:
    used = _used_names("server")
    assert {"ServerConnection", "ProtocolError", "ErrorCode"} <= used
