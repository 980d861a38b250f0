"""A whole Jackal bot in 20 lines: run it with `jackal bot --exec "python3 stdin_bot.py"`.

Each move, one your_turn line (JSON) comes in on stdin; the answer is one card on stdout.
It keeps pairs, and of its lone cards gives up first those of ranks its partner has
already shown by playing them (a rank partner throws away will not pair up), highest first.
"""
import json
import sys
from collections import Counter

RANKS = "A23456789TJQK"
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}

for line in sys.stdin:
    turn = json.loads(line)
    if turn.get("type") != "your_turn":  # ignore anything this bot does not know
        continue
    hand = turn["hand"]
    shown = {c[0] for row in turn["rows"] if row["seat"] == PARTNER[turn["seat"]]
             for c in row["cards"]}
    counts = Counter(card[0] for card in hand)
    print(max(hand, key=lambda c: (-counts[c[0]], c[0] in shown, RANKS.index(c[0]))),
          flush=True)
