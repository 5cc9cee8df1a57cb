"""The venue searches (dblp ``/search/venue/api``, OpenAlex ``/sources``, Crossref
``/journals``) and the ``nonexistent-venue`` finding.

The work's records are the real recordings of tests/data/venue (Lukas et al., IEEE S&P
2023).  The corpus holds no recording of the venue endpoints: their answers
(tests/data/venue_search) are built from the documented shapes and hold only real venues
(see tests/data/PROVENANCE.md).  A venue search with no answer here gets the replay's 501,
a failure like any other."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qs

import pytest
import pytest_asyncio

from citewarden.cache import Cache
from citewarden.model import Code, Status, Tier
from citewarden.settings import VerifySettings
from citewarden.verify.compare import compare
from citewarden.verify.engine import Verifier
from citewarden.verify.evidence import VenueAnswer
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import Outcome, WorkRecord
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from citewarden.verify.venue_check import nonexistent_venue
from citewarden.verify.venue_lookup import registries
from citewarden.verify.venues import venue_search_text
from paths import DATA
from replay import ReplayServer, fast_http
from test_venue_rules import INDEXES, PII, TODAY

FAKE = "International Symposium on Quantum Language Model Privacy"


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    replay = ReplayServer(DATA / "venue")
    replay.load(DATA / "venue_search")
    replay.start()
    yield replay
    replay.stop()


@pytest_asyncio.fixture
async def http(server: ReplayServer) -> AsyncIterator[HttpClient]:
    server.clear()
    client = fast_http()
    yield client
    await client.aclose()


def _verifier(server: ReplayServer, http: HttpClient) -> Verifier:
    sources = [
        DblpSource(http, server.base_url("dblp")),
        OpenAlexSource(http, server.base_url("openalex")),
        SemanticScholarSource(http, server.base_url("semanticscholar")),
    ]
    return Verifier(sources, VerifySettings(sources=INDEXES), today=TODAY)


def _venue_queries(server: ReplayServer) -> dict[str, list[str]]:
    asked: dict[str, list[str]] = {}
    for seen in server.log:
        if seen.path.endswith("/search/venue/api"):
            asked.setdefault("dblp", []).extend(parse_qs(seen.query)["q"])
        elif seen.path.endswith("/openalex/sources"):
            asked.setdefault("openalex", []).extend(parse_qs(seen.query)["search"])
    return asked


async def test_a_venue_no_registry_knows_and_the_record_contradicts_is_nonexistent(
    server: ReplayServer, http: HttpClient
) -> None:
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": FAKE})
    v = await _verifier(server, http).verify(entry)
    words = "international symposium quantum language model privacy"
    assert _venue_queries(server) == {"dblp": [words], "openalex": [words]}
    codes = [i.code for i in v.issues]
    assert codes.count(Code.NONEXISTENT_VENUE) == 1
    assert Code.VENUE_MISMATCH not in codes  # it stands in for the venue difference
    finding = next(i for i in v.issues if i.code is Code.NONEXISTENT_VENUE)
    assert finding.field == "booktitle" and "dblp, openalex" in finding.message
    assert v.status is Status.MISMATCH and v.tier is Tier.E
    assert v.corrections["booktitle"] == "IEEE Symposium on Security and Privacy"


async def test_failed_venue_searches_leave_a_venue_mismatch(
    server: ReplayServer, http: HttpClient
) -> None:
    server.inject("503", path="/dblp/search/venue", times=20, retry_after="0")
    server.inject("503", path="/openalex/sources", times=20, retry_after="0")
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": FAKE})
    v = await _verifier(server, http).verify(entry)
    codes = [i.code for i in v.issues]
    assert Code.NONEXISTENT_VENUE not in codes
    assert Code.VENUE_MISMATCH in codes
    assert v.corrections["booktitle"] == "IEEE Symposium on Security and Privacy"


async def test_a_real_venue_a_search_knows_stays_a_venue_mismatch(
    server: ReplayServer, http: HttpClient
) -> None:
    # another real security venue; dblp's venue search knows it (OpenAlex fails here)
    cited = "ACM SIGSAC Conference on Computer and Communications Security"
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": cited})
    v = await _verifier(server, http).verify(entry)
    assert _venue_queries(server)["dblp"] == ["conference computer communications security"]
    codes = [i.code for i in v.issues]
    assert Code.NONEXISTENT_VENUE not in codes and Code.VENUE_MISMATCH in codes


async def test_a_bundled_venue_is_never_searched(server: ReplayServer, http: HttpClient) -> None:
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": "NeurIPS"})
    v = await _verifier(server, http).verify(entry)
    assert _venue_queries(server) == {}
    assert Code.VENUE_MISMATCH in {i.code for i in v.issues}


async def test_venue_searches_read_the_documented_answers(
    server: ReplayServer, http: HttpClient
) -> None:
    dblp = await DblpSource(http, server.base_url("dblp")).venues(
        "conference computer communications security"
    )
    assert dblp.outcome is Outcome.FOUND
    ccs = dblp.records[0]
    assert ccs.venue == "ACM Conference on Computer and Communications Security"
    assert "CCS" in ccs.venue_short and ccs.venue_kind == "conference"
    assert ccs.url == "https://dblp.org/db/conf/ccs/"
    none = await DblpSource(http, server.base_url("dblp")).venues(
        "international symposium quantum language model privacy"
    )
    assert none.outcome is Outcome.NOT_FOUND
    openalex = await OpenAlexSource(http, server.base_url("openalex")).venues(
        "international symposium quantum language model privacy"
    )
    assert openalex.outcome is Outcome.NOT_FOUND
    crossref = CrossrefSource(http, server.base_url("crossref"))
    journals = await crossref.venues("phys rev lett")
    assert [r.venue for r in journals.records] == ["Physical Review Letters"]
    assert journals.records[0].publisher == "American Physical Society (APS)"
    failed = await crossref.venues("no answer recorded")  # the replay's 501
    assert failed.outcome is Outcome.FAILED


async def test_venue_searches_are_cached(
    server: ReplayServer, http: HttpClient, tmp_path: object
) -> None:
    cache = Cache(tmp_path)  # type: ignore[arg-type]
    try:
        dblp = CachedSource(DblpSource(http, server.base_url("dblp")), cache)
        words = "conference computer communications security"
        first = await dblp.venues(words)
        again = await dblp.venues(words)
    finally:
        cache.close()
    assert first.outcome is Outcome.FOUND and again.from_cache
    assert server.requests_to("/dblp/search/venue") == 1


@pytest.mark.parametrize(
    ("cited", "words"),
    [
        (
            "Proceedings of the 40th International Conference on Machine Learning, Honolulu",
            "international conference machine learning",
        ),
        ("Proc. Intl. Conf. on Machine Learning", "machine learning"),
        ("USENIX Security Symposium", "security symposium"),
        ("Phys. Rev. Lett.", "phys rev lett"),
        ("Proceedings", None),
        ("2021", None),
    ],
)
def test_venue_search_words(cited: str, words: str | None) -> None:
    assert venue_search_text(cited) == words


def _contradicted() -> tuple[object, object]:
    entry = normalize_entry(make_entry("k", "inproceedings", {**PII, "booktitle": FAKE}))
    record = WorkRecord(
        "semanticscholar",
        "Analyzing Leakage of Personally Identifiable Information in Language Models",
        venue="IEEE Symposium on Security and Privacy",
    )
    return entry, compare(entry, record)


def test_an_answer_with_a_plausible_venue_makes_no_finding() -> None:
    entry, cmp = _contradicted()
    known = VenueAnswer(
        "openalex", (("International Symposium on Quantum Language Model Privacy",),)
    )
    issues: list[object] = []
    fixes = nonexistent_venue(entry, cmp, [], [known], issues)  # type: ignore[arg-type]
    assert fixes == {} and issues == []
    unknown = VenueAnswer("openalex", (("Quantum Information Processing",),))
    fixes = nonexistent_venue(entry, cmp, [], [unknown], issues)  # type: ignore[arg-type]
    assert [i.code for i in issues] == [Code.NONEXISTENT_VENUE]  # type: ignore[attr-defined]
    assert fixes == {"booktitle": "IEEE Symposium on Security and Privacy"}
    # no answer at all (every search failed): nothing
    assert nonexistent_venue(entry, cmp, [], [], []) == {}  # type: ignore[arg-type]


def test_only_registries_that_would_list_the_venue_are_asked() -> None:
    # dblp lists computer science only, Crossref's journals only journals
    assert registries(journal=False, in_dblp=False) == ("openalex",)
    assert registries(journal=True, in_dblp=False) == ("openalex", "crossref")
    assert registries(journal=False, in_dblp=True) == ("dblp", "openalex")


# -- venue searches take the source's request slot like every other look-up -----------------

#: The same paper cited at its real venue: a work search at dblp, no venue search.
REAL = "IEEE Symposium on Security and Privacy"


def _slotted(server: ReplayServer, http: HttpClient) -> tuple[Verifier, list[object]]:
    """One request in flight per source (``concurrency = 1``; the client's lanes allow 16),
    dblp answering after 0.15 s; the entry citing :data:`FAKE` first, then six citing
    :data:`REAL`, all searched at dblp."""
    server.latencies = {"/dblp": 0.15}
    sources = [
        DblpSource(http, server.base_url("dblp")),
        OpenAlexSource(http, server.base_url("openalex")),
        SemanticScholarSource(http, server.base_url("semanticscholar")),
    ]
    verifier = Verifier(sources, VerifySettings(sources=INDEXES, concurrency=1), today=TODAY)
    entries = [make_entry("fake", "inproceedings", {**PII, "booktitle": FAKE})]
    entries += [
        make_entry(f"real{i}", "inproceedings", {**PII, "booktitle": REAL}) for i in range(6)
    ]
    return verifier, entries


async def test_a_venue_search_waits_for_the_sources_request_slot(
    server: ReplayServer, http: HttpClient
) -> None:
    verifier, entries = _slotted(server, http)
    verdicts = await verifier.verify_many(entries)  # type: ignore[arg-type]
    dblp = sorted((s for s in server.log if s.path.startswith("/dblp/")), key=lambda s: s.at)
    assert "/dblp/search/venue/api" in {s.path for s in dblp}
    # one dblp request at a time, the venue search included: each arrived after the last
    # was answered (0.15 s later), none while another was on the wire
    gaps = [b.at - a.at for a, b in itertools.pairwise(dblp)]
    assert min(gaps) >= 0.14, gaps
    # the verdict is what it is without the wait
    assert Code.NONEXISTENT_VENUE in {i.code for i in verdicts["fake"].issues}


async def test_a_venue_search_waiting_for_its_slot_is_not_sent_once_cancelled(
    server: ReplayServer, http: HttpClient
) -> None:
    verifier, entries = _slotted(server, http)
    cancel = asyncio.Event()

    async def cancel_at_third_dblp_request() -> None:
        while sum(s.path.startswith("/dblp/") for s in server.log) < 3:
            await asyncio.sleep(0.01)
        cancel.set()

    watcher = asyncio.ensure_future(cancel_at_third_dblp_request())
    await verifier.verify_many(entries, cancel_event=cancel)  # type: ignore[arg-type]
    watcher.cancel()
    # the venue search queued behind the work searches when the run was cancelled
    assert cancel.is_set()
    assert "/dblp/search/venue/api" not in {s.path for s in server.log}
