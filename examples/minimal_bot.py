"""A complete Jackal bot in plain Python (standard library only): copy it, make it smarter.
Run it: python examples/minimal_bot.py --host 127.0.0.1 --port 7878 [--table T --seat E]
It speaks the line protocol directly (one JSON object per line each way) and plays simply:
throw away lone cards, most expensive first; keep pairs and better.
"""

import argparse
import json
import socket
import sys
from collections import Counter
from typing import Any

Message = dict[str, Any]
RANKS = "A23456789TJQK"  # a card is rank + suit, e.g. "TS" (ten of spades), "7H"


def choose(hand: list[str]) -> str:
    """The card to give up: fewest of its rank in hand first, then the highest rank."""
    counts = Counter(card[0] for card in hand)
    return max(hand, key=lambda card: (-counts[card[0]], RANKS.index(card[0])))


class Link:
    """One TCP connection: send a message, read the next one (answering pings on the way)."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.lines = self.sock.makefile("r", encoding="utf-8")

    def send(self, **message: object) -> None:
        self.sock.sendall((json.dumps(message) + "\n").encode())

    def read(self) -> Message:
        for line in self.lines:
            message: Message = json.loads(line)
            if message["type"] == "ping":  # the server checks we are alive
                self.send(type="pong")
                continue
            if message["type"] == "error":
                print("server error:", message["code"], message["message"], file=sys.stderr)
            return message
        sys.exit("the server closed the connection")

    def wait_for(self, wanted: str) -> Message:  # skip to one of type wanted; error: exit
        while (message := self.read())["type"] != wanted:
            if message["type"] == "error":
                sys.exit(1)
        return message


def main() -> int:
    parser = argparse.ArgumentParser(description="A minimal Jackal bot.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7878)
    parser.add_argument("--table", help="join this table (default: create one, add bots)")
    parser.add_argument("--seat", choices="NESW", help="seat to take (default: any free)")
    parser.add_argument("--target", type=int, default=300, help="target for a new table")
    parser.add_argument("--invite", help="the seat's invitation code at a private table")
    parser.add_argument("--invite-fd", type=int, help="read --invite from this descriptor")
    args = parser.parse_args()
    if args.invite_fd:  # a socket jackal tournament passes: one line, the code
        args.invite = socket.socket(fileno=args.invite_fd).makefile().readline().strip()
    link = Link(args.host, args.port)
    link.wait_for("welcome")
    link.send(type="hello", name="minimal-bot", client="minimal_bot.py")
    link.wait_for("hello_ok")
    table = args.table
    if table is None:
        link.send(type="create_table", target=args.target)
        table = link.wait_for("table_created")["table"]
    link.send(type="join", table=table, seat=args.seat, invite=args.invite)  # None: null
    me = link.wait_for("joined")["seat"]
    if args.table is None:  # our own table: fill the other three seats with server bots
        for seat in "NESW".replace(me, ""):
            link.send(type="add_bot", table=table, seat=seat, strategy="random")
    link.send(type="ready")
    print(f"playing at table {table}, seat {me}")

    hand: list[str] = []
    while True:
        message = link.read()
        kind = message["type"]
        if kind in ("deal_started", "table_state") and message.get("hand") is not None:
            hand = message["hand"]
        elif kind == "turn" and message["seat"] == me:
            link.send(type="play", card=choose(hand))
        elif kind == "played" and message["seat"] == me:
            hand.remove(message["card"])
        elif kind == "deal_ended":
            print(f"deal {message['deal']}: penalty {message['penalty']} {message['scores']}")
            link.send(type="ready")  # go on to the next deal
        elif kind == "match_ended":
            print(f"match over: {message['winner']} wins, scores {message['scores']}")
            return 0


if __name__ == "__main__":
    sys.exit(main())
