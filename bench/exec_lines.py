"""What ``jackal bot --exec`` writes to its program, in bytes per deal and per move.

    .venv/bin/python bench/exec_lines.py [--target 300]

Starts ``jackal serve`` (the tests' launcher, of the Python running this script) and plays
one match per pair of convention cards with ``jackal bot --exec PROGRAM --exec-events
all``, the program noting the size of every line it reads. Prints JSON: per pair, the
bytes a deal costs by line type, the ``convention_cards`` line (once a deal), and what the
same whole cards would cost if every ``your_turn`` carried them instead of their names.
``your_turn`` alone is what a program gets by default (``--exec-events your_turn``), and
all a program got before ``--exec-events``. None of this crosses the network: the host
builds the cards line from the ``table_state`` and ``conventions_changed`` the client
receives anyway, and the server sends what it sent before.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import msgspec
from benchkit.server import JACKAL, ServerProcess
from jackal.game.conventions import builtin_card

# Notes "type bytes" for each line; answers each your_turn with its first card.
RECORDER = """
import json, sys
with open(sys.argv[1], "a") as notes:
    for line in sys.stdin:
        msg = json.loads(line)
        notes.write(f"{msg['type']} {len(line.encode())}\\n")
        if msg["type"] == "your_turn":
            print(msg["hand"][0], flush=True)
"""

#: (our card, the opponents' strategy, whose card is theirs): built-in pairs, small to large.
PAIRS = [("none", "random", "none"), ("beginner", "beginner", "beginner"),
         ("advanced", "expert", "advanced")]


def measure(port: int, tmp: Path, ours: str, opponents: str, theirs: str,
            target: int) -> dict[str, object]:
    notes = tmp / f"{ours}-{theirs}.txt"
    done = subprocess.run([*JACKAL, "bot", "--server", f"127.0.0.1:{port}", "--exec",
                           f"{sys.executable} {tmp / 'recorder.py'} {notes}",
                           "--exec-events", "all", "--conventions", ours,
                           "--opponents", opponents, "--target", str(target), "-q"],
                          capture_output=True, text=True, timeout=300, check=True)
    deals = int(done.stdout.split("after ")[1].split()[0])
    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for line in notes.read_text().splitlines():
        kind, size = line.split()
        sizes[kind] += int(size)
        counts[kind] += 1
    names = len(msgspec.json.encode({"NS": ours, "EW": theirs}))
    whole = len(msgspec.json.encode({"NS": builtin_card(ours), "EW": builtin_card(theirs)}))
    moves = counts["your_turn"]
    return {
        "cards": f"{ours}/{theirs}",
        "deals": deals,
        "bytes_per_deal": {kind: round(total / deals) for kind, total in sorted(sizes.items())},
        "your_turn_bytes_per_move": round(sizes["your_turn"] / moves),
        "convention_cards_bytes_per_deal": round(sizes["convention_cards"] / deals),
        "all_lines_bytes_per_deal": round(sum(sizes.values()) / deals),
        # The alternative not taken: both whole cards in every your_turn, for their names.
        "cards_in_every_your_turn_bytes_per_deal": round((whole - names) * moves / deals),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "recorder.py").write_text(RECORDER)
        server = ServerProcess(tmp, "--bot-pause", "0", "--bot-floor", "0",
                               "--between-deals", "0")
        try:
            rows = [measure(server.port, tmp, ours, opponents, theirs, args.target)
                    for ours, opponents, theirs in PAIRS]
        finally:
            server.stop()
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
