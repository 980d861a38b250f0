"""``jackal bot --exec``: programs in any language play a seat over stdin/stdout.

Everything runs for real: the ``jackal bot`` CLI in a subprocess, the hosted program as its
subprocess, and a server on port 0 (embedded in the test, or a ``jackal serve`` process
that is SIGKILLed and started again).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from support import ROOT
from support.bots import non_stdlib_imports, run_bot
from support.client import create_table
from support.server import ServerProcess

EXAMPLES = ROOT / "examples"


def _finished(done: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert "match over at table" in out, out
    assert "Traceback" not in err
    return out, err


@pytest.mark.subprocess
@pytest.mark.parametrize("example, runtime", [("stdin_bot.py", sys.executable),
                                              ("stdin_bot.js", "node")])
async def test_example_stdin_bots_finish_a_match(server_port: int, example: str,
                                                 runtime: str) -> None:
    if shutil.which(runtime) is None:
        pytest.skip(f"{runtime} is not installed")
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{runtime} {EXAMPLES / example}", "--target", "60",
                         "--fill", "greedy", cwd=ROOT)
    out, err = _finished(done)
    assert "moves the fallback played: none" in out
    assert "deal 1 play 8:" in err and "fallback" not in err


@pytest.mark.subprocess
async def test_example_events_bot_tells_the_story_of_the_match(server_port: int) -> None:
    """examples/events_bot.pl (core Perl) opts in to every event: it reads the cards in
    force each deal, each deal's result and the match's end, and says so on stderr."""
    perl = _perl()
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{perl} {EXAMPLES / 'events_bot.pl'}", "--exec-events", "all",
                         "--target", "60", "--opponents", "beginner", cwd=ROOT)
    out, err = _finished(done)
    assert "moves the fallback played: none" in out
    deals = int(re.search(r"after (\d+) deals?", out).group(1))  # type: ignore[union-attr]
    for deal in range(1, deals + 1):
        assert f"deal {deal}: we play none, they play beginner" in err
        assert re.search(rf"^deal {deal}: penalties NS \d+, EW \d+; \w+ wins$", err, re.M)
    assert re.search(rf"^match over: we won \d+ of {deals} deals; (NS|EW) wins the match$",
                     err, re.M)


@pytest.mark.parametrize("example", ["stdin_bot.py", "stdin_bot.js"])
def test_example_stdin_bots_are_small_and_need_only_their_runtime(example: str) -> None:
    text = (EXAMPLES / example).read_text()
    code = [line for line in text.splitlines() if line.strip()]
    assert len(code) <= 25, len(code)
    if example.endswith(".py"):
        assert non_stdlib_imports(text) == set()
    else:
        assert "require(\"readline\")" in text and text.count("require(") == 1


# A program that misbehaves in every way the host must survive, one per move, counted in a
# file because the host restarts it after a crash or a timeout.
CLUMSY = '''
import json, sys, time
from pathlib import Path

counter = Path(sys.argv[1])
for line in sys.stdin:
    turn = json.loads(line)
    move = int(counter.read_text() or 0) + 1 if counter.exists() else 1
    counter.write_text(str(move))
    if move == 1:
        print("not a card", flush=True)            # garbage
    elif move == 2:
        time.sleep(30)                              # timeout
    elif move == 3:
        sys.exit(3)                                 # crash
    else:
        print(turn["hand"][-1].lower(), flush=True) # forgiving notation is fine
sys.exit(5)                                         # a self-check failed at the end
'''


@pytest.mark.subprocess
async def test_faults_fall_back_to_a_legal_card_and_restart_the_program(
        server_port: int, tmp_path: Path) -> None:
    (tmp_path / "clumsy.py").write_text(CLUMSY)
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{sys.executable} clumsy.py moves.txt", "--move-seconds", "1",
                         "--target", "40", cwd=tmp_path)
    out, err = _finished(done)
    assert "moves the fallback played: 1 crash, 1 garbage, 1 timeout" in out
    assert "deal 1 play 1: " in err and "(fallback: garbage)" in err
    assert "(fallback: timeout)" in err and "(fallback: crash)" in err
    assert err.count("the program failed to answer") == 3  # each kind logged once
    assert err.count("starting the program again") == 2    # after the timeout, the crash
    assert int((tmp_path / "moves.txt").read_text()) >= 8
    # Only the last process's own exit at the end is its last word, not the crash's 3.
    assert err.count("at the end of the match") == 1
    assert "the program exited with status 5 at the end of the match" in err


@pytest.mark.subprocess
async def test_a_program_that_always_crashes_is_not_restarted_forever(
        server_port: int) -> None:
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{sys.executable} -c 'import sys; sys.exit(1)'", "--target", "40")
    out, err = _finished(done)
    assert "restart 3 of at most 3" in err and "restart 4" not in err
    assert "moves the fallback played: " in out and " crash" in out
    assert err.count("the program failed to answer") == 1
    # It exited long before the end: nothing is reported as its exit at the end.
    assert "at the end of the match" not in err


# Answers the first move after each start at once, then hangs on the next one: every
# restart is earned, so only the limit of restarts stops it (each line it reads is
# appended to the file, so the test sees how often it was asked).
SLOW_SECOND = """
import json, sys, time
first = True
for line in sys.stdin:
    turn = json.loads(line)
    with open(sys.argv[1], "a") as f:
        f.write(f"{turn['deal']} {turn['play']}\\n")
    if not first:
        time.sleep(60)
    first = False
    print(turn["hand"][-1], flush=True)
