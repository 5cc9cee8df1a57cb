"""A DOI written as a doi.org address that ends in the address's own query or fragment
(``https://doi.org/10.1371/journal.pone.0033693?utm_source=x``).

Real DOIs may hold ``?`` and ``#``, so the DOI as written is looked up first; only when
doi.org says it does not exist is the DOI without the query asked, and when that is the
work, the query is the fault and the bare DOI the correction.  Crossref's recorded record of
10.1371/journal.pone.0033693 answers the bare DOI; Crossref's and doi.org's recorded 404s
are served, as recorded, for the DOIs with the query (both services answer every DOI they do
not hold with the same body)."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import quote

import pytest

from citewarden.model import Code, Entry, Status, Verdict
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.identifiers import doi_address_tail
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import Lookup, Query
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.doi import DoiSource
from replay import ReplayServer, replay, replay_http, replay_server
from test_doi_agency import not_held

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
DOI = "10.1371/journal.pone.0033693"
TITLE = (
    "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia "
    "in the Basal Ganglia of Mice"
)
AUTHORS = (
    "Sadasivan, Shankar and Pond, Brooks B. and Pani, Amar K. and Qu, Chunxu and Jiao, Yun "
    "and Smeyne, Richard J."
)


def _entry(field: str, value: str) -> Entry:
    fields = {"title": TITLE, "author": AUTHORS, "journal": "PLoS ONE", "year": "2012"}
    return make_entry("mph", "article", {**fields, field: value})


def _verifier(srv: ReplayServer, http: HttpClient) -> Verifier:
    sources: list[Any] = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, srv.base_url("doi")),
    ]
    return Verifier(sources, VerifySettings(sources=("crossref", "doi")), today=TODAY)


async def _verified(srv: ReplayServer, http: HttpClient, queried: str, entry: Entry) -> Verdict:
    """The verdict on ``entry``, Crossref and doi.org holding no DOI ``queried``."""
    not_held(srv, quote(queried, safe="/"))
    verdict = await _verifier(srv, http).verify(entry)
    assert not srv.unmatched
    return verdict


@pytest.mark.parametrize(
    ("written", "tail"),
    [
        ("https://doi.org/10.1038/nature14539?utm_source=x", "?utm_source=x"),
        ("{https://dx.doi.org/10.1038/nature14539?utm_source=a&utm_medium=b}", None),
        ("https://doi.org/10.1038/nature14539#sec1", "#sec1"),
        ("doi.org/10.1038/nature14539?ref=x;src=y#top", "?ref=x;src=y#top"),
    ],
)
def test_an_address_query_or_fragment_is_read_apart(written: str, tail: str | None) -> None:
    found = doi_address_tail(written)
    assert found is not None and found[0] == "10.1038/nature14539"
    assert found[1] == (tail or "?utm_source=a&utm_medium=b")


@pytest.mark.parametrize(
    "written",
    [
        "10.1038/nature14539?utm_source=x",  # not an address: the DOI is as written
        "https://doi.org/10.1002/abc?def",  # no key=value pairs: it may be the DOI's
        "https://doi.org/10.1002/abc%3Fk=v",  # an escaped '?' is the DOI's own
        "https://doi.org/10.1038/nature14539?",
        "https://doi.org/10.1038/nature14539",
    ],
)
def test_what_may_be_the_dois_own_is_not_read_apart(written: str) -> None:
    assert doi_address_tail(written) is None


async def test_a_query_doi_org_does_not_know_is_the_fault_and_the_bare_doi_the_fix(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    queried = f"{DOI}?utm_source=x"
    v = await _verified(replay, replay_http, queried, _entry("doi", f"https://doi.org/{queried}"))
    codes = {i.code for i in v.issues}
    assert Code.DOI_NOT_FOUND not in codes, v.issues
    (issue,) = [i for i in v.issues if i.code is Code.INVALID_IDENTIFIER]
    assert issue.field == "doi" and "'?utm_source=x'" in issue.message
    assert f"doi.org has no DOI {queried}" in issue.message
    assert v.corrections.get("doi") == DOI
    assert v.status is Status.MISMATCH and v.match is not None and v.match.doi == DOI
    # the DOI as written was asked first, at both services
    assert [s.path for s in replay.log if "pone" in s.path] == [
        f"/crossref/works/{queried}",
        f"/doi/{queried}",
        f"/crossref/works/{DOI}",
    ]


async def test_the_bare_doi_of_another_work_is_named_as_the_doi_that_was_found(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The DOI without the query is another work's: that DOI is the one named."""
    queried = f"{DOI}?utm_source=x"
    fields = {"title": "Gravity waves from nowhere", "author": "Roe, Richard"}
    entry = make_entry("other", "article", {**fields, "doi": f"https://doi.org/{queried}"})
    v = await _verified(replay, replay_http, queried, entry)
    (issue,) = [i for i in v.issues if i.code is Code.DOI_OTHER_WORK]
    assert issue.message.startswith(f"DOI {DOI} belongs to a different work")


