"""Hostile programs against ``jackal tournament``'s sandbox (issue 30, items 1, 2 and 4).

Each test runs the real command in a subprocess with a real hostile program: copies that
pass their hands through kernel file locks, a program that, run as root, tries to leave
its sandbox (umount, remount, setns) and read a ``--server``'s records and the
organizer's environment and to drive the organizer's terminal through stderr, and a
``cmd:`` entry that looks for other entries' invitations in /proc.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from conftest import RunJackal
from jackal.client.sandbox import find_bwrap
from support import ROOT
from support.server import ServerProcess
from support.tournament import program_file

pytestmark = pytest.mark.subprocess

#: The real interpreter, not a venv's link to it: the file the copies lock.
PY = os.path.realpath(sys.executable)
needs_bwrap = pytest.mark.skipif(find_bwrap() is None,
                                 reason="bubblewrap cannot isolate a program here")

#: An exec: entry whose copies tell each other their hands through kernel file locks:
#: per card held, a read lock on one byte of the interpreter (POSIX and OFD locks) and a
#: shared flock on one standard library file; each move it asks which of its partner's
#: are held ("LOCKER seat play n hand k posix=… ofd=… flock=…": partner's cards decoded).
LOCKER = """\
import errno, fcntl, json, os, struct, sys
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
SEATS = "NESW"
def index(card):
    return "A23456789TJQK".index(card[0]) * 4 + "SHDC".index(card[1])
target = os.path.realpath(sys.executable)
stdlib = os.path.dirname(os.__file__)
files = sorted(os.path.join(stdlib, n) for n in os.listdir(stdlib) if n.endswith(".py"))[:208]
held = []
def flock_arg(kind, off):
    return struct.pack("hhqqi", kind, 0, off, 1, 0)
