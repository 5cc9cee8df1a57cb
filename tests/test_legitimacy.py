"""Journal legitimacy (heuristic 10): venue-unindexed / venue-not-found from what real
records say of the venue (OpenAlex source flags and indexed_in, PubMed), replayed over
loopback through the real sources and the engine."""

from __future__ import annotations

import dataclasses
import sys
from datetime import date
from pathlib import Path
from typing import ClassVar

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Issue, Status, Tier, Verdict
from citewarden.report.json_report import entry_json
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.legitimacy import NOT_LOOKED_UP, assess, issn_ok, venue_kind, with_venue
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import Lookup, WorkRecord
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.journals import journal_absent, journal_failed
from citewarden.verify.sources.openalex import OpenAlexSource, work_from_openalex
from replay import ReplayServer, recorded_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "accuracy"))
from memory_source import MemorySource

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http
TODAY = date(2026, 11, 29)


def record(name: str) -> WorkRecord:
    rec = work_from_openalex(recorded_json("openalex", name))
    assert rec is not None
    return rec


def said_not_in(rec: WorkRecord, *indexes: str) -> WorkRecord:
    """``rec`` with its source also saying the venue is not in ``indexes``.  No recording
    carries OpenAlex's ``is_indexed_in_scopus`` / ``is_core`` flags, so where a test needs
    them the rule's input is stated here, never served as a service's answer."""
    return dataclasses.replace(rec, venue_not_in=(*rec.venue_not_in, *indexes))


IDJSR = "peneira_work_idjsr.2023.013.json"


def unindexed() -> WorkRecord:
    """The recorded IDJSR work, its source also saying "not in Scopus, not core" and "not
    in PubMed" (which the NLM Catalog's "no such journal" says in a run)."""
    return said_not_in(record(IDJSR), "scopus", "core", "pubmed")


def article(rec: WorkRecord, entry_type: str = "article", **extra: str) -> Verdict:
    fields = {
        "title": rec.title,
        "author": " and ".join(f"{p.family}, {p.given}" for p in rec.authors),
        "journal": rec.venue or "",
        "year": str(rec.year),
        "doi": rec.doi or "",
        **extra,
    }
    return make_entry("k", entry_type, fields)  # type: ignore[return-value]


def test_issn_checksum() -> None:
    assert issn_ok("2278-3784") and issn_ok("2394-708X") and issn_ok("0305-1048")
    assert not issn_ok("2278-3785") and not issn_ok("12345") and not issn_ok("2394-708Y")


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2394-708x", ("2394708X",)),
        ("2394708X", ("2394708X",)),
        ("2394\u2010708X", ("2394708X",)),  # a Unicode hyphen, as copied from a web page
        ("2394\u2013708X (print), 2278 3784 (online)", ("2394708X", "22783784")),
        ("2278-37841", ()),  # a digit too many: no ISSN, not its first eight digits
        ("978-0-12-345678-9", ()),
    ],
)
def test_the_entrys_issns_as_written(written: str, read: tuple[str, ...]) -> None:
    entry = normalize_entry(make_entry("k", "article", {"title": "T", "issn": written}))
    assert entry.issn == read


def test_doaj_and_pubmed_journal_is_indexed() -> None:
    rec = record("peneira_work_gh.2014.294.json")
    info, issue = assess(normalize_entry(article(rec)), [rec])
    assert issue is None
    assert info.kind == "journal" and info.name == "Geospatial Health"
    assert info.indexed_in == ("doaj", "pubmed")
    assert info.publisher == "PAGEPress (Italy)" and "1827-1987" in info.issn
    assert "no source said whether it is in Scopus" in info.evidence


def test_an_absent_scopus_flag_never_makes_a_journal_unindexed() -> None:
    # Springer's "Advances in data analysis and classification": not in DOAJ, this work not
    # in PubMed, and the recording says nothing of Scopus
    rec = record("peneira_work_s11634-015-0211-0.json")
    info, issue = assess(normalize_entry(article(rec)), [rec])
    assert issue is None and info.indexed_in == ()
    assert "not in DOAJ (OpenAlex)" in info.evidence
    assert "no source said whether it is in PubMed, Scopus" in info.evidence


