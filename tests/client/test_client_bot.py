"""`jackal bot` as a user runs it: a subprocess against a real server on port 0."""

from __future__ import annotations

import subprocess
from pathlib import Path

import msgspec
import pytest
import trio
from jackal.game.seats import Seat
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from support.bots import run_bot, table_with_bots
from support.server import ServerProcess

pytestmark = pytest.mark.subprocess


async def test_bot_creates_a_table_and_plays_the_match(server_port: int) -> None:
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--strategy", "random",
                         "--conventions", "beginner", "--target", "40", "--seed", "5")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    out = done.stdout.decode()
    assert "match over at table" in out
    assert "seated at S of table" in err and "deal 1: dealer" in err
    assert "deal 1 play 8:" in err and "match over:" in err
    assert "Traceback" not in err


USER_BOT = '''
from pathlib import Path

class Lowest:
    """Always plays its lowest card and notes it, so the test can see it ran."""

    def __init__(self, seed):
        self.log = Path("choices.txt")

    def choose(self, view):
        card = min(view.hand, key=lambda c: (c.rank, c.suit))
        assert view.play_number == len(view.row(view.seat)) + 1
        with self.log.open("a") as f:
            f.write(f"{view.deal_number} {view.play_number} {card}\\n")
        return card
'''


async def test_bot_runs_a_users_class_at_a_chosen_seat(server_port: int,
                                                       tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(USER_BOT)
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--strategy", "mybot:Lowest",
                         "--seat", "w", "--target", "30", "--fill", "random", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    lines = (tmp_path / "choices.txt").read_text().splitlines()
    plays = [line.split() for line in lines]
    deals = {int(deal) for deal, _, _ in plays}
    assert len(plays) == 8 * len(deals) and deals == set(range(1, len(deals) + 1))
    # The bot logged exactly the cards the class chose.
    err = done.stderr.decode()
    for deal, number, card in plays:
        assert f"deal {deal} play {number}: {card}" in err
    assert "seated at W" in err


async def test_bot_joins_an_existing_table(server_port: int) -> None:
    """Two bot processes share a table created by the first; bots fill the rest."""
    table = await table_with_bots(server_port, "NS", target=30)
    results: list[subprocess.CompletedProcess[bytes]] = []

    async def one(seat: str) -> None:
        results.append(await run_bot("--server", f"127.0.0.1:{server_port}", "--table",
                                     table, "--seat", seat, "--strategy", "random"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one, "E")
        nursery.start_soon(one, "W")
    assert [r.returncode for r in results] == [0, 0], [r.stderr.decode() for r in results]


async def test_bot_without_seat_takes_the_free_seat_of_a_joined_table(server_port: int) -> None:
    """--help: without --seat, "with --table, any free seat" (W, the only one here)."""
    table = await table_with_bots(server_port, "NES", target=1, strategy="random")
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--table", table,
                         "--strategy", "random")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert f"seated at W of table {table}" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--strategy", "no-such-strategy"], "unknown strategy"),
    (["--strategy", "random", "--conventions", "no-such-card"], "no-such-card"),
    (["--strategy", "random", "--table", "nope"], "no_such_table"),
    (["--strategy", "random", "--target", "0"], "--target"),
])
async def test_bot_bad_arguments_exit_2(server_port: int, args: list[str],
                                        message: str) -> None:
    done = await run_bot("--server", f"127.0.0.1:{server_port}", *args)
    err = done.stderr.decode().strip()
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1, err  # one clear line, nothing else
    assert err.startswith("jackal bot:") and message in err


async def test_bot_unreachable_server_exits_2(refused_port: int) -> None:
    for address in (f"127.0.0.1:{refused_port}", "127.0.0.1:notaport"):
        done = await run_bot("--server", address, "--strategy", "random")
        err = done.stderr.decode().strip()
        assert done.returncode == 2, err
        assert len(err.splitlines()) == 1 and err.startswith("jackal bot:"), err


CLUMSY_BOT = '''
class Clumsy:
    """Returns a card it does not hold on its first turn, then plays properly."""

    def __init__(self):
        self.calls = 0

    def choose(self, view):
        self.calls += 1
        if self.calls == 1:
            missing = next(c for c in range(52) if c not in view.hand)
            return type(view.hand[0])(missing)
        return view.hand[-1]
'''


