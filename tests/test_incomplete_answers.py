"""A page that holds fewer records than it counts says nothing of the ids it leaves out.

The answers here are real recorded ones (tests/data/api, see tests/data/PROVENANCE.md) with
records cut out while the count the service sent stays: that is what the services send when
a page comes back short (arXiv's feed now and then holds fewer ``<entry>`` elements than its
``opensearch:totalResults``; an OpenAlex ``filter=doi:a|b`` page is full before every DOI is
in it when one DOI has two works).  Each test serves them on its own replay server, so the
shared one keeps its recorded routes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

import replay as replay_fixtures
from batch_replay import openalex_batch, serve_batches
from citewarden.cache import Cache
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Outcome, Query
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.openalex import OpenAlexSource
from replay import ReplayServer, recorded

replay_http = replay_fixtures.replay_http

ARXIV_QUERY = "https://export.arxiv.org/api/query"
_ENTRY = re.compile(rb"\s*<entry>.*?</entry>", re.S)


@pytest.fixture
def own() -> Iterator[ReplayServer]:
    """A replay server of the recorded answers for this test alone."""
    server = serve_batches(ReplayServer()).start()
    yield server
    server.stop()


def without_entries(feed: bytes, keep: int = 0) -> bytes:
    """A real feed with its entries past the first ``keep`` cut out; its counts stay."""
    seen = 0

    def cut(m: re.Match[bytes]) -> bytes:
        nonlocal seen
        seen += 1
        return m.group(0) if seen <= keep else b""

    return _ENTRY.sub(cut, feed)


# -- arXiv ------------------------------------------------------------------------------------


async def test_arxiv_page_short_of_its_count_is_failed_and_not_cached(
    own: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    """arXiv's feed for ``id_list=1605.08386`` (recorded) with its one entry cut out, its
    ``totalResults`` still 1: the id is not said to be absent, and nothing is cached."""
    full = recorded("arxiv", "id_1605.08386_s0_m100_199195aa31ad.xml")
    short = without_entries(full)
    assert b"<opensearch:totalResults>1<" in short and b"<entry>" not in short
    route = f"{ARXIV_QUERY}?id_list=1605.08386&max_results=1"
    own.add_route(route, short, content_type="application/atom+xml")
    cache = Cache(tmp_path / "cache")
    src = CachedSource(ArxivSource(replay_http, own.base_url("arxiv")), cache)
    single = await src.by_arxiv("1605.08386")
    batch = (await src.by_arxivs(["1605.08386"]))["1605.08386"]
    for answer in (single, batch):
        assert answer.outcome is Outcome.FAILED
        assert answer.reason and answer.reason.startswith("answer incomplete")
    # arXiv answers in full again: the id is asked again and found
    own.add_route(route, full, content_type="application/atom+xml")
    again = await src.by_arxiv("1605.08386")
    assert not again.from_cache and again.records[0].arxiv_id == "1605.08386"
    cache.close()


async def test_arxiv_batch_short_of_its_count_names_no_id_absent(
    own: ReplayServer, replay_http: HttpClient
) -> None:
    """arXiv's real batched answer for ``0808.05394,1707.08567`` counts one result, the
    entry of 1707.08567; with that entry cut out, neither id is NOT_FOUND."""
    real = recorded("arxiv", "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml")
    own.add_route(
        f"{ARXIV_QUERY}?id_list=0808.05394,1707.08567&max_results=2",
        without_entries(real),
        content_type="application/atom+xml",
    )
    src = ArxivSource(replay_http, own.base_url("arxiv"))
    out = await src.by_arxivs(["0808.05394", "1707.08567"])
    assert {i: a.outcome for i, a in out.items()} == {
        "0808.05394": Outcome.FAILED,
        "1707.08567": Outcome.FAILED,
    }
    assert own.unmatched == []


async def test_arxiv_batch_entry_of_no_readable_id_names_no_id_absent(
    own: ReplayServer, replay_http: HttpClient
) -> None:
    """arXiv's real batched answer for ``0808.05394,1707.08567`` with the id of its one
    entry damaged: that entry may be either id's, so neither is NOT_FOUND."""
    real = recorded("arxiv", "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml")
    damaged = real.replace(b"<id>http://arxiv.org/abs/1707.08567v1</id>", b"<id></id>")
    assert damaged != real
    own.add_route(
        f"{ARXIV_QUERY}?id_list=0808.05394,1707.08567&max_results=2",
        damaged,
        content_type="application/atom+xml",
    )
    out = await ArxivSource(replay_http, own.base_url("arxiv")).by_arxivs(
        ["0808.05394", "1707.08567"]
    )
    assert {i: a.outcome for i, a in out.items()} == {
        "0808.05394": Outcome.FAILED,
        "1707.08567": Outcome.FAILED,
    }
    assert out["0808.05394"].reason == ("malformed response: an entry whose arXiv id is unreadable")
    assert own.unmatched == []