def test_the_recorded_unindexed_candidate_says_nothing_of_scopus() -> None:
    # as recorded: not in DOAJ, the work not in PubMed, no publisher, nothing about Scopus
    rec = record(IDJSR)
    info, issue = assess(normalize_entry(article(rec)), [rec])
    assert issue is None and info.indexed_in == () and info.publisher is None
    assert "not in DOAJ (OpenAlex)" in info.evidence
    assert "no source said whether it is in PubMed, Scopus" in info.evidence


def test_a_work_missing_from_pubmed_says_nothing_of_its_journal() -> None:
    """OpenAlex's ``indexed_in`` lists where the work is, not its journal: the recorded
    IDJSR work (``["crossref"]``), its source saying "not in DOAJ, not in Scopus, not
    core", is venue-unindexed only once the NLM Catalog has no such journal; a catalog
    look-up that failed, or none, leaves PubMed unknown."""
    from citewarden.verify.sources.journals import journal_absent, journal_failed

    rec = said_not_in(record(IDJSR), "scopus", "core")
    assert rec.venue_not_in == ("doaj", "scopus", "core")
    entry = normalize_entry(article(rec))
    failed = journal_failed("pubmed", "2278-3784", "HTTP 503")
    for records in ([rec], [rec, failed]):
        info, issue = assess(entry, records)
        assert issue is None and not any("not in PubMed" in e for e in info.evidence)
        assert "no source said whether it is in PubMed" in info.evidence
    info, issue = assess(entry, [rec, journal_absent("pubmed", "2278-3784")])
    assert issue is not None and issue.code is Code.VENUE_UNINDEXED
    assert "not in PubMed (NLM Catalog)" in info.evidence


def test_unindexed_journal_when_a_source_says_not_in_scopus() -> None:
    rec = unindexed()
    info, issue = assess(normalize_entry(article(rec)), [rec])
    assert issue is not None and issue.code is Code.VENUE_UNINDEXED and issue.field == "journal"
    assert "International dental journal of student's research" in issue.message
    assert "not a core source" in issue.message and "no publisher is known" in issue.message
    assert info.indexed_in == () and info.publisher is None
    # the same record cited as a conference paper, a book chapter or a preprint: not a journal
    for kind in ("inproceedings", "incollection", "misc", "phdthesis"):
        entry = normalize_entry(article(rec, kind))
        assert assess(entry, [rec])[1] is None, kind
    preprint = normalize_entry(article(rec, journal="medRxiv"))
    assert venue_kind(preprint, [rec]) == "preprint" and assess(preprint, [rec])[1] is None
    # a preprint the entry calls one, whatever server it is on
    for name in ("Preprint", "Preprints", "SocArXiv preprint"):
        preprint = normalize_entry(article(rec, journal=name))
        assert venue_kind(preprint, [rec]) == "preprint" and assess(preprint, [rec])[1] is None


def test_a_magazine_or_newspaper_article_is_not_judged_as_a_journals_article() -> None:
    """biblatex's ``entrysubtype = {magazine}`` / ``{newspaper}`` on an ``@article`` and
    CSL's ``article-magazine`` / ``article-newspaper`` (read as BibTeX ``article``) are grey
    literature: the unindexed record's venue gets no venue-unindexed for them."""
    import json

    from citewarden.parsing.csl import parse_csl_json

    rec = unindexed()
    for subtype in ("magazine", "Newspaper"):
        entry = normalize_entry(article(rec, entrysubtype=subtype))
        assert venue_kind(entry, [rec]) == "grey"
        assert assess(entry, [rec])[1] is None
    assert assess(normalize_entry(article(rec, entrysubtype="other")), [rec])[1] is not None
    for csl_type, expected in (
        ("article-magazine", None),
        ("article-journal", Code.VENUE_UNINDEXED),
    ):
        item = {
            "id": "k",
            "type": csl_type,
            "title": rec.title,
            "container-title": rec.venue,
            "DOI": rec.doi,
            "author": [{"family": p.family, "given": p.given} for p in rec.authors],
            "issued": {"date-parts": [[rec.year]]},
        }
        (entry,) = parse_csl_json(Path("refs.json"), json.dumps([item])).entries
        assert entry.entry_type == "article"
        issue = assess(normalize_entry(entry), [rec])[1]
        assert (issue.code if issue else None) is expected, csl_type


