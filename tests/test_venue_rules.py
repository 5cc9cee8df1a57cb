"""Venue rules over the indexes (dblp, OpenAlex, Semantic Scholar), replayed from real
recorded responses (tests/data/venue): a work with no publisher's record in the run, its
venue corroborated by two indexes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import date

import pytest
import pytest_asyncio

from citewarden.model import Code, Status
from citewarden.settings import VerifySettings
from citewarden.verify.compare import Agreement
from citewarden.verify.engine import Verifier
from citewarden.verify.evidence import VenueOpinion
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from citewarden.verify.venue_check import index_venue
from paths import DATA
from replay import ReplayServer, fast_http

TODAY = date(2026, 11, 29)
INDEXES = ("dblp", "openalex", "semanticscholar")

#: Lukas et al., IEEE S&P 2023 (dblp: SP and CoRR records; OpenAlex: the S&P record without
#: a source, and the arXiv record; Semantic Scholar: "IEEE Symposium on Security and Privacy").
PII = {
    "title": "Analyzing Leakage of Personally Identifiable Information in Language Models",
    "author": "Lukas, Nils and Salem, Ahmed and Sim, Robert and Tople, Shruti and "
    "Wutschitz, Lukas and Zanella-B{\\'e}guelin, Santiago",
    "year": "2023",
}


@pytest.fixture(scope="module")
def venue_server() -> Iterator[ReplayServer]:
    server = ReplayServer(DATA / "venue").start()
    yield server
    server.stop()


@pytest_asyncio.fixture
async def indexes(venue_server: ReplayServer) -> AsyncIterator[Verifier]:
    venue_server.clear()
    http: HttpClient = fast_http()
    sources = [
        DblpSource(http, venue_server.base_url("dblp")),
        OpenAlexSource(http, venue_server.base_url("openalex")),
        SemanticScholarSource(http, venue_server.base_url("semanticscholar")),
    ]
    yield Verifier(sources, VerifySettings(sources=INDEXES), today=TODAY)
    await http.aclose()
    # only searches are recorded: a by-DOI look-up of the work found (alone, or in a batch:
    # OpenAlex filter=doi:, Semantic Scholar /paper/batch) gets a 501 (a failure) and the
    # engine asks the same index by search instead
    by_doi = ("/works/doi:", "/paper/DOI:", "filter=doi%3A", "/paper/batch")
    assert all(any(m in u for m in by_doi) for u in venue_server.unmatched), venue_server.unmatched


async def test_two_indexes_agreeing_on_another_venue_make_a_venue_mismatch(
    indexes: Verifier,
) -> None:
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": "NeurIPS"})
    v = await indexes.verify(entry)
    assert v.status is Status.MISMATCH
    venue = [i for i in v.issues if i.code is Code.VENUE_MISMATCH]
    assert len(venue) == 1 and venue[0].field == "booktitle"
    assert v.corrections["booktitle"] == "IEEE Symposium on Security and Privacy"


@pytest.mark.parametrize(
    "cited",
    [
        "IEEE Symposium on Security and Privacy",
        "SP",
        "2023 IEEE Symposium on Security and Privacy (SP)",
    ],
)
async def test_the_right_venue_in_any_usual_form_verifies(indexes: Verifier, cited: str) -> None:
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": cited})
    v = await indexes.verify(entry)
    assert v.status is Status.VERIFIED, v.issues
    assert not any(i.code is Code.VENUE_MISMATCH for i in v.issues)


async def test_one_index_alone_never_makes_a_venue_mismatch(venue_server: ReplayServer) -> None:
    venue_server.clear()
    http = fast_http()
    try:
        only = Verifier(
            [DblpSource(http, venue_server.base_url("dblp"))],
            VerifySettings(sources=("dblp",)),
            today=TODAY,
        )
        v = await only.verify(make_entry("lukas", "inproceedings", {**PII, "booktitle": "ICML"}))
    finally:
        await http.aclose()
    assert v.status is Status.VERIFIED, v.issues


async def test_failing_indexes_neither_make_a_venue_mismatch_nor_verify(
    indexes: Verifier, venue_server: ReplayServer
) -> None:
    # dblp answers (SP), the two others fail: one opinion is not a quorum
    venue_server.inject("503", path="/semanticscholar", times=20, retry_after="0")
    venue_server.inject("503", path="/openalex", times=20, retry_after="0")
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": "NeurIPS"})
    v = await indexes.verify(entry)
    assert not any(i.code is Code.VENUE_MISMATCH for i in v.issues)
    # ... and a fault never turns a venue difference into "verified": it abstains
    assert v.status is Status.UNVERIFIED, v.issues
    assert v.reason is not None and "HTTP 503" in v.reason


def _opinion(source: str, venue: str, agreement: Agreement, preprint: bool) -> VenueOpinion:
    return VenueOpinion(source, venue, (venue,), agreement, preprint)


def test_preprint_records_only_make_preprint_cited_as_published() -> None:
    entry = normalize_entry(make_entry("x", "inproceedings", {**PII, "booktitle": "CVPR"}))
    preprints = [
        _opinion("dblp", "CoRR", Agreement.DIFFERENT, True),
        _opinion("openalex", "ArXiv.org", Agreement.DIFFERENT, True),
    ]
    issues, fixes = index_venue(entry, preprints)
    assert [i.code for i in issues] == [Code.PREPRINT_AS_PUBLISHED] and fixes == {}
    # one preprint record alone says nothing; a published record among them neither
    assert index_venue(entry, preprints[:1]) == ([], {})
    published = [*preprints, _opinion("semanticscholar", "CVPR", Agreement.EQUAL, False)]
    assert index_venue(entry, published) == ([], {})


def test_an_entry_that_cites_the_preprint_is_not_a_venue_finding() -> None:
    entry = normalize_entry(
        make_entry("x", "article", {**PII, "journal": "arXiv preprint arXiv:2302.00539"})
    )
    opinions = [
        _opinion("dblp", "SP", Agreement.DIFFERENT, False),
        _opinion(
            "semanticscholar", "IEEE Symposium on Security and Privacy", Agreement.DIFFERENT, False
        ),
    ]
    assert index_venue(entry, opinions) == ([], {})
