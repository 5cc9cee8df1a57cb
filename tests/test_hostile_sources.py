"""Hostile sources: trickling, endless and huge bodies, cross-origin redirects, leaked keys.

Every test runs the real HTTP client against :mod:`hostile_server`, a loopback server that
serves real recorded bodies badly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citewarden.model import Entry, Status
from citewarden.redaction import redact, register_secrets
from citewarden.settings import VerifySettings, load_settings
from citewarden.verify.compare import Agreement, compare_venue
from citewarden.verify.engine import Verifier
from citewarden.verify.http import Failure, HttpClient, Reply, entry_budget
from citewarden.verify.normalize import make_entry
from citewarden.verify.rate_limit import Limit
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.source_calls import entry_seconds
from citewarden.verify.sources._common import MAX_TEXTS
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.crossref import SEARCH_SELECT, CrossrefSource, work_from_csl
from citewarden.verify.sources.dblp import work_from_dblp
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.pubmed import PubMedSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource, work_from_s2
from citewarden.verify.transport import connect_timeout
from hostile_server import (
    CROSSREF_BODY,
    CROSSREF_DOI,
    CROSSREF_ENTRY,
    Behaviour,
    HostileServer,
    check_entry,
    dropping_address,
    hostile,
    unverified_reasons,
)
from replay import fast_http, recorded, recorded_json

__all__ = ["hostile"]

WORK = f"/crossref/works/{CROSSREF_DOI}"


# -- item 3: deadlines and body caps ----------------------------------------------------------


def test_a_connection_gets_a_quarter_of_the_request_timeout_and_at_least_5_s() -> None:
    assert [connect_timeout(t) for t in (20.0, 60.0, 8.0, 3.0)] == [5.0, 15.0, 5.0, 3.0]


async def test_an_address_that_drops_connection_requests_fails_at_the_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A network that drops what it is sent costs the connect timeout, not the request's:
    once, with no retry (the kernel has asked again meanwhile), and two such requests one
    after the other cut the source off."""
    monkeypatch.setattr("citewarden.verify.transport.CONNECT_TIMEOUT", 0.5)
    with dropping_address() as origin:
        http = fast_http(timeout=3.0)
        started = time.monotonic()
        first = await http.get(origin + WORK, lane="crossref")
        elapsed = time.monotonic() - started
        second = await http.get(origin + WORK, lane="crossref")
        third = await http.get(origin + WORK, lane="crossref")
        await http.aclose()
    assert isinstance(first, Failure), first
    assert first.reason == "timeout: no connection made within 0.75 s"
    assert elapsed < 2.0
    assert http.stats.retries == 0
    assert isinstance(second, Failure) and second.reason == first.reason
    assert isinstance(third, Failure)
    assert third.reason.startswith("crossref stopped answering: 2 requests in a row failed")


async def test_trickling_body_is_cut_at_the_total_deadline(hostile: HostileServer) -> None:
    # ~4 KB at 64 bytes every 0.2 s: never silent for a second, complete only after ~13 s
    hostile.route(WORK, Behaviour("trickle"))
    http = fast_http(timeout=1.0)
    started = time.monotonic()
    reply = await http.get(hostile.url + WORK, lane="crossref")
    elapsed = time.monotonic() - started
    await http.aclose()
    assert isinstance(reply, Failure), reply
    assert reply.reason == "timeout: no complete response within 1 s"
    assert elapsed < 4.0  # one attempt: a deadline is not retried
    assert len(hostile.seen(WORK)) == 1


async def test_endless_chunked_body_is_capped(hostile: HostileServer) -> None:
    hostile.route(WORK, Behaviour("endless"))
    http = fast_http(timeout=10.0, max_body=1024 * 1024)
    reply = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "response body over 1 MB"
    # the client stopped reading: the server could not push more than socket buffers
    assert hostile.sent[WORK] < 16 * 1024 * 1024


async def test_huge_announced_body_is_refused_before_reading(hostile: HostileServer) -> None:
    hostile.route(WORK, Behaviour("huge"))
    http = fast_http(timeout=10.0)
    reply = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "response body over 8 MB"
    assert hostile.sent.get(WORK, 0) < 16 * 1024 * 1024


async def test_body_under_the_cap_is_read_whole(hostile: HostileServer) -> None:
    hostile.route(WORK, Behaviour("ok"))
    http = fast_http(max_body=len(hostile.routes[WORK].body))
    reply = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.content == hostile.routes[WORK].body