async def test_bot_with_a_card_file_and_a_clumsy_strategy(server_port: int,
                                                          tmp_path: Path) -> None:
    """A card from a TOML file is declared; a strategy's illegal card never stalls play."""
    from jackal.game.conventions import builtin_card, card_to_toml

    card = msgspec.structs.replace(builtin_card("beginner"), name="house")
    (tmp_path / "house.toml").write_text(card_to_toml(card))
    (tmp_path / "clumsy.py").write_text(CLUMSY_BOT)
    done = await run_bot("--server", f"127.0.0.1:{server_port}", "--strategy", "clumsy:Clumsy",
                         "--conventions", "house.toml", "--seat", "E", "--target", "30",
                         cwd=tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    # The table is created with it: declared from the start, never changed.
    assert "convention cards: NS none, EW house" in err
    assert "convention card of EW is now" not in err
    assert "which is not in the hand" in err and "Traceback" not in err


async def test_bot_wrong_password_exits_2(nursery: trio.Nursery) -> None:
    port: int = await nursery.start(serve, ServerConfig(port=0, password="sesame"))
    done = await run_bot("--server", f"127.0.0.1:{port}", "--strategy", "random",
                         "--password", "guess")
    err = done.stderr.decode().strip()
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1 and "bad_password" in err, err
    done = await run_bot("--server", f"127.0.0.1:{port}", "--strategy", "random",
                         "--password", "sesame", "--target", "20")
    assert done.returncode == 0, done.stderr.decode()


async def test_bot_takes_a_private_seat_only_with_its_invitation(server_port: int) -> None:
    """A program sits at a private table with the code its creator passed on (the way a
    tournament seats its entries); without one, or with another seat's, it is refused."""
    from jackal.client.connection import open_connection
    from jackal.protocol.messages import TableCreated
    from jackal.protocol.requests import AddBot, CreateTable, Hello

    async with open_connection("127.0.0.1", server_port) as conn:
        await conn.request(Hello(name="director"))
        created = await conn.request(CreateTable(target=30, private=True))
        assert isinstance(created, TableCreated) and created.invitations is not None
        for seat in ("N", "E", "S"):
            await conn.request(AddBot(table=created.table, seat=Seat(seat)))
    codes = created.invitations
    server = f"127.0.0.1:{server_port}"
    for extra in ([], ["--invite", codes[Seat.N]]):
        done = await run_bot("--server", server, "--table", created.table, "--seat", "W",
                             "--strategy", "random", *extra)
        err = done.stderr.decode().strip()
        assert done.returncode == 2 and "not_invited" in err, err
    done = await run_bot("--server", server, "--table", created.table, "--invite",
                         codes[Seat.W], "--strategy", "random")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "seated at W of table" in err and "match over at table" in done.stdout.decode()


async def test_partner_and_opponents_fill_their_own_seats(tmp_path: Path) -> None:
    """--partner and --opponents seat those strategies (beside --fill) at a table jackal
    bot creates, and the opponents' side declares its bots' card; read from the real
    server's match record."""
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--bot-pause", "0",
                                           "--bot-floor", "0")
    try:
        done = await run_bot("--server", f"127.0.0.1:{server.port}", "--strategy", "random",
                             "--seat", "E", "--partner", "greedy", "--opponents", "beginner",
                             "--fill", "expert", "--target", "20")
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr.decode()
    events = server.record_events()
    bots = {e["seat"]: e["strategy"] for e in events
            if e["event"] == "seat" and e["kind"] == "bot"}
    assert bots == {"W": "greedy", "N": "beginner", "S": "beginner"}
    cards = {e["team"]: e["card"]["name"] for e in events if e["event"] == "conventions"}
    assert cards == {"NS": "beginner", "EW": "none"}


async def test_fill_alone_fills_every_other_seat(tmp_path: Path) -> None:
    """--fill seats its strategy; --conventions goes into the table jackal bot creates, so
    the record holds one card per side and no change (issue 32: it was created with
    `none` and then changed, which spent one of the match's three card changes)."""
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--bot-pause", "0",
                                           "--bot-floor", "0")
    try:
        done = await run_bot("--server", f"127.0.0.1:{server.port}", "--strategy", "random",
                             "--opponents", "greedy", "--fill", "baseline", "--target", "20",
                             "--conventions", "beginner")
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr.decode()
    events = server.record_events()
    bots = {e["seat"]: e["strategy"] for e in events
            if e["event"] == "seat" and e["kind"] == "bot"}
    assert bots == {"N": "baseline", "E": "greedy", "W": "greedy"}
    cards = [(e["team"], e["card"]["name"]) for e in events if e["event"] == "conventions"]
    assert sorted(cards) == [("EW", "none"), ("NS", "beginner")]


@pytest.mark.parametrize("option", ["--fill", "--partner", "--opponents"])
async def test_a_fill_strategy_must_be_built_in(option: str) -> None:
    """The server plays only its built-in strategies: anything else is refused before
    connecting (no table is created and left half filled)."""
    done = await run_bot("--server", "127.0.0.1:9", "--strategy", "random", option,
                         "mybots:Clever")
    err = done.stderr.decode()
    assert done.returncode == 2 and "invalid choice: 'mybots:Clever'" in err, err
