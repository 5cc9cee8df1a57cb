"""Hostile input to the language server: malformed requests, requests after shutdown,
special files in the workspace, huge buffers and hostile entries in hovers.

The server runs as a subprocess under an address-space limit and is spoken to over its
standard streams with hand-framed JSON-RPC, so that messages a typed client would refuse
to send (params of the wrong shape) can be sent.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 3 << 29  # 1.5 GB of address space; the server idles at about 60 MB resident
WAIT = 30.0


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def next_frame(buf: bytes) -> tuple[dict[str, Any], bytes] | None:
    """The first whole JSON-RPC message framed in ``buf`` and what follows it, or None."""
    if b"\r\n\r\n" not in buf:
        return None
    head, rest = buf.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    if len(rest) < length:
        return None
    return json.loads(rest[:length]), rest[length:]


def start_server(transport: list[str], cache: Path, **streams: Any) -> subprocess.Popen[bytes]:
    """``citewarden.lsp`` with ``transport`` arguments, under the address-space limit."""
    return subprocess.Popen(
        [sys.executable, "-m", "citewarden.lsp", *transport],
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), "CITEWARDEN_CACHE_DIR": str(cache)},
        preexec_fn=_limit_memory,
        **streams,
    )


class RawClient:
    """A language client writing JSON-RPC frames by hand, reading with a deadline."""

    def __init__(self, root: Path, cache: Path) -> None:
        self.root = root
        self.proc = start_server(["--stdio"], cache, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._buf = b""
        self.notifications: list[dict[str, Any]] = []
        self.responses: dict[int, dict[str, Any]] = {}
        self.unanswerable: list[dict[str, Any]] = []
        self._next_id = 100

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> int:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        return self._next_id

    def _messages(self) -> Iterator[dict[str, Any]]:
        while (framed := next_frame(self._buf)) is not None:
            message, self._buf = framed
            yield message

    def _pump(self, deadline: float) -> bool:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.time()))
        if not ready:
            return False
        chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        if not chunk:
            raise AssertionError("the server closed its output")
        self._buf += chunk
        return True

    def _sort(self) -> None:
        for message in self._messages():
            if "method" not in message and message.get("id") is None:
                self.unanswerable.append(message)  # an error about no request (id null)
            elif "method" not in message:
                self.responses[message["id"]] = message
            elif "id" not in message:
                self.notifications.append(message)
            else:  # a request from the server: answer it empty
                self.send({"id": message["id"], "result": None})

    def response(self, msg_id: int, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.time() + timeout
        while True:
            self._sort()
            if msg_id in self.responses:
                return self.responses.pop(msg_id)
            if not self._pump(deadline):
                raise AssertionError(f"no response to request {msg_id} in {timeout} s")

    def diagnostics(self, uri: str, timeout: float = WAIT) -> list[dict[str, Any]]:
        """The latest diagnostics published for ``uri``, waiting for a first publish."""
        deadline = time.time() + timeout
        while True:
            self._sort()
            found = [
                n["params"]["diagnostics"]
                for n in self.notifications
                if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
            ]
            if found:
                return found[-1]
            if time.time() > deadline:
                raise AssertionError(f"no diagnostics for {uri} in {timeout} s")
            self._pump(min(deadline, time.time() + 0.2))

    def initialize(self, options: dict[str, Any] | None = None) -> None:
        init = {"verify": {"enabled": False}, **(options or {})}
        msg_id = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.root.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": self.root.as_uri(), "name": "ws"}],
                "initializationOptions": init,
            },
        )
        assert "result" in self.response(msg_id)
        self.send({"method": "initialized", "params": {}})

    def hover(self, name: str, line: int, character: int, timeout: float = WAIT) -> dict[str, Any]:
        msg_id = self.request(
            "textDocument/hover",
            {
                "textDocument": {"uri": (self.root / name).as_uri()},
                "position": {"line": line, "character": character},
            },
        )
        return self.response(msg_id, timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    return root


@pytest.fixture
def client(workspace: Path, tmp_path: Path) -> Iterator[RawClient]:
    c = RawClient(workspace, tmp_path / "cache")
    try:
        yield c
    finally:
        c.close()


def test_invalid_params_and_requests_after_shutdown_get_errors(client: RawClient) -> None:
    client.initialize()
    bad_shape = client.request("textDocument/hover", {"bogus": 1})
    not_object = client.request("textDocument/hover", "nonsense")
    for msg_id in (bad_shape, not_object):
        error = client.response(msg_id)["error"]
        assert error["code"] == -32602  # InvalidParams
        assert "textDocument/hover" in error["message"]
    # the server still works
    assert "result" in client.hover("main.tex", 0, 7)
    down = client.request("shutdown", None)
    late = client.hover("main.tex", 0, 7)
    assert client.response(down)["result"] is None
    assert late["error"]["code"] == -32600  # InvalidRequest
    again = client.hover("main.tex", 0, 7)
    assert again["error"]["code"] == -32600
    client.send({"method": "exit"})
    assert client.proc.wait(WAIT) == 0


def test_exit_without_shutdown_ends_with_status_1(client: RawClient) -> None:
    client.initialize()
    assert "result" in client.hover("main.tex", 0, 7)
    client.send({"method": "exit"})
    assert client.proc.wait(WAIT) == 1


def test_fifo_in_the_workspace_never_blocks_the_server(workspace: Path, client: RawClient) -> None:
    os.mkfifo(workspace / "f.bib")  # nobody writes: an open for reading would block
    client.initialize()
    found = client.diagnostics((workspace / "f.bib").as_uri())
    assert [d["code"] for d in found] == ["file-unreadable"]
    assert "a named pipe (FIFO), not a regular file" in found[0]["message"]
    hover = client.hover("main.tex", 0, 7)["result"]
    assert "A" in hover["contents"]["value"]


def test_buffer_over_the_size_cap_is_reported_and_freed(workspace: Path, client: RawClient) -> None:
    client.initialize({"max_file_mb": 1})
    uri = (workspace / "big.bib").as_uri()
    text = "".join(f"@misc{{k{i}, title = {{Entry number {i}}}}}\n" for i in range(60_000))
    assert len(text) > 1 << 20
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "bibtex", "version": 1, "text": text}
            },
        }
    )
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] == ["file-unreadable"]
    assert "larger than the 1 MB limit (setting max_file_mb)" in found[0]["message"]
    assert "result" in client.hover("main.tex", 0, 7)


def test_requests_during_a_big_documents_check_do_not_wait_for_it(
    workspace: Path, client: RawClient
) -> None:
    """Hovers sent right behind the didOpen of a 9 MB buffer are answered from the index
    as it was, before the buffer's check publishes anything (they used to wait for it)."""
    client.initialize()
    assert "result" in client.hover("main.tex", 0, 7)
    uri = (workspace / "unsaved.bib").as_uri()
    entry = "@article{{k{n},\n  author = {{Doe, Jane}},\n  title = {{Title number {n}}},\n}}\n"
    text = "".join(entry.format(n=n) for n in range(150_000))
    text += "@article{unfinished,\n  title = {No end}\n"  # its finding ends the check
    assert len(text) > 9_000_000
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "bibtex", "version": 1, "text": text}
            },
        }
    )
    for _ in range(3):
        hover = client.hover("main.tex", 0, 7)
        assert "A" in hover["result"]["contents"]["value"]
        published = [n for n in client.notifications if n["params"].get("uri") == uri]
        assert not published, "a hover waited for the big document's check"
    found = client.diagnostics(uri, timeout=120)
    assert [d["code"] for d in found] == ["bib-syntax"]


