"""A huge ``didOpen``: how long other requests wait, and what memory stays after ``didClose``.

Starts ``python -m citewarden.lsp`` over stdio (verification off), opens a generated .bib of
``--mb`` megabytes that is not on disk, sends a hover on another file right behind it, and
prints:

* the time from sending ``didOpen`` until that hover is answered (the work the buffer costs
  before the server answers anything else);
* the server's resident memory before the open, while the buffer is open, and after
  ``didClose`` (once the close has been handled);
* with ``--cap MB`` (setting ``max_file_mb``) below the buffer's size, the same figures for
  a buffer the server refuses to parse.

Usage: ``.venv/bin/python bench/lsp_big_buffer_bench.py [--mb 17] [--cap 50]``
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENTRY = (
    "@article{{key{n},\n  author = {{Doe, Jane and Roe, Richard}},\n"
    "  title = {{A title of some length, number {n}}},\n  journal = {{Journal of Things}},\n"
    "  year = {{2020}},\n  doi = {{10.1000/x{n}}},\n}}\n\n"
)


class Server:
    def __init__(self, root: Path, cache: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "citewarden.lsp", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT / "server"),
                "CITEWARDEN_CACHE_DIR": str(cache),
            },
        )
        self.buf = b""
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, msg_id: int, timeout: float = 600.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\r\n\r\n" in self.buf:
                head, rest = self.buf.split(b"\r\n\r\n", 1)
                length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
                if len(rest) < length:
                    break
                message = json.loads(rest[:length])
                self.buf = rest[length:]
                if message.get("id") == msg_id and "method" not in message:
                    return message
                if "method" in message and "id" in message:
                    self.send({"id": message["id"], "result": None})
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {msg_id}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise EOFError("server exited")
                self.buf += chunk

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")


def run(mb: float, cap: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "ws")
        root.mkdir()
        (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
        (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
        server = Server(root, Path(tmp, "cache"))
        try:
            init = {"verify": {"enabled": False}, "max_file_mb": cap}
            server.wait(
                server.request(
                    "initialize",
                    {
                        "processId": os.getpid(),
                        "rootUri": root.as_uri(),
                        "capabilities": {},
                        "initializationOptions": init,
                    },
                )
            )
            server.send({"method": "initialized", "params": {}})
            hover = {
                "textDocument": {"uri": (root / "main.tex").as_uri()},
                "position": {"line": 0, "character": 7},
            }
            server.wait(server.request("textDocument/hover", hover))
            time.sleep(1.0)
            before = server.rss_mb()
            parts, size, n = [], 0, 0
            while size < mb * 1e6:
                part = ENTRY.format(n=n)
                parts.append(part)
                size += len(part)
                n += 1
            text = "".join(parts)
            uri = (root / "unsaved.bib").as_uri()
            start = time.monotonic()
            server.send(
                {
                    "method": "textDocument/didOpen",
                    "params": {
                        "textDocument": {
                            "uri": uri,
                            "languageId": "bibtex",
                            "version": 1,
                            "text": text,
                        }
                    },
                }
            )
            server.wait(server.request("textDocument/hover", hover))
            waited = time.monotonic() - start
            time.sleep(3.0)  # the buffer's check runs after the debounce
            server.wait(server.request("textDocument/hover", hover))
            opened = server.rss_mb()
            server.send(
                {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}
            )
            time.sleep(3.0)
            server.wait(server.request("textDocument/hover", hover))
            closed = server.rss_mb()
            print(
                f"buffer {size / 1e6:.1f} MB ({n} entries), max_file_mb {cap:g}: "
                f"hover answered {waited:.2f} s after didOpen; resident "
                f"{before:.0f} MB before, {opened:.0f} MB open, {closed:.0f} MB after didClose"
            )
            server.wait(server.request("shutdown", None))
            server.send({"method": "exit"})
        finally:
            if server.proc.poll() is None:
                server.proc.kill()
            server.proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=17.0)
    parser.add_argument("--cap", type=float, default=50.0)
    args = parser.parse_args()
    run(args.mb, args.cap)
    if args.cap > args.mb:
        run(args.mb, args.mb / 2)


if __name__ == "__main__":
    main()