def test_tier_elevated_alone_high_with_another_finding() -> None:
    rec = unindexed()
    entry = normalize_entry(article(rec))
    alone = with_venue(Verdict("k", Status.VERIFIED, Tier.D), entry, [rec])
    assert alone.tier is Tier.E and [i.code for i in alone.issues] == [Code.VENUE_UNINDEXED]
    other = Issue(Code.YEAR_MISMATCH, "year 2022, the record says 2023", "year")
    both = with_venue(Verdict("k", Status.MISMATCH, Tier.M, issues=(other,)), entry, [rec])
    assert both.tier is Tier.H
    hint = Issue(Code.MISSING_DOI, "no DOI")
    quiet = with_venue(Verdict("k", Status.VERIFIED, Tier.D, issues=(hint,)), entry, [rec])
    assert quiet.tier is Tier.E  # a hint is not a finding that raises it to High
    # a work that was not found has no venue to judge
    missing = with_venue(Verdict("k", Status.NOT_FOUND, Tier.H), entry, [rec])
    assert missing.venue is None and missing.issues == ()
    row = entry_json(alone, None, None, ())
    assert row["venue"]["name"] == "International dental journal of student's research"
    assert row["venue"]["kind"] == "journal" and row["venue"]["indexed_in"] == []
    assert row["venue"]["issn"] == ["2278-3784", "2394-708X"]
    assert any("not in DOAJ" in e for e in row["venue"]["evidence"])


def test_no_venue_not_found_without_a_look_up_of_the_journal() -> None:
    """An OpenAlex work with no source, cited in 'Journal of X' with no valid ISSN: nothing
    looked the journal up, so nothing said it is unknown; no finding, and the evidence says
    it was not looked up.  Only a catalogue's answer "no journal with this ISSN" makes it
    venue-not-found (the rule used to fire on the work's record alone)."""
    rec = record("peneira_work_gh.2014.294.json")
    bare = WorkRecord("openalex", rec.title, rec.authors, rec.year, rec.doi)
    entry = normalize_entry(article(rec, journal="Journal of Global Geohealth", issn="2278-3785"))
    info, issue = assess(entry, [bare])
    assert issue is None
    assert "the entry's ISSN 2278-3785 fails its checksum" in info.evidence
    assert NOT_LOOKED_UP in info.evidence
    no_issn = normalize_entry(article(rec, journal="Journal of Global Geohealth"))
    assert assess(no_issn, [bare])[1] is None
    # DOAJ's "no such journal" only rules DOAJ out: still no venue-not-found
    assert assess(no_issn, [bare, journal_absent("doaj", "2249-8788")])[1] is None
    # OpenAlex asked by the ISSN and answering "no such journal": the finding
    info, issue = assess(no_issn, [bare, journal_absent("openalex", "2249-8788")])
    assert issue is not None and issue.code is Code.VENUE_NOT_FOUND
    assert issue.message == (
        "OpenAlex knows no journal 'Journal of Global Geohealth' (ISSN 2249-8788), "
        "and no record of the work names one"
    )
    both = [bare, journal_absent("openalex", "2249-8788"), journal_absent("crossref", "2249-8788")]
    issue = assess(no_issn, both)[1]
    assert issue is not None and issue.message.startswith("OpenAlex and Crossref know no journal")
    assert NOT_LOOKED_UP not in info.evidence
    # a record that knows the venue (here by name) clears it
    assert assess(no_issn, [bare, rec, journal_absent("openalex", "2249-8788")])[1] is None
    # so does any look-up that failed
    failed = journal_failed("crossref", "2249-8788", "timeout")
    assert assess(no_issn, [bare, journal_absent("openalex", "2249-8788"), failed])[1] is None


