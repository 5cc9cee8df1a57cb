"""``citewarden serve`` options: --stdio is accepted, --tcp HOST:PORT serves LSP on a socket,
--log-file/--log-level write a log; bad options are refused with exit status 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from citewarden.lsp.server import main


def test_bad_options_are_refused(capsys: Any) -> None:
    assert main(["--tcp", "no-port"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
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


def test_tcp_server_with_log_file(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "citewarden.lsp",
            "--tcp",
            f"127.0.0.1:{port}",
            "--log-file",
            str(log),
            "--log-level",
            "info",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                assert time.monotonic() < deadline, "server did not listen"
                time.sleep(0.1)
        with sock:
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
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    written = log.read_text(encoding="utf-8")
    assert "(BibTeX reader: C extension)" in written  # the first line says what reads .bib files
