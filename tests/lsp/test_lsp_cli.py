"""``citewarden serve`` options: --stdio is accepted, --tcp HOST:PORT serves LSP on a socket,
--log-file/--log-level write a log; bad options are refused with exit status 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from citewarden.lsp.server import main


def test_bad_options_are_refused(capsys: Any) -> None:
    assert main(["--tcp", "no-port"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
    for port in ("\u00b2", "9" * 5000):  # str.isdigit() says yes to both
        assert main(["--tcp", f"localhost:{port}"]) == 2
        assert "HOST:PORT" in capsys.readouterr().err
    assert main(["--tcp", "localhost:70000"]) == 2
    assert "not between 1 and 65535" in capsys.readouterr().err
    assert main(["--log-level", "loud"]) == 2
    assert main(["--help"]) == 0
    assert "--stdio" in capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    sock.sendall(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)


def _receive(sock: socket.socket, buffer: bytearray) -> dict[str, Any]:
    while True:
        head_end = buffer.find(b"\r\n\r\n")
        if head_end != -1:
            headers = buffer[:head_end].decode("ascii").split("\r\n")
            length = next(
                int(h.split(":")[1]) for h in headers if h.lower().startswith("content-length")
            )
            if len(buffer) >= head_end + 4 + length:
                body = bytes(buffer[head_end + 4 : head_end + 4 + length])
                del buffer[: head_end + 4 + length]
                return json.loads(body)  # type: ignore[no-any-return]
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        buffer += chunk


@contextmanager
def _served(log: Path, level: str, timeout: float = 30) -> Iterator[socket.socket]:
    """``citewarden serve --tcp`` on a free port logging to ``log``; a connected socket.
    The server is waited for (or killed) on the way out."""
    port = _free_port()
    command = [sys.executable, "-m", "citewarden.lsp", "--tcp", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        [*command, "--log-file", str(log), "--log-level", level],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                assert time.monotonic() < deadline, "server did not listen"
                time.sleep(0.1)
        with sock:
            yield sock
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_tcp_server_with_log_file(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with _served(log, "info") as sock:
        buffer = bytearray()
        _send(
            sock,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
            },
        )
        reply = _receive(sock, buffer)
        while "id" not in reply:
            reply = _receive(sock, buffer)
        result = reply["result"]
        assert result["serverInfo"]["name"] == "citewarden"
        caps = result["capabilities"]
        assert caps["positionEncoding"] == "utf-16"  # no encodings offered
        assert caps["textDocumentSync"]["change"] == 2  # incremental
        assert caps["completionProvider"]["resolveProvider"] is True
        assert caps["renameProvider"]
        _send(sock, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        reply = _receive(sock, buffer)
        while reply.get("id") != 2:
            reply = _receive(sock, buffer)
        _send(sock, {"jsonrpc": "2.0", "method": "exit"})
    written = log.read_text(encoding="utf-8")
    assert "(BibTeX reader: C extension)" in written  # the first line says what reads .bib files


def test_the_log_keeps_the_head_of_a_huge_message_and_says_what_it_left_out(
    tmp_path: Path,
) -> None:
    """pygls logs every response it sends whole: the 500 symbols (its cap) of a
    workspace/symbol answer are logged cut to their head with a note of their length, secrets still
    redacted, and no line of the log is longer than the cap (plus its timestamp and note)."""
    from citewarden.lsp.redaction import MAX_RECORD_CHARS

    log = tmp_path / "server.log"
    entry = "@article{key%d, title = {A title of some length for the entry number %d}}\n"
    (tmp_path / "refs.bib").write_text("".join(entry % (i, i) for i in range(3000)))
    with _served(log, "debug", timeout=60) as sock:
        buffer = bytearray()
        init = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        init["initializationOptions"] = {"judge": {"api_key": "sk-never-logged"}}
        _send(sock, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        while "id" not in _receive(sock, buffer):
            pass
        _send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        symbols: list[Any] = []
        for attempt in range(100):  # until the project is indexed
            query = {"query": "key"}
            _send(
                sock,
                {
                    "jsonrpc": "2.0",
                    "id": 10 + attempt,
                    "method": "workspace/symbol",
                    "params": query,
                },
            )
            reply = _receive(sock, buffer)
            while reply.get("id") != 10 + attempt:
                reply = _receive(sock, buffer)
            symbols = reply.get("result") or []
            if len(symbols) >= 500:
                break
            time.sleep(0.2)
        assert len(symbols) >= 500
        _send(sock, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        while _receive(sock, buffer).get("id") != 2:
            pass
        _send(sock, {"jsonrpc": "2.0", "method": "exit"})
    written = log.read_text(encoding="utf-8")
    assert "Sending data" in written and "key0" in written  # the answer was logged ...
    assert "more characters not logged]" in written  # ... cut, with a note
    assert f'"{symbols[-1]["name"]}"' not in written  # its tail is not in the log
    assert "sk-never-logged" not in written
    longest = max(len(line) for line in written.splitlines())
    assert longest < MAX_RECORD_CHARS + 200, longest