def mark(seat, hand):
    for fd in held:
        os.close(fd)
    held.clear()
    said = {}
    for mech in ("posix", "ofd", "flock"):
        try:
            fd = os.open(target, os.O_RDONLY)
            held.append(fd)
            for card in hand:
                off = 4096 + SEATS.index(seat) * 64 + index(card)
                if mech == "posix":
                    fcntl.fcntl(fd, fcntl.F_SETLK, flock_arg(fcntl.F_RDLCK, off))
                elif mech == "ofd":
                    fcntl.fcntl(fd, 37, flock_arg(fcntl.F_RDLCK, off))
                else:
                    one = os.open(files[SEATS.index(seat) * 52 + index(card)], os.O_RDONLY)
                    held.append(one)
                    fcntl.flock(one, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            said[mech] = exc.errno
    return said
def probe(seat):
    found = {}
    for mech in ("posix", "ofd", "flock"):
        n = 0
        for i in range(52):
            off = 4096 + SEATS.index(seat) * 64 + i
            try:
                if mech == "flock":
                    fd = os.open(files[SEATS.index(seat) * 52 + i], os.O_RDONLY)
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        n += 1
                    finally:
                        os.close(fd)
                    continue
                fd = os.open(target, os.O_RDONLY)
                try:
                    got = fcntl.fcntl(fd, fcntl.F_GETLK if mech == "posix" else 36,
                                      flock_arg(fcntl.F_WRLCK, off))
                finally:
                    os.close(fd)
                if struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK:
                    n += 1
            except OSError:
                pass
        found[mech] = n
    return found
for line in sys.stdin:
    turn = json.loads(line)
    if turn.get("type") != "your_turn":
        continue
    refused = mark(turn["seat"], turn["hand"])
    found = probe(PARTNER[turn["seat"]])
    print(f"LOCKER {turn['seat']} play {turn['play']} hand {len(turn['hand'])} "
          + " ".join(f"{m}={n}" for m, n in found.items())
          + f" refused={sorted(refused)}", file=sys.stderr, flush=True)
    print(turn["hand"][0], flush=True)
"""

#: An exec: entry that, at its first move, tries everything a program run as root could
#: do to leave its sandbox, and reports each outcome on stderr ("PROBE what=result").
PROBER = """\
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(what, result):
    said = "ok" if result == 0 else f"refused:{os.strerror(ctypes.get_errno())}"
    print(f"PROBE {what}={said}", file=sys.stderr, flush=True)
def read(what, path):
    try:
        found = os.listdir(path) if os.path.isdir(path) else [open(path).read(64)]
        print(f"PROBE {what}=read:{len(found)}", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"PROBE {what}=refused:{exc.strerror}", file=sys.stderr, flush=True)
for line in sys.stdin:
    turn = json.loads(line)
    if turn["play"] == 1:
        status = open("/proc/self/status").read()
        caps = [row.split()[1] for row in status.splitlines() if row.startswith("CapEff")]
        print(f"PROBE capeff={caps[0]}", file=sys.stderr, flush=True)
        call("umount", libc.umount2(b"/tmp", 2))
        call("remount", libc.mount(None, b"/", None, 32 | 1 << 5, None))  # MS_REMOUNT
        fd = os.open("/proc/1/ns/net", os.O_RDONLY)
        call("setns", libc.setns(fd, 0))
        read("records", RECORDS)
        read("home", HOME_FILE)
        print(f"PROBE canary={os.environ.get('AWS_SECRET_ACCESS_KEY', 'none')}",
              file=sys.stderr, flush=True)
        # OSC 52 (set the clipboard), a retitle and a cleared screen
        print("PROBE osc=\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b]0;owned\\x07\\x1b[2J",
              file=sys.stderr, flush=True)
    print(turn["hand"][0], flush=True)
"""

#: A cmd: entry that reads every other process's environment and command line for an
#: invitation code, joins each table with each code it finds, and reports what it got;
#: then plays its own seat (the level 4 example) if it can.
THIEF = """\
import json, os, re, runpy, socket, sys, time
host, port = os.environ["JACKAL_HOST"], int(os.environ["JACKAL_PORT"])
print(f"THIEF canary={os.environ.get('AWS_SECRET_ACCESS_KEY', 'none')}", file=sys.stderr,
      flush=True)
def parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return 0
def ours(pid, top):  # only the tournament's own processes: other tests' are not prey
    while pid > 1:
        if pid == top:
            return True
        pid = parent(pid)
    return False
# jackal tournament, above the launcher (if any) and this program
top = parent(os.getppid()) if os.environ.get("JACKAL_INVITE_FD") else os.getppid()
codes = set()
deadline = time.monotonic() + 3
while time.monotonic() < deadline:
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid() or not ours(int(pid), top):
            continue
        try:
            text = (open(f"/proc/{pid}/environ", "rb").read()
                    + b"\\0" + open(f"/proc/{pid}/cmdline", "rb").read()).decode()
        except OSError:
            continue
        for key, value in re.findall(r"(JACKAL_INVITE|--invite)[=\\0]([\\w-]+)", text):
            codes.add(value)
        for name in os.listdir(f"/proc/{pid}/fd") if os.access(f"/proc/{pid}/fd", 0) else []:
            try:
                fd = os.open(f"/proc/{pid}/fd/{name}", os.O_RDONLY | os.O_NONBLOCK)
                try:
                    data = os.read(fd, 64)
                finally:
                    os.close(fd)
                codes.update(re.findall(r"[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}",
                                        data.decode(errors="replace")))
            except OSError:
                pass
    time.sleep(0.05)
print(f"THIEF codes={len(codes)}", file=sys.stderr, flush=True)
for code in codes:
    for number in range(1, 7):
        for seat in "NESW":
            link = socket.create_connection((host, port))
            reader = link.makefile("rb")
            for message in ({"type": "hello", "name": "thief", "id": 1},
                            {"type": "join", "table": f"t{number}", "seat": seat,
                             "invite": code, "id": 2}):
                link.sendall((json.dumps(message) + "\\n").encode())
            for raw in reader:
                reply = json.loads(raw)
                if reply.get("id") == 2:
                    break
            if reply["type"] == "joined":
                print(f"THIEF took t{number} {seat}", file=sys.stderr, flush=True)
            link.close()
sys.argv = [sys.argv[0], *sys.argv[1:]]
runpy.run_path(MINIMAL, run_name="__main__")
"""

@needs_bwrap
@pytest.mark.parametrize("sandbox", ["on", "auto"])
def test_copies_cannot_share_hands_through_file_locks(
        sandbox: str, tmp_path: Path, run_jackal: RunJackal) -> None:
    """Each copy locks one byte of the interpreter (POSIX and OFD locks) and one stdlib
    file (flock) per card it holds and asks the kernel which of its partner's are held:
    before the seccomp filter, each copy knew partner's whole hand."""
    locker = program_file(tmp_path, "locker.py", LOCKER)
    done = run_jackal("tournament", "--entry", f"lk=exec:{PY} -I -S {locker}",
                      "--entry", "r=random", "--boards", "1", "--sandbox", sandbox, "-q",
                      "--bot-floor", "0", timeout=170)  # the locks, not bot timing
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"LOCKER [NESW] play (\d+) hand \d+ posix=(\d+) ofd=(\d+) flock=(\d+)"
                      r" refused=(.*)", done.stderr)
    assert len(rows) >= 16, done.stderr  # 2 tables x 2 seats x 8 plays (more if tied)
    decoded = sum(int(n) for row in rows for n in row[1:4])
    assert decoded == 0, f"copies read {decoded} of their partner's cards through locks"
    assert all(row[4] == "['flock', 'ofd', 'posix']" for row in rows), rows


