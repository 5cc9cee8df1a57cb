"""Every source turns faults into FAILED (-> "unverified"), never NOT_FOUND, never a crash.

Faults are injected by the replay server in front of real recorded responses: 429 with
Retry-After, 503, a delay beyond the client timeout, a dropped connection, a truncated body
and a malformed body.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import replay as replay_fixtures
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.sources import (
    ArxivSource,
    CrossrefSource,
    DataCiteSource,
    DblpSource,
    DoiSource,
    OpenAlexSource,
    OpenLibrarySource,
    PubMedSource,
    SemanticScholarSource,
)
from replay import ReplayServer, fast_http

Call = Callable[[HttpClient, ReplayServer], Awaitable[Lookup]]

#: (name, call that succeeds against the recording, path prefix carrying the real body)
CASES: list[tuple[str, Call, str]] = [
    (
        "crossref.by_doi",
        lambda h, r: CrossrefSource(h, r.base_url("crossref")).by_doi(
            "10.1371/journal.pone.0033693"
        ),
        "/crossref",
    ),
    (
        "crossref.search",
        lambda h, r: CrossrefSource(h, r.base_url("crossref")).search(
            Query("ecology", ("Boettiger",))
        ),
        "/crossref",
    ),
    (
        "doi.by_doi",
        lambda h, r: DoiSource(h, r.base_url("doi")).by_doi("10.1126/science.169.3946.635"),
        "/crossref/works/10.1126",
    ),
    (
        "openalex.by_doi",
        lambda h, r: OpenAlexSource(h, r.base_url("openalex")).by_doi(
            "10.1371/journal.pone.0000030"
        ),
        "/openalex",
    ),
    (
        "semanticscholar.by_doi",
        lambda h, r: SemanticScholarSource(h, r.base_url("semanticscholar")).by_doi(
            "10.1038/s41467-021-22732-w"
        ),
        "/semanticscholar",
    ),
    (
        "datacite.by_doi",
        lambda h, r: DataCiteSource(h, r.base_url("datacite")).by_doi("10.5061/dryad.8515"),
        "/datacite",
    ),
    (
        "arxiv.by_arxiv",
        lambda h, r: ArxivSource(h, r.base_url("arxiv")).by_arxiv("1605.08386"),
        "/arxiv",
    ),
    (
        "pubmed.by_pmid",
        lambda h, r: PubMedSource(h, r.base_url("pubmed")).by_pmid("11618220"),
        "/pubmed",
    ),
    (
        "dblp.search",
        lambda h, r: DblpSource(h, r.base_url("dblp")).search(
            Query("1d convolutional neural networks and applications: A survey")
        ),
        "/dblp",
    ),
]

FAULTS: list[tuple[str, dict[str, Any]]] = [
    ("429", {"times": 10, "retry_after": "0"}),
    ("503", {"times": 10}),
    ("delay", {"times": 10, "delay": 0.6}),
    ("drop", {"times": 10}),
    ("truncate", {"times": 10}),
    ("malformed", {"times": 10}),
]

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay


@pytest.mark.parametrize(("name", "call", "body_path"), CASES, ids=[c[0] for c in CASES])
async def test_recording_is_found_without_faults(
    replay: ReplayServer, name: str, call: Call, body_path: str
) -> None:
    http = fast_http()
    result = await call(http, replay)
    await http.aclose()
    assert result.outcome is Outcome.FOUND, result.reason
    assert replay.unmatched == []


@pytest.mark.parametrize(("fault", "options"), FAULTS, ids=[f[0] for f in FAULTS])
@pytest.mark.parametrize(("name", "call", "body_path"), CASES, ids=[c[0] for c in CASES])
async def test_fault_gives_failed(
    replay: ReplayServer,
    name: str,
    call: Call,
    body_path: str,
    fault: str,
    options: dict[str, Any],
) -> None:
    http = fast_http(timeout=0.3)
    path = body_path if fault in {"truncate", "malformed"} else "/"
    replay.inject(fault, path=path, **options)
    result = await call(http, replay)
    await http.aclose()
    assert result.outcome is Outcome.FAILED
    assert result.reason
    assert result.records == ()


@pytest.mark.parametrize("fault", ["429", "503", "delay", "drop"])
async def test_openlibrary_faults_give_failed(replay: ReplayServer, fault: str) -> None:
    # no Open Library responses are recorded in the corpus, so only transport faults here
    http = fast_http(timeout=0.3)
    replay.inject(fault, path="/openlibrary", times=10, retry_after="0", delay=0.6)
    result = await OpenLibrarySource(http, replay.base_url("openlibrary")).by_isbn(
        "978-0-262-03384-8"
    )
    await http.aclose()
    assert result.outcome is Outcome.FAILED


async def test_openlibrary_rejects_bad_isbn_without_request(replay: ReplayServer) -> None:
    http = fast_http()
    result = await OpenLibrarySource(http, replay.base_url("openlibrary")).by_isbn("12345")
    await http.aclose()
    assert result.outcome is Outcome.NOT_FOUND
    assert replay.log == []
