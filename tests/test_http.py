"""The HTTP layer: token buckets, concurrency caps, Retry-After, faults as data, redaction."""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import logging
import time

import pytest

import replay as replay_fixtures
from citewarden.verify.http import (
    PUBLISHED_LIMITS,
    BodyError,
    Failure,
    HttpClient,
    Limit,
    Reply,
    RetryPolicy,
    redact,
    redact_url,
)
from citewarden.verify.rate_limit import (
    TokenBucket,
    parse_interval,
    parse_reset,
    parse_retry_after,
    rate_bound,
)
from citewarden.verify.records import Outcome, Query
from citewarden.verify.sources import ArxivSource, CrossrefSource, OpenAlexSource
from replay import ReplayServer, fast_http

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay


class FakeClock:
    """A monotonic clock that only moves when something sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


def gaps(times: list[float]) -> list[float]:
    return [round(b - a, 6) for a, b in itertools.pairwise(times)]


# -- published limits ---------------------------------------------------------------------


def test_published_limits_are_seeded() -> None:
    assert (PUBLISHED_LIMITS["crossref"].rate, PUBLISHED_LIMITS["crossref-query"].rate) == (10, 3)
    assert PUBLISHED_LIMITS["crossref-query"].concurrency == 3
    assert (
        PUBLISHED_LIMITS["crossref-public"].rate,
        PUBLISHED_LIMITS["crossref-query-public"].rate,
    ) == (5, 1)
    assert PUBLISHED_LIMITS["crossref-public"].concurrency == 1
    assert PUBLISHED_LIMITS["crossref-query-public"].concurrency == 1
    assert PUBLISHED_LIMITS["arxiv"] == Limit(1 / 3, 1, 1)
    assert (PUBLISHED_LIMITS["pubmed"].rate, PUBLISHED_LIMITS["pubmed-key"].rate) == (3, 10)


async def test_bucket_spaces_requests_at_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(Limit(3.0, 1, 3), clock=clock, sleep=clock.sleep)
    for _ in range(7):
        await bucket.acquire()
    assert gaps(bucket.grants) == [pytest.approx(1 / 3)] * 6


async def test_arxiv_lane_one_request_every_three_seconds() -> None:
    clock = FakeClock()
    bucket = TokenBucket(PUBLISHED_LIMITS["arxiv"], clock=clock, sleep=clock.sleep)
    for _ in range(4):
        await bucket.acquire()
    assert gaps(bucket.grants) == [pytest.approx(3.0)] * 3


async def test_burst_then_steady_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(Limit(10.0, 10, 3), clock=clock, sleep=clock.sleep)
    for _ in range(15):
        await bucket.acquire()
    assert gaps(bucket.grants)[:9] == [0.0] * 9  # the burst
    assert gaps(bucket.grants)[10:] == [pytest.approx(0.1)] * 4  # then 10 per second
    # never more than burst + rate * t in any window starting at the first grant
    for i, t in enumerate(bucket.grants):
        assert i + 1 <= 10 + 10 * (t - bucket.grants[0]) + 1e-6


async def test_concurrent_waiters_are_spaced_too() -> None:
    clock = FakeClock()
    bucket = TokenBucket(Limit(5.0, 1, 5), clock=clock, sleep=clock.sleep)
    await asyncio.gather(*(bucket.acquire() for _ in range(6)))
    assert gaps(bucket.grants) == [pytest.approx(0.2)] * 5


async def test_headers_lower_the_rate_but_never_raise_it() -> None:
    clock = FakeClock()
    bucket = TokenBucket(Limit(10.0, 10, 3), clock=clock, sleep=clock.sleep)
    bucket.adapt({"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"})
    assert bucket.rate == 10.0
    bucket.adapt({"x-rate-limit-limit": "5", "x-rate-limit-interval": "1s"})
    assert bucket.rate == 5.0
    bucket.adapt({"x-rate-limit-limit": "1", "x-rate-limit-interval": "2s"})
    assert bucket.rate == 0.5


def test_parse_reset() -> None:
    assert parse_reset("30") == 30.0
    assert parse_reset("1500ms") == 1.5
    assert parse_reset(str(2_000_000_060), now_epoch=2_000_000_000) == pytest.approx(60.0)
    assert parse_reset(None) is None


async def test_a_reset_no_clock_can_reach_pauses_as_an_unreadable_one() -> None:
    """``x-ratelimit-reset: inf`` (or ``nan``, or 400 digits) is no time: the lane waits the
    minute an unreadable reset gets, where ``inf`` paused it for a day."""
    for odd in ("inf", "nan", "9" * 400):
        assert parse_reset(odd) is None
        clock = FakeClock()
        bucket = TokenBucket(Limit(10.0, 10, 3), clock=clock, sleep=clock.sleep)
        bucket.adapt({"x-ratelimit-remaining": "0", "x-ratelimit-reset": odd})
        assert bucket.paused_for() == pytest.approx(60.0)


async def test_exhausted_budget_pauses_the_lane() -> None:
    clock = FakeClock()
    bucket = TokenBucket(Limit(10.0, 10, 3), clock=clock, sleep=clock.sleep)
    await bucket.acquire()
    bucket.adapt({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"})
    start = clock.now
    await bucket.acquire()
    assert bucket.grants[-1] - start >= 30.0


def test_rate_bound() -> None:
    # 31 Crossref records at 10/s and 7 queries at 3/s run in parallel: the records dominate
    assert rate_bound({"crossref": 31, "crossref-query": 7}) == pytest.approx(3.0)
    assert rate_bound({"arxiv": 3}) == pytest.approx(6.0)
    assert rate_bound({}) == 0.0


async def test_crossref_polite_pool_spacing_through_the_client(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = HttpClient(clock=clock, sleep=clock.sleep, timeout=2.0)
    src = CrossrefSource(http, replay.base_url("crossref"), mailto="me@example.org")
    for _ in range(5):
        await src.by_doi("10.1371/journal.pone.0033693")
    await src.search(Query("ecology"))
    await src.search(Query("ecology"))
    await http.aclose()
    assert gaps(http.bucket("crossref").grants) == [pytest.approx(0.1)] * 4
    assert gaps(http.bucket("crossref-query").grants) == [pytest.approx(1 / 3)]


def test_parse_retry_after_and_interval() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = time.time()
    date = email.utils.formatdate(now + 45, usegmt=True)
    assert parse_retry_after(date, now_epoch=now) == pytest.approx(45, abs=1)
    assert parse_retry_after(email.utils.formatdate(now - 60, usegmt=True), now_epoch=now) == 0.0
    assert (parse_interval("1s"), parse_interval("500ms"), parse_interval("2")) == (1.0, 0.5, 2.0)
    assert parse_interval("fast") is None


# -- over the loopback server ------------------------------------------------------------

CROSSREF_DOI = "/works/10.1371/journal.pone.0033693"


def fake_client(clock: FakeClock, **kw: object) -> HttpClient:
    return fast_http(clock=clock, sleep=clock.sleep, **kw)


async def test_429_retry_after_seconds_is_honoured(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = fake_client(clock)
    replay.inject("429", path="/crossref", retry_after="7")
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    assert 7.0 in clock.sleeps
    assert replay.requests_to("/crossref/works") == 2


async def test_a_retry_after_date_no_clock_can_hold_is_no_wait(replay: ReplayServer) -> None:
    """A zone offset of thirteen digits: the 429 is retried after the usual back-off, as
    without the header, where the date's overflow failed the request as a client error."""
    odd = "Wed, 21 Oct 2015 07:28:00 +9999999999999"
    assert parse_retry_after(odd) is None
    clock = FakeClock()
    http = fake_client(clock)
    replay.inject("429", path="/crossref", retry_after=odd)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    assert replay.requests_to("/crossref/works") == 2


