"""The JSON report of ``citewarden check --format json`` (schema ``citewarden-report/1``).

Shape (lines and columns 1-based, columns in Unicode code points; ``file`` is relative to
the working directory when the file lies under it, else absolute)::

    {
      "schema": "citewarden-report/1",
      "citations": {
        "dangling":   [{"key", "file", "line", "column", "suggestions": [key, ...]}],
        "orphans":    [{"key", "file", "line", "column"}],
        "duplicates": [{"kind": "key" | "work", "key", "file", "line", "column",
                        "other": {"key", "file", "line", "column"}}],
        "cited":      [{"key", "file", "line", "column",
                        "context": {"sentence", "score", "basis", "abstract_source"}
                                   | null}]
      },
      "diagnostics": [{"file", "line", "column", "end_line", "end_column",
                       "code", "severity", "message"}],
      # with verification only:
      "entries": [{"key", "file", "line", "status", "tier", "counted",
                   "match": {"source", "doi", "score"} | null,
                   "corrections": {field: value},
                   "findings": [{"code", "severity", "message", "field"}],
                   "venue": {"name", "issn", "kind", "indexed_in": [...], "evidence": [...],
                             "publisher"} | null}],
      "score": 0-100,
      "tiers": {"H": n, "E": n, "M": n, "D": n},
      "summary": {"score", "tiers", "counted", "unverified", "skipped", "statuses"},
      "sources_stopped": [{"source", "reason"}]  # those that stopped answering in the run
    }

``dangling``/``orphans``/``duplicates`` list each place once; ``diagnostics`` holds every
finding (those included) after the policy step (:mod:`citewarden.findings.policy`), sorted
by file and place.  An entry's ``findings`` are its verification findings as shown there
(same message, same severity); ``score``, ``tiers`` and ``summary`` are the one score
summary (:mod:`citewarden.findings.score`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from citewarden.audit import Audit, pair_verdicts, sorted_findings
from citewarden.context.collect import CitationContext
from citewarden.findings.score import COUNTED, ScoreSummary, score_summary
from citewarden.fix.plan import compared_key, repeated_keys
from citewarden.fix.run import file_refusal, written_corrections
from citewarden.model import Citation, Code, Entry, Finding, Location, VenueInfo, Verdict
from citewarden.parsing import is_document
from citewarden.report.contexts import cited_rows
from citewarden.report.json_text import indented_json
from citewarden.safe_text import json_safe
from citewarden.text import LineIndex

SCHEMA = "citewarden-report/1"

IndexOf = Callable[[Path], LineIndex | None]


def display_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` relative to ``cwd`` when under it, else absolute."""
    return _shown(path, cwd if cwd is not None else Path.cwd())