async def test_requests_of_one_entry_share_its_budget(hostile: HostileServer) -> None:
    hostile.route(WORK, Behaviour("trickle"))
    http = fast_http(timeout=1.0)
    with entry_budget(1.5):
        first = await http.get(hostile.url + WORK, lane="crossref")
        second = await http.get(hostile.url + WORK, lane="crossref")
        third = await http.get(hostile.url + WORK, lane="crossref")
    outside = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(first, Failure) and first.reason.startswith("timeout")
    # the second gets what is left (0.5 s), the third nothing: it is not even sent
    assert isinstance(second, Failure) and second.reason == "entry time budget of 1.5 s used up"
    assert isinstance(third, Failure) and third.reason == "entry time budget of 1.5 s used up"
    assert len(hostile.seen(WORK)) == 3
    assert isinstance(outside, Failure) and outside.reason.startswith("timeout: ")


async def test_retry_wait_beyond_the_budget_is_not_waited(hostile: HostileServer) -> None:
    hostile.route(WORK, Behaviour("429", retry_after="30"))
    http = fast_http(timeout=1.0)
    started = time.monotonic()
    with entry_budget(3.0):
        reply = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "entry time budget of 3 s used up (rate limited)"
    assert time.monotonic() - started < 2.0


async def test_every_source_slow_entry_is_unverified_within_its_budget(
    hostile: HostileServer,
) -> None:
    for path in (WORK, "/crossref/works", f"/doi/{CROSSREF_DOI}"):
        hostile.route(path, Behaviour("trickle", interval=0.3))
    http = fast_http(timeout=1.0)
    sources = [
        CrossrefSource(http, hostile.url + "/crossref", mailto="t@example.org"),
        DoiSource(http, hostile.url + "/doi"),
    ]
    verifier = Verifier(sources, VerifySettings(sources=("crossref", "doi"), timeout=1.0))
    entry = make_entry(
        "sadasivan2012",
        "article",
        {
            "title": "Methylphenidate exposure induces dopamine neuron loss and activation of "
            "microglia in the basal ganglia of mice",
            "author": "Sadasivan, Shankar",
            "year": "2012",
            "doi": CROSSREF_DOI,
        },
    )
    started = time.monotonic()
    verdict = await verifier.verify(entry)
    elapsed = time.monotonic() - started
    await http.aclose()
    assert verdict.status is Status.UNVERIFIED
    assert "timeout" in (verdict.reason or "") or "budget" in (verdict.reason or "")
    # budget 3 x 1 s, plus at most one attempt's deadline already under way
    assert elapsed < 6.0


def _sadasivan() -> Entry:
    return make_entry(
        "sadasivan2012",
        "article",
        {
            "title": "Methylphenidate exposure induces dopamine neuron loss and activation of "
            "microglia in the basal ganglia of mice",
            "author": "Sadasivan, Shankar",
            "year": "2012",
            "doi": CROSSREF_DOI,
        },
    )


async def test_entry_budget_setting_bounds_every_request_of_an_entry(
    hostile: HostileServer, tmp_path: Path
) -> None:
    for path in (WORK, "/crossref/works", f"/doi/{CROSSREF_DOI}"):
        hostile.route(path, Behaviour("trickle", interval=0.3))
    (tmp_path / ".citewarden.toml").write_text(
        '[verify]\ntimeout = 1.0\nentry-budget = 1.2\nsources = ["crossref", "doi"]\n',
        encoding="utf-8",
    )
    settings, problems = load_settings(tmp_path)
    assert problems == []
    assert settings.verify.entry_budget == 1.2
    http = fast_http(timeout=settings.verify.timeout)
    sources = [
        CrossrefSource(http, hostile.url + "/crossref", mailto="t@example.org"),
        DoiSource(http, hostile.url + "/doi"),
    ]
    verifier = Verifier(sources, settings.verify)
    started = time.monotonic()
    verdict = await verifier.verify(_sadasivan())
    elapsed = time.monotonic() - started
    await http.aclose()
    assert verdict.status is Status.UNVERIFIED
    # Crossref's attempt takes the 1 s deadline, doi.org gets the 0.2 s left, then nothing
    # more is sent: without the setting the entry would have 3 x 1 s
    assert "entry time budget of 1.2 s used up" in (verdict.reason or ""), verdict.reason
    assert elapsed < 2.0
    assert len(hostile.seen("/crossref/works")) == 0


@pytest.mark.parametrize("bad", ["0", "-3", "true", '"soon"', "7200"])
def test_bad_entry_budget_is_reported_where_it_was_set(tmp_path: Path, bad: str) -> None:
    config = tmp_path / ".citewarden.toml"
    config.write_text(f"[verify]\nentry-budget = {bad}\n", encoding="utf-8")
    settings, problems = load_settings(tmp_path)
    assert settings.verify.entry_budget is None  # the default stays: 3 x verify.timeout
    assert [str(p) for p in problems] == [
        f"{config}:2: setting 'verify.entry-budget': expected seconds from 0.1 to 3600 "
        "(or nothing: three times verify.timeout)"
    ]


