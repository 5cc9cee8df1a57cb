"""Notifications leave nothing behind in pygls' table of request futures: pygls files the
future of a notification handled by a generator or coroutine there under a fresh id, which
no response ever removes (about 2 KB a notification, for as long as the server runs)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_lsp_hostile
from test_lsp_hostile import ROOT, RawClient, _limit_memory

from citewarden.lsp.server import CitewardenProtocol, CitewardenServer, create_server

CHANGES = 1000


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    """The server run in this process exempts what survives its checks from the collector
    (gc.freeze, :mod:`citewarden.lsp.memory`); the rest of the test run expects nothing
    frozen (a large parse counts its objects as old only then)."""
    frozen = gc.get_freeze_count()
    yield
    if gc.get_freeze_count() > frozen:
        gc.unfreeze()


#: the real server, with one more request: how many finished futures its table still holds
#: once the loop has run the done-callbacks due (a handler that finished just before this
#: request leaves the table one loop turn later; a future nothing takes out stays for good)
LAUNCHER = """
import asyncio
from citewarden.lsp.server import create_server
server = create_server()
@server.feature("test/finishedFutures")
async def finished(params):
    for _ in range(100):
        left = sum(f.done() for f in server.protocol._request_futures.values())
        if left == 0:
            break
        await asyncio.sleep(0.01)
    return left
server.start_stdio()
"""


def _initialized_server() -> CitewardenServer:
    """A server past ``initialize``, whose messages are fed by hand (before it every
    request is refused and every notification let go)."""
    server = create_server()
    server.protocol._initialize_received = True  # type: ignore[attr-defined]
    return server


def _feed(protocol: CitewardenProtocol, method: str, params: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params})
    protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))


def _change(uri: str, version: int) -> dict[str, Any]:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": "y"}]}


async def _settle(protocol: CitewardenProtocol) -> None:
    """Run the loop until every handler filed in the table has finished."""
    for _ in range(1000):
        await asyncio.sleep(0.01)
        if all(f.done() for f in protocol._request_futures.values()):
            break
    await asyncio.sleep(0)  # the done-callbacks of asyncio futures run one turn later


async def test_notifications_leave_no_futures_behind(tmp_path: Path) -> None:
    server = _initialized_server()
    protocol = server.protocol
    assert isinstance(protocol, CitewardenProtocol)
    protocol._send_data = lambda data: None  # type: ignore[method-assign]
    uri = (tmp_path / "main.tex").as_uri()
    document = {"uri": uri, "languageId": "latex", "version": 0, "text": "x\n"}
    _feed(protocol, "textDocument/didOpen", {"textDocument": document})
    for version in range(1, CHANGES + 1):
        _feed(protocol, "textDocument/didChange", _change(uri, version))
    _feed(protocol, "textDocument/didSave", {"textDocument": {"uri": uri}})
    _feed(protocol, "workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2}]})
    _feed(protocol, "textDocument/didClose", {"textDocument": {"uri": uri}})
    await _settle(protocol)
    assert protocol._request_futures == {}
    await server.session.close()


def _launch(transport: list[str], cache: Path, **streams: Any) -> subprocess.Popen[bytes]:
    """:data:`LAUNCHER` in place of ``citewarden.lsp`` (``transport`` is stdio)."""
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCHER],
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), "CITEWARDEN_CACHE_DIR": str(cache)},
        preexec_fn=_limit_memory,
        **streams,
    )


def test_the_served_table_holds_no_finished_future_after_many_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "main.tex").write_text("\\cite{a}\n")
    monkeypatch.setattr(test_lsp_hostile, "start_server", _launch)
    client = RawClient(workspace, tmp_path / "cache")
    try:
        client.initialize()
        uri = (workspace / "main.tex").as_uri()
        text = (workspace / "main.tex").read_text()
        document = {"uri": uri, "languageId": "latex", "version": 0, "text": text}
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        for version in range(1, CHANGES + 1):
            client.send({"method": "textDocument/didChange", "params": _change(uri, version)})
        client.send({"method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}})
        response = client.response(client.request("test/finishedFutures", None))
        assert response["result"] == 0
    finally:
        client.close()


async def test_shutdown_with_handlers_still_running_is_answered() -> None:
    """pygls' shutdown cancels every future of the table while it walks it: a future taken
    out of the table by its own done-callback then changed the table under the walk, and
    shutdown was answered with an internal error (the client never sent exit, and hung)."""
    server = _initialized_server()
    protocol = server.protocol
    assert isinstance(protocol, CitewardenProtocol)
    sent: list[Any] = []
    protocol._send_data = sent.append  # type: ignore[method-assign]
    release = asyncio.Event()

    def pending() -> Any:  # a generator handler still waiting for a step
        yield asyncio.Event().wait, (), None

    for i in range(3):
        protocol._execute_handler(f"n{i}", pending, protocol._check_handler_result)
    assert len(protocol._request_futures) >= 3
    body = {"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": None}
    protocol.handle_message(json.loads(json.dumps(body), object_hook=protocol.structure_message))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if any(getattr(m, "id", None) == 7 for m in sent):
            break
    release.set()
    (answer,) = [m for m in sent if getattr(m, "id", None) == 7]
    assert getattr(answer, "error", None) is None, answer
    await server.session.close()


def _edit(uri: str, version: int) -> dict[str, Any]:
    """A change of the first character of ``uri``'s buffer to ``y``."""
    edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}
    return {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{**edit, "text": "y"}],
    }


async def test_changes_to_an_untitled_buffer_leave_nothing_behind() -> None:
    """An ``untitled:`` buffer is never checked, so the project never takes its edits: each
    change kept its record of what it edited (about 100 bytes, 72 MB after 200 000)."""
    server = _initialized_server()
    protocol = server.protocol
    assert isinstance(protocol, CitewardenProtocol)
    protocol._send_data = lambda data: None  # type: ignore[method-assign]
    uri = "untitled:Untitled-1"
    document = {"uri": uri, "languageId": "latex", "version": 0, "text": "x\n"}
    _feed(protocol, "textDocument/didOpen", {"textDocument": document})
    for version in range(1, 1001):  # pygls' and the loop's own tables reach their size
        _feed(protocol, "textDocument/didChange", _edit(uri, version))
    await _settle(protocol)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for version in range(1001, 21001):
            _feed(protocol, "textDocument/didChange", _edit(uri, version))
            if version % 1000 == 0:
                await _settle(protocol)
        await _settle(protocol)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 200_000  # 20 000 changes: under 10 bytes each