async def test_503_retry_after_http_date_is_honoured(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = fake_client(clock)
    when = email.utils.formatdate(time.time() + 20, usegmt=True)
    replay.inject("503", path="/crossref", retry_after=when)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    assert any(18 <= s <= 21 for s in clock.sleeps)


async def test_503_without_retry_after_backs_off_exponentially(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = fake_client(clock, retry=RetryPolicy(max_retries=3, backoff_base=0.5, backoff_cap=1.5))
    replay.inject("503", path="/crossref", times=3)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    assert [s for s in clock.sleeps if s >= 0.5] == [0.5, 1.0, 1.5]  # capped


async def test_retries_are_bounded(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = fake_client(clock, retry=RetryPolicy(max_retries=2))
    replay.inject("429", path="/crossref", times=10, retry_after="1")
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure) and reply.status == 429 and reply.reason == "rate limited"
    assert replay.requests_to("/crossref") == 3


async def test_a_retry_after_past_a_day_is_said_as_more_than_a_day(replay: ReplayServer) -> None:
    """``Retry-After: 1e308``: the reason says more than a day, where it printed the
    309 digits of the number."""
    http = fake_client(FakeClock())
    replay.inject("429", path="/crossref", retry_after="1e308")
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "rate limited: retry after more than a day"


async def test_retry_after_beyond_the_cap_fails_at_once(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = fake_client(clock, retry=RetryPolicy(max_retry_after=60))
    replay.inject("429", path="/crossref", retry_after="3600")
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure) and "retry after 3600" in reply.reason
    assert replay.requests_to("/crossref") == 1
    # the lane stays closed: the next request fails without reaching the service
    again = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    assert isinstance(again, Failure) and again.reason.startswith("rate limited")
    assert replay.requests_to("/crossref") == 1
    # the service's other lanes wait too (Retry-After is host-wide), other services do not
    query = await http.get(replay.base_url("crossref") + "/works", lane="crossref-query")
    assert isinstance(query, Failure) and query.reason.startswith("rate limited")
    assert replay.requests_to("/crossref") == 1
    other = await http.get(replay.base_url("openalex") + "/works", lane="openalex")
    assert isinstance(other, Reply)


async def test_timeout_is_a_failure_not_an_exception(replay: ReplayServer) -> None:
    http = fast_http(timeout=0.3)
    replay.inject("delay", path="/crossref", delay=1.0, times=2)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure) and reply.reason.startswith("timeout")


async def test_dropped_connection_is_a_failure(replay: ReplayServer) -> None:
    http = fast_http()
    replay.inject("drop", path="/crossref", times=2)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure) and reply.reason == "connection dropped"
    assert replay.requests_to("/crossref") == 2  # one transport retry


