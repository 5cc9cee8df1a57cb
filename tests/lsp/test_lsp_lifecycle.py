"""The session's lifecycle as the protocol orders it: before ``initialize`` every request
gets ServerNotInitialized (-32002) and notifications other than ``exit`` are let go; a
second ``initialize`` gets InvalidRequest (-32600) and changes nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_lsp_hostile import WAIT, RawClient, small_project_client

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    """A server not initialized yet."""
    with small_project_client(tmp_path, initialize=False) as c:
        yield c


def test_requests_before_initialize_get_server_not_initialized(client: RawClient) -> None:
    uri = (client.root / "main.tex").as_uri()
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 7}},
    )
    status = client.request("workspace/executeCommand", {"command": "citewarden.status"})
    down = client.request("shutdown", None)
    unreadable = client.request("textDocument/hover", {"bogus": 1})
    for msg_id in (hover, status, down, unreadable):
        error = client.response(msg_id)["error"]
        assert error["code"] == SERVER_NOT_INITIALIZED
        assert "data" not in error
    # a notification before initialize is let go: the buffer below is never opened
    text = "\\cite{early}\n"
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "latex", "version": 1, "text": text}
            },
        }
    )
    # shutdown was refused, so initialize is still taken
    client.initialize()
    found = client.hover("main.tex", 0, 7)["result"]
    assert "A" in found["contents"]["value"]  # the file on disk, not the early buffer
    down = client.request("shutdown", None)
    assert client.response(down)["result"] is None
    client.send({"method": "exit"})
    assert client.proc.wait(WAIT) == 0


def test_exit_before_initialize_ends_the_server(client: RawClient) -> None:
    client.send({"method": "exit"})
    assert client.proc.wait(WAIT) == 1  # no shutdown came first


def test_a_second_initialize_is_refused_and_changes_nothing(client: RawClient) -> None:
    client.initialize()
    again = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": None,
            "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
            "initializationOptions": {"debounce_ms": 5000},
        },
    )
    error = client.response(again)["error"]
    assert error["code"] == INVALID_REQUEST
    # positions are still UTF-16: the emoji is two code units, the key starts at 9
    uri = (client.root / "main.tex").as_uri()
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": uri,
                    "languageId": "latex",
                    "version": 1,
                    "text": "\U0001f600 \\cite{nokey}\n\\bibliography{refs}\n",
                }
            },
        }
    )
    diagnostics = client.diagnostics(uri)
    starts = [d["range"]["start"] for d in diagnostics if "nokey" in d["message"]]
    assert starts == [{"line": 0, "character": 9}]