"""


@pytest.mark.subprocess
async def test_timeouts_use_up_the_same_three_restarts_and_are_called_timeouts(
        server_port: int, tmp_path: Path) -> None:
    """The doc's restart limit (BOTS.md, level 2) against the host: a program that only
    ever hangs is stopped after 3 restarts like a crasher, and its fault is a timeout."""
    doc = " ".join((ROOT / "docs" / "BOTS.md").read_text().split())
    assert "Crashes and timeouts use up the same 3 restarts a match." in doc
    (tmp_path / "slow.py").write_text(SLOW_SECOND)
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{sys.executable} -I -S slow.py asked.txt", "--move-seconds", "0.5",
                         "--start-seconds", "10", "--target", "1", "--fill", "greedy",
                         cwd=tmp_path)
    out, err = _finished(done)
    assert "restart 3 of at most 3" in err and "restart 4" not in err
    assert "not started again: it was started again 3 times already" in err
    summary = re.search(r"moves the fallback played: (.*)", out)
    assert summary is not None, out
    assert "crash" not in summary.group(1) and "timeout" in summary.group(1), out
    # Asked on plays 1..8 of deal 1 (4 starts, each answering once and hanging once),
    # then never again: the rest of the match went to the fallback without a wait.
    asked = (tmp_path / "asked.txt").read_text().split("\n")[:-1]
    assert asked == [f"1 {play}" for play in range(1, 9)], asked


@pytest.mark.subprocess
async def test_a_program_that_hangs_after_its_restart_costs_no_more_waits(
        server_port: int, tmp_path: Path) -> None:
    """One wait for its first timeout, one after its restart, then none: the host no
    longer starts it (before, it waited on every move until 3 restarts were used)."""
    hang = tmp_path / "hang.py"
    hang.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(60)\n")
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{sys.executable} -I -S {hang}", "--move-seconds", "0.5",
                         "--start-seconds", "1", "--target", "1", "--fill", "greedy")
    out, err = _finished(done)
    assert "restart 1 of at most 3" in err and "restart 2" not in err
    assert "not started again: it hung again on its first move after a restart" in err
    assert err.count("(fallback: timeout)") >= 8 and "crash" not in out
    # The host killed it mid-match (-9): that is no exit status of the program's own.
    assert "at the end of the match" not in err


@pytest.mark.subprocess
async def test_a_command_that_cannot_run_exits_2(server_port: int) -> None:
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         "/nonexistent/bot --fast")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("jackal bot: cannot run '/nonexistent/bot --fast'")
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec", "'unbalanced")
    assert done.returncode == 2 and "--exec" in done.stderr.decode()
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec", "true",
                         "--strategy", "random")
    assert done.returncode == 2 and "not allowed with" in done.stderr.decode()


# Reads nothing but your_turn and checks each one before answering: the card it plays is
# always one of the hand the message gave, and the message agrees with itself. Its first
# move of deal 2 is logged at once but answered only when the file "go" appears (at most
# 15 s, under the host's 20 s), so the test can kill the server while a move is pending.
TURN_ONLY = '''
import json, sys, time
from pathlib import Path

log = Path(sys.argv[1])
for line in sys.stdin:
    turn = json.loads(line)
    hand, rows = turn["hand"], turn["rows"]
    mine = next(row["cards"] for row in rows if row["seat"] == turn["seat"])
    assert [row["seat"] for row in rows][0] == turn["first"]
    assert len(hand) == 13 - len(mine) and turn["play"] == len(mine) + 1
    # Sorted as deal_started sorts it: by suit (S H D C), then by rank, ace low.
    assert hand == sorted(hand, key=lambda c: ("SHDC".index(c[1]), "A23456789TJQK".index(c[0])))
    card = hand[(turn["deal"] + turn["play"]) % len(hand)]
    with log.open("a") as f:
        f.write(json.dumps({"deal": turn["deal"], "play": turn["play"], "card": card,
                            "hand": hand}) + "\\n")
    give_up = time.monotonic() + 15
    while turn["deal"] == 2 and not Path("go").exists() and time.monotonic() < give_up:
        time.sleep(0.05)
    print(card, flush=True)
'''


#: A match target no single deal reaches, so there is always a deal 2 to kill the server in:
#: a deal scores 20 plus the difference of the two penalties (ten cards, at most 20 + 13
#: each), plus 30 if the winner's is 0. With 150, about one deal 1 in a hundred (greedy
#: against greedy) ended the match, and the test waited in vain for deal 2.
TWO_DEALS = 20 + 10 * (20 + 13) + 30 + 1


@pytest.mark.subprocess
async def test_a_your_turn_only_bot_plays_through_a_server_restart(tmp_path: Path) -> None:
    """SIGKILL the server mid-match, start it again on the same port and records: the
    hosted program, which reads only your_turn, plays every move of the match itself."""
    (tmp_path / "turn_only.py").write_text(TURN_ONLY)
    # Without jackal serve's pause before each bot card (it is there for people to follow
    # the play; a hosted program needs none), which would make a match take minutes, and
    # without the fair-play floor under the fill bots' cards: this test is about the
    # restart, and on a busy machine the floor kept deal 2 from starting within a minute.
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--between-deals", "0.2",
                                           "--bot-pause", "0", "--bot-floor", "0")
    port = server.port
    moves = tmp_path / "moves.jsonl"
    try:
        async with trio.open_nursery() as nursery:
            result: list[subprocess.CompletedProcess[bytes]] = []

            async def bot() -> None:
                result.append(await run_bot(
                    "--server", f"127.0.0.1:{port}", "--exec",
                    f"{sys.executable} turn_only.py moves.jsonl", "--target", str(TWO_DEALS),
                    "--fill", "greedy", "--move-seconds", "20", cwd=tmp_path, timeout=240))

            nursery.start_soon(bot)
            # Kill while the program holds its first move of deal 2: the rest of that deal
            # is still to play, however fast the match ran until then (waiting for the
            # line and killing, without the hold, raced the match's end on a slow machine).
            with trio.fail_after(60):
                while not moves.exists() or '"deal": 2' not in moves.read_text():
                    await trio.sleep(0.05)
            before = len(moves.read_text().splitlines())
            server.kill()
            assert await trio.to_thread.run_sync(server.start) == port
            (tmp_path / "go").touch()
        out, err = _finished(result[0])
    finally:
        server.stop()
    assert "moves the fallback played: none" in out
    plays = [json.loads(line) for line in moves.read_text().splitlines()]
    assert len(plays) > before
    for play in plays:
        assert play["card"] in play["hand"]
    # Every move of every deal was the program's (a move the crash cut short is asked
    # again after the restart, so a number may repeat, but none is missing).
    by_deal: dict[int, list[int]] = {}
    for play in plays:
        by_deal.setdefault(play["deal"], []).append(play["play"])
    assert len(by_deal) >= 2
    for numbers in by_deal.values():
        assert sorted(set(numbers)) == list(range(1, 9))
    assert "reclaimed" in err


def test_bots_doc_lists_every_your_turn_field() -> None:
    """docs/BOTS.md's table of your_turn fields is the message's own field list."""
    from jackal.protocol.messages import YourTurn

    doc = (ROOT / "docs" / "BOTS.md").read_text()
    table = doc[doc.index("| field | meaning |"):doc.index("Answer with one line")]
    documented = set()
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            continue
        documented.update(re.findall(r"`(\w+)`", line.split("|")[1]))
    assert documented == set(YourTurn.__struct_fields__)


# What a protocol-1 server from before welcome.features says, and one that lists features
# but not your_turn: neither ever sends your_turn, so a hosted program would never be asked.
OLD_WELCOMES = {
    "no_features": {"type": "welcome", "protocol": 1, "server": "jackal", "version": "0.1.0",
                    "hint": "send {\"type\":\"help\"} for the list of messages"},
    "without_your_turn": {"type": "welcome", "protocol": 1, "server": "jackal",
                          "version": "0.2.0", "hint": "help", "features": ["sync"]},
}


@pytest.mark.subprocess
@pytest.mark.parametrize("kind", sorted(OLD_WELCOMES))
async def test_exec_refuses_a_server_without_your_turn(kind: str, tmp_path: Path) -> None:
    """A fake server on port 0 whose welcome lacks the your_turn feature: jackal bot
    --exec says why in one stable line and exits 2, without even saying hello."""
    heard: list[bytes] = []
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def old_server(stream: trio.SocketStream) -> None:
        await stream.send_all(json.dumps(OLD_WELCOMES[kind]).encode() + b"\n")
        while data := await stream.receive_some(4096):
            heard.append(data)

    started = tmp_path / "started"
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, old_server, listeners)
        done = await run_bot("--server", f"127.0.0.1:{port}", "--exec",
                             f"{sys.executable} -c 'open(\"{started}\", \"w\")'")
        nursery.cancel_scope.cancel()
    version = OLD_WELCOMES[kind]["version"]
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"jackal bot: --exec cannot run here: the server at 127.0.0.1:{port} (jackal "
        f"{version}) lacks the protocol features your_turn: it is older than this client; "
        "upgrade the server\n")
    assert b"".join(heard) == b""  # no hello, no table: nothing changed on that server


def _cards_of_each_table(folder: Path) -> dict[str, dict[str, str]]:
    """{table id: {team: declared card's name}} from a server's record files."""
    tables: dict[str, dict[str, str]] = {}
    for path in folder.glob("*.jsonl"):
        events = [json.loads(line) for line in path.read_text().splitlines() if line]
        tables[events[0]["table"]] = {e["team"]: e["card"]["name"] for e in events
                                      if e["event"] == "conventions"}
    return tables


@pytest.mark.subprocess
async def test_a_program_declares_none_and_a_bare_table_beginner_as_the_docs_say(
        tmp_path: Path) -> None:
    """docs/CONVENTIONS.md and BOTS.md: a table created without cards gives each side
    beginner, while jackal bot --exec declares none for the program's side (it cannot
    know the program's agreements) and the opponents' bots' own card for theirs."""
    def words(name: str) -> str:
        return " ".join((ROOT / "docs" / name).read_text().split())

    assert ("A table created without a card for a partnership gives it `beginner`, the "
            "protocol's default") in words("CONVENTIONS.md")
    assert ("declare for a program (`--exec`, `exec:`, `cmd:`) or a strategy class of yours "
            "unless told otherwise") in words("CONVENTIONS.md")
    assert "a program (`--exec`) or a class of yours declares `none`" in words("BOTS.md")
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--bot-pause", "0",
                                           "--bot-floor", "0")
    try:
        bare = await trio.to_thread.run_sync(
            lambda: create_table(server.port, {}, name="bare", target=20))
        done = await run_bot("--server", f"127.0.0.1:{server.port}", "--exec",
                             f"{sys.executable} {EXAMPLES / 'stdin_bot.py'}", "--seat", "E",
                             "--opponents", "beginner", "--target", "20")
    finally:
        server.stop()
    _finished(done)
    tables = _cards_of_each_table(server.records)
    assert tables.pop(bare) == {"NS": "beginner", "EW": "beginner"}
    assert list(tables.values()) == [{"NS": "beginner", "EW": "none"}]


# A program in Perl (core modules only) that opts in to every event and checks, itself,
# what it was sent: a convention_cards line once a deal holding its side's custom card
# whole, every deal's deal_ended, and match_ended as the last line. Its verdict goes to
# the file named by its argument, and its exit status says the same.
EVENTS_CHECK = r'''
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $verdict_file = shift @ARGV;
my %TEAM = (N => 'NS', S => 'NS', E => 'EW', W => 'EW');
my (%seen, @problems, $team, $last, $card, $cards_deal);
my @deals_ended;
while (my $line = <STDIN>) {
    my $msg = decode_json($line);
    my $type = $msg->{type};
    $seen{$type}++;
    $last = $type;
    if ($type eq 'table_state') {
        $team = $TEAM{ $msg->{you} };
    } elsif ($type eq 'convention_cards') {
        push @problems, "cards for deal $msg->{deal} twice"
            if defined $cards_deal && $cards_deal == $msg->{deal};
        $cards_deal = $msg->{deal};
        $card = $msg->{cards}{$team};
        push @problems, "a card rule did not come whole"
            unless $card->{low_max} == 6 && $card->{plays}[0]{offset} == 2
            && $card->{plays}[0]{count} == 1 && $card->{plays}[3]{fallback} eq 'low';
    } elsif ($type eq 'deal_started') {
        push @problems, "deal $msg->{deal} started before its cards"
            unless defined $cards_deal && $cards_deal == $msg->{deal};
    } elsif ($type eq 'your_turn') {
        my @hand = @{ $msg->{hand} };
        print "$hand[-1]\n";
    } elsif ($type eq 'deal_ended') {
        push @deals_ended, $msg->{deal};
    }
}
push @problems, "no deal_ended" unless $seen{deal_ended};
push @problems, "match_ended $seen{match_ended} times"
    unless ($seen{match_ended} // 0) == 1;
push @problems, "the last line was $last, not match_ended" unless $last eq 'match_ended';
push @problems, "no custom card" unless $card && $card->{name} eq 'perl-house';
open my $out, '>', $verdict_file or die "cannot write $verdict_file: $!";
print $out encode_json({ problems => \@problems, seen => \%seen,
                         deals_ended => \@deals_ended,
                         card => $card ? $card->{name} : undef });
close $out;
exit(@problems ? 1 : 0);
'''

# A card no server has built in; rules the check above reads back field by field.
PERL_HOUSE = '''
name = "perl-house"
description = "A card only this test knows."
low_max = 6
plays = [
  { kind = "promise", offset = 2, count = 1 },
  { kind = "promise", offset = -1 },
  { kind = "answer", play = 1 },
  { kind = "promise", offset = 1, fallback = "low" },
  { kind = "answer", play = 2 },
  { kind = "answer", play = 4 },
  { kind = "none" },
  { kind = "none" },
]
'''


def _perl() -> str:
    perl = shutil.which("perl")
    if perl is None or subprocess.run([perl, "-MJSON::PP", "-e", "1"],
                                      capture_output=True).returncode != 0:
        pytest.skip("perl with JSON::PP is not installed (.ci/run installs it)")
    return perl


@pytest.mark.subprocess
async def test_a_perl_program_opted_in_to_events_sees_results_and_its_custom_card(
        tmp_path: Path) -> None:
    """jackal bot --exec-events all, through the real CLI against a real server: the Perl
    program saw every deal_ended, match_ended last, and its side's custom card whole."""
    perl = _perl()
    (tmp_path / "check.pl").write_text(EVENTS_CHECK)
    (tmp_path / "house.toml").write_text(PERL_HOUSE)
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--bot-pause", "0",
                                           "--bot-floor", "0", "--between-deals", "0.2")
    try:
        done = await run_bot("--server", f"127.0.0.1:{server.port}", "--exec",
                             f"{perl} check.pl verdict.json", "--exec-events", "all",
                             "--conventions", "house.toml", "--seat", "W",
                             "--partner", "beginner", "--opponents", "greedy",
                             "--target", "60", cwd=tmp_path)
    finally:
        server.stop()
    out, err = _finished(done)
    assert "moves the fallback played: none" in out
    assert "exited with status" not in err  # the program's own checks passed
    verdict = json.loads((tmp_path / "verdict.json").read_text())
    assert verdict["problems"] == [] and verdict["card"] == "perl-house"
    deals = int(re.search(r"after (\d+) deals?", out).group(1))  # type: ignore[union-attr]
    assert verdict["deals_ended"] == list(range(1, deals + 1))
    seen = verdict["seen"]
    assert seen["convention_cards"] == seen["deal_started"] == deals
    assert seen["your_turn"] == 8 * deals and seen["match_ended"] == 1
    assert seen["played"] == 32 * deals  # every card of the table, its own included


