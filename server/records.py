"""Match records: one JSON-lines file per table, written as things happen.

Each line is one event object with an ``"event"`` name and a wall-clock ``"time"``;
every line is flushed as soon as it is written, so a crash loses at most the line
being written. Events, in order of appearance:

- ``table``: id, name, target, seed, bot_takeover, hold_seconds, between_deals_seconds,
  takeover_strategy (the options the table was created with);
- ``conventions``: team and the full card (at creation and on every change);
- ``seat``: seat, kind (empty/human/bot), name, token_hash (SHA-256 of the seat token,
  never the token), strategy; written whenever a seat changes hands;
- ``match_start``; ``deal``: number, dealer, seed; ``play``: seat, card, index;
  ``result``: deal, penalty, winner, points, scores; ``match_end``: winner, scores;
  ``restored`` (the server restarted and took the match up again); ``closed``: reason
  (``idle``: removed before its match started; ``failed``: a server bug closed it).

Crash recovery: :func:`restore_tables` reads every file in the directory whose match
has neither ``match_end`` nor ``closed`` (a stop with Ctrl-C/SIGTERM writes neither, so
those matches come back too), replays it through :class:`game.Match` (checking each deal's
seed and dealer) and returns live tables with every human seat held for its player,
who reclaims it with the token it already has. A torn last line is ignored. Appending
then continues in the same file. Writes are small and synchronous (a local file).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from ..game.cards import parse_card
from ..game.conventions import ConventionCard
from ..game.seats import Seat, Team
from .table import Table, TableOptions

__all__ = ["RecordFile", "read_events", "restore_tables"]

log = logging.getLogger("jackal.server")


class RecordFile:
    """Appends events to one file, one flushed JSON line each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = path.open("a", encoding="utf-8")

    @classmethod
    def create(cls, directory: Path, table_id: str) -> RecordFile:
        """A new file for table ``table_id`` with a name no other run can take."""
        directory.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        return cls(directory / f"{stamp}-{table_id}-{secrets.token_hex(3)}.jsonl")

    def __call__(self, event: dict[str, Any]) -> None:
        if self._file is None:
            return
        line = json.dumps({**event, "time": round(time.time(), 3)}, separators=(",", ":"))
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as exc:  # a full disk must not take the table down
            log.error("cannot write record %s: %s", self.path, exc)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every complete event in a record file (a torn or garbled line is skipped)."""
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict) and isinstance(event.get("event"), str):
                events.append(event)
    return events


def _options(event: dict[str, Any]) -> TableOptions:
    return TableOptions(name=str(event["name"]), target=int(event["target"]),
                        seed=int(event["seed"]), bot_takeover=bool(event["bot_takeover"]),
                        hold_seconds=float(event["hold_seconds"]),
                        between_deals_seconds=float(event["between_deals_seconds"]),
                        takeover_strategy=str(event.get("takeover_strategy", "random")))


def replay_table(events: list[dict[str, Any]]) -> Table:
    """Rebuild a table's state from its events (no recorder attached, nobody connected)."""
    if not events or events[0]["event"] != "table":
        raise ValueError("a record must start with a 'table' event")
    table = Table(str(events[0]["table"]), _options(events[0]))
    match = table.match
    for event in events[1:]:
        kind = event["event"]
        if kind == "conventions":
            table.conventions[Team(event["team"])] = msgspec.convert(event["card"],
                                                                     ConventionCard)
        elif kind == "seat":
            slot = table.seats[Seat(event["seat"])]
            slot.clear()
            slot.kind = event["kind"]
            slot.name = event.get("name")
            slot.token_hash = event.get("token_hash")
            slot.strategy = event.get("strategy")
            slot.ready = slot.kind == "bot"
        elif kind == "deal":
            deal = match.start_deal()
            if deal.seed != event["seed"] or deal.dealer.value != event["dealer"]:
                raise ValueError(f"deal {event['number']}: the record does not match the seed")
            table.status = "playing"
        elif kind == "play":
            assert match.deal is not None
            index = match.deal.play(parse_card(event["card"]), Seat(event["seat"]))
            if index != event["index"]:
                raise ValueError(f"play {event}: index {index} differs from the record")
        elif kind == "result":
            table.last_deal = match.deal
            match.finish_deal()
            table.status = "between_deals"
        elif kind == "match_end":
            table.status = "over"
    return table


def _record_files(directory: Path) -> Iterator[Path]:
    yield from sorted(directory.glob("*.jsonl"))


def restore_tables(directory: Path, now: float, hold_seconds: float | None = None
                   ) -> list[tuple[Table, RecordFile]]:
    """Every unfinished match in ``directory``, restored and ready to go on.

    Human seats are held for ``hold_seconds`` (the table's own setting if None) from
    ``now``; between deals the next deal waits the usual time.
    """
    restored: list[tuple[Table, RecordFile]] = []
    if not directory.is_dir():
        return restored
    for path in _record_files(directory):
        events = read_events(path)
        if not events or any(event["event"] in ("match_end", "closed") for event in events):
            continue
        try:
            table = replay_table(events)
        except (ValueError, KeyError, TypeError, msgspec.ValidationError) as exc:
            log.error("cannot restore %s: %s", path, exc)
            continue
        hold = table.options.hold_seconds if hold_seconds is None else hold_seconds
        for slot in table.humans:
            slot.held_until = now + hold
            slot.ready = False
        record = RecordFile(path)
        table.recorder = record
        record({"event": "restored"})
        if table.status == "playing" and table.match.deal is not None and (
                table.match.deal.is_over):
            # The crash fell between the last play and its result: score it now.
            table._end_deal(now)
        if table.status == "between_deals":
            table.between_deadline = now + table.options.between_deals_seconds
        restored.append((table, record))
    return restored
