"""LineBuffer: splitting, terminators, blank lines, and the cap on unterminated lines."""

from __future__ import annotations

import pytest
from jackal.protocol import ErrorCode, ProtocolError
from jackal.protocol.framing import LineBuffer


def test_splits_lines_and_keeps_the_partial_tail() -> None:
    buf = LineBuffer()
    assert buf.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert buf.pending == 4
    assert buf.feed(b":2}\n") == [b'{"b":2}']
    assert buf.pending == 0


def test_crlf_and_blank_lines() -> None:
    buf = LineBuffer()
    assert buf.feed(b"one\r\n\r\n\n   \t\ntwo\r") == [b"one"]
    # The "\r" waits until we know whether a "\n" follows it.
    assert buf.feed(b"\nthree\n") == [b"two", b"three"]


def test_byte_at_a_time() -> None:
    buf = LineBuffer()
    out: list[bytes] = []
    for byte in b"ab\r\ncd\n\nef\n":
        out += buf.feed(bytes([byte]))
    assert out == [b"ab", b"cd", b"ef"]


def test_a_line_exactly_at_the_cap_passes() -> None:
    buf = LineBuffer(max_line=10)
    assert buf.feed(b"x" * 10) == []
    assert buf.feed(b"\r\n") == [b"x" * 10]
    assert buf.feed(b"y" * 10 + b"\n") == [b"y" * 10]


def test_unterminated_line_over_the_cap_fails_at_once() -> None:
    buf = LineBuffer(max_line=10)
    buf.feed(b"x" * 6)
    with pytest.raises(ProtocolError) as info:
        buf.feed(b"x" * 5)
    assert info.value.code is ErrorCode.LINE_TOO_LONG
    assert info.value.fatal
    assert buf.pending == 0  # the memory is released at once
    with pytest.raises(ProtocolError):  # dead from now on
        buf.feed(b"\n")


def test_a_complete_line_over_the_cap_fails_too() -> None:
    buf = LineBuffer(max_line=10)
    with pytest.raises(ProtocolError) as info:
        buf.feed(b"ok\n" + b"z" * 11 + b"\n")
    assert info.value.code == "line_too_long"


def test_huge_chunk_without_newline_is_never_buffered() -> None:
    buf = LineBuffer()  # 64 KiB default
    chunk = b"a" * 65536
    buf.feed(chunk)
    assert buf.pending == 65536
    with pytest.raises(ProtocolError):
        buf.feed(b"a" * (10 * 1024 * 1024))
    assert buf.pending == 0


def test_ten_megabytes_in_small_chunks_stops_near_the_cap() -> None:
    buf = LineBuffer(max_line=65536)
    fed = 0
    with pytest.raises(ProtocolError):
        while fed < 10 * 1024 * 1024:
            buf.feed(b"{" * 4096)
            fed += 4096
    assert fed <= 65536 + 4096


def test_feed_eof_returns_the_last_unterminated_line() -> None:
    buf = LineBuffer()
    assert buf.feed(b'{"type":"help"}\n{"type":"ping"}\r') == [b'{"type":"help"}']
    assert buf.feed_eof() == [b'{"type":"ping"}']
    assert buf.feed_eof() == []
    blank = LineBuffer()
    blank.feed(b"  ")
    assert blank.feed_eof() == []


def test_bytearray_input_and_bad_cap() -> None:
    assert LineBuffer().feed(bytearray(b"a\nb\n")) == [b"a", b"b"]
    with pytest.raises(ValueError):
        LineBuffer(max_line=0)


def test_feed_into_keeps_lines_before_an_overflow() -> None:
    buf = LineBuffer(max_line=8)
    out: list[bytes] = []
    with pytest.raises(ProtocolError):
        buf.feed_into(b"first\nsecond\n" + b"x" * 20 + b"\nlater\n", out)
    assert out == [b"first", b"second"]


@pytest.mark.parametrize("split", range(0, 13))
def test_crlf_at_the_cap_does_not_depend_on_the_split(split: int) -> None:
    data = b"x" * 10 + b"\r\n" + b"y\n"
    buf = LineBuffer(max_line=10)
    assert buf.feed(data[:split]) + buf.feed(data[split:]) == [b"x" * 10, b"y"]
    over = LineBuffer(max_line=10)
    with pytest.raises(ProtocolError):
        over.feed(data[:11])
        over.feed(b"z")  # the "\r" was not a line end after all: 11 bytes of line
