"""Crossref source against real recorded responses replayed over loopback."""

from __future__ import annotations

from urllib.parse import parse_qs

import replay as replay_fixtures
from batch_replay import serve_batches
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Outcome, Query, UpdateKind
from citewarden.verify.sources.crossref import CrossrefSource, filter_safe, work_from_csl
from replay import ReplayServer, recorded_json

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


def source(
    replay: ReplayServer, http: HttpClient, mailto: str | None = "team@example.org"
) -> CrossrefSource:
    return CrossrefSource(http, replay.base_url("crossref"), mailto=mailto)


async def test_by_doi_parses_recorded_work(replay: ReplayServer, replay_http: HttpClient) -> None:
    msg = recorded_json("crossref", "test-works__test_works_with_one_id.json")["message"]
    result = await source(replay, replay_http).by_doi("10.1371/journal.pone.0033693")
    assert result.outcome is Outcome.FOUND
    (rec,) = result.records
    assert rec.title == msg["title"][0]
    assert rec.authors[0].family == msg["author"][0]["family"] == "Sadasivan"
    assert rec.authors[0].given == msg["author"][0]["given"]
    assert len(rec.authors) == len(msg["author"])
    assert rec.year == msg["issued"]["date-parts"][0][0] == 2012
    assert rec.doi == "10.1371/journal.pone.0033693"
    assert rec.venue == msg["container-title"][0]
    assert (rec.volume, rec.issue, rec.pages) == (msg["volume"], msg["issue"], msg["page"])
    assert rec.issn == tuple(msg["ISSN"])
    # updated-by: a correction notice from the publisher
    assert [u.kind for u in rec.updates] == [UpdateKind.CORRECTION]
    assert rec.updates[0].doi == msg["updated-by"][0]["DOI"].lower()
    assert not rec.is_notice
    assert replay.unmatched == []


