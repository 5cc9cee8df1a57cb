"""A source that failed has said nothing: "not found" comes only from a service's own answer.

Over the loopback replay server, each source gets real recorded bodies: its own service's
not-found answer (it says "no such record"), and a 404 that is not that answer -- an HTML
page (doi.org's recorded "DOI Not Found" page, as a proxy or a wrong base URL would serve
it), another service's recorded not-found answer (Crossref's ``Resource not found.``,
Semantic Scholar's JSON error), which says nothing about this service's holdings and must
leave the entry unverified, with the reason.  Then the answers of a 200 that say less than
they seem to: a Crossref or OpenAlex ``filter=doi:`` page that does not count its results, a dblp
answer whose ``result.status`` says the search failed, and Semantic Scholar's relevance
search answering ``{"total": 0, "offset": 0}`` (no hits, no ``data``)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import date

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Status, Tier
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.sources import (
    CrossrefSource,
    DataCiteSource,
    DblpSource,
    DoiSource,
    OpenAlexSource,
    SemanticScholarSource,
)
from hostile_server import Behaviour, HostileServer, hostile
from paths import DATA
from replay import ReplayServer, fast_http, recorded, recorded_json

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http
__all__ = ["hostile"]

TODAY = date(2026, 11, 29)

#: doi.org's recorded 404 page for a DOI it does not know (habanero cassette): an HTML page.
HTML_PAGE = recorded(
    "doi",
    "test-content_negotation__test_content_negotiation_raises_an_http_error_with_bad_requests.html",
)
#: Crossref's recorded 404 for a DOI it does not hold: ``Resource not found.``, text/plain.
CROSSREF_404 = recorded("crossref", "test-works__test_works_bad_id_warn.txt")
#: Semantic Scholar's recorded 404 for a paper it does not hold (a JSON error object).
S2_404 = recorded("semanticscholar", "test_not_found__00.json")
#: Semantic Scholar's recorded 404 for an author it does not hold: no answer about a paper.
S2_AUTHOR_404 = recorded("semanticscholar", "test_not_found__01.json")
#: DataCite's recorded 404 for a DOI it does not hold (a JSON:API error document).
DATACITE_404 = recorded("datacite", "get_datacite_metadata__DOI_not_found__01.json")

#: HCP Terraform's API answer for a resource it does not hold, as its documentation and
#: clients give it: a JSON:API error document like DataCite's, of another service.
JSON_API_404 = b'{"errors":[{"status":"404","title":"not found"}]}'

BODIES = {
    "html": (HTML_PAGE, "text/html;charset=utf-8"),
    "crossref": (CROSSREF_404, "text/plain"),
    "s2": (S2_404, "application/json"),
    "s2_author": (S2_AUTHOR_404, "application/json"),
    "datacite": (DATACITE_404, "application/json; charset=utf-8"),
    "json_api": (JSON_API_404, "application/vnd.api+json"),
}

Ask = Callable[[HttpClient, ReplayServer], Awaitable[Lookup]]


def _crossref(doi: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        return await CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org").by_doi(
            doi
        )

    return f"https://api.crossref.org/works/{doi}", ask


def _s2_paper(doi: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        return await SemanticScholarSource(http, srv.base_url("semanticscholar")).by_doi(doi)

    return f"https://api.semanticscholar.org/graph/v1/paper/DOI:{doi}", ask


def _s2_match(title: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        source = SemanticScholarSource(http, srv.base_url("semanticscholar"))
        return await source.search(Query(title))

    query = title.replace(" ", "+")
    return f"https://api.semanticscholar.org/graph/v1/paper/search/match?query={query}", ask


def _datacite(doi: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        return await DataCiteSource(http, srv.base_url("datacite")).by_doi(doi)

    return f"https://api.datacite.org/dois/{doi}", ask


def _openalex(doi: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        return await OpenAlexSource(http, srv.base_url("openalex")).by_doi(doi)

    return f"https://api.openalex.org/works/doi:{doi}", ask


def _doi_org(doi: str) -> tuple[str, Ask]:
    async def ask(http: HttpClient, srv: ReplayServer) -> Lookup:
        return await DoiSource(http, srv.base_url("doi")).by_doi(doi)

    return f"https://doi.org/{doi}", ask


#: (where, body served with a 404, what it means): each service's own answer is "not
#: found"; an HTML page or another service's answer is a failure.  The DOIs and titles are
#: made up for these tests (no recorded route answers them).
CASES = [
    ("crossref", _crossref("10.5555/cw-404-own"), "crossref", Outcome.NOT_FOUND),
    ("crossref", _crossref("10.5555/cw-404-html"), "html", Outcome.FAILED),
    ("crossref", _crossref("10.5555/cw-404-s2"), "s2", Outcome.FAILED),
    ("s2 paper", _s2_paper("10.5555/cw-404-own"), "s2", Outcome.NOT_FOUND),
    ("s2 paper", _s2_paper("10.5555/cw-404-html"), "html", Outcome.FAILED),
    ("s2 paper", _s2_paper("10.5555/cw-404-crossref"), "crossref", Outcome.FAILED),
    ("s2 match", _s2_match("cw proxy page title"), "html", Outcome.FAILED),
    ("s2 match", _s2_match("cw crossref answer title"), "crossref", Outcome.FAILED),
    # S2's own answers for something else: an author look-up's at the paper look-up, the
    # paper look-up's at the title match (what an API without /search/match would answer)
    ("s2 paper", _s2_paper("10.5555/cw-404-s2-author"), "s2_author", Outcome.FAILED),
    ("s2 match", _s2_match("cw paper answer title"), "s2", Outcome.FAILED),
    ("datacite", _datacite("10.5555/cw-404-own"), "datacite", Outcome.NOT_FOUND),
    ("datacite", _datacite("10.5555/cw-404-html"), "html", Outcome.FAILED),
    ("datacite", _datacite("10.5555/cw-404-crossref"), "crossref", Outcome.FAILED),
    ("datacite", _datacite("10.5555/cw-404-json-api"), "json_api", Outcome.FAILED),
    ("openalex", _openalex("10.5555/cw-404-html"), "html", Outcome.FAILED),
    ("openalex", _openalex("10.5555/cw-404-crossref"), "crossref", Outcome.FAILED),
    # a JSON object with an ``error`` string, as many APIs answer at an address they do not
    # serve: OpenAlex's own 404 cannot be told from one, so none of its 404s is "not found"
    ("openalex", _openalex("10.5555/cw-404-s2"), "s2", Outcome.FAILED),
    ("openalex", _openalex("10.5555/cw-404-s2-author"), "s2_author", Outcome.FAILED),
    ("doi.org", _doi_org("10.5555/cw-404-own"), "html", Outcome.NOT_FOUND),  # its own page
    ("doi.org", _doi_org("10.5555/cw-404-crossref"), "crossref", Outcome.FAILED),
    ("doi.org", _doi_org("10.5555/cw-404-datacite"), "datacite", Outcome.FAILED),
]


@pytest.mark.parametrize(
    ("where", "route", "body", "meaning"),
    CASES,
    ids=[f"{c[0]}-{c[2]}" for c in CASES],
)
async def test_only_the_services_own_404_is_not_found(
    replay: ReplayServer,
    replay_http: HttpClient,
    where: str,
    route: tuple[str, Ask],
    body: str,
    meaning: Outcome,
) -> None:
    uri, ask = route
    content, ctype = BODIES[body]
    replay.add_route(uri, content, status=404, content_type=ctype)
    found = await ask(replay_http, replay)
    assert found.outcome is meaning, found
    assert not replay.unmatched
    if meaning is Outcome.FAILED and where == "openalex":
        shown = "an HTML page" if body == "html" else "a"
        assert found.reason is not None and found.reason.startswith(f"HTTP 404 ({shown}")
        assert "OpenAlex answers a record it does not hold as it answers an address" in (
            found.reason
        )
    elif meaning is Outcome.FAILED:
        assert found.reason is not None and found.reason.startswith("HTTP 404 that is not")
        shown = "an HTML page" if body == "html" else "a"
        assert f"not-found answer ({shown}" in found.reason
        assert "a proxy or a wrong base URL?" in found.reason


async def test_a_proxys_404_at_doi_org_leaves_the_doi_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """doi.org is the registry: its "DOI Not Found" page makes the entry's DOI one that
    does not exist (high risk).  A 404 that is not doi.org's page (here Crossref's recorded ``Resource not
    found.``, what api.crossref.org answers when the doi.org base URL points there) says
    nothing: the entry is unverified, with the reason."""
    own, proxied = "10.5555/cw-entry-own", "10.5555/cw-entry-proxied"
    replay.add_route(f"https://doi.org/{own}", HTML_PAGE, status=404, content_type="text/html")
    replay.add_route(
        f"https://doi.org/{proxied}", CROSSREF_404, status=404, content_type="text/plain"
    )
    verifier = Verifier(
        [DoiSource(replay_http, replay.base_url("doi"))],
        VerifySettings(sources=("doi",)),
        today=TODAY,
    )

    def entry(doi: str) -> object:
        fields = {"title": "A study of everything", "author": "Ada Quillfeather", "year": "2020"}
        return make_entry("k", "article", {**fields, "doi": doi})

    said = await verifier.verify(entry(own))
    unsaid = await verifier.verify(entry(proxied))
    assert said.tier is Tier.H
    assert [i.code for i in said.issues if i.code is Code.DOI_NOT_FOUND] == [Code.DOI_NOT_FOUND]
    assert unsaid.status is Status.UNVERIFIED and unsaid.tier is Tier.D
    assert not any(i.code is Code.DOI_NOT_FOUND for i in unsaid.issues)
    assert unsaid.reason is not None and "not doi.org's not-found answer" in unsaid.reason
    assert not replay.unmatched


# -- Crossref: a filter=doi: page that does not count its results -----------------------------


async def test_a_crossref_doi_page_without_total_results_says_no_doi_absent(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The batch answer is a real recorded Crossref work list whose message, as recorded,
    has no ``total-results``: a DOI it holds is FOUND, but one it lacks is not said to be
    missing (it is left to its own ``/works/{doi}`` request)."""
    page = (DATA / "addref" / "api" / "crossref" / "crossref_search_attention.json").read_bytes()
    message = json.loads(page)["message"]
    assert "total-results" not in message
    held = message["items"][0]["DOI"].lower()
    lacking = "10.5555/cw-not-on-the-page"
    replay.add_route(
        f"https://api.crossref.org/works?filter=doi:{held},doi:{lacking}&rows=2",
        page,
        content_type="application/json;charset=utf-8",
    )
    source = CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org")
    out = await source.by_dois([held, lacking])
    assert out[held].outcome is Outcome.FOUND
    assert lacking not in out
    assert not replay.unmatched