@needs_bwrap
def test_a_root_program_stays_in_its_sandbox(tmp_path: Path, run_jackal: RunJackal) -> None:
    """Run as root (as here), the program has no capability: umount, remount and setns
    fail; neither a server's records folder (a --server's, wherever it keeps them) nor
    the organizer's home nor environment is visible; its OSC 52 reaches the terminal
    escaped, labelled and kept in a file beside the results.

    The records are a real server's, but the tournament plays on its embedded server:
    a --server run costs over 20 s (its tables linger after the match), and the sandbox
    binds nothing by the server it plays on (its allow-list does not name --server)."""
    server = ServerProcess(tmp_path, "--quiet")
    server.records.mkdir(exist_ok=True)  # (the server makes it at its first record)
    (server.records / "t1-secret.jsonl").write_text("{}\n")
    home = tmp_path / "organizer"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("a key\n")
    prober = program_file(tmp_path, "prober.py", PROBER.replace(
        "RECORDS", repr(str(server.records))).replace(
        "HOME_FILE", repr(str(home / ".ssh" / "id_ed25519"))))
    results = tmp_path / "results.json"
    try:
        done = run_jackal("tournament", "--entry", f"pr=exec:{PY} -I -S {prober}",
                          "--entry", "r=random", "--boards", "1", "--sandbox", "on",
                          "--bot-floor", "0", "--results", str(results), "-q", timeout=170,
                          env={"AWS_SECRET_ACCESS_KEY": "canary-7f3a", "HOME": str(home)})
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    probes = re.findall(r"\[pr (t\d+) ([NESW])\] PROBE (\w+)=(\S*)", done.stderr)
    seen = {(what, result) for _, _, what, result in probes}
    assert {what for what, _ in seen} >= {"capeff", "umount", "remount", "setns", "records",
                                          "home", "canary", "osc"}, done.stderr
    assert ("capeff", "0000000000000000") in seen, seen
    for what in ("umount", "remount", "setns", "records", "home"):
        assert {result.split(":")[0] for w, result in seen if w == what} == {"refused"}, seen
    assert "canary-7f3a" not in done.stderr
    assert ("canary", "none") in seen
    # The escape sequences arrive as text, with the copy's entry, table and seat.
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert re.search(r"\[pr t\d [NESW]\] PROBE osc=\\x1b\]52;c;ZWNobyBwd25lZA==\\x07",
                     done.stderr), done.stderr
    logs = json.loads(results.read_text())["tournament"]["program_logs"]
    kept = Path(logs["pr"]).read_text()
    assert "PROBE osc=\\x1b]52" in kept and "\x1b" not in kept
    assert Path(logs["pr"]).parent == tmp_path


def test_a_cmd_entry_finds_no_invitation_in_proc(tmp_path: Path,
                                                 run_jackal: RunJackal) -> None:
    """Other entries' invitation codes are not in any process's environment, command
    line or reopenable descriptor: the thief finds none and takes no seat."""
    minimal = ROOT / "examples" / "minimal_bot.py"
    thief = program_file(tmp_path, "thief.py", THIEF.replace("MINIMAL", repr(str(minimal))))
    results = tmp_path / "results.json"
    command = ("--host {host} --port {port} --table {table} --seat {seat} "
               "--invite-fd {invite_fd}")
    done = run_jackal(
        "tournament", "--entry", f"thief=cmd:{PY} {thief} {command}",
        "--entry", f"victim=cmd:{PY} {minimal} {command}", "--boards", "1", "--jobs", "1",
        "--move-seconds", "5", "--seat-seconds", "10", "--program-output",
        "--bot-floor", "0", "--results", str(results), "-q", timeout=170,
        env={"AWS_SECRET_ACCESS_KEY": "canary-7f3a"})
    assert done.returncode == 0, done.stderr
    assert re.findall(r"THIEF codes=(\d+)", done.stderr) == ["0", "0", "0", "0"], done.stderr
    assert "THIEF took" not in done.stderr
    assert "canary-7f3a" not in done.stderr
    report = json.loads(results.read_text())
    victim = next(row for row in report["standings"] if row["name"] == "victim")
    assert victim["faults"] == 0, victim
