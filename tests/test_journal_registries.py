"""DOAJ and the NLM Catalog as legitimacy evidence (heuristic 10): the real sources over
loopback, answers in the services' documented shapes holding only real facts (see
tests/data/PROVENANCE.md), the journal look-up step, and what reports show of them."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import replay as replay_fixtures
from citewarden.cache import Cache
from citewarden.model import Code, Status, Tier, Verdict
from citewarden.report.json_report import entry_json
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.journals import journal_records
from citewarden.verify.legitimacy import journal_line, with_venue
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import Lookup, Outcome, WorkRecord
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.doaj import DoajSource
from citewarden.verify.sources.journals import journal_from_doaj, journal_from_nlm
from citewarden.verify.sources.openalex import OpenAlexSource, work_from_openalex
from citewarden.verify.sources.pubmed import PubMedSource
from hostile_server import Behaviour, HostileServer, hostile
from replay import ReplayServer, fast_http, recorded_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "accuracy"))
from memory_source import MemorySource

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http
hostile = hostile
TODAY = date(2026, 11, 29)

#: A work of the American Journal of Public Health as a source without index data would
#: give it (title and linking ISSN from the recorded PubMed article 35679569).
AJPH_WORK = WorkRecord(
    "crossref",
    "Public Health Nursing's Impact on Strengthening Community Resilience",
    year=2022,
    venue="American journal of public health",
    issn=("0090-0036",),
    work_type="journal-article",
)


async def direct(source: Any, name: str, method: str, arg: str) -> Lookup:
    """The journal step's look-ups asked straight of the source (the engine's go through
    its slots and cache)."""
    answer: Lookup = await getattr(source, method)(arg)
    return answer


def idjsr() -> WorkRecord:
    rec = work_from_openalex(recorded_json("openalex", "peneira_work_idjsr.2023.013.json"))
    assert rec is not None
    return rec


def entry_for(rec: WorkRecord, **extra: str) -> object:
    fields = {"title": rec.title, "journal": rec.venue or "", "year": str(rec.year), **extra}
    return make_entry("k", "article", fields)


async def test_doaj_source_answers_by_issn(replay: ReplayServer, replay_http: HttpClient) -> None:
    doaj = DoajSource(replay_http, replay.base_url("doaj"))
    held = await doaj.journal("1827-1987")
    assert held.outcome is Outcome.FOUND and len(held.records) == 1
    rec = held.records[0]
    assert rec.venue == "Geospatial Health" and rec.issn == ("1827-1987", "1970-7096")
    assert rec.venue_indexes == ("doaj",) and rec.venue_not_in == ()
    assert journal_line(rec) == "DOAJ journal record for 1827-1987, 1970-7096: in DOAJ"
    absent = await doaj.journal("2278-3784")
    assert absent.outcome is Outcome.NOT_FOUND
    assert [s.path for s in replay.log] == [
        "/doaj/api/search/journals/issn:1827-1987",
        "/doaj/api/search/journals/issn:2278-3784",
    ]
    assert replay.unmatched == []
    # no work look-ups: the engine skips what a source does not support
    assert (await doaj.by_doi("10.1/x")).reason == "unsupported"


async def test_doaj_failure_says_nothing(replay: ReplayServer, replay_http: HttpClient) -> None:
    doaj = DoajSource(replay_http, replay.base_url("doaj"))
    replay.inject("503", path="/doaj", times=10, retry_after="0")
    assert (await doaj.journal("2278-3784")).outcome is Outcome.FAILED
    replay.clear()
    replay.inject("malformed", path="/doaj", times=10)
    assert (await doaj.journal("2278-3784")).outcome is Outcome.FAILED


@pytest.mark.parametrize(
    "damage",
    [
        lambda r: ["oops"],  # results that are not journal records
        lambda r: [{**r[0], "bibjson": None}],
        lambda r: [{**r[0], "bibjson": {"title": "Geospatial Health"}}],  # no ISSN at all
    ],
)
async def test_a_damaged_doaj_answer_is_no_answer(
    hostile: HostileServer, damage: Callable[[list[Any]], list[Any]]
) -> None:
    """Results DOAJ would never send say nothing of DOAJ indexing: FAILED, never the
    "no such journal" that counts as "not in DOAJ"."""
    body = recorded_json("doaj", "documented_journals_issn_1827-1987.json")
    body["results"] = damage(body["results"])
    hostile.route("/api/search/journals/issn:1827-1987", Behaviour("ok", json.dumps(body).encode()))
    http = fast_http()
    try:
        answer = await DoajSource(http, hostile.url).journal("1827-1987")
    finally:
        await http.aclose()
    assert answer.outcome is Outcome.FAILED and answer.reason.startswith("malformed response")


@pytest.mark.parametrize("ids", [[1254074], ["NLM1254074"], ["1254074", None]])
async def test_a_damaged_nlm_catalog_id_list_is_no_answer(
    hostile: HostileServer, ids: list[Any]
) -> None:
    """An id list holding what is no NLM id: FAILED (as PubMed's own search treats it),
    never the "no such journal" that counts as "not in PubMed"."""
    body = recorded_json("pubmed", "documented_nlmcatalog_esearch_0090-0036.json")
    body["esearchresult"]["idlist"] = ids
    hostile.route("/entrez/eutils/esearch.fcgi", Behaviour("ok", json.dumps(body).encode()))
    http = fast_http()
    try:
        answer = await PubMedSource(http, hostile.url).journal("0090-0036")
    finally:
        await http.aclose()
    assert answer.outcome is Outcome.FAILED and "not an NLM id" in answer.reason
    assert not hostile.seen("/entrez/eutils/esummary.fcgi")


def test_doaj_record_fields() -> None:
    # parser input: the replayed result with fields it lacks, valued as DOAJ's data-model
    # documentation shows them (created_date, oa_start 0) and the publisher OpenAlex records
    result = recorded_json("doaj", "documented_journals_issn_1827-1987.json")["results"][0]
    bib = {**result["bibjson"], "oa_start": 0, "publisher": {"name": "PAGEPress (Italy)"}}
    rec = journal_from_doaj({**result, "created_date": "2024-10-29T15:20:26Z", "bibjson": bib})
    assert rec is not None and dict(rec.extra)["in_doaj_since"] == "2024"
    assert journal_line(rec) == (  # oa_start 0 is no year: left out
        "DOAJ journal record for 1827-1987, 1970-7096: in DOAJ since 2024, "
        "publisher PAGEPress (Italy)"
    )
    # the year reader alone (no journal is described here)
    rec = journal_from_doaj({"bibjson": {"title": "T", "oa_start": 2006}})
    assert rec is not None and "open access since 2006" in journal_line(rec)
    withdrawn = journal_from_doaj({**result, "admin": {"in_doaj": False}})
    assert withdrawn is not None and withdrawn.venue_not_in == ("doaj",)
    assert withdrawn.venue_indexes == ()
    assert journal_from_doaj({"bibjson": {}}) is None and journal_from_doaj([]) is None


async def test_nlm_catalog_through_the_pubmed_lane(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    pubmed = PubMedSource(replay_http, replay.base_url("pubmed"))
    found = await pubmed.journal("0090-0036")
    assert found.outcome is Outcome.FOUND
    rec = found.records[0]
    assert rec.venue == "American journal of public health"
    assert rec.issn == ("0090-0036", "1541-0048") and rec.record_id == "1254074"
    assert rec.venue_indexes == ("pubmed", "medline")
    assert journal_line(rec) == (
        "NLM Catalog record 1254074 for 0090-0036, 1541-0048: currently indexed for MEDLINE, "
        "MEDLINE abbreviation Am J Public Health"
    )
    asked = [(s.path, s.query) for s in replay.log]
    assert [p for p, _ in asked] == [
        "/pubmed/entrez/eutils/esearch.fcgi",
        "/pubmed/entrez/eutils/esummary.fcgi",
    ]
    assert all("db=nlmcatalog" in q and "tool=citewarden" in q for _, q in asked)
    assert replay.unmatched == []
    # the catalog's requests are NCBI requests: one lane, one limit with PubMed's
    assert replay_http.stats.requests.get("pubmed") == 2


def test_nlm_record_without_current_indexing() -> None:
    summary = recorded_json("pubmed", "documented_nlmcatalog_esummary_1254074.json")
    item = summary["result"]["1254074"]
    rec = journal_from_nlm({**item, "currentindexingstatus": "N"})
    assert rec is not None and rec.venue_indexes == ()
    assert rec.venue_not_in == ("medline",)
    assert "not currently indexed for MEDLINE" in journal_line(rec)
    unknown = journal_from_nlm({k: v for k, v in item.items() if k != "currentindexingstatus"})
    assert unknown is not None and unknown.venue_not_in == ()
    assert journal_from_nlm({"titlemainlist": []}) is None


async def test_registries_in_question_give_evidence(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """A work whose records say nothing of indexing: DOAJ and the NLM Catalog are asked;
    their records show in the venue's indexes and evidence, the JSON and the hover."""
    sources = {
        "pubmed": PubMedSource(replay_http, replay.base_url("pubmed")),
        "doaj": DoajSource(replay_http, replay.base_url("doaj")),
    }
    entry = normalize_entry(entry_for(AJPH_WORK))  # type: ignore[arg-type]
    extra = await journal_records(sources, entry, [AJPH_WORK], direct)
    assert sorted(r.source for r in extra) == ["doaj", "pubmed"]
    verdict = with_venue(Verdict("k", Status.VERIFIED, Tier.D), entry, [AJPH_WORK, *extra])
    venue = verdict.venue
    assert venue is not None and verdict.issues == ()
    assert venue.indexed_in == ("pubmed", "medline")
    assert "in PubMed (NLM Catalog)" in venue.evidence
    assert "not in DOAJ (DOAJ)" in venue.evidence
    assert "DOAJ: no journal with ISSN 0090-0036" in venue.evidence
    row = entry_json(verdict, None, None, ())
    assert row["venue"]["indexed_in"] == ["pubmed", "medline"]
    assert any(e.startswith("NLM Catalog record 1254074") for e in row["venue"]["evidence"])
    from citewarden.lsp.verify_hover import hover_markdown

    text = hover_markdown(verdict)
    assert "NLM Catalog record 1254074" in text and "not in DOAJ (DOAJ)" in text
    from citewarden.report.contexts import venue_html

    html = venue_html(venue)
    assert "<li>in PubMed (NLM Catalog)</li>" in html and "DOAJ: no journal with ISSN" in html


async def test_registries_are_not_asked_when_indexing_is_settled(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    gh = work_from_openalex(recorded_json("openalex", "peneira_work_gh.2014.294.json"))
    assert gh is not None  # OpenAlex: in DOAJ, and the work is in PubMed
    sources = {"doaj": DoajSource(replay_http, replay.base_url("doaj"))}
    entry = normalize_entry(entry_for(gh))  # type: ignore[arg-type]
    assert await journal_records(sources, entry, [gh], direct) == []
    assert replay.log == []


async def test_doaj_decides_only_when_it_answered(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    """A journal that a record says is in neither PubMed nor Scopus, not core, with no
    publisher, but says nothing of DOAJ: DOAJ's answer "no such journal" makes it
    venue-unindexed; DOAJ failing says nothing, so no finding."""
    rec = idjsr()
    # the rule's input stated here: no recording carries the Scopus / core flags
    rec = dataclasses.replace(rec, venue_not_in=("pubmed", "scopus", "core"))
    cache = Cache(tmp_path / "cache")
    doaj = CachedSource(DoajSource(replay_http, replay.base_url("doaj")), cache)
    works = MemorySource("crossref", [rec])
    settings = VerifySettings(sources=("crossref", "doaj"))
    entry = entry_for(rec, doi=rec.doi or "")

    replay.inject("503", path="/doaj", times=10, retry_after="0")
    failed = await Verifier([works, doaj], settings, today=TODAY).verify(entry)  # type: ignore[arg-type]
    assert failed is not None and failed.status is Status.VERIFIED
    assert not any(i.code is Code.VENUE_UNINDEXED for i in failed.issues)
    assert failed.venue is not None
    assert "no source said whether it is in DOAJ" in failed.venue.evidence
    assert not any("not in DOAJ" in e for e in failed.venue.evidence)
    [line] = [e for e in failed.venue.evidence if e.startswith("DOAJ")]
    assert line.startswith("DOAJ: the look-up of ISSN 2278-3784 failed (")

    replay.clear()
    verdict = await Verifier([works, doaj], settings, today=TODAY).verify(entry)  # type: ignore[arg-type]
    assert verdict is not None and [i.code for i in verdict.issues] == [Code.VENUE_UNINDEXED]
    assert verdict.tier is Tier.E
    assert "(DOAJ, OpenAlex)" in verdict.issues[0].message
    assert verdict.venue is not None
    assert "not in DOAJ (DOAJ)" in verdict.venue.evidence
    assert "DOAJ: no journal with ISSN 2278-3784" in verdict.venue.evidence
    asked = len(replay.log)
    # cached like works: the second verification asks DOAJ nothing
    again = await Verifier([works, doaj], settings, today=TODAY).verify(entry)  # type: ignore[arg-type]
    assert again is not None and again.venue == verdict.venue and len(replay.log) == asked
    assert replay.unmatched == []


async def test_openalex_and_doaj_together(replay: ReplayServer, replay_http: HttpClient) -> None:
    """The recorded IDJSR work at OpenAlex and its Source record, and DOAJ: both say it is
    not in DOAJ, and the evidence names both."""
    rec = idjsr()
    works = MemorySource("crossref", [rec])
    openalex = OpenAlexSource(replay_http, replay.base_url("openalex"))
    doaj = DoajSource(replay_http, replay.base_url("doaj"))
    settings = VerifySettings(sources=("crossref", "openalex", "doaj"))
    verdict = await Verifier([works, openalex, doaj], settings, today=TODAY).verify(
        entry_for(rec, doi=rec.doi or "")  # type: ignore[arg-type]
    )
    assert verdict is not None and verdict.venue is not None
    assert "not in DOAJ (OpenAlex, DOAJ)" in verdict.venue.evidence
    # Scopus unknown: never venue-unindexed on absent flags
    assert not any(i.code is Code.VENUE_UNINDEXED for i in verdict.issues)
    paths = {s.path for s in replay.log}
    assert "/doaj/api/search/journals/issn:2278-3784" in paths
    assert "/openalex/sources/issn:2278-3784" in paths


async def test_journal_is_looked_up_by_the_found_records_issn() -> None:
    """An entry's ISSN that passes its checksum but is not the found work's journal's (a
    slip, another journal's) does not decide which journal is looked up: the record's
    ISSN does, where DOAJ and the NLM Catalog were asked of the wrong journal."""
    asked: list[tuple[str, str]] = []

    async def record(source: Any, name: str, method: str, arg: str) -> Lookup:
        asked.append((name, arg))
        return Lookup.failed(name, "not asked in this test")

    sources = {"doaj": DoajSource(None, "http://127.0.0.1:9"), "pubmed": object()}  # type: ignore[arg-type]
    entry = dataclasses.replace(
        normalize_entry(entry_for(AJPH_WORK)),  # type: ignore[arg-type]
        issn=("0028-0836",),
    )
    await journal_records(sources, entry, [AJPH_WORK], record)
    assert asked == [("doaj", "0090-0036")]
    no_issn = dataclasses.replace(AJPH_WORK, issn=())
    asked.clear()
    await journal_records(sources, entry, [no_issn], record)
    assert asked == [("doaj", "0028-0836")]  # the entry's, when no record has one