async def test_arxiv_complete_pages_still_say_absent(
    own: ReplayServer, replay_http: HttpClient
) -> None:
    """The real answers for an unknown id (``totalResults`` 0, no entry) and for a batch
    holding one known and one unknown id (counts 1, holds 1) still say NOT_FOUND."""
    src = ArxivSource(replay_http, own.base_url("arxiv"))
    assert (await src.by_arxiv("0000.0000")).outcome is Outcome.NOT_FOUND
    out = await src.by_arxivs(["0808.05394", "1707.08567"])
    assert out["0808.05394"].outcome is Outcome.NOT_FOUND
    assert out["1707.08567"].outcome is Outcome.FOUND


async def test_arxiv_search_page_short_of_its_count_is_failed(
    own: ReplayServer, replay_http: HttpClient
) -> None:
    """The recorded search feed counts 2 results and holds both; cut to its first entry it
    is FAILED, not a page of one result."""
    real = recorded("arxiv", "search_del_maestro_quantum_criticality.xml")
    own.add_route(
        ARXIV_QUERY,
        without_entries(real, keep=1),
        content_type="application/atom+xml",
        any_query=True,
    )
    src = ArxivSource(replay_http, own.base_url("arxiv"))
    query = Query("Quantum criticality for extended nodes", ("Del Maestro",))
    answer = await src.search(query)
    assert answer.outcome is Outcome.FAILED
    assert parse_qs(own.log[0].query)["max_results"] == ["5"]
    own.add_route(ARXIV_QUERY, real, content_type="application/atom+xml", any_query=True)
    assert len((await src.search(query)).records) == 2
    assert own.unmatched == []


# -- OpenAlex ---------------------------------------------------------------------------------

OPENALEX_DOIS = ["10.1371/journal.pone.0000030", "10.18231/j.idjsr.2023.013", "10.4081/gh.2014.294"]


def _page(own: ReplayServer, query: str) -> tuple[dict[str, Any], int]:
    """The ``filter=doi:a|b`` page composed from the recorded works (tests/batch_replay.py),
    read back, and the ``per_page`` asked."""
    made = openalex_batch(own, "/openalex/works", query)
    assert made is not None
    return json.loads(made[2]), int(parse_qs(query)["per_page"][0])


def serve_openalex(own: ReplayServer, shape: Callable[[dict[str, Any], int], None]) -> None:
    """Answer ``filter=doi:`` pages with the composed page that ``shape`` changes."""

    def respond(server: ReplayServer, path: str, query: str) -> tuple[int, str, bytes] | None:
        filters = parse_qs(query).get("filter", [""])[0]
        if path.rstrip("/") != "/openalex/works" or not filters.startswith("doi:"):
            return None
        page, per_page = _page(server, query)
        shape(page, per_page)
        return 200, "application/json", json.dumps(page).encode()

    own.responders.insert(0, respond)


async def test_openalex_doi_left_off_a_short_page_is_asked_alone(
    own: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    """A page whose ``meta.count`` is above the works it holds (the last work cut out of the
    page composed from the recorded works): the DOI it leaves out gets no answer, so it is
    asked alone, and nothing of it is cached."""

    def cut_last(page: dict[str, Any], per_page: int) -> None:
        page["results"] = page["results"][:-1]

    serve_openalex(own, cut_last)
    cache = Cache(tmp_path / "cache")
    src = CachedSource(OpenAlexSource(replay_http, own.base_url("openalex")), cache)
    out = await src.by_dois(OPENALEX_DOIS)
    assert [out[d].outcome for d in OPENALEX_DOIS[:2]] == [Outcome.FOUND, Outcome.FOUND]
    assert OPENALEX_DOIS[2] not in out
    alone = await src.by_doi(OPENALEX_DOIS[2])
    assert not alone.from_cache and alone.records[0].doi == OPENALEX_DOIS[2]
    assert own.log[-1].path == f"/openalex/works/doi:{OPENALEX_DOIS[2]}"
    cache.close()


async def test_openalex_page_holds_a_doi_with_two_works(
    own: ReplayServer, replay_http: HttpClient
) -> None:
    """OpenAlex holds two works for the first DOI (its recorded work and a copy under another
    id): the page counts one more work than DOIs asked, and still holds every DOI."""

    def duplicate_first(page: dict[str, Any], per_page: int) -> None:
        works = page["results"]
        works.insert(1, {**works[0], "id": works[0]["id"] + "0"})
        page["meta"]["count"] = len(works)
        page["results"] = works[:per_page]

    serve_openalex(own, duplicate_first)
    src = OpenAlexSource(replay_http, own.base_url("openalex"))
    out = await src.by_dois(OPENALEX_DOIS)
    assert all(out[d].outcome is Outcome.FOUND for d in OPENALEX_DOIS)
    (seen,) = own.log
    assert int(parse_qs(seen.query)["per_page"][0]) > len(OPENALEX_DOIS)
