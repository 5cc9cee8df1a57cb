"""A loopback HTTP server that replays real recorded API responses.

Routes come from ``tests/data/api/<source>/manifest.json`` (file, method, uri, status,
content_type, optional headers / any_query).  Each service is mounted under
``/<source>`` so one server stands in for all of them: point a source at
``server.base_url(name)`` (or pass ``server.base_urls`` as ``VerifySettings.base_urls``).

Matching: method + path (percent-decoded) + query parameters compared as a multiset,
independent of order, ignoring identification/projection parameters (``mailto``,
``api_key``, ``email``, ``tool``, ``select``, ``fields``).  Routes marked ``any_query`` answer
any query string on their path.  Unmatched requests get a 501 and are listed in
:attr:`ReplayServer.unmatched` (tests assert it stays empty).

Also: a fixed ``latency`` per request, request counting per path, a request log, and fault
injection (:meth:`ReplayServer.inject`): ``429`` (with ``Retry-After``), ``503``, ``delay``,
``drop`` (close without a response), ``truncate`` (first half of the real body) and
``malformed`` (the real body with its first half cut off).

Use the ``replay_server`` fixture (import it into a test module or conftest)::

    from replay import replay_server  # noqa: F401
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
import pytest_asyncio

from citewarden.verify.http import PUBLISHED_LIMITS, HttpClient, Limit, RetryPolicy

API_DATA = Path(__file__).parent / "data" / "api"

#: Real service hosts and the mount point of each on the replay server.
HOSTS = {
    "api.crossref.org": "crossref",
    "doi.org": "doi",
    "api.openalex.org": "openalex",
    "api.semanticscholar.org": "semanticscholar",
    "api.datacite.org": "datacite",
    "export.arxiv.org": "arxiv",
    "eutils.ncbi.nlm.nih.gov": "pubmed",
    "dblp.org": "dblp",
    "openlibrary.org": "openlibrary",
    "doaj.org": "doaj",
}

IGNORED_PARAMS = frozenset({"mailto", "api_key", "email", "tool", "select", "fields"})
FAULTS = frozenset({"429", "503", "delay", "drop", "truncate", "malformed"})


def _params(query: str) -> tuple[tuple[str, str], ...]:
    pairs = parse_qsl(query, keep_blank_values=True)
    return tuple(sorted((k, v) for k, v in pairs if k not in IGNORED_PARAMS))


@dataclass
class Route:
    method: str
    path: str  # mounted path, percent-decoded, e.g. /crossref/works/10.1/x
    params: tuple[tuple[str, str], ...]
    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    any_query: bool = False
    file: str = ""


@dataclass
class Fault:
    mode: str
    path_prefix: str
    times: int
    retry_after: str | None = None
    delay: float = 0.0


@dataclass
class Seen:
    """One request as the server saw it."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float


def mount(uri: str) -> tuple[str, str]:
    """``https://api.crossref.org/works/x?a=1`` -> (``/crossref/works/x``, ``a=1``)."""
    parts = urlsplit(uri)
    prefix = HOSTS.get(parts.hostname or "")
    if prefix is None:
        raise ValueError(f"no mount for host {parts.hostname!r}")
    return f"/{prefix}{unquote(parts.path)}", parts.query


def _route_key(path: str) -> str:
    # DOIs (most of our paths) are case-insensitive at every service
    return unquote(path).casefold()