async def test_mailto_goes_in_polite_pool_params(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    await source(replay, replay_http).by_doi("10.1371/journal.pone.0033693")
    (seen,) = replay.log
    assert parse_qs(seen.query)["mailto"] == ["team@example.org"]


async def test_year_ignores_created_date(replay: ReplayServer, replay_http: HttpClient) -> None:
    msg = recorded_json("crossref", "test-works__test_works_with_one_id.json")["message"]
    # the record was created (deposited) on a different day than it was issued
    assert msg["created"]["date-parts"] != msg["issued"]["date-parts"]
    result = await source(replay, replay_http).by_doi("10.1371/journal.pone.0033693")
    assert result.records[0].year == msg["issued"]["date-parts"][0][0]


async def test_subtitle_is_kept_apart(replay: ReplayServer, replay_http: HttpClient) -> None:
    msg = recorded_json("crossref", "test-metadata__test_list_of_pids__02.json")["message"]
    result = await source(replay, replay_http).by_doi("10.1145/3448016.3452841")
    rec = result.records[0]
    assert rec.title == msg["title"][0] == "Vector Quotient Filters"
    assert rec.subtitle == msg["subtitle"][0]
    assert rec.work_type == "proceedings-article"
    assert rec.pages == msg["page"]


async def test_multiple_titles_first_is_title_rest_kept(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    msg = recorded_json("crossref", "test-crossref_reader__test_multipe_titles__01.json")["message"]
    result = await source(replay, replay_http).by_doi("10.1007/s00120-007-1345-2")
    rec = result.records[0]
    assert rec.title == msg["title"][0]
    assert ("alt-title", msg["title"][1]) in rec.extra
    assert rec.venue_short == tuple(msg["short-container-title"])


async def test_self_referencing_new_version_is_not_a_notice(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    msg = recorded_json("crossref", "test-bibtex_writer__test_article_with_pages__01.json")[
        "message"
    ]
    assert msg["update-to"][0]["DOI"] == msg["DOI"]
    result = await source(replay, replay_http).by_doi(msg["DOI"])
    rec = result.records[0]
    assert not rec.is_notice
    assert rec.updates == ()


async def test_uppercase_doi_and_url_form(replay: ReplayServer, replay_http: HttpClient) -> None:
    result = await source(replay, replay_http).by_doi("https://doi.org/10.1007/BF02551274")
    rec = result.records[0]
    assert rec.title == "Approximation by superpositions of a sigmoidal function"
    assert rec.authors[0].family == "Cybenko"
    assert rec.year == 1989
    assert rec.doi == "10.1007/bf02551274"
    assert replay.unmatched == []


async def test_unknown_doi_is_not_found(replay: ReplayServer, replay_http: HttpClient) -> None:
    result = await source(replay, replay_http).by_doi("10.1371/notarealdoi")
    assert result.outcome is Outcome.NOT_FOUND


async def test_garbage_doi_404_with_text_body_is_not_found(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # Crossref answers 404 "Resource not found." labelled application/json
    result = await source(replay, replay_http).by_doi("blblbl")
    assert result.outcome is Outcome.NOT_FOUND


async def test_fielded_search_sends_title_and_author(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    page = recorded_json("crossref", "test-works__test_works_field_queries.json")["message"]
    result = await source(replay, replay_http).search(Query("ecology", ("Boettiger",), limit=5))
    assert result.outcome is Outcome.FOUND
    assert len(result.records) == len(page["items"])
    first = result.records[0]
    assert first.title == page["items"][0]["title"][0]
    assert first.relevance == page["items"][0]["score"]
    (seen,) = replay.log
    params = parse_qs(seen.query)
    assert params["query.title"] == ["ecology"]
    assert params["query.author"] == ["Boettiger"]
    assert params["rows"] == ["5"]
    assert seen.path == "/crossref/works"


async def test_search_without_authors_is_bibliographic(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    await source(replay, replay_http).search(Query("The forecast trap"))
    params = parse_qs(replay.log[0].query)
    assert params["query.bibliographic"] == ["The forecast trap"]
    assert "query.title" not in params


async def test_jats_markup_stripped_from_titles(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    result = await source(replay, replay_http).search(Query("ecology", ("Boettiger",)))
    titles = {r.doi: r.title for r in result.records}
    assert (
        titles["10.1002/fee.70021"] == "The role of AI in ecology’s computational carbon footprint"
    )
    assert titles["10.1111/2041-210x.13501"].startswith("A Shiny r app to solve the problem")
    assert all("<" not in t for t in titles.values())


async def test_notices_query_uses_updates_filter(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    result = await source(replay, replay_http).notices("10.1371/journal.pone.0033693")
    assert result.outcome is Outcome.NOT_FOUND  # no recorded notice names the work
    params = parse_qs(replay.log[0].query)
    assert params["filter"] == ["updates:10.1371/journal.pone.0033693"]


async def test_notices_of_many_dois_in_one_request(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # composed from the recorded work records (tests/batch_replay.py): PLOS's record of
    # 10.1371/journal.ppat.1008184 names itself in update-to ("new_version"), so the
    # filter lists it, but it is no notice about the work
    serve_batches(replay)
    src = source(replay, replay_http)
    own = "10.1371/journal.ppat.1008184"
    single = await src.notices(own)
    assert single.outcome is Outcome.FOUND and not single.records[0].is_notice
    replay.log.clear()
    out = await src.notices_many([own, "10.1371/journal.pone.0033693", "10.1000/a,b"])
    (seen,) = replay.log  # the DOI with a comma is not sent: it would end the filter
    assert parse_qs(seen.query)["filter"] == [f"updates:{own},updates:10.1371/journal.pone.0033693"]
    assert set(out) == {own, "10.1371/journal.pone.0033693"}
    assert all(a.outcome is Outcome.NOT_FOUND for a in out.values())
    # a batch of one is the single look-up
    replay.log.clear()
    assert (await src.notices_many([own])) == {own: single}
    assert parse_qs(replay.log[0].query)["rows"] == ["20"]


async def test_notices_answer_that_does_not_list_every_match_fails(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # without the composer the replay serves its recorded search page for any /works
    # query: its total-results is far above the items it lists, so the notices it may
    # leave out are not known, and each DOI asks on its own
    responders, replay.responders = replay.responders, []
    try:
        out = await source(replay, replay_http).notices_many(
            ["10.1371/journal.ppat.1008184", "10.1371/journal.pone.0033693"]
        )
    finally:
        replay.responders = responders
    assert {a.outcome for a in out.values()} == {Outcome.FAILED}
    assert {a.reason for a in out.values()} == {"answer incomplete: more notices than a page"}


async def test_public_pool_without_mailto(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = source(replay, replay_http, mailto=None)
    await src.by_doi("10.1371/journal.pone.0033693")
    await src.search(Query("ecology"))
    assert "mailto" not in parse_qs(replay.log[0].query)
    assert replay_http.stats.requests == {"crossref-public": 1, "crossref-query-public": 1}


def test_organisation_author_and_missing_authors_and_null_dates() -> None:
    org = {"title": ["X"], "author": [{"name": "OLYMPUS Collaboration", "sequence": "first"}]}
    rec = work_from_csl(org)
    assert rec is not None and rec.authors[0].family == "OLYMPUS Collaboration"
    rec = work_from_csl({"title": ["Only a title"], "issued": {"date-parts": [[None]]}})
    assert rec is not None and rec.authors == () and rec.year is None
    assert work_from_csl({"title": []}) is None
    assert work_from_csl({"title": ["T"], "subtitle": [""]}).subtitle is None  # type: ignore[union-attr]


async def test_batch_lookup_is_one_filter_request(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # the answer is composed from recorded /works/{doi} answers (tests/batch_replay.py)
    one = recorded_json("crossref", "test-works__test_works_with_one_id.json")["message"]
    two = recorded_json("crossref", "test-metadata__test_list_of_pids__02.json")["message"]
    present = [one["DOI"], two["DOI"].upper()]
    out = await source(replay, replay_http).by_dois([*present, "10.1371/notarealdoi"])
    assert out[present[0].lower()].records[0].title == one["title"][0]
    assert out[present[1].lower()].outcome is Outcome.FOUND
    # absent from an answer that holds others of its DOIs (ORed filters): not at Crossref
    assert out["10.1371/notarealdoi"].outcome is Outcome.NOT_FOUND
    (seen,) = replay.log
    assert parse_qs(seen.query)["filter"] == [
        f"doi:{present[0].lower()},doi:{present[1].lower()},doi:10.1371/notarealdoi"
    ]
    assert replay_http.stats.requests == {"crossref-query": 1}


async def test_batch_absences_it_cannot_vouch_for_are_left_out(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # an answer holding none of the DOIs asked may be an AND of the filters; a DOI outside
    # the plain modern syntax may not be carried by the filter: neither is "not found",
    # so the plan asks /works/{doi} for them
    src = source(replay, replay_http)
    assert await src.by_dois(["10.1371/notarealdoi", "10.1126/foo"]) == {}
    one = recorded_json("crossref", "test-works__test_works_with_one_id.json")["message"]
    sici = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"
    replay.log.clear()
    out = await src.by_dois([one["DOI"], sici, "10.1000/a,b"])
    assert set(out) == {one["DOI"].lower()}
    (seen,) = replay.log  # the DOI with a comma is not sent: it would break the filter
    assert parse_qs(seen.query)["filter"] == [f"doi:{one['DOI'].lower()},doi:{sici.lower()}"]
    assert [filter_safe(d) for d in ("10.1126/foo", "10.1016/j.cell.2020.01.001")] == [True, True]
    assert not any(map(filter_safe, (sici.lower(), "10.1000/a,b", "10.1000/x:y", "10.1/x")))
