"""Bot programs against a real server: ``jackal bot`` runs, tables of server bots."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import trio
from jackal.game.seats import Seat

BOT = [sys.executable, "-m", "jackal.cli.main", "bot"]


async def run_bot(*args: str, cwd: Path | None = None,
                  timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(timeout):
        return await trio.run_process([*BOT, *args], capture_stdout=True, capture_stderr=True,
                                      check=False, cwd=cwd)


async def table_with_bots(port: int, seats: str, target: int, strategy: str | None = None) -> str:
    """A new table (its id) with server-side bots in ``seats`` (e.g. "NES"): ``strategy``,
    or the server's choice."""
    from jackal.client.connection import open_connection
    from jackal.protocol.messages import TableCreated
    from jackal.protocol.requests import AddBot, CreateTable, Hello

    async with open_connection("127.0.0.1", port) as conn:
        await conn.request(Hello(name="host"))
        created = await conn.request(CreateTable(target=target))
        assert isinstance(created, TableCreated)
        for seat in seats:
            await conn.request(AddBot(table=created.table, seat=Seat(seat), strategy=strategy))
    return created.table


def non_stdlib_imports(source: str) -> set[str]:
    """The top-level modules ``source`` imports that are not in the standard library."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    return modules - set(sys.stdlib_module_names)
