"""Each seat of a tournament table is held by the connection the director made for it
(issue 30, item 2): a ``cmd:`` program that got another entry's invitation code (leaked
here on purpose, through a folder both can write) and took that seat first fails the
table, whichever way it connected; honest ``cmd:`` and ``exec:`` entries never do.
"""

from __future__ import annotations

import json
import re
import sys
from functools import partial
from pathlib import Path

import pytest
import trio
from conftest import RunJackal
from jackal.arena.relay import JoinLog, SeatRelay
from jackal.game.seats import Seat
from support import ROOT
from support.server import ServerProcess

PY = f"{sys.executable} -I -S"
MINIMAL = ROOT / "examples" / "minimal_bot.py"

#: The victim: the level 4 example, but first it leaves its code and the port it was
#: given in the leak folder (argv[1]) and gives the thief a few seconds to use them.
LEAKY = """\
import os, runpy, socket, sys, time
leak, fd = sys.argv[1], int(sys.argv[sys.argv.index("--invite-fd") + 1])
table, seat = (sys.argv[sys.argv.index(flag) + 1] for flag in ("--table", "--seat"))
code = socket.socket(fileno=fd).makefile().readline().strip()
path = os.path.join(leak, f"{table}-{seat}")
with open(path + ".tmp", "w") as out:
    out.write(f"{code} {sys.argv[sys.argv.index('--port') + 1]}")
os.rename(path + ".tmp", path)
for _ in range(250):
    if os.path.exists(path + ".taken"):
        break
    time.sleep(0.02)
argv = [a for a in sys.argv[2:] if a != "--invite-fd" and a != str(fd)]
sys.argv = [sys.argv[0], *argv, "--invite", code]
runpy.run_path(MINIMAL, run_name="__main__")
"""

