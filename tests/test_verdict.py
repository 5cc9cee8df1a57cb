"""Verdicts from evidence: statuses, tiers, anchored corrections, report rows."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from citewarden.findings.score import score_summary
from citewarden.findings.verdicts import entry_findings
from citewarden.model import Code, Severity, Status, Tier
from citewarden.report.json_report import entries_json
from citewarden.verify.compare import compare
from citewarden.verify.evidence import Evidence, Failure, FailureKind, IdKind, IdState
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import Update, UpdateKind, WorkRecord
from citewarden.verify.sources.crossref import work_from_csl
from citewarden.verify.verdict import decide, static_issues
from paths import DATA

TODAY = date(2026, 11, 29)


def _records() -> dict[str, WorkRecord]:
    out: dict[str, WorkRecord] = {}
    text = Path(DATA / "accuracy" / "records.jsonl").read_text(encoding="utf-8")
    for line in text.splitlines():
        rec = work_from_csl(json.loads(line)["message"])
        if rec is not None and rec.doi:
            out[rec.doi] = rec
    return out


REC = _records()
RNEXML = REC["10.1111/2041-210x.12469"]
TAXADB = REC["10.1111/2041-210x.13440"]
PONE = REC["10.1371/journal.pone.0033693"]  # carries a real correction notice

GOOD = {
    "title": "{RNeXML}: A package for reading and writing richly annotated phylogenetic, "
    "character, and trait data in {R}",
    "author": "Boettiger, Carl and Chamberlain, Scott and Vos, Rutger and Lapp, Hilmar",
    "journal": "Methods in Ecology and Evolution",
    "year": "2015",
    "volume": "7",
    "pages": "352--357",
}


def _evidence(fields: dict[str, str], *, by_id: WorkRecord | None = None, **kw: object) -> Evidence:
    entry = normalize_entry(make_entry("k", "article", fields))
    ev = Evidence(entry, today=TODAY, searched=True, sources=["crossref"])
    if by_id is not None:
        ev.id_kind, ev.id_value, ev.id_state = IdKind.DOI, entry.doi, IdState.FOUND
        ev.id_comparison = compare(entry, by_id)
    for name, value in kw.items():
        setattr(ev, name, value)
    return ev


def test_good_entry_found_by_search_is_verified_with_a_doi_hint() -> None:
    ev = _evidence(GOOD)
    ev.candidate = compare(ev.entry, RNEXML)
    v = decide(ev, "k")
    assert v.status is Status.VERIFIED and v.tier is Tier.D
    assert v.match is not None and v.match.doi == RNEXML.doi
    assert [i.code for i in v.issues] == [Code.MISSING_DOI]
    assert v.corrections == {"doi": RNEXML.doi}


def test_wrong_year_and_volume_are_corrected_one_field_at_a_time() -> None:
    fields = {**GOOD, "year": "2051", "volume": "9", "doi": RNEXML.doi or ""}
    v = decide(_evidence(fields, by_id=RNEXML), "k")
    assert v.status is Status.MISMATCH and v.tier is Tier.H  # 2051 is also in the future
    codes = {i.code for i in v.issues}
    assert {Code.YEAR_MISMATCH, Code.VOLUME_MISMATCH, Code.TEMPORAL_IMPOSSIBILITY} <= codes
    assert v.corrections == {"year": "2015", "volume": "7"}
    year_issue = next(i for i in v.issues if i.code is Code.YEAR_MISMATCH)
    assert "digit swap" in year_issue.message and year_issue.field == "year"


def test_one_year_gap_is_only_a_note() -> None:
    v = decide(_evidence({**GOOD, "year": "2014", "doi": RNEXML.doi or ""}, by_id=RNEXML), "k")
    assert v.status is Status.VERIFIED and v.tier is Tier.D
    note = next(i for i in v.issues if i.code is Code.YEAR_MISMATCH)
    assert note.effective_severity is Severity.HINT
    assert "year" not in v.corrections
    # online in October 2015, in the journal's volume 7 of March 2016: 2016 is its year too
    v = decide(_evidence({**GOOD, "year": "2016", "doi": RNEXML.doi or ""}, by_id=RNEXML), "k")
    assert v.status is Status.VERIFIED and not v.issues


def test_doi_of_another_work_with_the_real_work_found_by_search() -> None:
    ev = _evidence({**GOOD, "doi": TAXADB.doi or ""}, by_id=TAXADB)
    ev.candidate = compare(ev.entry, RNEXML)
    v = decide(ev, "k")
    assert Code.DOI_OTHER_WORK in {i.code for i in v.issues}
    assert v.status is Status.MISMATCH and v.tier is Tier.E
    assert v.corrections == {"doi": RNEXML.doi}


def test_nonexistent_doi_and_nothing_found_is_not_found() -> None:
    ev = _evidence({**GOOD, "doi": "10.1111/2041-210x.99999"})
    ev.id_kind, ev.id_value, ev.id_state = IdKind.DOI, "10.1111/2041-210x.99999", IdState.MISSING
    v = decide(ev, "k")
    assert v.status is Status.NOT_FOUND and v.tier is Tier.H
    assert {i.code for i in v.issues} >= {Code.DOI_NOT_FOUND, Code.NOT_FOUND}
    assert v.corrections == {}


def test_failed_lookup_never_becomes_not_found() -> None:
    ev = _evidence(GOOD, search_complete=False, failures=[Failure.of("crossref", "timeout")])
    v = decide(ev, "k")
    assert v.status is Status.UNVERIFIED and v.tier is Tier.D
    assert v.reason == "timeout (crossref)"
    assert ev.failures[0].kind is FailureKind.TIMEOUT
    assert [i.code for i in v.issues] == [Code.UNVERIFIED]


def test_chimeric_title_of_one_work_authors_of_another() -> None:
    fields = {**GOOD, "author": "Norman, Kari and Chamberlain, Scott and Boettiger, Carl"}
    ev = _evidence(fields)
    ev.title_only = compare(ev.entry, RNEXML)
    v = decide(ev, "k")
    assert v.status is Status.MISMATCH and v.tier is Tier.H
    assert [i.code for i in v.issues] == [Code.CHIMERIC]
    assert v.corrections == {}  # neither title nor authors is anchored


def test_never_title_and_authors_corrected_together() -> None:
    fields = {
        **GOOD,
        "doi": RNEXML.doi or "",
        "title": "RNeXML: a package for parsing and writing richly annotated phylogenetic, "
        "character, and trait data in R",
        "author": "Boettiger, Carl and Chamberlain, Scott and Vos, Rutger",
    }
    v = decide(_evidence(fields, by_id=RNEXML), "k")
    codes = {i.code for i in v.issues}
    assert {Code.TITLE_MISMATCH, Code.AUTHOR_DROPPED} <= codes
    assert "title" in v.corrections and "author" not in v.corrections


def test_static_issues_need_no_network() -> None:
    entry = normalize_entry(
        make_entry(
            "k",
            "inproceedings",
            {
                "title": "Leаrning to cite",
                "author": "Doe, John and Author, A.",
                "booktitle": "International Conference on Learning Representations",
                "year": "2010",
            },
        )
    )
    issues = static_issues(entry, TODAY)
    assert [i.code for i in issues] == [
        Code.HOMOGLYPH,
        Code.PLACEHOLDER_AUTHORS,
        Code.TEMPORAL_IMPOSSIBILITY,
    ]
    assert "CYRILLIC SMALL LETTER A" in issues[0].message and issues[0].field == "title"
    assert "2013" in issues[2].message


def test_real_correction_notice_is_reported_without_failing_the_entry() -> None:
    assert any(u.kind is UpdateKind.CORRECTION for u in PONE.updates)
    fields = {
        "title": PONE.title,
        "author": " and ".join(f"{p.family}, {p.given}" for p in PONE.authors),
        "doi": PONE.doi or "",
        "year": str(PONE.year),
    }
    v = decide(_evidence(fields, by_id=PONE), "k")
    assert v.status is Status.VERIFIED
    assert Code.CORRECTED in {i.code for i in v.issues}


def test_retraction_sets_status() -> None:
    retracted = WorkRecord(
        **{
            **{f: getattr(RNEXML, f) for f in RNEXML.__dataclass_fields__},
            "updates": (Update(UpdateKind.RETRACTION, "10.1111/notice", "2020-01-01"),),
        }
    )
    v = decide(_evidence({**GOOD, "doi": RNEXML.doi or ""}, by_id=retracted), "k")
    assert v.status is Status.RETRACTED and v.tier is Tier.E


def test_report_rows_and_findings_on_the_field_at_fault() -> None:
    entry = make_entry("k", "article", {**GOOD, "year": "2011", "doi": RNEXML.doi or ""})
    ev = Evidence(normalize_entry(entry), today=TODAY, searched=True, sources=["crossref"])
    ev.id_kind, ev.id_state = IdKind.DOI, IdState.FOUND
    ev.id_comparison = compare(ev.entry, RNEXML)
    v = decide(ev, "k")
    found = entry_findings(entry, v, None)
    rows = entries_json([v], [entry], found, line_of=lambda e: 3)
    assert rows == [
        {
            "key": "k",
            "file": "<memory>",
            "line": 3,
            "status": "mismatch",
            "tier": "M",
            "counted": True,
            "match": {"source": "crossref", "doi": RNEXML.doi, "score": rows[0]["match"]["score"]},
            "corrections": {"year": "2015"},
            "findings": [
                {
                    "code": "year-mismatch",
                    "severity": "warning",
                    "message": "Crossref: year 2011, the record says 2015",
                    "field": "year",
                }
            ],
            "venue": None,  # decide alone describes no venue (the engine's venue step does)
        }
    ]
    summary = score_summary([v])
    assert summary.score == 98 and summary.tier_counts() == {"H": 0, "E": 0, "M": 1, "D": 0}
    (finding,) = found
    year_field = entry.field("year")
    assert year_field is not None and finding.location.span == year_field.value_span


def test_notices_found_separately_are_reported_once() -> None:
    ev = _evidence({**GOOD, "doi": RNEXML.doi or ""}, by_id=RNEXML)
    concern = Update(UpdateKind.EXPRESSION_OF_CONCERN, "10.1111/eoc", "2021-02-03")
    ev.notices = [concern, concern]
    v = decide(ev, "k")
    assert [i.code for i in v.issues] == [Code.EXPRESSION_OF_CONCERN]
    assert v.status is Status.VERIFIED and v.tier is Tier.M  # the entry is right; the work is not


def test_static_checks_raise_no_alarm_on_real_bibliographies() -> None:
    """Real .bib files: a 1983 'Anonymous' announcement, a Suzette Person, NeurIPS 2016
    papers whose arXiv versions were posted years later - none of them is a fabrication."""
    from citewarden.parsing.bibtex import parse_bibtex

    alarms = []
    count = 0
    for name in (
        "b-vitamins_neurips_2016.bib",
        "b-vitamins_prl_1983.bib",
        "plume-bib/invariants.bib",
    ):
        path = DATA / "bibs" / name
        for entry in parse_bibtex(path, path.read_text(encoding="utf-8")).entries:
            count += 1
            for issue in static_issues(normalize_entry(entry), TODAY):
                if issue.code is not Code.INVALID_IDENTIFIER:
                    alarms.append((entry.key, issue.message))
    assert count > 2000
    assert alarms == []


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("timeout", FailureKind.TIMEOUT),
        ("rate limited: retry after 30 s", FailureKind.RATE_LIMITED),
        ("HTTP 503", FailureKind.SERVER_ERROR),
        ("connection dropped", FailureKind.NETWORK),
        ("malformed response: not JSON", FailureKind.MALFORMED),
        ("offline: not in cache", FailureKind.OFFLINE),
        ("internal error in crossref", FailureKind.INTERNAL),
        ("response body over 8 MB", FailureKind.TOO_LARGE),  # transport.exchange's words
        ("HTTP 418", FailureKind.OTHER),
    ],
)
def test_failure_kinds_come_from_the_reasons_sources_give(reason: str, kind: FailureKind) -> None:
    assert Failure.of("crossref", reason).kind is kind
