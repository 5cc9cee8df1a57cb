"""The editor's byte stream read within bounds (citewarden.lsp.framing), on an in-memory
stream: what pygls is handed for long header lines and bodies over the limit."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import threading
from typing import Any

import pytest

from citewarden.lsp import framing
from citewarden.lsp.framing import (
    MIN_MESSAGE,
    STALL,
    TOKEN,
    TOO_LARGE,
    BoundedInput,
    BoundedStream,
    message_limit,
    refusal,
    spilled,
    top_level_fields,
)
from citewarden.lsp.pipe import PipeReader


def _input(data: bytes, limit: int = 100) -> BoundedInput:
    return BoundedInput(io.BufferedReader(io.BytesIO(data)), lambda: limit)


def _headers(stream: BoundedInput, count: int) -> list[bytes]:
    return [stream.readline() for _ in range(count)]


def test_a_long_header_line_is_let_go_and_the_next_header_is_read() -> None:
    stream = _input(b"Content-Length: 7\r\n" + b"9" * 50_000 + b"\r\n\r\nContent-Length: 2\r\n\r\n")
    assert _headers(stream, 3) == [b"Content-Length: 2\r\n", b"\r\n", b""]


def test_headers_are_read_in_any_case_with_trailing_spaces_and_bare_line_feeds() -> None:
    stream = _input(
        b"content-length: 2\r\n\r\n{}"
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        b"CONTENT-LENGTH:    3   \r\n\r\n[1]"
        b"Content-Length: 4\n\nnull"
    )
    assert _headers(stream, 2) == [b"Content-Length: 2\r\n", b"\r\n"]
    assert stream.read(2) == b"{}"
    assert _headers(stream, 2) == [b"Content-Length: 3\r\n", b"\r\n"]
    assert stream.read(3) == b"[1]"
    assert _headers(stream, 2) == [b"Content-Length: 4\r\n", b"\r\n"]
    assert stream.read(4) == b"null"
    assert stream.readline() == b""


def test_after_a_message_that_cannot_be_framed_the_next_content_length_is_found(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A body shorter than its Content-Length (characters counted for UTF-8 bytes) leaves
    its end before the next header, and a block without Content-Length leaves its body:
    the server read no message after either."""
    body = '{"text": "Café"}'
    short = b"Content-Length: %d\r\n\r\n" % len(body) + body.encode()
    stream = _input(
        short
        + b"Content-Length: 2\r\n\r\n{}"
        + b"Content-Type: x\r\n\r\n[]"
        + b"Content-Length: 1\r\n\r\n1"
        + b"Content-Length: \xd9\xa3\r\n\r\n{}"
        + b"Content-Length: 1\r\n\r\n2"
    )
    with caplog.at_level(logging.DEBUG, logger="citewarden.lsp.framing"):
        assert _headers(stream, 2) == [b"Content-Length: %d\r\n" % len(body), b"\r\n"]
        assert stream.read(len(body)) == body.encode()[: len(body)]  # one byte short
        assert _headers(stream, 2) == [b"Content-Length: 2\r\n", b"\r\n"]
        assert stream.read(2) == b"{}"
        assert _headers(stream, 2) == [b"Content-Length: 1\r\n", b"\r\n"]
        assert stream.read(1) == b"1"
        assert _headers(stream, 2) == [b"Content-Length: 1\r\n", b"\r\n"]
        assert stream.read(1) == b"2"
        assert stream.readline() == b""
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 3  # one for each message that could not be framed
    assert all("could not be framed" in r.getMessage() for r in warnings)


def test_a_body_within_the_limit_is_read_as_it_is() -> None:
    assert _input(b'{"a": 1}', limit=8).read(8) == b'{"a": 1}'


def test_a_body_over_the_limit_is_let_go_and_a_notification_stands_in() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 12, "method": "x/y", "params": "z" * 9000})
    stream = _input(body.encode() + b"Content-Length: 2\r\n\r\n", limit=100)
    stand_in = json.loads(stream.read(len(body)))
    assert stand_in["method"] == TOO_LARGE
    assert stand_in["params"] == {
        "bytes": len(body),
        "limit": 100,
        "token": TOKEN,
        "id": 12,
        "method": "x/y",
    }
    assert stream.readline() == b"Content-Length: 2\r\n"  # the next message is in step


