"""The "not found" quorum: a search stops once the field's own index and the general indexes
answered with no plausible record (or hold the cited title under other authors), a failed
source makes every source asked (and the entry unverified), a plausible record keeps every
source asked.

Over the replay server: each source's search answers with a real recorded page of its own
(dblp, OpenAlex, Crossref, Semantic Scholar), served for any query on its path; the
entries' titles are made up, so no record on those pages is their work.  The chimeric case
runs over in-memory sources holding real recorded Crossref records (tests/data/accuracy),
as every index of the work holds it."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import date
from pathlib import Path

from citewarden.model import Code, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import WorkRecord
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from paths import DATA
from replay import ReplayServer, recorded, replay, replay_http, replay_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "accuracy"))
from memory_source import MemorySource, load_records

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
NAMES = ("crossref", "openalex", "semanticscholar", "dblp")
AUTHORS = "Ada Quillfeather and Tomas Brindlewood"


def serve_searches(srv: ReplayServer) -> None:
    """Every source's recorded search page, for any query on its search path."""
    srv.add_route(
        "https://dblp.org/search/publ/api",
        recorded("dblp", "refchecker_search_869c81ad65.json"),
        any_query=True,
    )
    srv.add_route(
        "https://api.semanticscholar.org/graph/v1/paper/search/match",
        recorded("semanticscholar", "test_search_paper_match_title.json"),
        any_query=True,
    )


def verifier(srv: ReplayServer, http: HttpClient) -> Verifier:
    sources = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        OpenAlexSource(http, srv.base_url("openalex")),
        SemanticScholarSource(http, srv.base_url("semanticscholar")),
        DblpSource(http, srv.base_url("dblp")),
    ]
    return Verifier(sources, VerifySettings(sources=NAMES, concurrency=4), today=TODAY)


def searched(srv: ReplayServer) -> list[str]:
    """The sources searched, in order (one entry per request)."""
    return [seen.path.split("/")[1] for seen in srv.log]


def held_by(name: str, recs: list[WorkRecord]) -> MemorySource:
    """An in-memory source holding ``recs`` as its own records."""
    return MemorySource(name, [dataclasses.replace(r, source=name) for r in recs])


