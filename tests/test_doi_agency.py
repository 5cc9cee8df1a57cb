"""A DOI Crossref does not hold, and the registration agency of its prefix.

doi.org names the agency of each DOI prefix (``/ra/{prefix}``; the answers here are real
recordings, tests/data/api/doi/ra_*.json).  A prefix doi.org does not know holds no DOI.
Any other prefix, Crossref's included, or a failed question, sends the DOI to doi.org:
Crossref's REST API lacks DOIs it registered (an alias of another DOI, a DOI registered
hours ago), which doi.org resolves, so only doi.org's 404 says a DOI does not exist.

Crossref's recorded 404 (``/works/10.1371/notarealdoi``) and doi.org's (``/10.1126/foo``)
are served, as recorded, for the other made-up DOIs asked here: both services answer
every DOI they do not hold with the same body.  doi.org's recorded redirect of
10.1126/science.169.3946.635 to Crossref's record stands for a DOI doi.org resolves to
another DOI's record, as it resolves an alias."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from batch_replay import serve_batches
from citewarden.cache import Cache
from citewarden.model import Code, Entry, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Outcome
from citewarden.verify.sources import CachedSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.doi import DoiSource, doi_prefix, registration_agency
from replay import ReplayServer, recorded, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
CROSSREF_404 = recorded("crossref", "test-works__test_works_bad_id_warn.txt")
DOI_ORG_404 = recorded(
    "doi",
    "test-content_negotation__test_content_negotiation_raises_an_http_error_with_bad_requests.html",
)


def not_held(srv: ReplayServer, doi: str) -> None:
    """Crossref's and doi.org's recorded answers for a DOI neither holds, at ``doi``."""
    srv.add_route(
        f"https://api.crossref.org/works/{doi}", CROSSREF_404, status=404, content_type="text/plain"
    )
    srv.add_route(f"https://doi.org/{doi}", DOI_ORG_404, status=404, content_type="text/html")


def verifier(srv: ReplayServer, http: HttpClient, cache: Cache | None = None) -> Verifier:
    made = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, srv.base_url("doi")),
    ]
    sources: list[Any] = [CachedSource(s, cache) for s in made] if cache is not None else made
    return Verifier(sources, VerifySettings(sources=("crossref", "doi")), today=TODAY)


def made_up(key: str, doi: str) -> Entry:
    fields = {"title": "Gravity waves from nowhere", "author": "Roe, Richard", "doi": doi}
    return make_entry(key, "article", fields)


def test_the_prefix_of_a_doi() -> None:
    assert doi_prefix("https://doi.org/10.1109/CVPR.2019.00773") == "10.1109"
    assert doi_prefix("10.1000.10/abc") == "10.1000.10"
    assert doi_prefix("10.12/abc") is None and doi_prefix("11.1234/abc") is None


async def test_doi_org_names_the_agency_of_each_prefix(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    doi = DoiSource(replay_http, replay.base_url("doi"))
    crossref = await doi.agency("10.1371")
    datacite = await doi.agency("10.5061")
    unknown = await doi.agency("10.99999")
    assert registration_agency(crossref) == "Crossref"
    assert registration_agency(datacite) == "DataCite"
    assert unknown.outcome is Outcome.NOT_FOUND
    replay.clear()
    both = await doi.agencies(["10.1392", "10.11367"])  # one request for both
    assert [registration_agency(both[p]) for p in ("10.1392", "10.11367")] == ["mEDRA", "JaLC"]
    assert [s.path for s in replay.log] == ["/doi/ra/10.1392,10.11367"]


async def test_a_doi_crossref_lacks_under_a_crossref_prefix_goes_to_doi_org(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    not_held(replay, "10.1371/notarealdoi")
    v = await verifier(replay, replay_http).verify(made_up("foo", "10.1371/notarealdoi"))
    assert v.status is not Status.VERIFIED
    (issue,) = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert "doi.org has no record of it" in issue.message
    assert replay.requests_to("/doi/ra/10.1371") == 1
    assert replay.requests_to("/doi/10.1371/notarealdoi") == 1
    assert not replay.unmatched


async def test_a_doi_crossref_lacks_but_doi_org_resolves_exists(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """Crossref's REST API answers 404 for a DOI under its own prefix that doi.org resolves
    (an alias): the DOI exists."""
    alias = "10.1371/alias.of.science"
    replay.add_route(
        f"https://api.crossref.org/works/{alias}",
        CROSSREF_404,
        status=404,
        content_type="text/plain",
    )
    redirect = replay.match("GET", "/doi/10.1126/science.169.3946.635", "")
    assert redirect is not None and redirect.status == 302
    replay.add_route(
        f"https://doi.org/{alias}",
        redirect.body,
        status=302,
        content_type=redirect.content_type,
        headers=redirect.headers,
    )
    fields = {"title": "The Structure of Ordinary Water", "author": "Frank, H. S.", "doi": alias}
    v = await verifier(replay, replay_http).verify(make_entry("water", "article", fields))
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}, v.issues
    assert v.status is Status.VERIFIED and v.match is not None
    assert v.match.doi == "10.1126/science.169.3946.635"
    assert replay.requests_to(f"/doi/{alias}") == 1
    assert not replay.unmatched


async def test_a_prefix_doi_org_does_not_know_holds_no_doi(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    not_held(replay, "10.99999/abc")
    v = await verifier(replay, replay_http).verify(made_up("foo", "10.99999/abc"))
    (issue,) = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert "doi.org has no record of it" in issue.message
    assert replay.requests_to("/doi/10.99999") == 0
    assert not replay.unmatched


async def test_another_agencys_doi_goes_to_doi_org(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    not_held(replay, "10.5061/dryad.notreal")
    v = await verifier(replay, replay_http).verify(made_up("foo", "10.5061/dryad.notreal"))
    assert Code.DOI_NOT_FOUND in {i.code for i in v.issues}
    assert replay.requests_to("/doi/ra/10.5061") == 1
    assert replay.requests_to("/doi/10.5061/dryad.notreal") == 1
    assert not replay.unmatched


@pytest.mark.parametrize("fault", ["503", "drop"])
async def test_a_failed_question_sends_the_doi_to_doi_org(
    replay: ReplayServer, replay_http: HttpClient, fault: str
) -> None:
    not_held(replay, "10.1371/notarealdoi")
    replay.inject(fault, path="/doi/ra", times=10, retry_after="0")
    v = await verifier(replay, replay_http).verify(made_up("foo", "10.1371/notarealdoi"))
    (issue,) = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert "doi.org has no record of it" in issue.message
    assert replay.requests_to("/doi/10.1371/notarealdoi") == 1


async def test_the_prefixes_of_a_bibliography_are_asked_together_and_kept(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    serve_batches(replay)
    not_held(replay, "10.99999/abc")
    not_held(replay, "10.1371/alsonotreal")
    not_held(replay, "10.1371/notarealdoi")
    entries = [
        made_up("a", "10.1371/notarealdoi"),
        made_up("b", "10.99999/abc"),
        made_up("c", "10.1371/alsonotreal"),
    ]
    cache = Cache(tmp_path / "cache")
    verdicts = await verifier(replay, replay_http, cache).verify_many(entries)
    assert all(Code.DOI_NOT_FOUND in {i.code for i in v.issues} for v in verdicts.values())
    asked = [s.path for s in replay.log if s.path.startswith("/doi/ra/")]
    assert len(asked) == 1 and set(asked[0][len("/doi/ra/") :].split(",")) == {
        "10.1371",
        "10.99999",
    }
    # the DOIs under the prefix that exists go to doi.org; the other's prefix holds none
    assert replay.requests_to("/doi/10.99999") == 0
    replay.clear()
    not_held(replay, "10.99999/gone")
    again = await verifier(replay, replay_http, cache).verify(made_up("d", "10.99999/gone"))
    assert Code.DOI_NOT_FOUND in {i.code for i in again.issues}
    assert replay.requests_to("/doi/") == 0  # the prefix's answer is kept
    cache.close()


async def test_a_doi_of_the_older_syntax_goes_to_doi_org_whatever_its_prefix(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """A SICI DOI (``<``, ``>``, ``;``, ``:``) under a Crossref prefix: Crossref's path may
    not match such a DOI it holds, so its 404 is not final there; doi.org is asked."""
    sici = "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-x"
    not_held(replay, sici)
    v = await verifier(replay, replay_http).verify(made_up("foo", sici))
    (issue,) = [i for i in v.issues if i.code is Code.DOI_NOT_FOUND]
    assert "doi.org has no record of it" in issue.message
    assert replay.requests_to("/doi/ra/") == 0
    assert replay.requests_to("/doi/10.1002") == 1