def test_a_conference_cited_as_a_journal_is_not_judged_as_one() -> None:
    """Bibliographies often cite NeurIPS or ICML papers as an @article with the conference
    as its journal; the registry knows them as conferences, so no venue finding."""
    rec = record("peneira_work_gh.2014.294.json")
    bare = WorkRecord("openalex", rec.title, rec.authors, rec.year, doi=rec.doi)
    for venue in (
        "Advances in Neural Information Processing Systems 33",
        "Proceedings of the 37th International Conference on Machine Learning",
    ):
        info, issue = assess(normalize_entry(article(rec, journal=venue)), [bare])
        assert info.kind == "proceedings" and issue is None, venue
    # a journal the registry lists stays a journal
    info, issue = assess(
        normalize_entry(article(rec, journal="Journal of Global Geohealth")),
        [bare, journal_absent("openalex", "2249-8788")],
    )
    assert info.kind == "journal" and issue is not None


async def test_no_venue_not_found_when_the_journal_look_ups_failed(tmp_path: Path) -> None:
    """An OpenAlex work record without a source, and every look-up of the entry's ISSN
    failing: nobody said the journal is unknown, so no venue-not-found; the evidence says
    which look-ups failed.  Once they answer "no such journal", the finding is made."""
    rec = record("peneira_work_gh.2014.294.json")
    bare = WorkRecord("openalex", rec.title, rec.authors, rec.year, doi=rec.doi)

    class Journals(MemorySource):
        answer = Lookup.failed("openalex", "timeout")
        asked: ClassVar[list[str]] = []

        async def journal(self, issn: str) -> Lookup:
            self.asked.append(issn)
            return self.answer

    source = Journals("openalex", [bare])
    fields = {"journal": "Journal of Global Geohealth", "issn": "2249-8788"}
    entry = article(rec, doi=rec.doi or "", **fields)
    settings = VerifySettings(sources=("openalex",))
    failed = await Verifier([source], settings, today=TODAY).verify(entry)
    assert failed is not None and failed.venue is not None and source.asked == ["2249-8788"]
    assert not any(i.code is Code.VENUE_NOT_FOUND for i in failed.issues)
    assert "OpenAlex: the look-up of ISSN 2249-8788 failed (timeout)" in failed.venue.evidence
    Journals.answer = Lookup.not_found("openalex")
    answered = await Verifier([source], settings, today=TODAY).verify(entry)
    assert answered is not None
    assert [i.code for i in answered.issues] == [Code.VENUE_NOT_FOUND]


async def test_no_venue_not_found_while_a_source_that_may_know_it_failed() -> None:
    """OpenAlex's record of the work names no journal (it often has no source for a work),
    and Crossref, whose record of the DOI names it, timed out: nobody said the journal is
    unknown, so no venue-not-found; nor once Crossref answers it has no such work, as nothing
    looked the journal up."""
    rec = record("peneira_work_gh.2014.294.json")
    bare = WorkRecord("openalex", rec.title, rec.authors, rec.year, doi=rec.doi)

    class Crossref(MemorySource):
        answer: Lookup | None = None

        async def by_doi(self, doi: str) -> Lookup:
            return self.answer or await super().by_doi(doi)

        async def search(self, query: object) -> Lookup:
            return self.answer or Lookup.not_found(self.name)

    crossref = Crossref("crossref", [])
    openalex = MemorySource("openalex", [bare])
    settings = VerifySettings(sources=("crossref", "openalex"))
    entry = article(rec, doi=rec.doi or "")
    Crossref.answer = Lookup.failed("crossref", "timeout")
    failed = await Verifier([crossref, openalex], settings, today=TODAY).verify(entry)  # type: ignore[arg-type]
    assert failed is not None and failed.match is not None and failed.match.source == "openalex"
    assert not any(i.code is Code.VENUE_NOT_FOUND for i in failed.issues), failed.issues
    Crossref.answer = None
    answered = await Verifier([crossref, openalex], settings, today=TODAY).verify(entry)  # type: ignore[arg-type]
    # Crossref answering "no such work" says nothing of the journal either, and the entry
    # gives no ISSN to look the journal up by: unknown, never "not found"
    assert answered is not None and answered.venue is not None
    assert not any(i.code is Code.VENUE_NOT_FOUND for i in answered.issues), answered.issues
    assert NOT_LOOKED_UP in answered.venue.evidence