def test_hover_of_a_hostile_entry_links_only_https(workspace: Path, client: RawClient) -> None:
    (workspace / "refs.bib").write_text(
        "@misc{a, title = {Click ![i](https://evil.example/t.png)\x1b]0;x\x07},\n"
        "  url = {command:workbench.action.terminal.new}}\n"
    )
    client.initialize()
    value = client.hover("main.tex", 0, 7)["result"]["contents"]["value"]
    assert "\x1b" not in value and "\x07" not in value
    # only "\](" (escaped, so plain text) may stand between a label and an address
    assert re.search(r"(?<!\\)\]\(", value) is None
    assert "`command:workbench.action.terminal.new`" in value


def test_a_body_that_is_not_json_gets_a_parse_error(client: RawClient) -> None:
    """Also valid JSON Python cannot read: nested 200 000 deep (RecursionError) and a number
    of 5 000 digits (ValueError) were logged and left their requests unanswered."""
    client.initialize()
    assert client.proc.stdin is not None
    start = b'{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": '
    bodies = (
        b'{"jsonrpc": "2.0", "id": 7, "method": "textDoc',
        b"\xff\xfe not text",
        start + b"[" * 200_000 + b"]" * 200_000 + b"}",
        start + b'{"x": ' + b"1" * 5000 + b"}}",
    )
    for body in bodies:
        client.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        client.proc.stdin.flush()
    deadline = time.time() + WAIT
    while True:
        client._sort()
        if len(client.unanswerable) >= len(bodies):
            break
        assert client._pump(deadline), "no parse error in time"
    errors = client.unanswerable
    assert [e["error"]["code"] for e in errors] == [-32700] * len(bodies)
    assert all("id" in e and e["id"] is None for e in errors)
    assert [e["error"]["message"] for e in errors[2:]] == [
        "Parse error: JSON nested too deep",
        "Parse error: a number of too many digits",
    ]
    assert "result" in client.hover("main.tex", 0, 7)  # and the server goes on


