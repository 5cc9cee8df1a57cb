"""The "not found" quorum: a search stops once the field's own index and a general index
answered with no plausible record (or both hold the cited title under other authors), a
failed source is replaced by the next one, and a plausible record keeps every source asked.

Over the replay server: each source's search answers with a real recorded page of its own
(dblp, OpenAlex, Crossref, Semantic Scholar), served for any query on its path; the
entries' titles are made up, so no record on those pages is their work.  The chimeric case
runs over in-memory sources holding real recorded Crossref records (tests/data/accuracy),
as every index of the work holds it."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from citewarden.model import Code, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from paths import DATA
from replay import ReplayServer, recorded, replay, replay_http, replay_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "accuracy"))
from memory_source import FlakySource, MemorySource, load_records

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


async def test_a_cs_paper_is_not_found_on_dblp_and_a_general_index(
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
    # dblp and OpenAlex answered with nothing like it: Crossref (no DOI-less conference
    # papers) and Semantic Scholar are not asked
    assert searched(replay) == ["dblp", "openalex"]
    assert not replay.unmatched


async def test_a_failed_general_index_leaves_the_entry_unverified(
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
            "booktitle": "Proceedings of the ACM SIGMOD Conference",
            "year": "2023",
        },
    )
    v = await verifier(replay, replay_http).verify(entry)
    # OpenAlex said nothing: every other source is asked, and none of them is a general
    # index whose "no" settles it (Crossref holds only DOIs, Semantic Scholar's title match
    # answers close titles only)
    assert v.status is Status.UNVERIFIED
    sources = list(dict.fromkeys(searched(replay)))
    assert sources == ["dblp", "openalex", "crossref", "semanticscholar"]


async def test_a_failed_source_of_a_group_is_replaced_by_another() -> None:
    records = [r for r in load_records(DATA / "accuracy" / "records.jsonl") if r.authors][:5]
    names = ("crossref", "openalex", "pubmed", "dblp")
    inner = {n: MemorySource(n, records) for n in names}
    crossref = FlakySource(inner["crossref"], fail_rate=1.0)
    settings = VerifySettings(sources=names)
    sources = [crossref, inner["openalex"], inner["pubmed"], inner["dblp"]]
    entry = make_entry(
        "made_up",
        "article",
        {
            "title": "Quilted lattices of the ventral striatum in sleep-deprived voles",
            "author": AUTHORS,
            "journal": "Journal of Neuroscience Methods",
            "year": "2019",
        },
    )
    v = await Verifier(sources, settings, today=TODAY).verify(entry)
    # biomedicine: PubMed, then Crossref (failed: it said nothing), then OpenAlex, which
    # completes the quorum in its place
    assert v.status is Status.NOT_FOUND
    assert crossref.failures == 1 and inner["openalex"].calls["search"] == 1
    assert inner["dblp"].calls["search"] == 0  # not its field


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
    assert set(searched(replay)) == {"dblp", "openalex", "crossref", "semanticscholar"}


async def test_a_journal_article_is_not_found_on_crossref_and_openalex(
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
    assert searched(replay) == ["crossref", "openalex"]


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
    assert searched(replay) == ["dblp", "openalex", "crossref", "semanticscholar"]


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
    # dblp and OpenAlex both list the title under other authors: the quorum has answered
    assert {n: s.calls["search"] for n, s in sources.items()} == {
        "dblp": 1,
        "openalex": 1,
        "crossref": 0,
        "semanticscholar": 0,
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