@functools.lru_cache(maxsize=4096)
def _shown(path: Path, base: Path) -> str:
    """:func:`display_path`, once for each file (a report names one file for each of its
    300 000 citations)."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return os.fspath(path)


def _memo(index: IndexOf) -> IndexOf:
    """``index``, asked once for each file."""
    known: dict[Path, LineIndex | None] = {}

    def of(path: Path) -> LineIndex | None:
        if path not in known:
            known[path] = index(path)
        return known[path]

    return of


def _position(index: IndexOf, location: Location) -> tuple[int, int, int, int]:
    idx = index(location.path)
    if idx is None:
        return 1, 1, 1, 1
    start = idx.position(location.span.start)
    end = idx.position(location.span.end)
    return start.line + 1, start.column + 1, end.line + 1, end.column + 1


def _place(index: IndexOf, location: Location, cwd: Path | None) -> dict[str, Any]:
    line, column, _, _ = _position(index, location)
    return {"file": display_path(location.path, cwd), "line": line, "column": column}


def diagnostic(finding: Finding, index: IndexOf, cwd: Path | None = None) -> dict[str, Any]:
    line, column, end_line, end_column = _position(index, finding.location)
    return {
        "file": display_path(finding.location.path, cwd),
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "code": finding.code.value,
        "severity": finding.effective_severity.label,
        "message": finding.message,
    }


def citations_section(
    findings: Iterable[Finding], index: IndexOf, cwd: Path | None = None
) -> dict[str, list[dict[str, Any]]]:
    dangling: list[dict[str, Any]] = []
    orphans: list[dict[str, Any]] = []
    duplicates: list[dict[str, Any]] = []
    for f in findings:
        key = str(f.data.get("key", ""))
        place = _place(index, f.location, cwd)
        if f.code is Code.DANGLING:
            suggestions = f.data.get("suggestions", [])
            names = list(suggestions) if isinstance(suggestions, list | tuple) else []
            dangling.append({"key": key, **place, "suggestions": names})
        elif f.code is Code.ORPHAN:
            orphans.append({"key": key, **place})
        elif f.code in (Code.DUPLICATE_KEY, Code.DUPLICATE_WORK):
            other: dict[str, Any] | None = None
            if f.related:
                other_key = f.data.get("first", f.data.get("other", ""))
                other = {"key": str(other_key), **_place(index, f.related[0].location, cwd)}
            kind = "key" if f.code is Code.DUPLICATE_KEY else "work"
            duplicates.append({"kind": kind, "key": key, **place, "other": other})
    return {"dangling": dangling, "orphans": orphans, "duplicates": duplicates}


def entry_json(
    verdict: Verdict,
    entry: Entry | None,
    line: int | None,
    findings: Sequence[Finding],
    cwd: Path | None = None,
    repeated: bool = False,
) -> dict[str, Any]:
    """One row of ``entries``: the verdict, and the entry's findings as shown; no
    corrections for an entry whose key its file defines more than once (``repeated``),
    which ``--fix`` leaves as it is."""
    match = verdict.match
    return {
        "key": verdict.key,
        "file": display_path(entry.path, cwd) if entry is not None else None,
        "line": line,
        "status": verdict.status.value,
        "tier": verdict.tier.value,
        # whether ``tiers`` and the score count it (not: no source answered, or skipped)
        "counted": verdict.status in COUNTED,
        "match": (
            {"source": match.source, "doi": match.doi, "score": round(match.score, 4)}
            if match is not None
            else None
        ),
        # as --fix writes them (with no entry, or a key defined twice, it writes none)
        "corrections": (
            written_corrections(entry, verdict.corrections) if entry and not repeated else {}
        ),
        "findings": [
            {
                "code": f.code.value,
                "severity": f.effective_severity.label,
                "message": f.message,
                "field": f.data.get("field"),
            }
            for f in findings
        ],
        "venue": venue_json(verdict.venue),
    }


def venue_json(venue: VenueInfo | None) -> dict[str, Any] | None:
    """``{"name", "issn", "kind", "indexed_in", "evidence", "publisher"}`` or None."""
    if venue is None:
        return None
    return {
        "name": venue.name,
        "issn": list(venue.issn),
        "kind": venue.kind,
        "indexed_in": list(venue.indexed_in),
        "evidence": list(venue.evidence),
        "publisher": venue.publisher,
    }


def entry_findings_by_key(findings: Iterable[Finding]) -> dict[tuple[Path, str], list[Finding]]:
    """Verification findings placed in a bibliography, by (file, entry key)."""
    out: dict[tuple[Path, str], list[Finding]] = {}
    for f in findings:
        if f.data.get("verification") is True and not f.related:
            key = f.data.get("key")
            if isinstance(key, str):
                out.setdefault((f.location.path, key), []).append(f)
    return out


def entries_json(
    verdicts: Iterable[Verdict],
    entries: Sequence[Entry],
    findings: Iterable[Finding],
    *,
    line_of: Callable[[Entry], int | None],
    cwd: Path | None = None,
    paired: Iterable[tuple[Entry, Verdict]] | None = None,
    unfixed: Collection[Path] = (),
) -> list[dict[str, Any]]:
    """One row per verdict, each with its own entry, in the order of ``entries`` (verdicts
    without an entry last).  ``paired``: each entry with its verdict (else the verdicts are
    paired with ``entries`` by :func:`~citewarden.audit.pair_verdicts`)."""
    values = list(verdicts)
    pairs = list(paired) if paired is not None else pair_verdicts(entries, values)
    placed = entry_findings_by_key(findings)
    repeated = _repeated_keys_by_file(entries)
    rows: list[dict[str, Any]] = []
    for entry, verdict in pairs:
        mine = placed.get((entry.path, entry.key), [])
        twice = compared_key(entry.key, entry.csl_type is None) in repeated.get(entry.path, ())
        left = twice or entry.path in unfixed
        rows.append(entry_json(verdict, entry, line_of(entry), mine, cwd, left))
    placed_verdicts = {id(v) for _, v in pairs}
    rows += [entry_json(v, None, None, (), cwd) for v in values if id(v) not in placed_verdicts]
    return rows


def _repeated_keys_by_file(entries: Sequence[Entry]) -> dict[Path, frozenset[str]]:
    """Each file's keys that more than one of its ``entries`` define, as
    :func:`~citewarden.fix.plan.repeated_keys` compares them (BibTeX's case-folded)."""
    by_file: dict[Path, list[Entry]] = {}
    for entry in entries:
        by_file.setdefault(entry.path, []).append(entry)
    return {path: repeated_keys(mine, mine[0].csl_type is None) for path, mine in by_file.items()}


def build_report(
    findings: Mapping[Path, Sequence[Finding]],
    index: IndexOf,
    *,
    cwd: Path | None = None,
    entries: Sequence[Entry] = (),
    verdicts: Sequence[Verdict] | None = None,
    summary: ScoreSummary | None = None,
    contexts: Sequence[CitationContext] | None = None,
    citations: Sequence[tuple[Path, Citation]] | None = None,
    paired: Sequence[tuple[Entry, Verdict]] | None = None,
    unfixed: Collection[Path] = (),
) -> dict[str, Any]:
    """The report as a JSON-ready dict (see the module docstring for its shape);
    ``citations``: every citation of the documents, for ``citations.cited``; ``paired``:
    each verified entry with its verdict (see :func:`entries_json`); ``unfixed``: the
    files ``--fix`` rewrites not at all, whose entries are offered no correction."""
    ordered = sorted_findings(findings)
    index = _memo(index)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "citations": citations_section(ordered, index, cwd),
        "diagnostics": [diagnostic(f, index, cwd) for f in ordered],
    }
    if contexts is not None:
        report["citations"]["cited"] = cited_rows(
            contexts, lambda loc: _place(index, loc, cwd), citations
        )
    if verdicts is not None:

        def line_of(entry: Entry) -> int | None:
            return _place(index, Location(entry.path, entry.key_span), cwd)["line"]

        totals = summary if summary is not None else score_summary(verdicts)
        report["entries"] = entries_json(
            verdicts, entries, ordered, line_of=line_of, cwd=cwd, paired=paired, unfixed=unfixed
        )
        report["score"] = totals.score
        report["tiers"] = totals.tier_counts()
        report["summary"] = totals.as_json()
    return report