def test_lone_surrogates_in_a_buffer_are_read_as_replacement_characters(
    workspace: Path, client: RawClient
) -> None:
    """JSON lets a client send half of a surrogate pair (``"\\ud800"``); a hover quoting it
    and the DOI link built from it used to fail (an empty hover)."""
    client.initialize()
    uri = (workspace / "refs.bib").as_uri()
    text = "@article{a,\n  title = {Tit\ud800le},\n  doi = {10.1/\udcfex}\n}\n"
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "bibtex", "version": 1, "text": text}
            },
        }
    )
    value = client.hover("refs.bib", 0, 9)["result"]["contents"]["value"]
    assert "Tit\ufffdle" in value
    assert "(https://doi.org/10.1/%EF%BF%BDx)" in value
    hover = client.hover("main.tex", 0, 7)["result"]["contents"]["value"]
    assert "Tit\ufffdle" in hover


def test_files_whose_names_are_not_utf8_are_checked_and_found(
    workspace: Path, client: RawClient
) -> None:
    """A name that is not UTF-8 (Neovim's URI keeps its bytes: ``x%FE.tex``) used to stop
    every publish of the workspace."""
    raw = os.fsencode(workspace)
    with open(raw + b"/x\xfe.tex", "wb") as out:
        out.write(b"\\cite{a,zz}\n\\bibliography{refs}\n")
    with open(raw + b"/\xffbad.bib", "wb") as out:
        out.write(b"@misc{b, title = {B}\n")
    client.initialize()
    odd_tex = workspace.as_uri() + "/x%FE.tex"
    odd_bib = workspace.as_uri() + "/%FFbad.bib"
    assert [d["code"] for d in client.diagnostics(odd_tex)] == ["dangling-citation"]
    assert [d["code"] for d in client.diagnostics(odd_bib)] == ["bib-syntax"]
    hover = client.response(
        client.request(
            "textDocument/hover",
            {"textDocument": {"uri": odd_tex}, "position": {"line": 0, "character": 6}},
        )
    )
    assert "`@misc{a}` in refs.bib" in hover["result"]["contents"]["value"]
    found = client.response(client.request("workspace/symbol", {"query": "b"}))["result"]
    assert [(s["location"]["uri"], s["containerName"]) for s in found] == [
        (odd_bib, "\\xffbad.bib")
    ]


def _write(client: RawClient, data: bytes) -> None:
    assert client.proc.stdin is not None
    client.proc.stdin.write(data)
    client.proc.stdin.flush()


def test_a_header_of_thousands_of_digits_and_an_endless_header_line_do_not_end_the_server(
    client: RawClient,
) -> None:
    """A Content-Length of 5 000 digits was a ValueError (Python converts at most 4 300)
    and a header line of 2 GB without a line break a MemoryError in the reading loop: the
    server died.  Both lines are now passed over, and the next message is read."""
    client.initialize()
    _write(client, b"Content-Length: " + b"9" * 5000 + b"\r\n")
    piece = b"x" * (64 << 20)
    for _ in range(32):  # 2 GB, more than the 1.5 GB the server may address
        _write(client, piece)
    _write(client, b"\r\n\r\n")
    assert "A" in client.hover("main.tex", 0, 7, timeout=120)["result"]["contents"]["value"]


def test_a_message_over_the_size_limit_is_refused_and_not_held(client: RawClient) -> None:
    """A request of 70 MB (over the 64 MB limit that max_file_mb = 1 gives) gets an
    InvalidRequest answer naming its size and the limit, and the server goes on."""
    client.initialize({"max_file_mb": 1})
    msg_id = client.request(
        "workspace/executeCommand",
        {"command": "citewarden.status", "arguments": ["x" * (70 << 20)]},
    )
    error = client.response(msg_id)["error"]
    assert error["code"] == -32600
    assert error["message"].startswith("a workspace/executeCommand message of 70.0 MB")
    assert "over the limit of 64.0 MB" in error["message"]
    shown = [n for n in client.notifications if n["method"] == "window/showMessage"]
    assert any("70.0 MB" in n["params"]["message"] for n in shown)
    assert "result" in client.hover("main.tex", 0, 7)