def test_entry_budget_default_is_three_request_timeouts() -> None:
    assert entry_seconds(VerifySettings(timeout=4.0)) == 12.0
    assert entry_seconds(VerifySettings(timeout=4.0, entry_budget=5.0)) == 5.0


# -- item 6: redirects and keys ---------------------------------------------------------------

S2_PAPER = f"/s2/graph/v1/paper/DOI:{CROSSREF_DOI}"


async def test_redirect_to_another_host_is_not_followed(hostile: HostileServer) -> None:
    hostile.route(S2_PAPER, Behaviour("redirect", location=hostile.other_origin + "/steal"))
    hostile.route("/steal", Behaviour("ok"))
    http = fast_http()
    source = SemanticScholarSource(http, hostile.url + "/s2", api_key="s2-secret-4711")
    lookup = await source.by_doi(CROSSREF_DOI)
    await http.aclose()
    assert lookup.reason == "redirect off the source's hosts refused (localhost)"
    assert hostile.seen("/steal") == []
    # the key did go to the source's own host, in the header it belongs in
    assert hostile.seen(S2_PAPER)[0].headers["x-api-key"] == "s2-secret-4711"


async def test_a_pause_asked_while_a_request_waits_for_its_token_is_not_waited(
    hostile: HostileServer,
) -> None:
    """Two requests on a lane of one request a second: the first is answered 429 with a
    Retry-After past the longest wait while the second waits for its token.  The second
    fails at once, unsent, where it slept the pause out (a day: its check never ended)."""
    hostile.route(S2_PAPER, Behaviour("429", retry_after="1000"))
    http = fast_http(limits={"semanticscholar": Limit(1.0, 1, 2)})
    url = hostile.url + S2_PAPER
    first, second = await asyncio.wait_for(
        asyncio.gather(
            http.get(url, lane="semanticscholar"), http.get(url, lane="semanticscholar")
        ),
        30,
    )
    await http.aclose()
    assert isinstance(first, Failure) and first.reason == "rate limited: retry after 1000 s"
    assert isinstance(second, Failure) and second.status == 429
    waited = re.fullmatch(r"rate limited: retry after ([0-9]+) s", second.reason)
    assert waited is not None and 900 < int(waited[1]) <= 1000
    assert len(hostile.seen(S2_PAPER)) == 1