def test_a_stream_ending_inside_a_body_over_the_limit_ends_the_reading() -> None:
    assert _input(b"{" + b" " * 9000, limit=100).read(10**11) == b""


def test_only_the_top_level_id_and_method_are_taken() -> None:
    head = '{"params": {"id": 5, "method": "inner", "x": [{"id": 6}]}, "method": "outer", "id": "a'
    assert top_level_fields(head) == {"method": "outer"}  # the id is cut off
    assert top_level_fields('{"jsonrpc":"2.0" , "id" : "r-1", "method":"m"}') == {
        "id": "r-1",
        "method": "m",
    }
    assert top_level_fields('{"id": true, "method": 3}') == {}
    assert top_level_fields('{"id": 1' + "0" * 5000) == {}


def test_a_refusal_needs_the_token_and_escapes_the_method() -> None:
    params = {"bytes": 70 << 20, "limit": 64 << 20, "id": 3, "method": "a\x1b[2Jb"}
    assert refusal(params) is None  # a client cannot send a stand-in
    refused = refusal({**params, "token": TOKEN})
    assert refused is not None
    assert refused.request_id == 3
    assert refused.text.startswith("a a\\x1b[2Jb message of 70.0 MB from the editor")
    assert "over the limit of 64.0 MB" in refused.text
    notice = refusal({"bytes": 1, "limit": 0, "token": TOKEN})
    assert notice is not None and notice.request_id is None


def test_the_limit_leaves_room_for_a_buffer_at_the_file_size_cap() -> None:
    assert message_limit(1 << 20) == MIN_MESSAGE
    assert message_limit(50 << 20) == 6 * (50 << 20) + (1 << 20)


def _stream(data: bytes, limit: int = 100) -> BoundedStream:
    reader = asyncio.StreamReader(limit=1 << 16)
    reader.feed_data(data)
    reader.feed_eof()
    return BoundedStream(reader, lambda: limit)


def test_a_tcp_stream_passes_over_lines_longer_than_asyncio_holds() -> None:
    async def lines() -> list[bytes]:
        stream = _stream(
            b"Content-Length: 7\r\n"
            + b"9" * 300_000
            + b"\r\n"
            + b"y" * 2000
            + b"\n\r\n"
            + b"}" * 100_000
            + b"content-length: 2 \n\n"
        )
        return [await stream.readline() for _ in range(3)]

    got = asyncio.run(lines())
    assert got == [b"Content-Length: 2\r\n", b"\r\n", b""]


def test_a_tcp_body_over_the_limit_is_let_go_and_the_next_message_is_in_step() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": "r", "params": "z" * 9000}).encode()

    async def read() -> tuple[bytes, bytes, bytes]:
        stream = _stream(body + b"Content-Length: 2\r\n\r\n" + b"{}", limit=100)
        return (
            await stream.readexactly(len(body)),
            await stream.readline(),
            await stream.readexactly(2),
        )

    stand_in, header, small = asyncio.run(read())
    assert json.loads(stand_in)["params"]["id"] == "r"
    assert (header, small) == (b"Content-Length: 2\r\n", b"{}")

    async def cut_short() -> bytes:
        return await _stream(b"{" * 5000).readexactly(10**11)

    assert asyncio.run(cut_short()) == b""


def test_a_body_over_the_limit_nested_too_deep_at_its_start_is_let_go() -> None:
    """The id of a body over the limit is read from its first bytes; nested deeper than
    the decoder recurses, it ended the server."""
    assert top_level_fields('{"id": ' + "[" * 4000) == {}
    body = b'{"id": ' + b"[" * 4000 + b"]" * 4000 + b"}"
    stand_in = json.loads(_input(body, limit=100).read(len(body)))
    assert stand_in["method"] == TOO_LARGE and "id" not in stand_in["params"]