async def test_a_url_fields_query_is_no_fault(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    queried = f"{DOI}#abstract0"
    v = await _verified(replay, replay_http, queried, _entry("url", f"https://doi.org/{queried}"))
    assert v.status is Status.VERIFIED, v.issues
    assert Code.INVALID_IDENTIFIER not in {i.code for i in v.issues}
    assert v.match is not None and v.match.doi == DOI
    assert not replay.unmatched


async def test_a_doi_missing_with_and_without_the_query_does_not_exist(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    not_held(replay, "10.1371/notarealdoi%3Futm_source%3Dx")
    not_held(replay, "10.1371/notarealdoi")
    entry = _entry("doi", "https://doi.org/10.1371/notarealdoi?utm_source=x")
    v = await _verifier(replay, replay_http).verify(entry)
    (issue,) = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert "10.1371/notarealdoi?utm_source=x does not exist" in issue.message
    assert Code.INVALID_IDENTIFIER not in {i.code for i in v.issues}
    assert "doi" not in v.corrections
    assert replay.requests_to("/doi/10.1371/notarealdoi") == 2
    assert not replay.unmatched


class StandIn:
    """A DOI source answering, for each DOI, the outcome the test sets (a look-up's
    outcome, not a service response)."""

    def __init__(self, name: str, answers: dict[str, Lookup]) -> None:
        self.name = name
        self.answers = answers

    async def by_doi(self, doi: str) -> Lookup:
        return self.answers[doi]

    async def search(self, query: Query) -> Lookup:
        return Lookup.failed(self.name, "timeout")


async def test_a_failed_look_up_of_the_bare_doi_leaves_the_doi_unchecked() -> None:
    queried = f"{DOI}?utm_source=x"
    crossref = StandIn(
        "crossref",
        {queried: Lookup.not_found("crossref"), DOI: Lookup.failed("crossref", "timeout")},
    )
    doi = StandIn("doi", {queried: Lookup.not_found("doi"), DOI: Lookup.failed("doi", "HTTP 503")})
    settings = VerifySettings(sources=("crossref", "doi"))
    verifier = Verifier([crossref, doi], settings, today=TODAY)
    v = await verifier.verify(_entry("doi", f"https://doi.org/{queried}"))
    codes = {i.code for i in v.issues}
    assert Code.DOI_NOT_FOUND not in codes and Code.INVALID_IDENTIFIER not in codes
    assert v.status is Status.UNVERIFIED
    assert v.reason is not None and "timeout" in v.reason


def test_the_entry_keeps_the_doi_as_written() -> None:
    norm = normalize_entry(_entry("doi", f"https://doi.org/{DOI}?utm_source=x"))
    assert norm.doi == f"{DOI}?utm_source=x"
    assert norm.doi_tail is not None and norm.doi_tail.doi == DOI
