"""Identifier existence: "does not exist" only from the registry that owns the identifier
(doi.org for DOIs, the arXiv API plus a second source for arXiv ids); a source that failed
leaves the entry unverified.  arXiv answers come from real recorded responses replayed on
loopback where recordings exist; elsewhere stand-ins answer the outcome the test sets (a
look-up's outcome, not a service response)."""

from __future__ import annotations

from datetime import date

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Status, Tier
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Lookup, Query
from citewarden.verify.sources.arxiv import ArxivSource
from replay import ReplayServer

TODAY = date(2026, 11, 29)

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


class SecondOpinion:
    """A source's place in the pipeline (Semantic Scholar by default), answering what the
    test says."""

    name = "semanticscholar"

    def __init__(self, outcome: Lookup, name: str = "semanticscholar") -> None:
        self.name = name
        self.outcome = outcome
        self.asked: list[str] = []

    async def by_arxiv(self, arxiv_id: str) -> Lookup:
        self.asked.append(arxiv_id)
        return self.outcome

    async def search(self, query: Query) -> Lookup:
        return Lookup.not_found(self.name)


def _entry(eprint: str) -> object:
    return make_entry(
        "k",
        "misc",
        {
            "title": "Heat-bath random walks with {M}arkov bases",
            "author": "Stanley, Caprice and Windisch, Tobias",
            "year": "2016",
            "eprint": eprint,
            "archiveprefix": "arXiv",
        },
    )


def _verifier(replay: ReplayServer, http: HttpClient, second: SecondOpinion) -> Verifier:
    arxiv = ArxivSource(http, replay.base_url("arxiv"))
    settings = VerifySettings(sources=("arxiv", "semanticscholar"))
    return Verifier([arxiv, second], settings, today=TODAY)  # type: ignore[list-item]


async def test_arxiv_outage_and_a_second_source_404_is_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    replay.inject("503", path="/arxiv", times=20, retry_after="0")
    second = SecondOpinion(Lookup.not_found("semanticscholar"))
    v = await _verifier(replay, replay_http, second).verify(_entry("1605.08386"))  # type: ignore[arg-type]
    assert second.asked == ["1605.08386"]
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}
    assert v.status is Status.UNVERIFIED and v.tier is Tier.D


def _stand_ins(arxiv: Lookup, second: Lookup) -> Verifier:
    sources = [SecondOpinion(arxiv, "arxiv"), SecondOpinion(second)]
    settings = VerifySettings(sources=("arxiv", "semanticscholar"))
    return Verifier(sources, settings, today=TODAY)  # type: ignore[arg-type]


async def test_id_unknown_to_arxiv_and_to_the_second_source_does_not_exist() -> None:
    verifier = _stand_ins(Lookup.not_found("arxiv"), Lookup.not_found("semanticscholar"))
    v = await verifier.verify(_entry("2411.99999"))  # type: ignore[arg-type]
    missing = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert len(missing) == 1 and "arXiv has no record" in missing[0].message
    assert v.tier is Tier.H


@pytest.mark.parametrize("why", ["timeout", "HTTP 503", "malformed response: not JSON"])
async def test_id_unknown_to_arxiv_but_second_source_failing_is_not_called_missing(
    why: str,
) -> None:
    verifier = _stand_ins(Lookup.not_found("arxiv"), Lookup.failed("semanticscholar", why))
    v = await verifier.verify(_entry("2411.99999"))  # type: ignore[arg-type]
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}
    assert v.status is not Status.NOT_FOUND


async def test_second_source_alone_never_says_an_arxiv_id_does_not_exist() -> None:
    verifier = _stand_ins(Lookup.failed("arxiv", "timeout"), Lookup.not_found("semanticscholar"))
    v = await verifier.verify(_entry("2411.99999"))  # type: ignore[arg-type]
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}
    assert v.status is Status.UNVERIFIED


async def test_id_arxiv_has_verifies_without_asking_a_second_source(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    second = SecondOpinion(Lookup.not_found("semanticscholar"))
    v = await _verifier(replay, replay_http, second).verify(_entry("1605.08386"))  # type: ignore[arg-type]
    assert v.status is Status.VERIFIED, v.issues
    assert second.asked == []


# ----------------------------------------------------------------------------------------
# arXiv versions, against the real listing of 1605.08386 (one version, posted May 2016)
# ----------------------------------------------------------------------------------------


async def _arxiv_verdict(replay: ReplayServer, http: HttpClient, **fields: str) -> object:
    base = {
        "title": "Heat-bath random walks with {M}arkov bases",
        "author": "Stanley, Caprice and Windisch, Tobias",
        "year": "2016",
        "archiveprefix": "arXiv",
    }
    arxiv = ArxivSource(http, replay.base_url("arxiv"))
    verifier = Verifier([arxiv], VerifySettings(sources=("arxiv",)), today=TODAY)
    return await verifier.verify(make_entry("k", "misc", {**base, **fields}))


async def test_a_version_the_listing_does_not_have_is_reported_with_the_latest(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    v = await _arxiv_verdict(replay, replay_http, eprint="1605.08386v3")
    version = [i for i in v.issues if i.code is Code.ARXIV_VERSION]  # type: ignore[attr-defined]
    assert len(version) == 1 and "the listing has v1" in version[0].message
    assert version[0].field == "eprint"
    assert v.corrections == {"eprint": "1605.08386v1"}  # type: ignore[attr-defined]
    assert v.status is Status.MISMATCH  # type: ignore[attr-defined]


@pytest.mark.parametrize("eprint", ["1605.08386v1", "1605.08386"])
async def test_an_existing_or_unnamed_version_verifies(
    replay: ReplayServer, replay_http: HttpClient, eprint: str
) -> None:
    v = await _arxiv_verdict(replay, replay_http, eprint=eprint)
    assert v.status is Status.VERIFIED, v.issues  # type: ignore[attr-defined]


async def test_a_year_before_the_first_version_is_reported_once(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    v = await _arxiv_verdict(replay, replay_http, eprint="1605.08386", year="2015")
    codes = [i.code for i in v.issues]  # type: ignore[attr-defined]
    # the id itself dates the preprint (May 2016): the static check says it, the listing's
    # first-version date does not add a second finding
    assert codes.count(Code.TEMPORAL_IMPOSSIBILITY) + codes.count(Code.ARXIV_VERSION) == 1
    assert v.status is Status.MISMATCH  # type: ignore[attr-defined]