async def test_a_crossref_doi_page_that_counts_its_results_says_a_doi_absent(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The batch answer composed from recorded work records (tests/batch_replay.py, with
    its ``total-results``): a DOI it lacks is NOT_FOUND, as ``/works/{doi}`` would say."""
    held, lacking = "10.1371/journal.pone.0033693", "10.5555/cw-not-held"
    out = await CrossrefSource(
        replay_http, replay.base_url("crossref"), mailto="t@example.org"
    ).by_dois([held, lacking])
    assert out[held].outcome is Outcome.FOUND
    assert out[lacking].outcome is Outcome.NOT_FOUND


async def test_an_openalex_doi_page_that_does_not_count_says_no_doi_absent(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The same for OpenAlex: the batch answer is its recorded works page, whose ``meta``,
    as recorded, has no ``count``: a DOI it holds is FOUND, one it lacks gets no answer."""
    page = recorded("openalex", "refchecker_search_works.json")
    assert "count" not in json.loads(page)["meta"]
    held = next(
        str(w["doi"]).lower().removeprefix("https://doi.org/")
        for w in json.loads(page)["results"]
        if w.get("doi")
    )
    lacking = "10.5555/cw-not-on-the-page"
    replay.add_route(f"https://api.openalex.org/works?filter=doi:{held}|{lacking}&per_page=4", page)
    out = await OpenAlexSource(replay_http, replay.base_url("openalex")).by_dois([held, lacking])
    assert out[held].outcome is Outcome.FOUND
    assert lacking not in out
    assert not replay.unmatched


# -- dblp: result.status ----------------------------------------------------------------------


def _dblp_answer(code: str, text: str) -> bytes:
    """dblp's documented search envelope with no hits (the shape of
    tests/data/venue_search/dblp/documented_venue_no_hits.json) and the ``result.status``
    given; see tests/data/PROVENANCE.md (no recording of a failed dblp search exists)."""
    venue = (DATA / "venue_search" / "dblp" / "documented_venue_no_hits.json").read_bytes()
    result = json.loads(venue)["result"]
    result["query"] = "cw* status* check*"
    result["status"] = {"@code": code, "text": text}
    return json.dumps({"result": result}, indent=1).encode()


async def test_a_dblp_answer_whose_status_says_it_failed_is_no_answer(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    ok = "https://dblp.org/search/publ/api?q=cw+status+check+ok&format=json&h=5"
    failed = "https://dblp.org/search/publ/api?q=cw+status+check+failed&format=json&h=5"
    replay.add_route(ok, _dblp_answer("200", "OK"))
    replay.add_route(failed, _dblp_answer("500", "Internal Server Error"))
    source = DblpSource(replay_http, replay.base_url("dblp"))
    assert (await source.search(Query("cw status check ok"))).outcome is Outcome.NOT_FOUND
    answer = await source.search(Query("cw status check failed"))
    assert answer.outcome is Outcome.FAILED
    assert answer.reason == "dblp error: status 500 in its answer"
    assert not replay.unmatched


async def test_a_dblp_answer_without_hits_that_does_not_count_them_is_no_answer(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """Every dblp answer counts its hits (``hits.@total``, "0" when it holds none): a
    ``hits`` object holding no ``hit`` and no count is no answer of dblp's (a truncated
    or rewritten page), and says nothing of the work, where it was "no hits"."""
    counted = json.loads(_dblp_answer("200", "OK"))
    uncounted = json.loads(_dblp_answer("200", "OK"))
    uncounted["result"]["hits"] = {}
    listed_none = json.loads(_dblp_answer("200", "OK"))
    listed_none["result"]["hits"] = {"hit": []}
    base = "https://dblp.org/search/publ/api?format=json&h=5&q="
    replay.add_route(base + "cw+counted", json.dumps(counted).encode())
    replay.add_route(base + "cw+uncounted", json.dumps(uncounted).encode())
    replay.add_route(base + "cw+listed+none", json.dumps(listed_none).encode())
    source = DblpSource(replay_http, replay.base_url("dblp"))
    assert (await source.search(Query("cw counted"))).outcome is Outcome.NOT_FOUND
    for words in ("cw uncounted", "cw listed none"):
        answer = await source.search(Query(words))
        assert answer.outcome is Outcome.FAILED, words
        assert answer.reason == "malformed response: a page without hits that does not count them"
    replay.add_route(
        "https://dblp.org/search/venue/api", json.dumps(uncounted).encode(), any_query=True
    )
    assert (await source.venues("cw uncounted")).outcome is Outcome.FAILED
    assert not replay.unmatched


# -- Semantic Scholar: a relevance search with no hits ---------------------------------------


async def test_s2_relevance_search_without_hits_is_not_found(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """``/paper/search`` answers a query nothing matches with ``{"total": 0, "offset": 0}``
    (recorded): no ``data`` member, and no failure."""
    assert recorded_json("semanticscholar", "test_empty_paginated_results.json") == {
        "total": 0,
        "offset": 0,
    }
    source = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    found = await source.search(Query("n0 r3sult s3arch t3rm", limit=20, free_text=True))
    assert found.outcome is Outcome.NOT_FOUND, found.reason
    assert not replay.unmatched


async def test_doi_orgs_own_page_after_a_move_within_doi_org_is_not_found(
    hostile: HostileServer,
) -> None:
    """A DOI asked at an address doi.org moves (dx.doi.org -> doi.org, here a redirect on the
    loopback server) and answered there with doi.org's recorded "DOI Not Found" page is
    doi.org's answer: not found, not "its agency has no record"."""
    hostile.route("/dx/10.5555/cw-moved", Behaviour("redirect", location="/doi/10.5555/cw-moved"))
    hostile.route(
        "/doi/10.5555/cw-moved",
        Behaviour("missing", body=HTML_PAGE, content_type="text/html;charset=utf-8"),
    )
    http = fast_http()
    try:
        found = await DoiSource(http, hostile.url + "/dx").by_doi("10.5555/cw-moved")
    finally:
        await http.aclose()
    assert found.outcome is Outcome.NOT_FOUND, found.reason
    assert [s.path for s in hostile.log] == ["/dx/10.5555/cw-moved", "/doi/10.5555/cw-moved"]


async def test_a_page_doi_org_s_address_answers_without_a_redirect_says_nothing_of_the_doi(
    hostile: HostileServer,
) -> None:
    """doi.org answers a DOI with a redirect (to its agency's metadata, or to a landing
    page): an HTML page from its address itself (doi.org's recorded page, as a proxy or a
    captive portal serves one with 200) is no word that the DOI resolves, where the reason
    said it does.  After a redirect, a page that is not CSL-JSON still means the agency
    offers none."""
    page = HTML_PAGE
    hostile.route("/doi/10.1234/portal", Behaviour("ok", body=page, content_type="text/html"))
    hostile.route("/doi/10.1234/moved", Behaviour("redirect", location="/doi/landing/moved"))
    hostile.route("/doi/landing/moved", Behaviour("ok", body=page, content_type="text/html"))
    http = fast_http()
    source = DoiSource(http, hostile.url + "/doi")
    portal = await source.by_doi("10.1234/portal")
    moved = await source.by_doi("10.1234/moved")
    await http.aclose()
    assert portal.outcome is Outcome.FAILED and "resolves" not in (portal.reason or "")
    assert portal.reason == (
        "an answer that is not CSL-JSON (an HTML page) without the redirect doi.org answers "
        "with: a proxy or a wrong base URL?"
    )
    assert moved.outcome is Outcome.FAILED
    assert moved.reason == "DOI resolves but no CSL-JSON metadata is offered"
