"""LAN discovery for real: a network namespace the test makes (loopback only, multicast on),
``jackal serve`` announcing in it, the browse of ``jackal play --lan`` finding it (and not
a ``--no-announce`` one) and its choice used to join a table over the protocol, in a
terminal too (tmux); no multicast costs a warning only; the QR code decoded back to its URL."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from jackal.cli.lan import choose, print_qr
from jackal.client.discovery import FoundServer
from jackal.protocol.messages import PROTOCOL_VERSION
from support import ROOT
from support.server import JACKAL, TIMEOUT
from support.tmux import TMUX, Tmux

IP = shutil.which("ip")


def _ip(*args: str) -> None:
    subprocess.run([IP or "ip", *args], check=True, capture_output=True, timeout=TIMEOUT)


def _namespace(multicast: bool) -> Iterator[str]:
    """A fresh network namespace with only ``lo``, up, and with ``multicast`` the flag and
    the route that let mDNS run on it; removed afterwards (its processes with it)."""
    if IP is None or os.geteuid() != 0:
        pytest.skip("needs root and iproute2's ip to make a network namespace")
    name = f"jackal-lan-{uuid.uuid4().hex[:8]}"
    try:
        _ip("netns", "add", name)
    except subprocess.CalledProcessError as exc:  # e.g. a container without CAP_SYS_ADMIN
        pytest.skip(f"cannot make a network namespace: {exc.stderr.decode().strip()}")
    try:
        _ip("-n", name, "link", "set", "lo", "up")
        if multicast:
            _ip("-n", name, "link", "set", "lo", "multicast", "on")
            _ip("-n", name, "route", "add", "224.0.0.0/4", "dev", "lo")
        yield name
    finally:
        # What a failed test left running there (its servers, its client) goes too.
        left = subprocess.run([IP, "netns", "pids", name], capture_output=True, text=True)
        for pid in left.stdout.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        _ip("netns", "del", name)


@pytest.fixture
def netns() -> Iterator[str]:
    yield from _namespace(multicast=True)


@pytest.fixture
def silent_netns() -> Iterator[str]:
    yield from _namespace(multicast=False)


@pytest.fixture
def lan() -> Iterator[tuple[str, str]]:
    """Two machines on a LAN: two namespaces joined by a veth pair (10.77.0.1 and .2/24,
    multicast on as on any Ethernet, the default route out through it), loopback without
    multicast as usual."""
    for host in _namespace(multicast=False):
        for guest in _namespace(multicast=False):
            _ip("link", "add", "lan0", "netns", host, "type", "veth",
                "peer", "name", "lan0", "netns", guest)
            for ns, address in ((host, "10.77.0.1/24"), (guest, "10.77.0.2/24")):
                _ip("-n", ns, "addr", "add", address, "dev", "lan0")
                _ip("-n", ns, "link", "set", "lan0", "up")
                _ip("-n", ns, "route", "add", "default", "dev", "lan0")  # as via a router
            yield host, guest


class Served:
    """``jackal serve`` inside a namespace; its log and its standard output in files."""

    def __init__(self, ns: str, tmp: Path, *args: str) -> None:
        self.log = tmp / f"serve-{uuid.uuid4().hex[:6]}.log"
        self.out = self.log.with_suffix(".out")
        with self.log.open("wb") as log, self.out.open("wb") as out:
            self.proc = subprocess.Popen(
                [IP or "ip", "netns", "exec", ns, *JACKAL, "serve", "--port", "0",
                 "--no-records", "--bot-floor", "0", *args],
                stdin=subprocess.DEVNULL, stdout=out, stderr=log, cwd=ROOT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.port = 0

    def started(self) -> Served:
        """Wait for the listening line (servers start side by side): ``self``."""
        self.port = int(self.wait(r"listening on \S+:(\d+)").group(1))
        return self

    def wait(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            text = self.log.read_text(errors="replace")
            if found := re.search(pattern, text):
                return found
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"never logged {pattern!r}:\n{text}")
            time.sleep(0.05)

    def stop(self) -> str:
        """SIGINT, as Ctrl-C: the clean stop; its whole log."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(TIMEOUT)
        return self.log.read_text(errors="replace")


#: Run in the namespace: the browse and choice of ``jackal play --lan`` with nobody to ask
#: (one server found: joined), then, over the protocol's bytes, a table made and joined.
JOIN = r"""
import json, socket, sys
from jackal.cli.lan import find_server

found = find_server(None)
print("CHOSE", found and found.address, flush=True)
if found is None:
    sys.exit(3)
host, port = found.host, found.port
with socket.create_connection((host, int(port)), timeout=10) as sock:
    stream = sock.makefile("rwb")
    def ask(message):
        stream.write(json.dumps(message).encode() + b"\n")
        stream.flush()
        while True:
            reply = json.loads(stream.readline())
            if reply.get("id") == message["id"]:
                return reply
    print(json.dumps(json.loads(stream.readline())))
    print(json.dumps(ask({"type": "hello", "name": "ada", "id": 1})))
    made = ask({"type": "create_table", "name": "lan night", "id": 2})
    print(json.dumps(ask({"type": "list_tables", "id": 3})))
    print(json.dumps(ask({"type": "join", "table": made["table"], "seat": "W", "id": 4})))
"""


