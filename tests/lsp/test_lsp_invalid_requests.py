"""Valid JSON that is no JSON-RPC message gets Invalid Request (-32600), never silence nor a
traceback: a batch (LSP has none), a body that is not an object, an object without
``"jsonrpc"``, a method that is not a string, an id that is neither number nor string."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_hostile import WAIT, RawClient

INVALID_REQUEST = -32600
SYMBOLS = {"query": "a"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    c = RawClient(root, tmp_path / "cache")
    try:
        c.initialize()
        yield c
    finally:
        c.close()


def _write(client: RawClient, message: Any) -> None:
    body = json.dumps(message).encode()
    assert client.proc.stdin is not None
    client.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    client.proc.stdin.flush()


def _null_id_errors(client: RawClient, count: int) -> list[dict[str, Any]]:
    deadline = time.time() + WAIT
    while len(client.unanswerable) < count:
        client._sort()
        if len(client.unanswerable) < count:
            assert client._pump(deadline), f"{len(client.unanswerable)} of {count} errors"
    return client.unanswerable


def _assert_invalid_request(message: dict[str, Any]) -> None:
    assert message["error"]["code"] == INVALID_REQUEST
    assert "data" not in message["error"]  # no traceback


def test_requests_that_are_not_json_rpc_get_invalid_request(client: RawClient) -> None:
    request = {"jsonrpc": "2.0", "method": "workspace/symbol", "params": SYMBOLS}
    _write(client, [{**request, "id": 900}, {"jsonrpc": "2.0", "method": "$/x", "params": {}}])
    _write(client, {"id": 901, "method": "workspace/symbol", "params": SYMBOLS})
    _write(client, {**request, "id": 902, "method": 5})
    _write(client, {**request, "id": 903, "jsonrpc": "1.0"})
    for msg_id in (900, 901, 902, 903):
        _assert_invalid_request(client.response(msg_id))


def test_messages_without_a_usable_id_get_invalid_request_with_id_null(
    client: RawClient,
) -> None:
    request = {"jsonrpc": "2.0", "method": "workspace/symbol", "params": SYMBOLS}
    bodies: list[Any] = [[], [{"jsonrpc": "2.0", "method": "$/x", "params": {}}], 42, "hello", None]
    bodies += [{**request, "id": {"x": 1}}, {**request, "id": [1]}, {"method": "$/x", "params": {}}]
    for body in bodies:
        _write(client, body)
    errors = _null_id_errors(client, len(bodies))
    assert len(errors) == len(bodies)
    for error in errors:
        assert error["id"] is None
        _assert_invalid_request(error)
    assert "result" in client.hover("main.tex", 0, 7)  # and the server goes on
