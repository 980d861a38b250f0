"""Fuzzing the record reader and restore: whatever a file holds, reading it raises only
RecordError, and restoring a folder never raises at all."""

from __future__ import annotations

import json
import logging
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.server.records.events import RecordError, read_record
from jackal.server.records.replay import replay
from jackal.server.records.restore import restore_tables
from support.records import record_match

EVENTS = ["table", "conventions", "seat", "match_start", "deal", "play", "result",
          "match_end", "restored", "closed"]
FUZZ = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@cache
def _valid_lines() -> tuple[bytes, ...]:
    """A real record: one finished deal and 12 plays of the next (far from the target)."""
    with tempfile.TemporaryDirectory() as folder:
        made = record_match(Path(folder), seed=21, target=10_000,
                            until=lambda t: t.match.deal_number == 2 and t.match.deal is not None
                            and t.match.deal.plays_made == 12)
        return tuple(made.path.read_bytes().splitlines(keepends=True))


def _read_and_replay(path: Path) -> None:
    """Read and replay ``path``; only RecordError may come out."""
    try:
        for _ in replay(read_record(path).events):
            pass
    except RecordError:
        pass


def _restore(data: bytes) -> None:
    logging.disable(logging.CRITICAL)  # each corrupt file logs one line: expected here
    try:
        _restore_quietly(data)
    finally:
        logging.disable(logging.NOTSET)


def _restore_quietly(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.jsonl"
        path.write_bytes(data)
        _read_and_replay(path)
        for _, record in restore_tables(Path(folder), now=0.0):
            record.close()
        # Either restored (the file is still there) or moved aside: never both, never lost.
        assert path.exists() != (Path(folder) / "m.jsonl.corrupt").exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=10)


@FUZZ
@given(st.binary(max_size=400))
def test_arbitrary_bytes(data: bytes) -> None:
    _restore(data)


@pytest.mark.slow
@FUZZ
@given(st.data())
def test_mutated_real_records(data: st.DataObject) -> None:
    lines = list(_valid_lines())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["drop", "repeat", "swap", "byte", "cut", "field"]))
        if how == "drop":
            del lines[at]
        elif how == "repeat":
            lines.insert(at, lines[at])
        elif how == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif how == "byte":
            line = bytearray(lines[at])
            spot = data.draw(st.integers(0, len(line) - 1))
            line[spot] = data.draw(st.integers(0, 255))
            lines[at] = bytes(line)
        elif how == "cut":
            lines[at] = lines[at][: data.draw(st.integers(0, len(lines[at])))]
        elif how == "field":
            try:  # an earlier mutation may have left this line no JSON object at all
                event: dict[str, Any] = json.loads(lines[at])
            except ValueError:
                continue
            if not isinstance(event, dict) or not event:
                continue
            key = data.draw(st.sampled_from(sorted(event)))
            event[key] = data.draw(json_values)
            lines[at] = json.dumps(event).encode() + b"\n"
        if not lines:
            break
    _restore(b"".join(lines))


@pytest.mark.slow
@FUZZ
@given(st.sampled_from(EVENTS), st.dictionaries(
    st.sampled_from(["table", "name", "target", "seed", "seat", "kind", "token_hash", "card",
                     "index", "number", "dealer", "team", "winner", "scores", "reason"]),
    json_values, max_size=6))
def test_random_events_after_a_valid_start(kind: str, fields: dict[str, Any]) -> None:
    line = json.dumps({"event": kind, **fields}).encode() + b"\n"
    _restore(b"".join(_valid_lines()[:8]) + line + b"".join(_valid_lines()[8:]))