# Crashes at its third move the first time it runs; every run notes the lines it got.
RESTARTED = '''
import json, sys
from pathlib import Path

first = not Path("crashed").exists()
with open("lines.txt", "a") as notes:
    notes.write("start\\n")
    for line in sys.stdin:
        msg = json.loads(line)
        notes.write(f"{msg['type']} {msg.get('deal', '')}\\n")
        notes.flush()
        if msg["type"] == "your_turn":
            if first and msg["play"] == 3:
                Path("crashed").touch()
                sys.exit(1)
            print(msg["hand"][0], flush=True)
'''


@pytest.mark.subprocess
async def test_a_restarted_program_is_told_the_cards_again(server_port: int,
                                                           tmp_path: Path) -> None:
    """The new process knows nothing of the old one's lines: with --exec-events all its
    first line is the deal's convention_cards, then the your_turn it answers."""
    (tmp_path / "restarted.py").write_text(RESTARTED)
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--exec",
                         f"{sys.executable} restarted.py", "--exec-events", "all",
                         "--target", "30", cwd=tmp_path)
    out, _ = _finished(done)
    assert "moves the fallback played: 1 crash" in out
    runs = (tmp_path / "lines.txt").read_text().split("start\n")[1:]
    assert len(runs) == 2
    first, second = (run.splitlines() for run in runs)
    assert first[0] == "table_state 0" and first.count("convention_cards 1") == 1
    assert second[:2] == ["convention_cards 1", "your_turn 1"]
    assert second.count("convention_cards 1") == 1
