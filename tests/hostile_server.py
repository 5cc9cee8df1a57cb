"""A misbehaving loopback HTTP server for the hostile-source tests.

It serves real recorded bodies (tests/data/api) badly: trickled a few bytes at a time,
followed by an endless chunked stream, announced as 200 MB, redirected to another origin,
or refused with 429 and ``Retry-After``.  Every request is logged with its headers and arrival
time, and the bytes each response managed to send are counted, so tests can assert what the
client did and how much it read.

Behaviours are set per path with :meth:`HostileServer.route`; unrouted paths get the
:attr:`HostileServer.fallback` behaviour, or 404 without one.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from cli_process import ROOT
from replay import recorded

#: A real Crossref answer for one DOI (habanero cassette, see tests/data/PROVENANCE.md).
CROSSREF_BODY = recorded("crossref", "test-works__test_works_with_one_id.json")
CROSSREF_DOI = "10.1371/journal.pone.0033693"


@dataclass
class Behaviour:
    #: ok | missing (404) | trickle | endless | huge | redirect | 429 | 503 | slow | raw |
    #: stall (the request read, never an answer: a source that stopped answering) |
    #: flaky (the first of every ``every`` requests on the path ``fails_with``, the others ok)
    mode: str
    body: bytes = CROSSREF_BODY
    content_type: str = "application/json"
    interval: float = 0.2  # trickle: seconds between pieces
    piece: int = 64  # trickle: bytes per piece
    location: str = ""  # redirect: absolute Location
    #: redirect: the n-th request on the path goes to the n-th of these, in turn (when
    #: given, instead of ``location``)
    locations: tuple[str, ...] = ()
    retry_after: str = "1"  # 429, 503
    status: int = 302  # redirect status
    delay: float = 0.2  # slow: seconds the answer is held back
    headers: dict[str, str] = field(default_factory=dict)  # slow: extra response headers
    every: int = 2  # flaky: the first of every ``every`` requests fails
    fails_with: int = 503  # flaky: the status of those (with Retry-After: 0)


@dataclass
class Seen:
    path: str
    query: str
    headers: dict[str, str]
    at: float
    host: str


@dataclass
class HostileServer:
    routes: dict[str, Behaviour] = field(default_factory=dict)
    #: How a path without a route is answered (None: 404).
    fallback: Behaviour | None = None
    log: list[Seen] = field(default_factory=list)
    #: Bytes of body written per request path (the last response on it).
    sent: dict[str, int] = field(default_factory=dict)
    #: Requests being answered now, and the most there ever were at once, per path.
    in_flight: dict[str, int] = field(default_factory=dict)
    peak: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _closing: threading.Event = field(default_factory=threading.Event)

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def other_origin(self) -> str:
        """The same server under another host name: a different origin for the client."""
        return f"http://localhost:{self.port}"

    def route(self, path: str, behaviour: Behaviour) -> None:
        self.routes[path] = behaviour

    def seen(self, path: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.log if s.path == path]

    def start(self) -> HostileServer:
        owner = self

        class Handler(_Handler):
            server_state = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    server_state: HostileServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        st = self.server_state
        parts = urlsplit(self.path)
        with st._lock:
            st.log.append(
                Seen(
                    parts.path,
                    parts.query,
                    {k.lower(): v for k, v in self.headers.items()},
                    time.monotonic(),
                    self.headers.get("Host", ""),
                )
            )
        b = st.routes.get(parts.path, st.fallback)
        try:
            if b is None:
                self._plain(404, b"not found")
            elif b.mode == "ok":
                self._plain(200, b.body, b.content_type)
            elif b.mode == "missing":
                self._plain(404, b.body, b.content_type)
            elif b.mode == "429":
                self._plain(429, b"", headers={"Retry-After": b.retry_after})
            elif b.mode == "flaky":
                if len(st.seen(parts.path)) % b.every == 1 % b.every:
                    self._plain(b.fails_with, b"", headers={"Retry-After": "0"})
                else:
                    self._plain(200, b.body, b.content_type)
            elif b.mode == "503":
                self._plain(503, b"", headers={"Retry-After": b.retry_after})
            elif b.mode == "stall":
                st._closing.wait()  # until the server stops
                self.close_connection = True
            elif b.mode == "redirect":
                turn = len(st.seen(parts.path)) - 1
                where = b.locations[turn % len(b.locations)] if b.locations else b.location
                self._plain(b.status, b"", headers={"Location": where})
            elif b.mode == "trickle":
                self._trickle(parts.path, b)
            elif b.mode in {"endless", "huge"}:
                self._flood(parts.path, b)
            elif b.mode == "slow":
                self._slow(parts.path, b)
            elif b.mode == "raw":  # ``body`` is the whole answer, status line and all
                self.wfile.write(b.body)
                self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def _count(self, path: str, n: int) -> None:
        with self.server_state._lock:
            self.server_state.sent[path] = self.server_state.sent.get(path, 0) + n

    def _plain(
        self,
        status: int,
        body: bytes,
        ctype: str = "text/plain",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _slow(self, path: str, b: Behaviour) -> None:
        """The real body after ``delay`` seconds, counting the requests in flight."""
        st = self.server_state
        with st._lock:
            st.in_flight[path] = st.in_flight.get(path, 0) + 1
            st.peak[path] = max(st.peak.get(path, 0), st.in_flight[path])
        st._closing.wait(b.delay)
        with st._lock:  # done before answering: the client may send again once answered
            st.in_flight[path] -= 1
        self._plain(200, b.body, b.content_type, headers=b.headers)

    def _trickle(self, path: str, b: Behaviour) -> None:
        """The real body, ``piece`` bytes every ``interval`` seconds (never silent long)."""
        self.send_response(200)
        self.send_header("Content-Type", b.content_type)
        self.send_header("Content-Length", str(len(b.body)))
        self.end_headers()
        for i in range(0, len(b.body), b.piece):
            if self.server_state._closing.is_set():
                return
            self.wfile.write(b.body[i : i + b.piece])
            self.wfile.flush()
            self._count(path, len(b.body[i : i + b.piece]))
            time.sleep(b.interval)

    def _flood(self, path: str, b: Behaviour) -> None:
        """``endless``: the real body, then whitespace chunks forever (chunked encoding);
        ``huge``: 200 MB announced in Content-Length, whitespace after the real body."""
        filler = b" " * 65536
        self.send_response(200)
        self.send_header("Content-Type", b.content_type)
        if b.mode == "huge":
            total = 200 * 1024 * 1024
            self.send_header("Content-Length", str(total))
            self.end_headers()
            self.wfile.write(b.body)
            sent = len(b.body)
            while sent < total and not self.server_state._closing.is_set():
                self.wfile.write(filler)
                sent += len(filler)
                self._count(path, len(filler))
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunks = (b.body, *([filler] * 10**6))  # 64 GB: endless for any client
        for chunk in chunks:
            if self.server_state._closing.is_set():
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self._count(path, len(chunk))


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    yield server
    with contextlib.suppress(OSError, socket.error):
        server.stop()


@contextlib.contextmanager
def dropping_address() -> Iterator[str]:
    """The origin of a loopback address that drops every connection request, as a firewall
    or a dead network does: a socket listening with a backlog of one that one connection,
    never accepted, fills (the kernel then drops what comes, the client hears nothing)."""
    listener = socket.socket()
    filler = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        filler.connect(("127.0.0.1", port))
        probe = socket.socket()
        probe.settimeout(0.3)
        try:
            probe.connect(("127.0.0.1", port))
            raise AssertionError("the full listener took a connection: no dropping address")
        except TimeoutError:
            pass
        finally:
            probe.close()
        yield f"http://127.0.0.1:{port}"
    finally:
        filler.close()
        listener.close()


# -- the command against the server ------------------------------------------------------

#: The real work CROSSREF_BODY describes, as one entry of a .bib.
CROSSREF_ENTRY = (
    "@article{sadasivan2012,\n  title = {Methylphenidate exposure induces dopamine neuron"
    " loss and activation of microglia in the basal ganglia of mice},\n"
    "  author = {Sadasivan, Shankar},\n  year = {2012},\n"
    f"  doi = {{{CROSSREF_DOI}}}\n}}\n"
)


def check_entry(
    hostile: HostileServer,
    folder: Path,
    verify: str,
    preexec_fn: Callable[[], None] | None = None,
    entry: str = CROSSREF_ENTRY,
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``citewarden check refs.bib --format json`` in ``folder``, refs.bib holding
    ``entry`` (:data:`CROSSREF_ENTRY`), verified by Crossref and doi.org at ``hostile`` with the
    ``[verify]`` settings ``verify`` (TOML lines) and its cache in ``folder / "cache"``;
    no ``CITEWARDEN_`` variable of the caller's environment passes.  ``preexec_fn`` runs
    in the child before the command (a resource limit).  -> the run, its seconds."""
    (folder / "refs.bib").write_text(entry)
    (folder / ".citewarden.toml").write_text('[verify]\nsources = ["crossref", "doi"]\n' + verify)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
    env.update(
        {
            "PYTHONPATH": str(ROOT / "server"),
            "CITEWARDEN_CACHE_DIR": str(folder / "cache"),
            "CITEWARDEN_CROSSREF_URL": hostile.url + "/crossref",
            "CITEWARDEN_DOI_URL": hostile.url + "/doi",
            "CITEWARDEN_MAILTO": "tests@example.org",
        }
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "citewarden", "check", "refs.bib", "--format", "json"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec_fn,
        check=False,
    )
    return done, time.monotonic() - started


def unverified_reasons(done: subprocess.CompletedProcess[str]) -> str:
    """The findings' messages of the one entry ``done``'s JSON report holds, after
    asserting that the command did not fail and the entry is ``unverified``."""
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    [entry] = json.loads(done.stdout)["entries"]
    assert entry["status"] == "unverified"
    return " ".join(f["message"] for f in entry["findings"])
