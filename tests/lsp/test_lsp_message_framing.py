"""The server's framing of the editor's messages, over its standard streams: headers as
clients write them (a name in any case, spaces after the value, lines ended by a bare line
feed) are read, and after a message that cannot be framed the server finds the next
``Content-Length`` header and goes on answering, where it had gone deaf for good."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_hostile import RawClient, _write, small_project_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    with small_project_client(tmp_path) as c:
        yield c


def _hover(client: RawClient, msg_id: int) -> bytes:
    """A hover request on the cited key, as the body of a message."""
    params = {
        "textDocument": {"uri": (client.root / "main.tex").as_uri()},
        "position": {"line": 0, "character": 7},
    }
    message: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "textDocument/hover",
        "params": params,
    }
    return json.dumps(message).encode()


def _answered(client: RawClient, msg_id: int) -> None:
    assert "A" in client.response(msg_id)["result"]["contents"]["value"]


@pytest.mark.parametrize(
    "header",
    [
        b"content-length: %d\r\n\r\n",
        b"Content-Length:    %d   \r\n\r\n",
        b"Content-Length: %d\n\n",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
    ],
)
def test_headers_as_clients_write_them_are_read(client: RawClient, header: bytes) -> None:
    body = _hover(client, 7)
    _write(client, header % len(body) + body)
    _answered(client, 7)
    assert "result" in client.hover("main.tex", 0, 7)  # and the framing holds


def test_a_length_counted_in_characters_costs_one_message_not_the_session(
    client: RawClient,
) -> None:
    """A Content-Length that counts characters, not UTF-8 bytes, leaves the body's end
    before the next header: that message gets a Parse error and the next is read."""
    uri = (client.root / "x.tex").as_uri()
    document = {"uri": uri, "languageId": "latex", "version": 1, "text": "Café \\cite{a}"}
    opened = {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": document},
    }
    text = json.dumps(opened, ensure_ascii=False)
    _write(client, b"Content-Length: %d\r\n\r\n" % len(text) + text.encode())
    for msg_id in (20, 21):
        body = _hover(client, msg_id)
        _write(client, b"Content-Length: %d\r\n\r\n" % len(body) + body)
        _answered(client, msg_id)
    assert client.unanswerable[0]["error"]["code"] == -32700


def test_a_header_block_without_content_length_costs_one_message(client: RawClient) -> None:
    _write(client, b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}")
    body = _hover(client, 30)
    _write(client, b"Content-Length: %d\r\n\r\n" % len(body) + body)
    _answered(client, 30)


@pytest.mark.parametrize("over", [1, 3, 25, 60])
def test_a_length_a_few_bytes_over_its_body_costs_no_message(client: RawClient, over: int) -> None:
    """A Content-Length a few bytes larger than its body took the start of the next message
    into it: that body was a Parse error and the next message, its header cut, was lost
    (or, the last one sent, waited for).  The body now ends where its JSON ends, the bytes
    after it are the next message's, and both are answered, as the next one arrives."""
    first, second = _hover(client, 40), _hover(client, 41)
    _write(client, b"Content-Length: %d\r\n\r\n" % (len(first) + over) + first)
    _write(client, b"Content-Length: %d\r\n\r\n" % len(second) + second)
    _answered(client, 40)
    _answered(client, 41)
    assert client.unanswerable == []


def test_a_length_over_its_body_with_nothing_after_it_is_answered(client: RawClient) -> None:
    """A Content-Length larger than its body, the last message sent: the server waited for
    ever for the rest.  The body, its JSON whole, is read once no more bytes come, the
    request is answered, and the messages after it are read."""
    body = _hover(client, 50)
    _write(client, b"Content-Length: %d\r\n\r\n" % (len(body) + 10) + body)
    _answered(client, 50)
    assert "result" in client.hover("main.tex", 0, 7)
    assert client.unanswerable == []