def test_a_body_within_the_limit_is_not_allotted_before_it_arrives() -> None:
    """A header announcing a gigabyte the stream never sends: the reading ends at the end
    of the stream without reserving the gigabyte first (it ran the server out of memory
    under a raised max_file_mb)."""
    import tracemalloc

    stream = _input(b"{", limit=1 << 31)
    tracemalloc.start()
    try:
        assert stream.read(1_100_000_000) == b""
        assert tracemalloc.get_traced_memory()[1] < 64 << 20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "left", [b"abc", b"0", b"a-b", b'fig:1"}}', b"x: 1}", b"Content-Length: abc"]
)
def test_bytes_left_before_a_content_length_are_let_go_on_their_line(left: bytes) -> None:
    """A body shorter than its length leaves its end before the next header; when that
    end reads like a header name (``abcContent-Length``, ``fig:1"}}Content-Length``), the
    Content-Length at the line's end was missed, and the next message lost with it."""
    stream = _input(left + b"Content-Length: 2\r\n\r\n{}Content-Length: 1\r\n\r\n1")
    assert _headers(stream, 2) == [b"Content-Length: 2\r\n", b"\r\n"]
    assert stream.read(2) == b"{}"
    assert _headers(stream, 2) == [b"Content-Length: 1\r\n", b"\r\n"]


class _RunsOutOfMemory(io.RawIOBase):
    """A stream whose reader runs out of memory once, at its ``fail_at``-th read."""

    def __init__(self, data: bytes, fail_at: int) -> None:
        self._data = io.BytesIO(data)
        self._reads = 0
        self._fail_at = fail_at

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self._reads += 1
        if self._reads == self._fail_at:
            raise MemoryError
        return self._data.read(size)


def test_a_body_memory_runs_out_reading_is_let_go_and_the_next_message_is_in_step() -> None:
    """Memory running out on the way through a body within the limit ended the server; the
    rest of the body is now let go, a stand-in says which request it was, and the next
    message is read."""
    body = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "x/y", "params": "z" * 3_000_000})
    data = body.encode() + b"Content-Length: 2\r\n\r\n{}"
    stream = BoundedInput(_RunsOutOfMemory(data, fail_at=2), lambda: 1 << 30)  # type: ignore[arg-type]
    stand_in = json.loads(stream.read(len(body)))
    assert stand_in["method"] == TOO_LARGE
    assert {k: stand_in["params"][k] for k in ("id", "method", "memory")} == {
        "id": 4,
        "method": "x/y",
        "memory": True,
    }
    refused = refusal(stand_in["params"])
    assert refused is not None and refused.out_of_memory and refused.request_id == 4
    assert refused.text == (
        "a x/y message of 2.9 MB from the editor could not be read: the server ran out of "
        "memory reading it, and let it go"
    )
    assert (stream.readline(), stream.readline(), stream.read(2)) == (
        b"Content-Length: 2\r\n",
        b"\r\n",
        b"{}",
    )


@pytest.mark.parametrize(
    ("body", "split"),
    [
        (b'{"a": "}"}', None),
        (b'{"a": 1}  \r\n', None),
        (b'{"a": 1}C', (b'{"a": 1}', b"C")),
        (b'{"a": 1}conTent-', (b'{"a": 1}', b"conTent-")),
        (b'{"a": 1}Content-Length: 8\r\n\r\n{"b"', (b'{"a": 1}', b'Content-Length: 8\r\n\r\n{"b"')),
        (b'{"a": 1}garbage', None),
        (b'{"a": 1}Cx', None),
        (b'{"a": 1', None),
    ],
)
def test_a_body_ends_where_its_json_ends_when_the_next_header_follows(
    body: bytes, split: tuple[bytes, bytes] | None
) -> None:
    assert spilled(body) == split


def test_the_bytes_after_a_short_body_are_the_next_message() -> None:
    first, second = b'{"id": 1}', b'{"id": 2}'
    data = b"%s\r\nContent-Length: %d\r\n\r\n%s" % (first, len(second), second)
    stream = _input(data)
    assert stream.read(len(first) + 20) == first
    assert _headers(stream, 2) == [b"Content-Length: 9\r\n", b"\r\n"]
    assert stream.read(len(second)) == second


