"""help entries, the JSON Schema, and the ``jackal protocol`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import msgspec
import pytest
from jackal.protocol import encode
from jackal.protocol.codec import CLIENT_TYPES, SERVER_TYPES, decode_client
from jackal.protocol.help import HELP_ENTRIES, help_reply
from jackal.protocol.messages import HelpReply
from jackal.protocol.schema import json_schema


def _jackal(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jackal.cli.main", "protocol", *args],
                          capture_output=True, text=True, input=stdin, timeout=60)


def test_every_client_message_has_exactly_one_help_entry() -> None:
    types = [entry.type for entry in HELP_ENTRIES]
    assert sorted(types) == sorted(CLIENT_TYPES)


def test_every_help_example_decodes_to_its_own_type() -> None:
    for entry in HELP_ENTRIES:
        assert "\n" not in entry.example
        msg = decode_client(entry.example.encode())
        assert type(msg) is CLIENT_TYPES[entry.type], entry.type
        assert entry.summary and len(entry.summary) <= 100


def test_help_reply_round_trips_with_its_id() -> None:
    line = encode(help_reply(id="h"))
    back = msgspec.json.decode(line, type=HelpReply)
    assert back.id == "h" and [m.type for m in back.messages] == [e.type for e in HELP_ENTRIES]


def test_schema_describes_every_message() -> None:
    schema = json_schema()
    assert schema["client_types"] == sorted(CLIENT_TYPES)
    assert schema["server_types"] == sorted(SERVER_TYPES)
    mapping = schema["client"]["discriminator"]["mapping"]
    assert set(mapping) == set(CLIENT_TYPES)
    for ref in [*mapping.values(), *schema["server"]["discriminator"]["mapping"].values()]:
        name = ref.removeprefix("#/$defs/")
        assert name in schema["$defs"]
    play = schema["$defs"][CLIENT_TYPES["play"].__name__]
    assert "card" in play["required"] and play["properties"]["type"]["enum"] == ["play"]


@pytest.mark.subprocess
def test_cli_schema_is_valid_json_naming_every_type() -> None:
    result = _jackal("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    text = result.stdout
    for tag in [*CLIENT_TYPES, *SERVER_TYPES]:
        assert f'"{tag}"' in text, tag
    assert set(schema["client"]["discriminator"]["mapping"]) == set(CLIENT_TYPES)
    assert set(schema["server"]["discriminator"]["mapping"]) == set(SERVER_TYPES)


@pytest.mark.subprocess
def test_cli_help_and_check() -> None:
    result = _jackal("help")
    assert result.returncode == 0
    for entry in HELP_ENTRIES:
        assert entry.example in result.stdout
    good = _jackal("check", '{"type":"ready"}')
    assert good.returncode == 0 and good.stdout.startswith("ok ")
    bad = _jackal("check", stdin='{"type":"ready"}\n{"type":"play","card":5}\n')
    assert bad.returncode == 1
    assert "error invalid_message" in bad.stdout and "'card'" in bad.stdout
