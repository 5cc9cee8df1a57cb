"""Requests a verification run does not need to send: an answer it already has settles
them, with the verdicts the request would have given.

Over the replay server (real recorded responses, the real HTTP client): Cybenko's 1989
paper, dblp's recorded search page for its title (refchecker's recording, its hits in the
``result`` envelope dblp answers with, as tests/data/api/dblp holds others) and Crossref's
recorded ``/works/10.1007/BF02551274``."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

from batch_replay import serve_batches
from citewarden.cache import Cache
from citewarden.model import Code, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.sources import CachedSource
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.dblp import DblpSource
from paths import DATA
from replay import ReplayServer, recorded, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
TITLE = "Approximation by superpositions of a sigmoidal function"
DOI = "10.1007/bf02551274"


def dblp_page(title: str) -> bytes:
    """dblp's recorded answer to a search for ``title`` (refchecker kept its hits)."""
    path = DATA / "accuracy" / "refchecker" / "dblp_search.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["cache_query"].split("|")[0] == title:
            return json.dumps({"result": {"hits": {"hit": row["body"]}}}).encode()
    raise LookupError(title)


def serve(srv: ReplayServer) -> None:
    serve_batches(srv)
    srv.add_route("https://dblp.org/search/publ/api", dblp_page(TITLE), any_query=True)
    # Crossref's search answers with a recorded page of other works (ecology papers)
    srv.add_route(
        "https://api.crossref.org/works",
        recorded("crossref", "test-works__test_works_field_queries.json"),
        any_query=True,
    )


def verifier(srv: ReplayServer, http: HttpClient, store: Cache | None = None) -> Verifier:
    made = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        DblpSource(http, srv.base_url("dblp")),
    ]
    sources = [CachedSource(s, store) for s in made] if store is not None else made
    settings = VerifySettings(sources=("crossref", "dblp"), concurrency=4)
    return Verifier(sources, settings, today=TODAY)


def cybenko(key: str, **more: str) -> object:
    fields = {
        "title": TITLE,
        "author": "Cybenko, George",
        "journal": "Mathematics of Control, Signals, and Systems",
        "year": "1989",
        **more,
    }
    return make_entry(key, "article", fields)


def notices_asked(srv: ReplayServer) -> list[str]:
    return [s.query for s in srv.log if "updates" in s.query]


async def test_a_work_matched_at_dblp_asks_crossref_for_its_notices(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve(replay)
    v = await verifier(replay, replay_http).verify(cybenko("found"))  # type: ignore[arg-type]
    assert v.status is Status.VERIFIED and v.match is not None
    assert v.match.source == "dblp" and v.match.doi == DOI
    assert len(notices_asked(replay)) == 1


async def test_crossrefs_record_of_the_doi_at_hand_answers_for_the_notices(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    # another entry cites the DOI: the plan fetches Crossref's record of it (kept in the
    # cache), whose updated-by lists the notices filter=updates would give
    serve(replay)
    found, cited = cybenko("found"), cybenko("cited", doi="10.1007/BF02551274")
    store = Cache(tmp_path / "cache")
    try:
        v = verifier(replay, replay_http, store)
        results = await v.verify_many([found, cited])  # type: ignore[list-item]
    finally:
        store.close()
    v = results["found"]
    assert v.status is Status.VERIFIED and v.match is not None
    assert v.match.source == "dblp" and v.match.doi == DOI
    assert "crossref" in v.sources
    assert results["cited"].status is Status.VERIFIED
    assert notices_asked(replay) == []
    assert replay.unmatched == []


async def test_a_notice_in_the_record_at_hand_is_reported(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    # the same record with the correction notice PLoS ONE's record carries in updated-by
    # (tests/data/api/crossref/test-works__test_works_with_one_id.json)
    pone = json.loads(recorded("crossref", "test-works__test_works_with_one_id.json"))
    updated_by = pone["message"]["updated-by"]
    body = json.loads(recorded("crossref", "refchecker_get_by_doi_efb3cb1d62.json"))
    body["message"]["updated-by"] = updated_by
    serve(replay)
    replay.add_route("https://api.crossref.org/works/10.1007/BF02551274", json.dumps(body).encode())
    store = Cache(tmp_path / "cache")
    try:
        first = verifier(replay, replay_http, store)
        await first.verify(cybenko("cited", doi="10.1007/BF02551274"))  # type: ignore[arg-type]
        v = await verifier(replay, replay_http, store).verify(cybenko("found"))  # type: ignore[arg-type]
    finally:
        store.close()
    assert v.match is not None and v.match.source == "dblp"
    assert [i.code for i in v.issues] == [Code.MISSING_DOI, Code.CORRECTED]
    assert notices_asked(replay) == []


async def test_entries_citing_one_arxiv_id_share_the_batch_in_flight(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # arXiv answers one request every three seconds: the plan's id_list batch is often
    # still in flight when the entries are compared.  Every entry citing the id waits for
    # it; none sends the single look-up.
    serve_batches(replay)
    replay.latencies = {"/arxiv": 0.3}
    arxiv = ArxivSource(replay_http, replay.base_url("arxiv"))
    v = Verifier([arxiv], VerifySettings(sources=("arxiv",), concurrency=4), today=TODAY)
    fields = {
        "title": "Heat-bath random walks with {M}arkov bases",
        "author": "Stanley, Caprice and Windisch, Tobias",
        "year": "2016",
        "eprint": "1605.08386",
        "archiveprefix": "arXiv",
    }
    entries = [make_entry(k, "misc", fields) for k in ("a", "b", "c")]
    results = await asyncio.wait_for(v.verify_many(entries), 30)
    assert [r.status for r in results.values()] == [Status.VERIFIED] * 3
    assert replay.requests_to("/arxiv") == 1