def report_of(audit: Audit, cwd: Path | None = None) -> dict[str, Any]:
    """The JSON report of an audit; with ``"source_addresses"`` (source -> address) when
    verification asked a source somewhere other than the service's own address, and with
    verification ``"sources_stopped"``: ``[{"source", "reason"}]``, each source that stopped
    answering during the run (its entries are ``unverified``)."""
    report = build_report(
        audit.findings,
        audit.workspace.line_index,
        cwd=cwd,
        entries=audit.entries,
        verdicts=audit.verdicts,
        summary=audit.summary,
        contexts=audit.contexts,
        citations=_citations(audit),
        paired=audit.verdict_pairs() if audit.verdicts is not None else None,
        unfixed=_unfixed(audit),
    )
    if audit.verdicts is not None and audit.settings is not None:
        from citewarden.verify.config import addresses_elsewhere

        elsewhere = addresses_elsewhere(audit.settings.verify)
        if elsewhere:
            report["source_addresses"] = elsewhere
    if audit.verdicts is not None:
        report["sources_stopped"] = [{"source": name, "reason": why} for name, why in audit.stopped]
    return report


def _unfixed(audit: Audit) -> frozenset[Path]:
    """The bibliographies of the audit's entries ``--fix`` rewrites not at all
    (:func:`~citewarden.fix.run.file_refusal`)."""
    out: set[Path] = set()
    for path in {entry.path for entry in audit.entries}:
        bib = audit.workspace.bibliography(path)
        if bib is not None and file_refusal(bib) is not None:
            out.add(path)
    return frozenset(out)


def _citations(audit: Audit) -> list[tuple[Path, Citation]]:
    """Every citation of the documents reported on, by file, in order."""
    out: list[tuple[Path, Citation]] = []
    for path in sorted(audit.scope):
        doc = audit.workspace.document(path) if is_document(path) else None
        if doc is not None:
            out += ((path, cit) for cit in doc.citations)
    return out


def report_text(audit: Audit, cwd: Path | None = None) -> str:
    """The JSON report of an audit as the text written out: UTF-8-ready, every unsafe
    character (controls, bidirectional marks, the surrogates of a name that is not UTF-8)
    as a JSON escape, so the data is unchanged (:func:`~citewarden.safe_text.json_safe`)."""
    return "".join(report_pieces(audit, cwd))


def report_pieces(audit: Audit, cwd: Path | None = None) -> Iterator[str]:
    """:func:`report_text` in pieces, written as they come (:func:`indented_json`)."""
    return json_pieces(report_of(audit, cwd), ensure_ascii=False)


def json_pieces(value: Any, *, ensure_ascii: bool) -> Iterator[str]:
    """``json.dumps(value, indent=2)`` and a line break, in pieces, each made safe
    (:func:`~citewarden.safe_text.json_safe`); the JSON and SARIF reports."""
    for piece in indented_json(value, ensure_ascii=ensure_ascii):
        yield json_safe(piece)
    yield "\n"