async def test_a_pause_another_process_asks_while_a_request_waits_is_not_waited(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """Two clients sharing their lanes' state (two processes on one cache): one's request
    waits for its token while the other is answered 429 with a Retry-After past the longest
    wait.  The waiting request fails at once, unsent, where it took the machine's next slot,
    after the pause, and slept until then."""
    hostile.route(S2_PAPER, Behaviour("ok"))
    hostile.route("/s2/paused", Behaviour("429", retry_after="1000"))
    limits = {lane: Limit(1.0, 1, 2) for lane in ("semanticscholar", "semanticscholar-key")}
    waiting = fast_http(limits=limits, shared_dir=tmp_path)
    other = fast_http(limits=limits, shared_dir=tmp_path)

    async def paused_meanwhile() -> Reply | Failure:
        await asyncio.sleep(0.3)  # while the second request waits for its token
        return await other.get(hostile.url + "/s2/paused", lane="semanticscholar-key")

    url = hostile.url + S2_PAPER
    sent, unsent, paused = await asyncio.wait_for(
        asyncio.gather(
            waiting.get(url, lane="semanticscholar"),
            waiting.get(url, lane="semanticscholar"),
            paused_meanwhile(),
        ),
        30,
    )
    await waiting.aclose()
    await other.aclose()
    assert isinstance(sent, Reply) and isinstance(paused, Failure) and paused.status == 429
    assert isinstance(unsent, Failure) and unsent.status == 429
    waited = re.fullmatch(r"rate limited: retry after ([0-9]+) s", unsent.reason)
    assert waited is not None and 900 < int(waited[1]) <= 1000
    assert len(hostile.seen(S2_PAPER)) == 1


async def test_a_rate_lowered_while_requests_wait_fails_those_it_would_hold_too_long(
    hostile: HostileServer,
) -> None:
    """Three requests of one entry on a lane of ten a second: the first is answered with
    rate-limit headers allowing one request in 1 000 s (taken as one in 120 s) while the
    others wait for their tokens.  They fail at once, unsent, where each waited 120 s
    after the one before it, far past the entry's budget."""
    slow = {"X-Rate-Limit-Limit": "1", "X-Rate-Limit-Interval": "1000s"}
    hostile.route(S2_PAPER, Behaviour("slow", delay=0.0, headers=slow))
    http = fast_http(limits={"semanticscholar": Limit(10.0, 1, 3)})
    url = hostile.url + S2_PAPER
    with entry_budget(5.0):
        answers = await asyncio.wait_for(
            asyncio.gather(*(http.get(url, lane="semanticscholar") for _ in range(3))), 30
        )
    await http.aclose()
    assert isinstance(answers[0], Reply) and answers[0].status == 200
    for unsent in answers[1:]:
        assert isinstance(unsent, Failure), unsent
        assert unsent.reason == "rate limited: the source asks for one request per 120 s"
    assert len(hostile.seen(S2_PAPER)) == 1


async def s2_answered(hostile: HostileServer, behaviour: Behaviour) -> tuple[Lookup, int]:
    """Semantic Scholar's look-up of a DOI answered as ``behaviour`` says, and how many
    requests it sent."""
    hostile.route(S2_PAPER, behaviour)
    http = fast_http()
    lookup = await SemanticScholarSource(http, hostile.url + "/s2").by_doi(CROSSREF_DOI)
    await http.aclose()
    return lookup, len(hostile.seen(S2_PAPER))


async def test_a_redirect_to_no_address_is_said_and_not_asked_again(
    hostile: HostileServer,
) -> None:
    """A Location header that is no URL: the service answered, with a redirect nowhere,
    where the reason said the connection dropped and the request was sent again."""
    lookup, asked = await s2_answered(hostile, Behaviour("redirect", location="http://[::1"))
    assert lookup.outcome is Outcome.FAILED
    assert (lookup.reason, asked) == ("redirect to an address that is no URL", 1)


@pytest.mark.parametrize(
    "location", ["mailto:ops@example.org", "data:application/json,{}", "urn:doi:10.1/x"]
)
async def test_a_redirect_to_a_hostless_address_is_refused_as_not_web(
    hostile: HostileServer, location: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A Location with a scheme and no host: refused as a redirect to no web address, once,
    where the client's own error ended the request as an unexpected client error."""
    with caplog.at_level(logging.INFO, logger="citewarden"):
        lookup, asked = await s2_answered(hostile, Behaviour("redirect", location=location))
    assert lookup.outcome is Outcome.FAILED
    assert (lookup.reason, asked) == ("redirect to a non-web address refused", 1)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 abc\r\n\r\n",  # no status code
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # no chunk size
    ],
)
async def test_an_answer_that_is_not_http_is_said_to_be_malformed(
    hostile: HostileServer, head: bytes
) -> None:
    """A server that answers what is not HTTP: a malformed response, asked again, where the
    reason said the connection dropped."""
    lookup, asked = await s2_answered(hostile, Behaviour("raw", body=head))
    assert lookup.outcome is Outcome.FAILED
    assert (lookup.reason, asked) == ("malformed response: not HTTP as it is written", 2)


async def test_same_host_redirect_is_followed(hostile: HostileServer) -> None:
    hostile.route(S2_PAPER, Behaviour("redirect", location="/moved", status=301))
    hostile.route("/moved", Behaviour("ok"))
    http = fast_http()
    reply = await http.get(hostile.url + S2_PAPER, lane="semanticscholar")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    assert reply.url.endswith("/moved")


async def test_a_404_from_the_agency_doi_org_redirects_to_is_no_verdict(
    hostile: HostileServer,
) -> None:
    """doi.org redirects a DOI it knows to its agency; a 404 there (Crossref's recorded
    "Resource not found.") says the agency has no record, not that the DOI does not
    exist.  A 404 from doi.org itself (its recorded "DOI Not Found" page) still does."""
    body = recorded("crossref", "test-works__test_works_bad_id_warn.txt")
    page = recorded(
        "doi",
        "test-content_negotation__test_content_negotiation_raises_an_http_error_with_bad_requests.html",
    )
    hostile.route(
        "/doi/10.1234/known",
        Behaviour("redirect", location="/crossref/v1/works/10.1234/known/transform"),
    )
    hostile.route(
        "/crossref/v1/works/10.1234/known/transform",
        Behaviour("missing", body=body, content_type="text/plain"),
    )
    hostile.route(
        "/doi/10.1234/unknown",
        Behaviour("missing", body=page, content_type="text/html;charset=utf-8"),
    )
    http = fast_http()
    source = DoiSource(http, hostile.url + "/doi")
    redirected = await source.by_doi("10.1234/known")
    direct = await source.by_doi("10.1234/unknown")
    await http.aclose()
    assert redirected.outcome is Outcome.FAILED
    assert redirected.reason == "the DOI resolves, but its agency has no record"
    assert direct.outcome is Outcome.NOT_FOUND


