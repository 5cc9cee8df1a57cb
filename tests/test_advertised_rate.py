"""A rate a source advertises is adopted down to one request per ``max_retry_after``
seconds, and a request whose token would come after its entry's budget fails at once: a
source saying ``x-rate-limit-limit: 1`` per ``100000h`` stopped every later request to it,
and the run never ended."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from citewarden.verify.http import Failure, Reply, RetryPolicy, _per_request, entry_budget
from citewarden.verify.rate_limit import Limit, TokenBucket
from replay import fast_http


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: The rate advertised: one request per 100 000 hours (adopted down to the floor).
    limit, interval = "1", "100000h"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = b'{"status": "error", "message": "not found"}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("x-rate-limit-limit", self.limit)
        self.send_header("x-rate-limit-interval", self.interval)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _PublicPool(_Handler):
    #: Crossref's public pool, as its answers say.
    limit, interval = "50", "1s"


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/crossref/works/x"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def server() -> Iterator[str]:
    yield from _serve(_Handler)


@pytest.fixture
def public_pool() -> Iterator[str]:
    yield from _serve(_PublicPool)


def test_an_advertised_rate_is_adopted_down_to_the_floor() -> None:
    bucket = TokenBucket(Limit(10.0), min_rate=1 / 120)
    bucket.adapt({"x-rate-limit-limit": "1", "x-rate-limit-interval": "100000h"})
    assert bucket.rate == pytest.approx(1 / 120)
    bucket.adapt({"x-rate-limit-limit": "1", "x-rate-limit-interval": "10s"})
    assert bucket.rate == pytest.approx(1 / 120)  # never raised again
    other = TokenBucket(Limit(10.0), min_rate=1 / 120)
    other.adapt({"x-rate-limit-limit": "1", "x-rate-limit-interval": "10s"})
    assert other.rate == pytest.approx(0.1)


async def test_a_token_after_the_entry_budget_fails_at_once(server: str) -> None:
    http = fast_http(timeout=2.0, limits={"crossref": Limit(10.0)})
    started = time.monotonic()
    with entry_budget(6.0):
        first = await http.get(server, lane="crossref")
        second = await http.get(server, lane="crossref")
    await http.aclose()
    assert isinstance(first, Reply) and first.status == 404
    assert isinstance(second, Failure)
    assert second.reason == "rate limited: the source asks for one request per 120 s"
    assert time.monotonic() - started < 5.0


async def test_without_a_budget_the_wait_is_at_most_max_retry_after(server: str) -> None:
    http = fast_http(
        timeout=2.0,
        limits={"crossref": Limit(10.0)},
        retry=RetryPolicy(max_retries=0, max_retry_after=1.0),
    )
    started = time.monotonic()
    replies = [await http.get(server, lane="crossref") for _ in range(3)]
    await http.aclose()
    assert all(isinstance(r, Reply) and r.status == 404 for r in replies), replies
    assert time.monotonic() - started < 20.0


async def test_a_pause_the_service_asked_for_is_named_as_such(server: str) -> None:
    """A Retry-After pause past the entry's budget fails as the pause it is (429), not as
    a rate the service never set ("one request per 0 s" for Crossref's ten a second)."""
    http = fast_http(timeout=2.0, limits={"crossref": Limit(10.0)})
    http.bucket("crossref").pause(30)
    with entry_budget(25.0):
        answer = await http.get(server, lane="crossref")
    await http.aclose()
    assert isinstance(answer, Failure)
    assert (answer.reason, answer.status) == ("rate limited: retry after 30 s", 429)


async def test_a_rate_of_several_requests_a_second_is_said_as_such(public_pool: str) -> None:
    """A token a third of a second away, past the entry's budget, was said as "one request
    per 0 s"."""
    http = fast_http(timeout=2.0, limits={"crossref": Limit(3.0)})
    with entry_budget(0.25):
        first = await http.get(public_pool, lane="crossref")
        second = await http.get(public_pool, lane="crossref")
    await http.aclose()
    assert isinstance(first, Reply) and first.status == 404
    assert isinstance(second, Failure)
    assert second.reason == "rate limited: the source allows 3 requests a second"


@pytest.mark.parametrize(
    ("interval", "said"),
    [
        (1 / 3, "allows 3 requests a second"),
        (0.8, "allows 1.25 requests a second"),  # was "1 requests a second"
        (0.1, "allows 10 requests a second"),
        (1.0, "asks for one request per 1 s"),
        (1.5, "asks for one request per 1.5 s"),  # was "per 2 s"
        (60.0, "asks for one request per 60 s"),
    ],
)
def test_a_rate_is_said_as_the_source_set_it(interval: float, said: str) -> None:
    assert _per_request(interval) == f"rate limited: the source {said}"