async def test_a_cs_paper_is_not_found_on_dblp_and_the_general_indexes(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_searches(replay)
    entry = make_entry(
        "made_up",
        "inproceedings",
        {
            "title": "Quilted gradient lattices for sparse transformers",
            "author": AUTHORS,
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": "2023",
        },
    )
    v = await verifier(replay, replay_http).verify(entry)
    assert v.status is Status.NOT_FOUND and Code.NOT_FOUND in {i.code for i in v.issues}
    # dblp, OpenAlex and Semantic Scholar answered with nothing like it: Crossref (which
    # holds no DOI-less conference paper) is not asked
    assert searched(replay) == ["dblp", "openalex", "semanticscholar"]
    assert not replay.unmatched


async def test_a_failed_source_of_the_quorum_leaves_the_entry_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_searches(replay)
    replay.inject("503", path="/openalex/", times=10)
    entry = make_entry(
        "made_up",
        "inproceedings",
        {
            "title": "Quilted gradient lattices for sparse transformers",
            "author": AUTHORS,
            # an ACM venue: Crossref, which holds ACM's proceedings, is in the quorum
            "booktitle": "Proceedings of the ACM SIGMOD Conference",
            "year": "2023",
        },
    )
    v = await verifier(replay, replay_http).verify(entry)
    # OpenAlex said nothing: every source is asked, and the entry is not called not found
    assert v.status is Status.UNVERIFIED
    sources = list(dict.fromkeys(searched(replay)))
    assert sources == ["dblp", "crossref", "openalex", "semanticscholar"]


async def test_without_an_answering_quorum_the_entry_stays_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_searches(replay)
    replay.inject("503", path="/dblp/", times=10)
    entry = make_entry(
        "made_up",
        "inproceedings",
        {
            "title": "Quilted gradient lattices for sparse transformers",
            "author": AUTHORS,
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": "2023",
        },
    )
    v = await verifier(replay, replay_http).verify(entry)
    # dblp, the field's own index, failed: the general indexes alone are not its quorum
    assert v.status is Status.UNVERIFIED
    assert list(dict.fromkeys(searched(replay))) == [
        "dblp",
        "openalex",
        "semanticscholar",
        "crossref",
    ]


async def test_a_journal_article_is_not_found_on_crossref_and_the_general_indexes(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_searches(replay)
    entry = make_entry(
        "made_up",
        "article",
        {
            "title": "Tidal memory in the pricing of municipal bonds",
            "author": AUTHORS,
            "journal": "Journal of Economic Theory",
            "year": "2021",
        },
    )
    v = await verifier(replay, replay_http).verify(entry)
    assert v.status is Status.NOT_FOUND
    assert searched(replay) == ["crossref", "openalex", "semanticscholar"]


async def test_a_plausible_record_keeps_every_source_asked(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_searches(replay)
    page = json.loads(recorded("dblp", "refchecker_search_869c81ad65.json"))
    title = page["result"]["hits"]["hit"][0]["info"]["title"].rstrip(".")
    entry = make_entry(
        "near",
        "inproceedings",
        {
            # dblp's record with one word changed, by other authors: close, not the work
            "title": title.replace("Survey", "Tutorial"),
            "author": AUTHORS,
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": "2023",
        },
    )
    await verifier(replay, replay_http).verify(entry)
    assert searched(replay) == ["dblp", "openalex", "semanticscholar", "crossref"]


async def test_a_title_two_indexes_hold_under_other_authors_stops_the_search() -> None:
    record = next(r for r in load_records(DATA / "accuracy" / "records.jsonl") if r.authors)
    sources = {n: MemorySource(n, [record]) for n in NAMES}
    settings = VerifySettings(sources=NAMES)
    entry = make_entry(
        "chimeric",
        "inproceedings",
        {
            "title": record.title or "",
            "author": AUTHORS,
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": str(record.year or 2020),
        },
    )
    v = await Verifier(list(sources.values()), settings, today=TODAY).verify(entry)
    assert v.status is Status.MISMATCH and Code.CHIMERIC in {i.code for i in v.issues}
    # dblp, OpenAlex and Semantic Scholar list the title under other authors: the quorum
    # has answered, Crossref is not asked
    assert {n: s.calls["search"] for n, s in sources.items()} == {
        "dblp": 1,
        "openalex": 1,
        "crossref": 0,
        "semanticscholar": 1,
    }


async def test_a_book_waits_for_the_catalogue_before_it_is_not_found() -> None:
    records = [r for r in load_records(DATA / "accuracy" / "records.jsonl") if r.authors]
    book, others = records[0], records[1:4]
    names = ("crossref", "openalex", "semanticscholar", "openlibrary")
    sources = {n: MemorySource(n, others) for n in names[:3]}
    sources["openlibrary"] = MemorySource("openlibrary", [book])
    entry = make_entry(
        "book",
        "book",
        {
            "title": book.title or "",
            "author": " and ".join(f"{a.given} {a.family}" for a in book.authors),
            "year": str(book.year or 2020),
        },
    )
    verifier = Verifier(list(sources.values()), VerifySettings(sources=names), today=TODAY)
    v = await verifier.verify(entry)
    # Crossref and OpenAlex answered with nothing like it, but a book's catalogue is asked
    # too before "not found": it holds the work
    assert sources["openlibrary"].calls["search"] == 1
    assert v.status is Status.VERIFIED, v.issues


async def test_a_second_opinion_by_search_comes_first_from_the_sources_already_asked() -> None:
    records = [r for r in load_records(DATA / "accuracy" / "records.jsonl") if r.authors]
    # a work without a DOI (a conference paper): its second opinions are asked by search
    work = next(r for r in records if len((r.title or "").split()) >= 8 and r.year)
    work = dataclasses.replace(work, doi=None)
    others = [r for r in records if r is not work][:3]
    assert work.title is not None
    words = work.title.split()
    words[-1] = words[-1] + "s"  # a near-miss title: one word changed

    sources = {
        "dblp": held_by("dblp", others),
        "openalex": held_by("openalex", [work]),
        "semanticscholar": held_by("semanticscholar", [work]),
        "crossref": held_by("crossref", others),
    }
    entry = make_entry(
        "near",
        "inproceedings",
        {
            "title": " ".join(words),
            "author": " and ".join(f"{a.given} {a.family}" for a in work.authors),
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": str(work.year or 2020),
        },
    )
    settings = VerifySettings(sources=NAMES)
    await Verifier(list(sources.values()), settings, today=TODAY).verify(entry)
    # dblp, OpenAlex and Semantic Scholar were searched with the same query (their answers
    # are in the cache): they give the second opinions on the title; Crossref is not asked
    assert sources["crossref"].calls["search"] == 0


async def test_a_source_that_answers_without_the_work_does_not_confirm_a_near_miss() -> None:
    # dblp holds the work under a title one word off, OpenAlex answers without it: that is
    # one source for the near miss, not two, so the search goes on and Semantic Scholar's
    # record, which agrees on everything, settles the entry
    records = [r for r in load_records(DATA / "accuracy" / "records.jsonl") if r.authors]
    first = next(r for r in records if len((r.title or "").split()) >= 8 and r.year)
    venue = "Advances in Neural Information Processing Systems"
    # a conference paper (no DOI) with the record's title, authors and year
    work = dataclasses.replace(
        first,
        doi=None,
        venue=venue,
        venue_short=(),
        issn=(),
        publisher=None,
        work_type="proceedings-article",
        volume=None,
        issue=None,
        pages=None,
    )
    others = [r for r in records if r is not first][:3]
    assert work.title is not None
    words = work.title.split()
    words[-1] = words[-1] + "s"
    near = dataclasses.replace(work, title=" ".join(words))

    sources = {
        "dblp": held_by("dblp", [near]),
        "openalex": held_by("openalex", others),
        "semanticscholar": held_by("semanticscholar", [work]),
        "crossref": held_by("crossref", others),
    }
    entry = make_entry(
        "exact",
        "inproceedings",
        {
            "title": work.title,
            "author": " and ".join(f"{a.given} {a.family}" for a in work.authors),
            "booktitle": venue,
            "year": str(work.year),
        },
    )
    v = await Verifier(list(sources.values()), VerifySettings(sources=NAMES), today=TODAY).verify(
        entry
    )
    assert sources["semanticscholar"].calls["search"] >= 1
    assert v.status is Status.VERIFIED, v.issues
    assert v.match is not None and v.match.source == "semanticscholar"