async def test_keys_are_dropped_on_an_allowed_cross_origin_redirect(
    hostile: HostileServer,
) -> None:
    # doi.org hands over to a registration agency: another origin, allowed, but no keys
    hostile.route("/doi/x", Behaviour("redirect", location=hostile.other_origin + "/ra?api_key=K1"))
    hostile.route("/ra", Behaviour("ok"))
    http = fast_http(redirect_hosts={"doi": frozenset({"localhost"})})
    reply = await http.get(
        hostile.url + "/doi/x",
        lane="doi",
        params={"api_key": "K1-secret"},
        headers={"x-api-key": "K2-secret", "Accept": "application/json"},
    )
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200
    (hop,) = hostile.seen("/ra")
    assert "x-api-key" not in hop.headers
    assert "api_key" not in hop.query
    assert hop.headers["accept"] == "application/json"  # other headers still go
    assert hostile.seen("/doi/x")[0].query == "api_key=K1-secret"


def test_redirect_rules() -> None:
    import httpx

    http = HttpClient()
    https = httpx.URL("https://api.crossref.org/works/x")
    assert http._may_redirect("crossref", https, httpx.URL("http://api.crossref.org/w")) == (
        "redirect from https to plain http refused"
    )
    assert http._may_redirect("doi", httpx.URL("https://doi.org/10.1/x"), https) is None
    assert http._may_redirect("crossref", https, httpx.URL("file:///etc/passwd")) is not None
    assert http._may_redirect("crossref", https, httpx.URL("https://evil.example/x")) == (
        "redirect off the source's hosts refused (evil.example)"
    )


async def test_no_key_in_any_log_line(hostile: HostileServer, tmp_path: Path) -> None:
    """``citewarden serve --log-level debug``: our own request lines and a logged client
    configuration reach the log file with every key masked; httpx, which logs whole URLs,
    logs only warnings."""
    from citewarden.lsp.server import _configure_logging

    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    log_file = tmp_path / "serve.log"
    hostile.route(WORK, Behaviour("ok"))
    hostile.route("/crossref/missing", Behaviour("429", retry_after="0"))
    try:
        _configure_logging(str(log_file), "debug")
        http = fast_http(secrets=["oa-secret-0042"])
        await http.get(hostile.url + WORK, lane="crossref", params={"api_key": "oa-secret-0042"})
        await http.get(hostile.url + WORK, lane="crossref", params={"api_key": "unregistered9"})
        await http.get(hostile.url + "/crossref/missing?key=unregistered8", lane="crossref")
        await http.aclose()
        logging.getLogger("pygls.protocol").debug(
            'Sending data: {"result": [{"verify": {"s2_api_key": "s2-from-editor-77", '
            '"ncbi_api_key": "ncbi\\"quoted"}}]}'
        )
        logging.getLogger("citewarden.x").warning("header x-api-key: hdr-secret-5 sent")
    finally:
        for h in root.handlers:
            h.close()
        root.handlers[:], root.level = saved
    text = log_file.read_text()
    assert "citewarden.http: GET" in text  # the request lines are there ...
    assert "HTTP Request" not in text
    for secret in (
        "oa-secret-0042",
        "unregistered9",
        "unregistered8",
        "s2-from-editor-77",
        "quoted",
        "hdr-secret-5",
    ):
        assert secret not in text  # ... without the key
    assert text.count("***") >= 6


def test_redact_masks_names_and_registered_values() -> None:
    register_secrets(["registered-abc"])
    assert redact("token registered-abc here") == "token *** here"
    assert redact("https://x.org/a?b=1&api_key=zz&c=2") == "https://x.org/a?b=1&api_key=***&c=2"
    assert redact('{"openalex_api_key": "v"}') == '{"openalex_api_key": "***"}'
    assert redact("Authorization: Bearer abc") == "Authorization: ***"


@pytest.mark.parametrize("name", ["s2_api_key", "apiKey", "ncbi-api-key"])
def test_settings_field_names_are_masked(name: str) -> None:
    assert redact(f"{name} = 'value-1'") == f"{name} = '***'"


# -- the command under an address-space limit -------------------------------------------------

#: The whole ``citewarden check`` process may map at most this much memory.
ADDRESS_SPACE = 1024 * 1024 * 1024


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.mark.parametrize("mode", ["endless", "huge", "trickle"])
def test_check_stays_bounded_under_an_address_space_limit(
    hostile: HostileServer, tmp_path: Path, mode: str
) -> None:
    """``citewarden check`` against sources that never stop sending, send 200 MB, or
    trickle: it finishes within its budgets inside 1 GB of address space, the entry
    unverified with the reason."""
    for path in (WORK, "/crossref/works", f"/doi/{CROSSREF_DOI}"):
        hostile.route(path, Behaviour(mode, interval=0.5))
    done, elapsed = check_entry(hostile, tmp_path, "timeout = 2\n", preexec_fn=_limited)
    reasons = unverified_reasons(done)
    expected = "timeout" if mode == "trickle" else "response body over 8 MB"
    assert expected in reasons
    assert elapsed < 30.0  # entry budget 3 x 2 s, plus start-up on a busy machine