def test_over_tcp_the_bytes_after_a_short_body_are_the_next_message() -> None:
    first, second = b'{"id": 1}', b'{"id": 2}'
    data = b"%sContent-Length: %d\r\n\r\n%s" % (first, len(second), second)

    async def read() -> list[bytes]:
        stream = _stream(data)
        return [
            await stream.readexactly(len(first) + 25),
            await stream.readline(),
            await stream.readline(),
            await stream.readexactly(len(second)),
        ]

    assert asyncio.run(read()) == [first, b"Content-Length: 9\r\n", b"\r\n", second]


class _ReaderRunningOutOfMemory(asyncio.StreamReader):
    """asyncio's reader, whose ``read`` runs out of memory once, at its second call."""

    calls = 0

    async def read(self, n: int = -1) -> bytes:
        self.calls += 1
        if self.calls == 2:
            raise MemoryError
        return await super().read(n)


def test_over_tcp_a_body_memory_runs_out_reading_is_let_go_in_step() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": "m", "params": "z" * 3_000_000}).encode()

    async def read() -> tuple[bytes, bytes, bytes]:
        reader = _ReaderRunningOutOfMemory(limit=1 << 16)
        reader.feed_data(body + b"Content-Length: 2\r\n\r\n{}")
        reader.feed_eof()
        stream = BoundedStream(reader, lambda: 1 << 30)
        return (
            await stream.readexactly(len(body)),
            await stream.readline(),
            await stream.readexactly(2) if await stream.readline() == b"\r\n" else b"",
        )

    stand_in, header, small = asyncio.run(read())
    params = json.loads(stand_in)["params"]
    assert (params["id"], params["memory"]) == ("m", True)
    assert (header, small) == (b"Content-Length: 2\r\n", b"{}")


class _Fragile(bytes):
    """Bytes that run memory out when sliced (as a copy of a large piece may)."""

    def __getitem__(self, index: Any) -> Any:
        raise MemoryError


class _FragileFirstRead(io.RawIOBase):
    """A stream whose first read returns :class:`_Fragile` bytes."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self._first = True

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self._data.read(size)
        if self._first:
            self._first = False
            return _Fragile(chunk)
        return chunk


def test_memory_running_out_after_a_piece_was_read_lets_go_only_the_rest() -> None:
    """A piece already read when memory ran out was let go a second time, from the next
    message: its header was lost with it."""
    body = json.dumps({"jsonrpc": "2.0", "id": 5, "params": "z" * 3_000_000})
    data = body.encode() + b"Content-Length: 2\r\n\r\n{}"
    stream = BoundedInput(_FragileFirstRead(data), lambda: 1 << 30)  # type: ignore[arg-type]
    assert json.loads(stream.read(len(body)))["params"]["memory"] is True
    assert (stream.readline(), stream.readline(), stream.read(2)) == (
        b"Content-Length: 2\r\n",
        b"\r\n",
        b"{}",
    )


def test_a_body_short_of_its_length_with_nothing_after_it_is_read_as_it_is(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Content-Length larger than its body, and nothing sent after it: the reading waited
    for ever for bytes that never came.  The body, its JSON whole, is read as it is once no
    more come (and the next message is read after it); a body cut inside its JSON waits."""
    read_end, write_end = os.pipe()
    try:
        stream = BoundedInput(PipeReader(read_end), lambda: 1 << 20)
        os.write(write_end, b'Content-Length: 40\r\n\r\n{"id": 1}')
        with caplog.at_level(logging.WARNING, logger="citewarden.lsp.framing"):
            assert _headers(stream, 2) == [b"Content-Length: 40\r\n", b"\r\n"]
            assert stream.read(40) == b'{"id": 1}'
        assert "stopped 31 bytes short of its Content-Length (40)" in caplog.text
        os.write(write_end, b'Content-Length: 2\r\n\r\n{}Content-Length: 20\r\n\r\n{"a": ')
        assert _headers(stream, 2) == [b"Content-Length: 2\r\n", b"\r\n"]
        assert stream.read(2) == b"{}"
        assert _headers(stream, 2) == [b"Content-Length: 20\r\n", b"\r\n"]
        writer = threading.Timer(2.5 * STALL, os.write, (write_end, b'"b"}' + b" " * 10))
        writer.start()
        assert stream.read(20) == b'{"a": "b"}' + b" " * 10  # waited for the rest
        writer.join()
    finally:
        os.close(read_end)
        os.close(write_end)