async def test_dropped_once_then_served(replay: ReplayServer) -> None:
    http = fast_http()
    replay.inject("drop", path="/crossref", times=1)
    reply = await http.get(replay.base_url("crossref") + CROSSREF_DOI, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200


async def test_unreachable_host_is_a_failure() -> None:
    http = fast_http(timeout=0.5)
    reply = await http.get("http://127.0.0.1:9/works", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure) and reply.reason == "cannot connect"


async def test_client_spaces_requests_by_published_limit(replay: ReplayServer) -> None:
    clock = FakeClock()
    http = HttpClient(clock=clock, sleep=clock.sleep, timeout=2.0)  # published limits
    src = ArxivSource(http, replay.base_url("arxiv"))
    for _ in range(4):
        assert (await src.by_arxiv("1605.08386")).outcome is Outcome.FOUND
    await http.aclose()
    assert gaps(http.bucket("arxiv").grants) == [pytest.approx(3.0)] * 3
    assert replay.requests_to("/arxiv") == 4


async def test_concurrency_cap_serialises_requests(replay: ReplayServer) -> None:
    limits = {"crossref": Limit(1000.0, 1000, 1)}
    http = fast_http(limits=limits)
    replay.latencies = {"/crossref": 0.1, "/crossref/nothing": 5.0}
    url = replay.base_url("crossref") + CROSSREF_DOI
    await asyncio.gather(*(http.get(url, lane="crossref") for _ in range(3)))
    await http.aclose()
    arrivals = sorted(s.at for s in replay.log)
    # with one request in flight, each arrives after the previous one was answered
    assert all(g >= 0.09 for g in gaps(arrivals))


# -- secrets ------------------------------------------------------------------------------


def test_redaction() -> None:
    url = "https://api.openalex.org/works?filter=x&api_key=abc123&mailto=a%40b.org"
    assert "abc123" not in redact_url(url)
    assert "api_key=%2A%2A%2A" in redact_url(url) or "api_key=***" in redact_url(url)
    assert redact("failed with key abc123", ["abc123"]) == "failed with key ***"


async def test_api_key_never_logged_or_reported(
    replay: ReplayServer, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "oa-SECRET-4242"
    http = fast_http(secrets=[secret], retry=RetryPolicy(max_retries=1, backoff_base=0.01))
    src = OpenAlexSource(http, replay.base_url("openalex"), api_key=secret)
    replay.inject("503", path="/openalex", times=5)
    with caplog.at_level(logging.DEBUG, logger="citewarden"):
        result = await src.by_doi("10.1371/journal.pone.0000030")
        replay.clear()
        ok = await src.by_doi("10.1371/journal.pone.0000030")
    await http.aclose()
    assert result.outcome is Outcome.FAILED
    assert ok.outcome is Outcome.FOUND
    assert caplog.records, "expected the retries and failure to be logged"
    assert secret not in caplog.text
    assert secret not in (result.reason or "")
    assert "api_key=" in caplog.text  # the URL was logged, masked


async def test_no_login_or_mailto_of_a_source_address_reaches_the_log(
    replay: ReplayServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A user name and password in a source's address and the operator's mailto are left
    out of every logged URL: citewarden's own lines and httpx's, whatever the level."""
    http = fast_http(retry=RetryPolicy(max_retries=1, backoff_base=0.01))
    base = replay.base_url("crossref").replace("http://", "http://bob:pw123@")
    src = CrossrefSource(http, base, mailto="me@secret-mail.org")
    replay.inject("503", path="/crossref", times=5)
    with caplog.at_level(logging.DEBUG):
        result = await src.by_doi("10.1371/journal.pone.0033693")
        replay.clear()
        ok = await src.by_doi("10.1371/journal.pone.0033693")
    await http.aclose()
    assert result.outcome is Outcome.FAILED and ok.outcome is Outcome.FOUND
    assert "-> 503, retrying" in caplog.text and "-> 200" in caplog.text
    assert "mailto=***" in caplog.text  # the URL was logged, masked
    for secret in ("bob", "pw123", "secret-mail", "me%40", "me@"):
        assert secret not in caplog.text
    assert not [r for r in caplog.records if r.name.startswith(("httpx", "httpcore"))]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "https://u:p@h.example:8/w?mailto=a%40b.org&email=c@d&rows=2",
            "https://h.example:8/w?mailto=***&email=***&rows=2",
        ),
        ("http://u:p@[::1/w?token=t&mailto=a@b", "http://[::1/w"),  # cannot be read
    ],
)
def test_redacted_urls_have_no_login_and_no_mail_address(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_reply_json_reads_lone_surrogates_as_replacement_characters() -> None:
    """A lone escaped surrogate becomes U+FFFD; a pair stays the character it spells, and
    an escaped backslash before "u" is text, not an escape."""
    body = rb'{"a": "x\ud800y", "b": "\ud83d\ude00", "c": "\\ud800", "d": "\udc00\ud800"}'
    assert Reply(200, {}, body, "").json() == {
        "a": "x\ufffdy",
        "b": "\U0001f600",
        "c": "\\ud800",
        "d": "\ufffd\ufffd",
    }
    # a surrogate written as UTF-8 bytes (CESU-8), which Python's decoder lets through
    assert Reply(200, {}, b'"\xed\xa0\x80"', "").json() == "\ufffd"


def test_reply_json_too_deep_is_a_body_error() -> None:
    with pytest.raises(BodyError, match="nested too deep"):
        Reply(200, {}, b"[" * 100_000 + b"]" * 100_000, "").json()