# -- answers that are valid JSON, and still no record to trust as it is -----------------------


def _damaged(change: Callable[[dict[str, Any]], None]) -> bytes:
    """The real recorded Crossref answer with one change a broken service could make."""
    data = json.loads(CROSSREF_BODY)
    change(data["message"])
    return json.dumps(data).encode()


def _entry_report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The one entry of ``done``'s JSON report, after asserting the run did not fail."""
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    [entry] = json.loads(done.stdout)["entries"]
    assert isinstance(entry, dict)
    return entry


def test_an_answer_nested_deeper_than_the_decoder_walks_fails_that_source(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """``[[[[...]]]]`` 100 000 deep is valid JSON that Python's decoder cannot walk: the
    answer fails with its reason (the entry used to end as "internal error")."""
    deep = Behaviour("ok", body=b"[" * 100_000 + b"]" * 100_000)
    hostile.route(WORK, deep)
    hostile.route(f"/doi/{CROSSREF_DOI}", deep)
    done, _ = check_entry(hostile, tmp_path, "")
    reasons = unverified_reasons(done)
    assert "malformed response: JSON nested too deep" in reasons
    assert "internal error" not in reasons


def test_a_lone_surrogate_in_an_answer_becomes_a_replacement_character(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """``"\\ud800"`` is a valid JSON escape but no character: the report naming the author
    that holds it could not be written as UTF-8.  It is read as U+FFFD (the entry names one
    of the work's six authors: a mismatch on its authors only)."""
    body = _damaged(lambda m: m["author"][1].update(given="Brooks \ud800"))
    assert b"Brooks \\ud800" in body
    hostile.route(WORK, Behaviour("ok", body=body))
    done, _ = check_entry(hostile, tmp_path, "")
    entry = _entry_report(done)
    assert entry["status"] == "mismatch", entry["findings"]
    [authors] = [f["message"] for f in entry["findings"] if f["field"] == "author"]
    assert "Brooks \ufffd Pond," in authors


def test_a_year_no_integer_can_hold_is_no_year(hostile: HostileServer, tmp_path: Path) -> None:
    """``1e999`` is a JSON number Python reads as infinity: the record has no year (the
    entry used to end as "internal error"); title and DOI still match (the entry names one
    of the work's six authors: a mismatch on its authors only)."""
    body = _damaged(lambda m: m.update(issued={"date-parts": [["YEAR"]]}))
    hostile.route(WORK, Behaviour("ok", body=body.replace(b'"YEAR"', b"1e999")))
    done, _ = check_entry(hostile, tmp_path, "")
    entry = _entry_report(done)
    assert entry["status"] == "mismatch", entry["findings"]
    assert {f["field"] for f in entry["findings"] if f["severity"] != "hint"} == {"author"}


@pytest.mark.parametrize(
    ("journal", "container"),
    [
        # a word of capitals that ends in a digit: the acronym pattern tried every split of
        # it (54 s for 3 000 letters)
        ("A" * 20_000 + "1", "PLoS ONE"),
        # a name split 50 000 times, 50 000 unclosed parentheses: every leading part was
        # joined again, and every "(" looked for its ")" to the end (found in a record's
        # name, which can no longer be that long: see the test below; a .bib's can)
        ("PLoS ONE" + ", x" * 50_000 + "(" * 50_000, "PLoS ONE"),
    ],
    ids=["cited-acronym", "cited-parts"],
)
def test_long_venue_names_are_compared_in_one_pass(
    hostile: HostileServer, tmp_path: Path, journal: str, container: str
) -> None:
    """Venue names from a .bib or a source that cost hours to compare; now one pass each."""
    hostile.route(
        WORK, Behaviour("ok", body=_damaged(lambda m: m.update({"container-title": [container]})))
    )
    entry_text = CROSSREF_ENTRY.replace("  year =", f"  journal = {{{journal}}},\n  year =")
    done, _ = check_entry(hostile, tmp_path, "", entry=entry_text)  # killed after 120 s
    entry = _entry_report(done)
    assert entry["status"] in ("verified", "mismatch")


#: Pages of hits up to the largest a request asks for, and one past it.
PAGE_SIZES = [(1_000, Outcome.FOUND), (1_001, Outcome.FAILED)]


def _assert_page_read(lookup: Lookup, items: int, outcome: Outcome) -> None:
    """``lookup`` is ``outcome``: a record of each of ``items`` hits, or no answer."""
    assert lookup.outcome is outcome, lookup.reason
    if outcome is Outcome.FAILED:
        assert lookup.reason == (
            "malformed response: a page of 1001 hits, more than any request asks for"
        )
    else:
        assert len(lookup.records) == items


@pytest.mark.parametrize(("items", "outcome"), PAGE_SIZES)
async def test_a_page_of_more_hits_than_any_request_asks_for_is_no_answer(
    hostile: HostileServer, items: int, outcome: Outcome
) -> None:
    """A real Crossref work list (the fields a search selects) whose 20 items are repeated
    to more than the 1 000 the largest page asked for holds: no answer of Crossref's, where
    each of its items was made a record and compared with the entry (5 s for 100 000
    items under the body cap)."""
    page = recorded_json("crossref", "test-works__test_works_field_queries.json")
    selected = set(SEARCH_SELECT.split(","))
    real = [{k: v for k, v in i.items() if k in selected} for i in page["message"]["items"]]
    page["message"]["items"] = (real * (items // len(real) + 1))[:items]
    hostile.route("/crossref/works", Behaviour("ok", body=json.dumps(page).encode()))
    http = fast_http()
    source = CrossrefSource(http, hostile.url + "/crossref", mailto="t@example.org")
    lookup = await source.search(Query("The forecast trap", ("Boettiger",)))
    await http.aclose()
    _assert_page_read(lookup, items, outcome)


def _repeated(xml: bytes, tag: bytes, times: int) -> bytes:
    """``xml`` with its first ``<tag>`` element repeated ``times`` times."""
    start = xml.index(b"<" + tag + b">")
    end = xml.index(b"</" + tag + b">", start) + len(tag) + 3
    return xml[:start] + xml[start:end] * times + xml[end:]


@pytest.mark.parametrize(("items", "outcome"), PAGE_SIZES)
@pytest.mark.parametrize("where", ["arxiv", "pubmed"])
async def test_a_feed_of_more_entries_than_any_request_asks_for_is_no_answer(
    hostile: HostileServer, where: str, items: int, outcome: Outcome
) -> None:
    """arXiv's recorded feed of one paper with its entry repeated, PubMed's recorded efetch
    answer with its article repeated, past the 1 000 hits the largest page asked for
    holds: no answer of the service's, where each was made a record."""
    http = fast_http()
    if where == "arxiv":
        feed = recorded("arxiv", "id_1605.08386_s0_m100_199195aa31ad.xml")
        body, ctype = _repeated(feed, b"entry", items), "application/atom+xml"
        hostile.route("/arxiv/api/query", Behaviour("ok", body=body, content_type=ctype))
        lookup = await ArxivSource(http, hostile.url + "/arxiv").by_arxiv("1605.08386")
    else:
        answer = recorded("pubmed", "efetch_11618220.xml")
        body, ctype = _repeated(answer, b"PubmedArticle", items), "text/xml"
        path = "/pubmed/entrez/eutils/efetch.fcgi"
        hostile.route(path, Behaviour("ok", body=body, content_type=ctype))
        lookup = await PubMedSource(http, hostile.url + "/pubmed").by_pmid("11618220")
    await http.aclose()
    _assert_page_read(lookup, items, outcome)


_SIX_AUTHORS = (
    "Sadasivan, Shankar and Pond, Brooks B. and Pani, Amar K. and Qu, Chunxu and Jiao, Yun"
)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda m: m.update(title=[m["title"][0] + " and mice" * 30_000]),
            "a title of 270,",
        ),
        (
            lambda m: m["author"][1].update(family="Pond" + "d" * 300_000),
            "an author's name of 300,004 characters",
        ),
        (
            lambda m: m.update({"container-title": ["PLoS ONE" + ", x" * 50_000]}),
            "a venue name of 150,008 characters",
        ),
        (lambda m: m.update(page="e" + "3" * 5_000), "a page range of 5,001 characters"),
        (lambda m: m["title"].append("Mice " * 1_000), "alt-title of 4,999 characters"),
    ],
    ids=["title", "author", "venue", "pages", "second-title"],
)
def test_a_value_no_real_record_holds_makes_the_answer_malformed(
    hostile: HostileServer,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], None],
    reason: str,
) -> None:
    """A damaged answer's value of hundreds of thousands of characters was compared,
    quoted whole in a finding's message (a report line of 600 kB) and offered as the
    correction ``--fix`` writes into the .bib (a person's "name" of 300 000 letters).  A
    value over its bound (``records.MAX_TEXT``, ``MAX_NAME``, ``MAX_NUMBERING``) makes the
    answer malformed: the entry is unverified with that reason, nothing is corrected and no
    message quotes it; the same answer undamaged verifies the entry."""
    entry = (
        "@article{sadasivan2012,\n  title = {Methylphenidate exposure induces dopamine neuron"
        " loss and activation of microglia in the basal ganglia of mice},\n"
        f"  author = {{{_SIX_AUTHORS} and Smeyne, Richard J.}},\n  journal = {{PLoS ONE}},\n"
        f"  year = {{2012}},\n  pages = {{e33693}},\n  doi = {{{CROSSREF_DOI}}}\n}}\n"
    )
    for run in ("whole", "damaged"):
        (tmp_path / run).mkdir()
    hostile.route(WORK, Behaviour("ok", body=_damaged(lambda m: None)))
    done, _ = check_entry(hostile, tmp_path / "whole", "", entry=entry)
    assert _entry_report(done)["status"] == "verified"
    hostile.route(WORK, Behaviour("ok", body=_damaged(change)))
    # doi.org's CSL-JSON of a Crossref DOI is the Crossref message: damaged the same way
    csl = json.dumps(json.loads(_damaged(change))["message"]).encode()
    hostile.route(
        f"/doi/{CROSSREF_DOI}",
        Behaviour("ok", body=csl, content_type="application/vnd.citationstyles.csl+json"),
    )
    done, _ = check_entry(hostile, tmp_path / "damaged", "", entry=entry)
    report = _entry_report(done)
    assert report["status"] == "unverified"
    [reasons] = re.findall(r"malformed response: (.*?) \(crossref, doi\)", unverified_reasons(done))
    assert reasons.startswith(reason) and reasons.endswith(" characters")
    assert not report["corrections"]
    assert len(done.stdout) < 20_000