class ReplayServer:
    """The replay server; start with :meth:`start`, stop with :meth:`stop`."""

    def __init__(self, data_dir: Path = API_DATA) -> None:
        self.routes: dict[tuple[str, str, tuple[tuple[str, str], ...]], Route] = {}
        self.wildcards: dict[tuple[str, str], Route] = {}
        #: Seconds added to every response (e.g. 0.1 for benchmarks) ...
        self.latency = 0.0
        #: ... or per path prefix (the longest matching prefix wins), e.g. {"/arxiv": 0.5}.
        self.latencies: dict[str, float] = {}
        #: Composers of batched answers, tried when no recorded route matches exactly
        #: (see tests/batch_replay.py): ``fn(server, path, query) -> (status, type, body)``.
        self.responders: list[Callable[[ReplayServer, str, str], Any]] = []
        #: Headers added to every response under a path prefix (e.g. the rate-limit headers
        #: a service sends with every answer).
        self.extra_headers: dict[str, dict[str, str]] = {}
        self.counts: Counter[str] = Counter()
        self.log: list[Seen] = []
        self.unmatched: list[str] = []
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        if data_dir.exists():
            self.load(data_dir)

    # -- routes -----------------------------------------------------------------------------

    def load(self, data_dir: Path) -> None:
        for manifest in sorted(data_dir.glob("*/manifest.json")):
            for e in json.loads(manifest.read_text(encoding="utf-8")):
                self.add_route(
                    e["uri"],
                    (manifest.parent / e["file"]).read_bytes(),
                    method=e.get("method", "GET"),
                    status=int(e["status"]),
                    content_type=e.get("content_type") or "application/octet-stream",
                    headers=e.get("headers") or {},
                    any_query=bool(e.get("any_query")),
                    file=f"{manifest.parent.name}/{e['file']}",
                )

    def add_route(
        self,
        uri: str,
        body: bytes,
        *,
        method: str = "GET",
        status: int = 200,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
        any_query: bool = False,
        file: str = "",
    ) -> Route:
        """Serve ``body`` for ``uri`` (a real service URI; its host selects the mount)."""
        path, query = mount(uri)
        route = Route(
            method.upper(),
            path,
            _params(query),
            status,
            content_type,
            body,
            dict(headers or {}),
            any_query,
            file,
        )
        if any_query:
            self.wildcards[(route.method, _route_key(path))] = route
        else:
            self.routes[(route.method, _route_key(path), route.params)] = route
        return route

    def match(self, method: str, path: str, query: str) -> Route | None:
        key = (method.upper(), _route_key(path), _params(query))
        return self.routes.get(key) or self.wildcards.get((key[0], key[1]))

    def compose(self, method: str, path: str, query: str) -> Route | None:
        """The recorded route for a request, else an answer a responder composes from
        recorded routes, else a route that answers any query on the path."""
        route = self.routes.get((method.upper(), _route_key(path), _params(query)))
        if route is not None:
            return route
        for responder in self.responders:
            made = responder(self, unquote(path), query)
            if made is not None:
                status, ctype, body = made
                return Route(method.upper(), unquote(path), (), status, ctype, body)
        return self.wildcards.get((method.upper(), _route_key(path)))

    # -- faults -----------------------------------------------------------------------------

    def inject(
        self,
        mode: str,
        *,
        path: str = "/",
        times: int = 1,
        retry_after: str | None = None,
        delay: float = 0.0,
    ) -> None:
        """Make the next ``times`` requests under ``path`` fail with ``mode``."""
        if mode not in FAULTS:
            raise ValueError(f"unknown fault {mode!r}; one of {sorted(FAULTS)}")
        with self._lock:
            self._faults.append(Fault(mode, path, times, retry_after, delay))

    def clear(self) -> None:
        """Forget faults, counts, the request log, latencies and extra headers (recorded
        routes and responders stay)."""
        with self._lock:
            self._faults.clear()
            self.counts.clear()
            self.log.clear()
            self.unmatched.clear()
        self.latency = 0.0
        self.latencies = {}
        self.extra_headers = {}

    def latency_for(self, path: str) -> float:
        best = max((p for p in self.latencies if path.startswith(p)), key=len, default=None)
        return self.latencies[best] if best is not None else self.latency

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for f in self._faults:
                if f.times > 0 and path.startswith(f.path_prefix):
                    f.times -= 1
                    return f
        return None

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def base_url(self, source: str) -> str:
        return f"{self.url}/{source}"

    @property
    def base_urls(self) -> dict[str, str]:
        return {name: self.base_url(name) for name in HOSTS.values()}

    def requests_to(self, prefix: str) -> int:
        """Requests whose path starts with ``prefix`` (e.g. ``/crossref/works``)."""
        with self._lock:
            return sum(n for p, n in self.counts.items() if p.startswith(prefix))

    def start(self) -> ReplayServer:
        server = self

        class Handler(_Handler):
            replay = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None