#: The thief: it takes the seat after its own (an opponent's) with the leaked code, over
#: a connection to argv[2]:argv[3] (the victim's port for "victim"), says ready and
#: holds on.
THIEF = """\
import json, os, socket, sys, time
leak, host, port, table, seat = sys.argv[1:6]
victim = "NESW"["NESW".index(seat) - 3]
path = os.path.join(leak, f"{table}-{victim}")
while not os.path.exists(path):
    time.sleep(0.02)
code, victim_port = open(path).read().split()
port = victim_port if port == "victim" else port
link = socket.create_connection((host, int(port)))
reader = link.makefile("rb")
def send(**message):
    link.sendall((json.dumps(message) + "\\n").encode())
send(type="hello", name="victim", id=1)
send(type="join", table=table, seat=victim, invite=code, id=2)
for raw in reader:
    reply = json.loads(raw)
    if reply.get("id") == 2:
        break
print(f"THIEF {table} {victim} {reply['type']}", file=sys.stderr, flush=True)
open(path + ".taken", "w").close()
send(type="ready")
while link.recv(65536):
    pass
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("way", ["its own relay", "the victim's relay", "the server directly"])
def test_a_seat_taken_with_a_leaked_code_fails_the_table(
        way: str, tmp_path: Path, run_jackal: RunJackal) -> None:
    leak = tmp_path / "leak"
    leak.mkdir()
    leaky, thief = tmp_path / "leaky.py", tmp_path / "thief.py"
    leaky.write_text(LEAKY.replace("MINIMAL", repr(str(MINIMAL))))
    thief.write_text(THIEF)
    server = ServerProcess(tmp_path, "--quiet") if way == "the server directly" else None
    try:
        # The thief reaches the server through the relay it was given, or straight.
        where = {"its own relay": "{host} {port}", "the victim's relay": "{host} victim",
                 "the server directly": f"127.0.0.1 {server and server.port}"}[way]
        results = tmp_path / "results.json"
        done = run_jackal(
            "tournament",
            "--entry", f"victim=cmd:{PY} {leaky} {leak} --host {{host}} --port {{port}} "
                       "--table {table} --seat {seat} --invite-fd {invite_fd}",
            "--entry", f"thief=cmd:{PY} {thief} {leak} {where} {{table}} {{seat}}",
            *(() if server is None else ("--server", f"127.0.0.1:{server.port}")),
            # The leak folder is the test's stand-in for a leak: no sandbox hides it.
            "--sandbox", "off", "--boards", "1", "--seat-seconds", "8", "--bot-floor", "0",
            "--program-output", "--results", str(results), "-q", timeout=120)
    finally:
        if server is not None:
            server.stop()
    # The leak worked at each table (the table fails at once, maybe before the second).
    took = re.findall(r"THIEF (t\d+) [NESW] joined", done.stderr)
    assert len(set(took)) == 2, done.stderr
    report = json.loads(results.read_text())
    how = {"its own relay": r"through the connection of seat [NESW] \(thief\)",
           "the victim's relay": r"through its own relay by another connection",
           "the server directly": "by a connection the tournament did not make for it"}[way]
    assert len(report["failures"]) == 2, report["failures"]
    for line in report["failures"]:
        assert re.search(rf"seat [NESW] \(victim\) was taken {how}", line), line
    # Nothing the thief played counts as the victim's.
    assert report["tables"] == []
    assert {row["name"]: row["tables"] for row in report["standings"]} == {
        "victim": 0, "thief": 0}
    assert done.returncode == 1


@pytest.mark.subprocess
def test_honest_cmd_and_exec_entries_hold_their_own_seats(
        tmp_path: Path, run_jackal: RunJackal) -> None:
    first = tmp_path / "first.py"
    first.write_text("import json, sys\nfor line in sys.stdin:\n"
                     "    print(json.loads(line)['hand'][0], flush=True)\n")
    results = tmp_path / "results.json"
    done = run_jackal(
        "tournament",
        "--entry", f"mini=cmd:{PY} {MINIMAL} --host {{host}} --port {{port}} "
                   "--table {table} --seat {seat} --invite-fd {invite_fd}",
        "--entry", f"first=exec:{PY} {first}",
        "--boards", "1", "--bot-floor", "0", "--results", str(results), "-q", timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(results.read_text())
    assert report["failures"] == []
    assert len(report["tables"]) == 2
    assert "was taken" not in done.stderr
    assert {row["name"]: row["faults"] for row in report["standings"]} == {
        "mini": 0, "first": 0}


async def test_the_relay_passes_bytes_unchanged_and_notes_joined_lines_split_anyhow() -> None:
    """In-process, real sockets: a server that sends ``joined`` cut mid-line, then a
    ``seat_taken`` refusal; the program reads every byte as sent, the log has both."""
    sent = [b'{"type":"welcome"}\n{"type":"joi', b'ned","table":"t1","seat":"E","token":"x"}',
            b'\n{"type":"error","code":"seat_taken","message":"seat N is taken"}\n']
    heard = trio.Event()
    got: list[bytes] = []

    async def server(stream: trio.SocketStream) -> None:
        got.append(await stream.receive_some(100))  # the program's line, through the relay
        heard.set()
        for chunk in sent:
            await stream.send_all(chunk)
            await trio.sleep(0.01)  # separate chunks, as a slow network would cut them

    log = JoinLog()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, server, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        relay = SeatRelay("127.0.0.1", port, log)
        await nursery.start(relay.serve)
        program = await trio.open_tcp_stream("127.0.0.1", relay.port)
        await program.send_all(b'{"type":"hello","name":"p"}\n')
        await heard.wait()
        received = b""
        while received.count(b"\n") < 3:
            received += await program.receive_some(1000)
        assert await log.wait_for(Seat.E, 1, 5.0)
        await program.aclose()
        relay.close()
        nursery.cancel_scope.cancel()
    assert got == [b'{"type":"hello","name":"p"}\n']
    assert received == b"".join(sent)
    assert log.seats == [Seat.E] and log.refused