def test_a_length_beyond_memory_is_let_go_without_allocating_it(client: RawClient) -> None:
    """``Content-Length: 99999999999`` had its 100 GB allocated at once, a MemoryError that
    ended the server.  The body is now read and let go as it arrives; the stream ending
    inside it ends the server as any end of input does."""
    client.initialize()
    _write(client, b"Content-Length: 99999999999\r\n\r\n" + b'{"jsonrpc": "2.0", ' * 100_000)
    time.sleep(1.0)
    assert client.proc.poll() is None
    assert client.proc.stdin is not None
    client.proc.stdin.close()
    assert client.proc.wait(WAIT) == 0


def test_a_message_memory_runs_out_reading_or_decoding_is_answered_and_let_go(
    client: RawClient,
) -> None:
    """Under the address-space limit, a body within the limit (max_file_mb = 200) too
    large to read whole, and a body of 50 MB of empty JSON lists, ran the server out of
    memory: the first ended it, the second was logged with a traceback and its request
    never answered.  Each request now gets an error answer saying so, and the server goes
    on."""
    client.initialize({"max_file_mb": 200})
    assert client.proc.stdin is not None
    start = b'{"jsonrpc": "2.0", "id": %d, "method": "workspace/executeCommand", "params": '
    huge = start % 8 + b'{"command": "citewarden.status", "arguments": ["' + b"x" * (700 << 20)
    huge += b'"]}}'
    _write(client, b"Content-Length: %d\r\n\r\n" % len(huge) + huge)
    del huge
    error = client.response(8, timeout=120)["error"]
    assert error["code"] == -32603
    assert error["message"] == (
        "a workspace/executeCommand message of 700.0 MB from the editor could not be read: "
        "the server ran out of memory reading it, and let it go"
    )
    dense = start % 9 + b'{"command": "citewarden.status", "arguments": ['
    dense += b"[]," * ((50 << 20) // 3) + b"[]]}}"
    _write(client, b"Content-Length: %d\r\n\r\n" % len(dense) + dense)
    del dense
    error = client.response(9, timeout=120)["error"]
    assert error["code"] == -32603
    assert "the server ran out of memory decoding it" in error["message"]
    shown = [n["params"]["message"] for n in client.notifications if "showMessage" in n["method"]]
    assert len([m for m in shown if "ran out of memory" in m]) == 2
    assert "A" in client.hover("main.tex", 0, 7)["result"]["contents"]["value"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_tcp_connection_is_read_within_the_same_bounds(workspace: Path, tmp_path: Path) -> None:
    """Over ``--tcp``, a Content-Length of 5 000 digits and a header line of 300 kB (over
    asyncio's 64 KiB line limit) each ended the connection; a message over the limit was
    read whole.  Now both lines are passed over and the message is refused, as on stdio."""
    port = _free_port()
    proc = start_server(["--tcp", f"127.0.0.1:{port}"], tmp_path, stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + WAIT
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
                break
            except ConnectionRefusedError:
                assert time.time() < deadline, "the server did not listen"
                time.sleep(0.1)
        with conn:
            received = b""

            def send(message: dict[str, Any]) -> None:
                body = json.dumps({"jsonrpc": "2.0", **message}).encode()
                conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

            def answer(msg_id: int) -> dict[str, Any]:
                nonlocal received
                while True:
                    while (framed := next_frame(received)) is not None:
                        message, received = framed
                        if message.get("id") == msg_id and "method" not in message:
                            return message
                    chunk = conn.recv(1 << 20)
                    assert chunk, "the server closed the connection"
                    received += chunk

            options = {"verify": {"enabled": False}, "max_file_mb": 1}
            init = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
            send(
                {
                    "id": 1,
                    "method": "initialize",
                    "params": {**init, "initializationOptions": options},
                }
            )
            assert "result" in answer(1)
            send({"method": "initialized", "params": {}})
            conn.sendall(b"Content-Length: " + b"9" * 5000 + b"\r\n" + b"x" * 300_000 + b"\r\n")
            send({"id": 2, "method": "workspace/symbol", "params": {"query": ""}})
            assert "result" in answer(2)
            # a second connection (a port probe, another editor) is closed at once: the
            # editor's answers stayed with it, and its closing ended the server
            with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as probe:
                assert probe.recv(1) == b""
            send({"id": 5, "method": "workspace/symbol", "params": {"query": ""}})
            assert "result" in answer(5)
            big = {"command": "citewarden.status", "arguments": ["x" * (70 << 20)]}
            send({"id": 3, "method": "workspace/executeCommand", "params": big})
            assert "over the limit of 64.0 MB" in answer(3)["error"]["message"]
            send({"id": 4, "method": "shutdown", "params": None})
            assert answer(4)["result"] is None
    finally:
        proc.kill()
        proc.wait(5)


@contextlib.contextmanager
def small_project_client(tmp_path: Path, *, initialize: bool = True) -> Iterator[RawClient]:
    """A :class:`RawClient` on a project of one document citing one entry (initialized
    unless told not to), closed afterwards."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    c = RawClient(root, tmp_path / "cache")
    try:
        if initialize:
            c.initialize()
        yield c
    finally:
        c.close()


def test_the_indexing_progress_shows_a_folder_name_escaped(tmp_path: Path) -> None:
    """The indexing progress names each workspace folder: a name with a terminal control or
    a bidirectional override reached the editor's status bar as it was."""
    root = tmp_path / "ws\x1b[2J\u202e"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    client = RawClient(root, tmp_path / "cache")
    try:
        msg_id = client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "initializationOptions": {"verify": {"enabled": False}},
            },
        )
        assert "result" in client.response(msg_id)
        client.send({"method": "initialized", "params": {}})
        assert "result" in client.hover("main.tex", 0, 7)  # after the indexing
        reports = [
            n["params"]["value"].get("message", "")
            for n in client.notifications
            if n["method"] == "$/progress" and n["params"]["value"].get("kind") == "report"
        ]
        assert "ws\\x1b[2J\\u202e (1 of 1)" in reports
        assert not any("\x1b" in r or "\u202e" in r for r in reports)
    finally:
        client.close()


def test_workspace_folders_that_are_no_folders_are_said_so(tmp_path: Path) -> None:
    """A workspace folder that is a FIFO or a device, first or added later, holds nothing
    to check: the editor is told so, with the path and what it is, where nothing was said;
    the server goes on with the documents opened."""
    fifo = tmp_path / "pipe\x1b[2J"
    os.mkfifo(fifo)
    client = RawClient(fifo, tmp_path / "cache")
    try:
        client.initialize()
        client.send(
            {
                "method": "workspace/didChangeWorkspaceFolders",
                "params": {
                    "event": {"added": [{"uri": "file:///dev/zero", "name": "z"}], "removed": []}
                },
            }
        )
        deadline = time.time() + WAIT
        said: list[str] = []
        while len(said) < 2:
            client._sort()
            said = [
                n["params"]["message"]
                for n in client.notifications
                if n["method"] == "window/showMessage"
            ]
            if len(said) < 2:
                assert client._pump(deadline), said
        head = "citewarden: not a workspace folder, nothing in it is checked: "
        assert sorted(said) == [
            f"{head}/dev/zero is a device",
            f"{head}{tmp_path}/pipe\\x1b[2J is a named pipe (FIFO)",
        ]
        (tmp_path / "main.tex").write_text("\\cite{zz}\n")
        uri = (tmp_path / "main.tex").as_uri()
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "latex",
                        "version": 1,
                        "text": "\\cite{zz}\n",
                    }
                },
            }
        )
        position = {"line": 0, "character": 7}
        hover = client.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
        )
        assert "`zz` is not defined" in client.response(hover)["result"]["contents"]["value"]
    finally:
        client.close()


@pytest.mark.parametrize("new_name", ["a\u202eb", "a\x1b[31mb", "a\u200fb", "a\x00b"])
def test_a_key_with_a_control_or_direction_character_is_refused_by_rename(
    client: RawClient, new_name: str
) -> None:
    """A new key with a right-to-left override or a terminal control reads otherwise than
    it is in every file the rename writes it to: it was written so; it is refused."""
    client.initialize()
    uri = (client.root / "main.tex").as_uri()
    at = {"line": 0, "character": 7}
    params = {"textDocument": {"uri": uri}, "position": at, "newName": new_name}
    error = client.response(client.request("textDocument/rename", params))["error"]
    assert error["code"] == -32602
    assert error["message"].endswith(
        "is not a valid citation key: it holds a control, line break or direction-changing "
        "character"
    )
    assert new_name not in error["message"]
    assert "result" in client.hover("main.tex", 0, 7)
