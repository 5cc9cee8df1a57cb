"""A huge ``didOpen``: how long other requests wait, and what memory stays after ``didClose``.

Starts ``python -m citewarden.lsp`` over stdio (verification off), opens a generated .bib of
``--mb`` megabytes that is not on disk, then sends a hover and a completion on another file
every ``--every`` milliseconds, alternately, until the buffer's diagnostics are published
(and half a second more), and prints:

* the time from sending ``didOpen`` until the first of those requests is answered (reading
  the message itself, which no server can answer during), and until the buffer's
  diagnostics arrive;
* hover and completion latency (p50 / p95 / max) over the requests sent while the buffer
  was read and checked, and over those sent once the server had read the message (the
  first answer arrived): whether any request waits for the big document's check;
* the server's resident memory before the open, while the buffer is open, and after
  ``didClose`` (once the close has been handled);
* with ``--cap MB`` (setting ``max_file_mb``) below the buffer's size, the same figures for
  a buffer the server refuses to parse.

Usage: ``.venv/bin/python bench/lsp_big_buffer_bench.py [--mb 17] [--cap 50] [--every 20] [--project-bib]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
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
    """The server process; a thread reads everything it sends, as an editor would (a
    client that stops reading while it writes would deadlock with a server writing a big
    message)."""

    def __init__(self, root: Path, cache: Path) -> None:
        extra = os.environ.get("BENCH_SERVER_ARGS", "").split()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "citewarden.lsp", "--stdio", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT / "server"),
                "CITEWARDEN_CACHE_DIR": str(cache),
            },
        )
        self.next_id = 0
        self._write = threading.Lock()
        self._seen = threading.Condition()
        #: id -> time its answer was read; every notification's time, method and params
        self.answered: dict[int, float] = {}
        self.notes: list[tuple[float, str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        with self._write:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                with self._seen:
                    self._seen.notify_all()
                return
            message = json.loads(stream.read(length))
            now = time.monotonic()
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            with self._seen:
                if "method" not in message:
                    self.answered[message.get("id")] = now
                elif "id" not in message:
                    self.notes.append((now, message["method"], message.get("params")))
                self._seen.notify_all()

    def pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the next message."""
        with self._seen:
            self._seen.wait(max(0.0, timeout))

    def wait(self, msg_id: int, timeout: float = 600.0) -> None:
        deadline = time.monotonic() + timeout
        with self._seen:
            while msg_id not in self.answered:
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    raise TimeoutError(f"no answer to {msg_id}")
                self._seen.wait(left)

    def published(self, uri: str, since: float) -> float | None:
        """When diagnostics for ``uri`` were first published after ``since``."""
        with self._seen:
            for at, method, params in self.notes:
                publish = method == "textDocument/publishDiagnostics"
                if at >= since and publish and params.get("uri") == uri:
                    return at
        return None

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")


def _ms(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p50 = ordered[len(ordered) // 2]
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{p50 * 1000:.1f} / {p95 * 1000:.1f} / {ordered[-1] * 1000:.1f} ms"


def run(mb: float, cap: float, every: float, project_bib: bool) -> None:
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
            # an entry left open at the end: its finding tells when the check is done
            text = "".join(parts) + "@article{unfinished,\n  title = {No end}\n"
            name = "refs.bib" if project_bib else "unsaved.bib"
            uri = (root / name).as_uri()
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
            complete = {**hover, "position": {"line": 0, "character": 6}}
            sent: dict[int, tuple[str, float]] = {}
            done: float | None = None
            while done is None or time.monotonic() < done + 0.5:
                kind = "hover" if len(sent) % 2 == 0 else "completion"
                params = hover if kind == "hover" else complete
                sent[server.request(f"textDocument/{kind}", params)] = (kind, time.monotonic())
                until = time.monotonic() + every / 1000
                while time.monotonic() < until:
                    server.pump(until - time.monotonic())
                if done is None:
                    done = server.published(uri, start)
                if time.monotonic() - start > 120:
                    raise TimeoutError("the buffer's diagnostics never came")
            for msg_id in sent:
                server.wait(msg_id)
            first = min(server.answered[i] for i in sent) - start
            assert done is not None
            latency: dict[str, list[float]] = {"hover": [], "completion": []}
            read = start + first  # the server has read the message: answers can flow
            after: dict[str, list[float]] = {"hover": [], "completion": []}
            for msg_id, (kind, at) in sent.items():
                latency[kind].append(server.answered[msg_id] - at)
                if at >= read:
                    after[kind].append(server.answered[msg_id] - at)
            server.wait(server.request("textDocument/hover", hover))
            opened = server.rss_mb()
            server.send(
                {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}
            )
            time.sleep(3.0)
            server.wait(server.request("textDocument/hover", hover))
            closed = server.rss_mb()
            print(
                f"buffer {size / 1e6:.1f} MB ({n} entries), max_file_mb {cap:g}: first answer "
                f"{first:.2f} s after didOpen, its diagnostics {done - start:.2f} s; "
                f"p50 / p95 / max: hover {_ms(latency['hover'])}, "
                f"completion {_ms(latency['completion'])} "
                f"({len(sent)} requests); sent once the message was read: "
                f"hover {_ms(after['hover'])}, completion {_ms(after['completion'])}; "
                f"resident {before:.0f} MB before, "
                f"{opened:.0f} MB open, {closed:.0f} MB after didClose"
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
    parser.add_argument("--every", type=float, default=20.0, help="ms between requests")
    parser.add_argument(
        "--project-bib",
        action="store_true",
        help="open the buffer as the project's refs.bib (every entry an orphan finding)",
    )
    args = parser.parse_args()
    t = time.perf_counter()
    sum(range(10**6))
    print(f"machine reference: sum(range(10**6)) = {(time.perf_counter() - t) * 1000:.1f} ms")
    run(args.mb, args.cap, args.every, args.project_bib)
    if args.cap > args.mb:
        run(args.mb, args.mb / 2, args.every, args.project_bib)


if __name__ == "__main__":
    main()