def _many(name: str) -> list[str]:
    """A list of names as a broken answer could repeat it: the real name, then 100 000
    others."""
    return [name, *(f"{name} {i}" for i in range(100_000))]


def test_a_list_of_names_a_broken_answer_repeats_is_read_as_its_first_distinct_ones() -> None:
    """Each venue name of a record is compared with the entry's: a Semantic Scholar answer
    whose ``alternate_names`` held 100 000 names took 11.7 s to compare (bench
    fuzz_responses.py --sources); a record keeps the first ``MAX_TEXTS`` distinct names of
    a list, in order, so the real name still matches."""
    paper = json.loads(recorded("semanticscholar", "refchecker_get_by_doi_b20a1aea0a.json"))
    paper["publicationVenue"]["alternate_names"] = ["Nat Commun", *_many("Nat Commun")]
    s2 = work_from_s2(paper)
    assert s2 is not None
    assert s2.venue_short[:2] == ("Nat Commun", "Nat Commun 0")
    assert len(s2.venue_short) == MAX_TEXTS
    message = json.loads(CROSSREF_BODY)["message"]
    message["container-title"] = _many(message["container-title"][0])
    message["ISSN"] = ["1932-6203"] * 100_000
    crossref = work_from_csl(message)
    assert crossref is not None
    alternates = [v for k, v in crossref.extra if k == "alt-container-title"]
    assert crossref.venue == "PLoS ONE" and len(alternates) == MAX_TEXTS - 1
    assert crossref.issn == ("1932-6203",)
    assert compare_venue("PLoS ONE", (), crossref) is Agreement.EQUAL
    hit = json.loads(recorded("dblp", "refchecker_search_30a6debc25.json"))["result"]["hits"]
    info = hit["hit"][0]["info"]
    info["venue"] = _many("CoRR")
    dblp = work_from_dblp(hit["hit"][0])
    assert dblp is not None and dblp.venue == "CoRR" and len(dblp.venue_short) == MAX_TEXTS