def _in_namespace(ns: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([IP or "ip", "netns", "exec", ns, sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT)


def _decode_qr(text: str) -> str:
    """The text of the QR code drawn in ``text`` (segno's half blocks: a space is two dark
    modules, a full block two light ones), read by zxing-cpp, not by the library that drew
    it."""
    import zxingcpp

    top = {" ": 0, "\u2584": 0, "\u2580": 1, "\u2588": 1}
    bottom = {" ": 0, "\u2580": 0, "\u2584": 1, "\u2588": 1}
    lines = [line for line in text.splitlines() if line and set(line) <= set(top)]
    assert lines, text
    rows = [[half[c] for c in line] for line in lines for half in (top, bottom)]
    image = np.kron(np.array(rows, dtype=np.uint8) * 255, np.ones((8, 8), dtype=np.uint8))
    image = np.pad(image, 32, constant_values=255)
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1, "no QR code read"
    return str(found[0].text)


@pytest.mark.subprocess
def test_an_announced_server_is_found_joined_and_withdrawn(lan: tuple[str, str],
                                                          tmp_path: Path) -> None:
    host, guest = lan
    served = Served(host, tmp_path, "--host", "0.0.0.0", "--web", "0", "--qr",
                    "--name", "Friday \x1b[2Jnight")
    hidden = Served(host, tmp_path, "--host", "0.0.0.0", "--no-announce").started()
    served.started().wait(r"INFO announced on the LAN .* at 10\.77\.0\.1\n")
    # The page's address for the LAN, not 0.0.0.0 nor loopback.
    url = served.wait(r"web page on (http://10\.77\.0\.1:\d+/)").group(1)
    done = _in_namespace(guest, JOIN)
    assert done.returncode == 0, done.stderr + done.stdout
    # Only the announced one is found (--no-announce: nobody), so with nobody to ask it
    # is joined, from the other machine.
    chose, welcome, hello, tables, joined = done.stdout.strip().splitlines()[-5:]
    assert chose == f"CHOSE 10.77.0.1:{served.port}"
    assert f":{hidden.port}" not in done.stdout
    # The list line shows name (escaped: it came from the network), address and web page.
    assert (f"1. Friday \\x1b[2Jnight  10.77.0.1:{served.port}  web {url}  0 tables"
            in done.stdout)
    assert '"welcome"' in welcome and '"hello_ok"' in hello
    assert '"lan night"' in tables
    assert '"joined"' in joined and '"seat": "W"' in joined
    assert "announc" not in hidden.stop()
    assert "announcement withdrawn" in served.stop()
    # --qr: the page's address as a QR code on standard output, the logged one.
    assert _decode_qr(served.out.read_text()) == url


@pytest.mark.subprocess
def test_without_multicast_the_server_warns_once_and_serves(silent_netns: str,
                                                            tmp_path: Path) -> None:
    served = Served(silent_netns, tmp_path, "--host", "0.0.0.0").started()
    served.wait(r"WARNING not announced on the LAN: .*lo does not")
    # Still serving: a client in the namespace is welcomed.
    done = _in_namespace(silent_netns, (
        "import socket\n"
        f"s = socket.create_connection(('127.0.0.1', {served.port}), timeout=10)\n"
        "print(s.makefile('rb').readline().decode())\n"))
    assert '"welcome"' in done.stdout, done.stderr
    log = served.stop()
    assert log.count("WARNING") == 1


@pytest.mark.tmux
@pytest.mark.subprocess
@pytest.mark.skipif(TMUX is None, reason="needs tmux")
def test_play_lan_lists_the_servers_and_joins_the_one_picked(
        lan: tuple[str, str], tmp_path: Path, terminals: list[Tmux]) -> None:
    # Two servers on one machine of the LAN, the player on the other: each machine has its
    # own mDNS port (two browsers on one machine may take each other's unicast answers).
    host, guest = lan
    first = Served(host, tmp_path, "--host", "0.0.0.0", "--name", "alpha")
    second = Served(host, tmp_path, "--host", "0.0.0.0", "--name", "beta",
                    "--password", "s3cret")
    # One on loopback: never announced to the LAN (here not even to its own machine, whose
    # loopback, as usual, carries no multicast: said without a warning, as it is the default).
    local = Served(host, tmp_path, "--host", "127.0.0.1", "--name", "gamma")
    first.started().wait("INFO announced ")
    second.started().wait("INFO announced ")
    local.started().wait("INFO not announced on the LAN: .*lo does not")
    term = Tmux([IP or "ip", "netns", "exec", guest, *JACKAL, "play", "--lan", "--name", "ada"],
                tmp_path, env={"XDG_STATE_HOME": str(tmp_path / "state")})
    terminals.append(term)
    screen = term.wait(lambda s: "Server number 1-2" in s, "the list of servers")
    assert f"1. alpha  10.77.0.1:{first.port}  0 tables\n" in screen
    assert f"2. beta  10.77.0.1:{second.port}  0 tables  password" in screen
    assert "gamma" not in screen and "3." not in screen
    term.keys("7", "Enter")
    term.wait(lambda s: "no server 7" in s, "a number off the list refused")
    term.keys("2", "Enter")
    # The announcement says beta wants a password: asked for before the lobby.
    term.wait(lambda s: f"Password of 10.77.0.1:{second.port}:" in s, "the password prompt")
    term.keys("s3cret", "Enter")
    screen = term.wait(lambda s: f"lobby  10.77.0.1:{second.port}" in s and "connected" in s,
                       "beta's lobby")
    assert "bad_password" not in screen
    term.keys("C-q")
    assert term.wait_exit() == 0
    first.stop()
    second.stop()
    local.stop()


@pytest.mark.tmux
@pytest.mark.subprocess
@pytest.mark.skipif(TMUX is None, reason="needs tmux")
def test_play_host_serves_the_lan_from_the_players_process(
        netns: str, tmp_path: Path, terminals: list[Tmux]) -> None:
    term = Tmux([IP or "ip", "netns", "exec", netns, *JACKAL, "play", "--host", "--port", "0",
                 "--name", "ada", "--log", str(tmp_path / "play.log")], tmp_path, height=40,
                env={"XDG_STATE_HOME": str(tmp_path / "state")})
    terminals.append(term)
    screen = term.wait(lambda s: "Press Enter" in s, "the address and its QR code")
    port = int(re.search(r"Hosting on port (\d+)", screen).group(1))  # type: ignore[union-attr]
    url = re.search(r"Open (\S+) on a phone", screen).group(1)  # type: ignore[union-attr]
    assert _decode_qr(screen) == url
    deadline = time.monotonic() + TIMEOUT
    while "INFO announced " not in (tmp_path / "play.log").read_text():
        assert time.monotonic() < deadline, "never announced"
        time.sleep(0.05)
    # A friend on the LAN finds the hosted server and sits at a table there.
    done = _in_namespace(netns, JOIN)
    assert done.returncode == 0, done.stderr + done.stdout
    assert f"CHOSE 127.0.0.1:{port}" in done.stdout and '"joined"' in done.stdout
    # The host, in the lobby of the server in their own process, sees the friend's table.
    term.keys("Enter")
    term.wait(lambda s: "lan night" in s and f"127.0.0.1:{port}" in s, "the host's lobby")
    term.keys("C-q")
    assert term.wait_exit() == 0


def _server(name: str, port: int) -> FoundServer:
    return FoundServer(name=name, host="192.168.1.20", port=port, web_port=8080)


@pytest.mark.parametrize(("answers", "found", "chosen"), [
    (["2"], [_server("a", 1), _server("b", 2)], "192.168.1.20:2"),
    (["9", "0", "1"], [_server("a", 1), _server("b", 2)], "192.168.1.20:1"),
    ([""], [_server("a", 1)], "192.168.1.20:1"),      # Enter: the only one
    ([""], [_server("a", 1), _server("b", 2)], None),  # Enter among several: quit
    (["10.0.0.5:7878"], [], "10.0.0.5:7878"),          # an address typed instead
    (["bad:port", "10.0.0.5"], [], "10.0.0.5:7878"),   # ... asked again if malformed
    (["q"], [_server("a", 1)], None),
])
def test_the_prompt_takes_a_number_or_an_address(answers: list[str], found: list[FoundServer],
                                                 chosen: str | None) -> None:
    said: list[str] = []
    picked = choose(found, lambda _label: answers.pop(0), said.append)
    assert (picked and picked.address) == chosen
    assert answers == []
    assert any("http://192.168.1.20:8080/" in line for line in said) or not found


def test_a_server_of_another_protocol_is_marked_in_the_list() -> None:
    ours = FoundServer(name="ours", host="10.0.0.2", port=7878, protocol=PROTOCOL_VERSION)
    assert "protocol" not in ours.describe()
    newer = dataclasses.replace(ours, name="newer", protocol=PROTOCOL_VERSION + 1)
    assert f"protocol {PROTOCOL_VERSION + 1}, not this client's {PROTOCOL_VERSION}" \
        in newer.describe()


def test_without_a_terminal_only_a_single_server_is_joined() -> None:
    said: list[str] = []
    assert choose([_server("a", 1)], None, said.append) == _server("a", 1)
    assert choose([_server("a", 1), _server("b", 2)], None, said.append) is None
    assert "Several servers" in said[-1]


def test_the_qr_code_reads_back_as_the_url() -> None:
    out = io.StringIO()
    print_qr("http://192.168.1.20:8080/", out)
    assert _decode_qr(out.getvalue()) == "http://192.168.1.20:8080/"