def test_over_tcp_a_body_short_of_its_length_with_nothing_after_it_is_read_as_it_is() -> None:
    async def read() -> list[bytes]:
        reader = asyncio.StreamReader(limit=1 << 16)
        reader.feed_data(b'Content-Length: 40\r\n\r\n{"id": 1}')
        stream = BoundedStream(reader, lambda: 1 << 20)
        read = [await stream.readline(), await stream.readline(), await stream.readexactly(40)]
        reader.feed_data(b"Content-Length: 2\r\n\r\n{}")
        return [*read, await stream.readline(), await stream.readline()]

    assert asyncio.run(read()) == [
        b"Content-Length: 40\r\n",
        b"\r\n",
        b'{"id": 1}',
        b"Content-Length: 2\r\n",
        b"\r\n",
    ]


def test_a_body_cut_inside_its_json_is_waited_for_with_a_log_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body whose bytes stop inside its JSON is waited for (the editor may be writing
    it), and the wait is said once in the log, where it went on without a word."""
    monkeypatch.setattr(framing, "STALL", 0.02)
    read_end, write_end = os.pipe()
    try:
        stream = BoundedInput(PipeReader(read_end), lambda: 1 << 20)
        os.write(write_end, b'Content-Length: 12\r\n\r\n{"a": ')
        assert _headers(stream, 2) == [b"Content-Length: 12\r\n", b"\r\n"]
        writer = threading.Timer(100 * framing.STALL, os.write, (write_end, b'"bcd"}'))
        writer.start()
        with caplog.at_level(logging.WARNING, logger="citewarden.lsp.framing"):
            assert stream.read(12) == b'{"a": "bcd"}'
        writer.join()
    finally:
        os.close(read_end)
        os.close(write_end)
    waits = [r.getMessage() for r in caplog.records if "waits for the rest" in r.getMessage()]
    assert len(waits) == 1
    assert "stopped 6 bytes into its body, its JSON not whole" in waits[0]


def test_a_small_body_of_a_length_over_the_limit_with_nothing_after_it_is_read() -> None:
    """A Content-Length over the limit (a few bytes of it sent, nothing after them): the
    reading waited for ever for the bytes of the body to let go.  Those bytes, a whole JSON
    value, are read as the message, on either transport."""
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "x"}'
    read_end, write_end = os.pipe()
    try:
        stream = BoundedInput(PipeReader(read_end), lambda: 1000)
        os.write(write_end, b"Content-Length: 5000\r\n\r\n" + body)
        assert _headers(stream, 2) == [b"Content-Length: 5000\r\n", b"\r\n"]
        assert stream.read(5000) == body
    finally:
        os.close(read_end)
        os.close(write_end)

    async def over_tcp() -> bytes:
        reader = asyncio.StreamReader(limit=1 << 16)
        reader.feed_data(b"Content-Length: 5000\r\n\r\n" + body)
        tcp = BoundedStream(reader, lambda: 1000)
        assert [await tcp.readline(), await tcp.readline()] == [
            b"Content-Length: 5000\r\n",
            b"\r\n",
        ]
        return await tcp.readexactly(5000)

    assert asyncio.run(over_tcp()) == body


def test_standard_input_left_non_blocking_is_read_as_it_comes() -> None:
    """An editor may hand the server a pipe it set non-blocking: a read with no bytes yet
    there was taken for the end of the input, and the server ended."""
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(read_end, False)
        stream = BoundedInput(PipeReader(read_end), lambda: 1 << 20)
        writer = threading.Timer(0.2, os.write, (write_end, b"Content-Length: 2\r\n\r\n{}"))
        writer.start()
        assert _headers(stream, 2) == [b"Content-Length: 2\r\n", b"\r\n"]
        assert stream.read(2) == b"{}"
        writer.join()
    finally:
        os.close(read_end)
        os.close(write_end)
