"""A record a service holds but that has no title (a journal issue, a component, an old
deposit) says the work exists: it is a malformed answer for comparing, never "no such
DOI".  The records are Crossref's real journal issue 10.1111/cep.1979.6.issue-5 (recorded in
a ``works?sample=1`` page), served in the envelope Crossref gives ``/works/{doi}``, and
OpenAlex's real work 10.7600/jspfsm.56.60, recorded with an empty title."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from batch_replay import serve_batches
from citewarden.cache import Cache
from citewarden.model import Code, Entry, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Outcome, Query
from citewarden.verify.sources._common import UNUSABLE, UNUSABLE_HITS
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.openalex import OpenAlexSource
from replay import ReplayServer, recorded, recorded_json, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
ISSUE = "10.1111/cep.1979.6.issue-5"
#: A recorded /works/{doi} answer of Crossref's (a work with a title), batched with it.
TITLED = "10.1002/jor.1100150407"


def serve_untitled(srv: ReplayServer) -> None:
    page = recorded_json("crossref", "test-crossref_reader__test_get_random_crossref_id__00.json")
    (item,) = page["message"]["items"]
    assert item["DOI"] == ISSUE and "title" not in item
    work = {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": item}
    srv.add_route(f"https://api.crossref.org/works/{ISSUE}", json_bytes(work))


def json_bytes(value: object) -> bytes:
    import json

    return json.dumps(value).encode()


def cited_issue(key: str = "issue") -> Entry:
    fields = {
        "title": "Clinical and Experimental Pharmacology and Physiology, volume 6, issue 5",
        "year": "1979",
        "doi": ISSUE,
    }
    return make_entry(key, "misc", fields)


def verifier(srv: ReplayServer, http: HttpClient) -> Verifier:
    sources = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, srv.base_url("doi")),
    ]
    return Verifier(sources, VerifySettings(sources=("crossref", "doi")), today=TODAY)


async def test_crossref_record_without_a_title_is_a_failed_answer(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_untitled(replay)
    crossref = CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org")
    lookup = await crossref.by_doi(ISSUE)
    assert lookup.outcome is Outcome.FAILED
    assert lookup.reason == "malformed response: a record without a title"


async def test_a_batch_holding_it_leaves_the_doi_to_its_own_request(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    serve_untitled(replay)
    crossref = CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org")
    answers = await crossref.by_dois([TITLED, ISSUE])
    assert answers[TITLED].outcome is Outcome.FOUND
    assert ISSUE not in answers  # in the page, though no record is made of it


async def test_a_doi_whose_record_has_no_title_is_not_called_missing(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    serve_untitled(replay)
    v = await verifier(replay, replay_http).verify(cited_issue())
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}
    assert v.status is not Status.NOT_FOUND
    many = await verifier(replay, replay_http).verify_many([cited_issue("a")])
    assert Code.DOI_NOT_FOUND not in {i.code for i in many["a"].issues}


UNTITLED_WORK = "10.7600/jspfsm.56.60"  # OpenAlex W4230972471, recorded with an empty title
#: A recorded OpenAlex /works/doi: answer (a work with a title), batched with it.
TITLED_WORK = "10.1371/journal.pone.0000030"


async def test_openalex_work_without_a_title_is_a_failed_answer(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    openalex = OpenAlexSource(replay_http, replay.base_url("openalex"))
    alone = await openalex.by_doi(UNTITLED_WORK)
    assert alone.outcome is Outcome.FAILED and alone.reason == UNUSABLE
    answers = await openalex.by_dois([TITLED_WORK, UNTITLED_WORK])
    assert answers[TITLED_WORK].outcome is Outcome.FOUND
    assert UNTITLED_WORK not in answers  # in the page, though no record is made of it
    assert not replay.unmatched


async def test_a_search_page_whose_hits_have_no_title_is_a_failed_answer(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    """A list page whose only hit has no title (Crossref's real ``works?sample=1`` page
    holding the journal issue, served for a search): Crossref answered with a hit, so its
    answer is no "no hits", and it is not kept; it was NOT_FOUND, kept for a day, and could
    make a reference not found."""
    page = recorded("crossref", "test-crossref_reader__test_get_random_crossref_id__00.json")
    replay.add_route("https://api.crossref.org/works", page, any_query=True)
    with Cache(tmp_path / "cache") as cache:
        source = CachedSource(CrossrefSource(replay_http, replay.base_url("crossref")), cache)
        query = Query("Clinical and experimental pharmacology and physiology", ("Smith",))
        found = await source.search(query)
        assert found.outcome is Outcome.FAILED and found.reason == UNUSABLE_HITS
        assert (await source.search(query)).outcome is Outcome.FAILED
        assert replay.requests_to("/crossref/works") == 2  # the failure was not kept
