"""The session's lifecycle as the protocol orders it: before ``initialize`` every request
gets ServerNotInitialized (-32002) and notifications other than ``exit`` are let go; a
second ``initialize`` gets InvalidRequest (-32600) and changes nothing; ``exit`` ends the
process whatever work is still running."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_cli import _free_port, _receive, _send
from test_lsp_hostile import ROOT, WAIT, RawClient, small_project_client

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


#: The server, its indexing never ending: the walk of the workspace folder, once started
#: (a file says so), waits for ever.
BLOCKED_LANE = """
import os, pathlib, sys, threading
from citewarden.project import Workspace

def add_folder(*args, **kwargs):
    pathlib.Path(os.environ["WALK_STARTED"]).touch()
    threading.Event().wait()

Workspace.add_folder = add_folder
from citewarden.lsp.server import main
sys.exit(main(sys.argv[1:]))
"""


def _blocked_lane(tmp_path: Path, *arguments: str, **streams: Any) -> subprocess.Popen[bytes]:
    """The server of :data:`BLOCKED_LANE` with ``arguments``; a file says the walk began."""
    return subprocess.Popen(
        [sys.executable, "-c", BLOCKED_LANE, *arguments],
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT / "server"),
            "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"),
            "WALK_STARTED": str(tmp_path / "walk-started"),
        },
        **streams,
    )


def _wait_for_the_walk(tmp_path: Path) -> None:
    deadline = time.monotonic() + WAIT
    while not (tmp_path / "walk-started").exists():
        assert time.monotonic() < deadline, "the walk never started"
        time.sleep(0.05)


@pytest.mark.parametrize("ending", ["exit", "end of input"])
def test_the_server_ends_while_a_check_is_still_running(tmp_path: Path, ending: str) -> None:
    """``shutdown`` and ``exit``, or the editor's end of input (it is gone), while the
    first index is still being made: the process ends at once (it waited for the index, at
    the end of the event loop and of the interpreter, 25 s on a workspace of 160 000
    entries; here, for ever)."""
    root = tmp_path / "ws"
    root.mkdir()
    client = RawClient.__new__(RawClient)
    client.root, client._buf, client._next_id = root, b"", 100
    client.notifications, client.responses, client.unanswerable = [], {}, []
    client.proc = _blocked_lane(
        tmp_path,
        "--stdio",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        client.initialize()
        _wait_for_the_walk(tmp_path)
        if ending == "exit":
            down = client.request("shutdown", None)
            assert client.response(down)["result"] is None
            client.send({"method": "exit"})
        else:
            assert client.proc.stdin is not None
            client.proc.stdin.close()
        assert client.proc.wait(WAIT) == 0
    finally:
        client.close()


def test_the_tcp_server_ends_when_the_editor_goes_while_a_check_is_still_running(
    tmp_path: Path,
) -> None:
    """Over ``--tcp``, the editor's connection closed while the first index is being made:
    the process ends at once (it waited for the index, here for ever)."""
    root = tmp_path / "ws"
    root.mkdir()
    port = _free_port()
    proc = _blocked_lane(tmp_path, "--tcp", f"127.0.0.1:{port}", stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        with sock:
            init = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
            _send(sock, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
            buffer = bytearray()
            while _receive(sock, buffer).get("id") != 1:
                pass
            _send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
            _wait_for_the_walk(tmp_path)
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