async def test_an_esearch_id_that_is_no_pmid_fails_the_search_before_any_url_holds_it(
    hostile: HostileServer,
) -> None:
    """A damaged esearch answer (a real one with an ``<Id>`` that holds a line break and
    markup): its ids were put into the next request's URL as they were (httpx refused the
    URL).  Only what a PMID can be is read; anything else fails the search, with nothing
    sent after it."""
    real = recorded("pubmed", "esearch1.xml")
    damaged = real.replace(b"<Id>41148224</Id>", b"<Id>4114\n8224&lt;b&gt;</Id>", 1)
    assert damaged != real
    hostile.route("/entrez/eutils/esearch.fcgi", Behaviour("ok", body=damaged))
    http = HttpClient()
    src = PubMedSource(http, hostile.url)
    got = await src.esearch("biopython", limit=20)
    found = await src.search(Query("Biopython: freely available Python tools"))
    await http.aclose()
    assert isinstance(got, Lookup) and got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: an Id that is not a PMID", hostile.log
    assert found.outcome is Outcome.FAILED
    assert {s.path for s in hostile.log} == {"/entrez/eutils/esearch.fcgi"}
    hostile.route("/entrez/eutils/esearch.fcgi", Behaviour("ok", body=real))
    http = HttpClient()
    ids = await PubMedSource(http, hostile.url).esearch("biopython", limit=20)
    await http.aclose()
    assert isinstance(ids, list) and ids[:2] == ["41282813", "41148224"]