def test_no_publisher_is_no_sign_while_a_source_that_may_know_it_failed() -> None:
    """The recorded IDJSR work names no publisher; said not to be in DOAJ, PubMed or Scopus
    (nothing said of CORE), that absence is the sign that makes it venue-unindexed, unless a
    look-up for the entry failed: the source that failed may know the publisher."""
    rec = said_not_in(record(IDJSR), "scopus", "pubmed")
    entry = normalize_entry(article(rec))
    issue = assess(entry, [rec])[1]
    assert issue is not None and "no publisher is known" in issue.message
    assert assess(entry, [rec], faulted=True)[1] is None


async def test_engine_asks_openalex_for_a_journal_matched_through_crossref(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    crossref = CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org")
    openalex = OpenAlexSource(replay_http, replay.base_url("openalex"))
    settings = VerifySettings(sources=("crossref", "openalex"), concurrency=2)
    verifier = Verifier([crossref, openalex], settings, today=TODAY)
    entry = make_entry(
        "cybenko",
        "article",
        {
            "title": "Approximation by superpositions of a sigmoidal function",
            "author": "Cybenko, G.",
            "journal": "Mathematics of Control, Signals, and Systems",
            "year": "1989",
            "volume": "2",
            "number": "4",
            "pages": "303--314",
            "doi": "10.1007/BF02551274",
        },
    )
    verdict = await verifier.verify(entry)
    assert verdict.status is Status.VERIFIED, verdict
    assert verdict.venue is not None and verdict.venue.indexed_in == ("core",)
    assert verdict.venue.publisher == "Springer Science+Business Media"
    assert not any(i.code is Code.VENUE_UNINDEXED for i in verdict.issues)
    # the work at Crossref, the same DOI at OpenAlex, then the journal by ISSN at both
    paths = [s.path for s in replay.log]
    assert [p.split("/")[1] for p in paths[:2]] == ["crossref", "openalex"]
    assert sorted(paths[2:]) == ["/crossref/journals/0932-4194", "/openalex/sources/issn:0932-4194"]
    assert replay.unmatched == []
    evidence = verdict.venue.evidence
    assert (
        "OpenAlex source record for 0932-4194, 1435-568X: "
        "host organisation Springer Science+Business Media" in evidence
    )
    assert (
        "Crossref journal record for 0932-4194, 1435-568X: "
        "publisher Springer Science and Business Media LLC" in evidence
    )


async def test_the_journal_record_says_what_the_work_record_does_not(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    """The work's own record of an unindexed journal, and the journal's Source record by
    ISSN (in the evidence); the journal look-up is cached like a
    work's: a second verification asks nothing."""
    from citewarden.cache import Cache
    from citewarden.verify.sources.cached import CachedSource

    cache = Cache(tmp_path / "cache")
    rec = unindexed()
    works = MemorySource("crossref", [rec])  # the work, found by its DOI
    openalex = CachedSource(OpenAlexSource(replay_http, replay.base_url("openalex")), cache)
    settings = VerifySettings(sources=("crossref", "openalex"))
    verifier = Verifier([works, openalex], settings, today=TODAY)
    entry = article(rec)
    verdict = await verifier.verify(entry)  # type: ignore[arg-type]
    assert [i.code for i in verdict.issues] == [Code.VENUE_UNINDEXED]
    assert verdict.venue is not None
    assert (
        "OpenAlex source record for 2278-3784, 2394-708X: the journal is known"
        in verdict.venue.evidence
    )
    asked = [s.path for s in replay.log]
    assert "/openalex/sources/issn:2278-3784" in asked and replay.unmatched == []
    again = await verifier.verify(entry)  # type: ignore[arg-type]
    assert again.venue == verdict.venue and len(replay.log) == len(asked)


def test_journal_records_read_the_documented_fields() -> None:
    from citewarden.verify.sources.journals import (
        is_journal_record,
        journal_from_crossref,
        journal_from_openalex,
    )

    data = recorded_json("openalex", "documented_source_issn_0932-4194.json")
    rec = journal_from_openalex({**data, "apc_usd": 2990, "works_count": 1500})
    assert rec is not None and is_journal_record(rec)
    assert rec.venue_indexes == ("core",) and rec.venue_not_in == ("doaj",)  # no Scopus flag
    assert dict(rec.extra)["apc_usd"] == "2990" and rec.issn == ("0932-4194", "1435-568X")
    from citewarden.verify.legitimacy import journal_line

    assert journal_line(rec) == (
        "OpenAlex source record for 0932-4194, 1435-568X: 1,500 works, APC US$2,990, "
        "host organisation Springer Science+Business Media"
    )
    message = recorded_json("crossref", "documented_journal_0932-4194.json")["message"]
    years = {"dois-by-issued-year": [[2020, 40], [1989, 25], [1990, 0]]}
    cr = journal_from_crossref({**message, "counts": {"total-dois": 1234}, "breakdowns": years})
    assert cr is not None and cr.venue == "Mathematics of Control, Signals, and Systems"
    assert journal_line(cr) == (
        "Crossref journal record for 0932-4194, 1435-568X: 1,234 DOIs registered, since 1989, "
        "publisher Springer Science and Business Media LLC"
    )
    assert journal_from_openalex({"id": "x"}) is None and journal_from_crossref([]) is None


async def test_engine_flags_the_unindexed_journal() -> None:
    rec = unindexed()
    source = MemorySource("crossref", [rec])
    verifier = Verifier([source], VerifySettings(sources=("crossref",)), today=TODAY)
    verdict = await verifier.verify(article(rec))  # type: ignore[arg-type]
    assert verdict.status is Status.VERIFIED
    assert [i.code for i in verdict.issues] == [Code.VENUE_UNINDEXED]
    assert verdict.tier is Tier.E


@pytest.mark.parametrize("name", ["test-openalex_reader__test_proceedings_article.json"])
def test_recorded_proceedings_article_is_not_a_journal(name: str) -> None:
    rec = record(name)
    entry = normalize_entry(article(rec))  # even typed @article by mistake
    info, issue = assess(entry, [rec])
    assert issue is None and info.kind == "proceedings"


def test_entry_hover_shows_the_venue_evidence() -> None:
    from citewarden.lsp.verify_hover import hover_markdown

    rec = unindexed()
    verdict = with_venue(
        Verdict("k", Status.VERIFIED, Tier.D), normalize_entry(article(rec)), [rec]
    )
    text = hover_markdown(verdict)
    assert "**Venue:** International dental journal of student's research (journal)" in text
    assert "- not in DOAJ (OpenAlex)" in text and "- not in Scopus (OpenAlex)" in text
    assert "is not indexed in DOAJ, PubMed or Scopus" in text  # the finding's message
    indexed = with_venue(
        Verdict("k", Status.VERIFIED, Tier.D),
        normalize_entry(article(record("peneira_work_gh.2014.294.json"))),
        [record("peneira_work_gh.2014.294.json")],
    )
    assert "Indexed in DOAJ, PubMed" in hover_markdown(indexed)


def test_score_and_tiers_count_heuristic_10() -> None:
    """H10 in the seeds' score: Elevated alone (-5), High with any other finding on the
    same entry (-12, and its citations are marked too), whatever that finding's own tier."""
    from citewarden.findings.score import score_summary
    from citewarden.findings.verdicts import marks_citations

    rec = unindexed()
    entry = normalize_entry(article(rec))
    clean = Verdict("ok", Status.VERIFIED, Tier.D)
    alone = with_venue(Verdict("k", Status.VERIFIED, Tier.D), entry, [rec])
    summary = score_summary([clean, alone])
    assert summary.score == 95 and summary.tier_counts() == {"H": 0, "E": 1, "M": 0, "D": 1}
    assert not marks_citations(alone)
    for code, own_tier in ((Code.PAGES_MISMATCH, Tier.M), (Code.TITLE_MISMATCH, Tier.E)):
        other = Issue(code, "differs", "pages")
        both = with_venue(Verdict("k", Status.MISMATCH, own_tier, issues=(other,)), entry, [rec])
        assert both.tier is Tier.H and marks_citations(both), code
        assert score_summary([clean, both]).score == 88
    # an entry already High stays High; a clean journal changes nothing
    high = Verdict("k", Status.MISMATCH, Tier.H, issues=(Issue(Code.CHIMERIC, "x"),))
    assert with_venue(high, entry, [rec]).tier is Tier.H
    ok = record("peneira_work_gh.2014.294.json")
    plain = with_venue(Verdict("k", Status.VERIFIED, Tier.D), normalize_entry(article(ok)), [ok])
    assert plain.tier is Tier.D and score_summary([plain]).score == 100