class _Handler(BaseHTTPRequestHandler):
    replay: ReplayServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        r = self.replay
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        length = int(self.headers.get("Content-Length") or 0)
        body_in = self.rfile.read(length) if length else b""
        with r._lock:
            r.counts[path] += 1
            r.log.append(
                Seen(
                    self.command,
                    path,
                    parts.query,
                    {k.lower(): v for k, v in self.headers.items()},
                    body_in,
                    time.monotonic(),
                )
            )
        delay = r.latency_for(path)
        if delay:
            time.sleep(delay)
        fault = r._take_fault(path)
        route = r.compose(self.command, parts.path, parts.query)
        if fault is not None and fault.mode == "drop":
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.mode == "delay":
            time.sleep(fault.delay)
        if fault is not None and fault.mode in {"429", "503"}:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._send(int(fault.mode), "text/plain", b"", headers)
            return
        if route is None:
            with r._lock:
                r.unmatched.append(f"{self.command} {self.path}")
            self._send(501, "text/plain", f"no recorded response for {self.path}".encode(), {})
            return
        body = route.body
        if fault is not None and fault.mode == "truncate":
            body = body[: len(body) // 2]
        elif fault is not None and fault.mode == "malformed":
            body = body[len(body) // 2 :]
        headers = dict(route.headers)
        for prefix, extra in r.extra_headers.items():
            if path.startswith(prefix):
                headers.update(extra)
        if "location" in headers:
            headers["location"] = self._local(headers["location"])
        self._send(route.status, route.content_type, body, headers)

    def _local(self, location: str) -> str:
        try:
            path, query = mount(location)
        except ValueError:
            return location
        return f"{self.replay.url}{path}" + (f"?{query}" if query else "")

    def _send(self, status: int, ctype: str, body: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


@pytest.fixture(scope="session")
def replay_server() -> Iterator[ReplayServer]:
    """A started replay server over tests/data/api, answering batched requests from its
    recorded single answers (tests/batch_replay.py); faults and counts reset per test via
    :meth:`ReplayServer.clear` in the ``replay`` fixture."""
    from batch_replay import serve_batches

    server = serve_batches(ReplayServer()).start()
    yield server
    server.stop()


@pytest.fixture
def replay(replay_server: ReplayServer) -> Iterator[ReplayServer]:
    """The session replay server, cleared before and after the test."""
    replay_server.clear()
    yield replay_server
    replay_server.clear()


def fast_http(**kwargs: object) -> HttpClient:
    """An HttpClient for tests: published limits lifted, short timeout, no real waiting
    between retries unless the test asks for it."""
    options: dict[str, object] = {
        "timeout": 2.0,
        "limits": {lane: Limit(1000.0, 1000, 16) for lane in PUBLISHED_LIMITS},
        "retry": RetryPolicy(
            max_retries=2, transport_retries=1, backoff_base=0.01, backoff_cap=0.05
        ),
    }
    options.update(kwargs)
    return HttpClient(**options)  # type: ignore[arg-type]


def recorded(source: str, name: str) -> bytes:
    """The bytes of a recorded response in tests/data/api/<source>/."""
    return (API_DATA / source / name).read_bytes()


def recorded_json(source: str, name: str) -> Any:
    return json.loads(recorded(source, name))


@pytest_asyncio.fixture
async def replay_http() -> AsyncIterator[HttpClient]:
    """A :func:`fast_http` client, closed after the test."""
    client = fast_http()
    yield client
    await client.aclose()
