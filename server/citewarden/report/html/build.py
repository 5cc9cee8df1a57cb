"""Building the HTML report's data from one check run, and the page of an audit."""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from citewarden.audit import pair_verdicts
from citewarden.context.collect import CitationContext
from citewarden.fix.run import file_refusal, written_corrections
from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Finding,
    ParsedBibliography,
    Severity,
    Verdict,
    document_score,
)
from citewarden.report.contexts import collect as collect_contexts
from citewarden.report.html.data import AuditData, EntryAudit, FileSummary, Located, tier_counts
from citewarden.report.html.page import html_chunks
from citewarden.report.progress import padded, width

if TYPE_CHECKING:
    from citewarden.audit import Audit
    from citewarden.project import Workspace
    from citewarden.settings import Settings, VerifySettings


#: Verdicts as the report takes them: by entry, by key (each entry with the key), or in
#: order (paired with the entries by :func:`~citewarden.audit.pair_verdicts`).
Verdicts = Sequence[Verdict] | Mapping[str, Verdict] | Mapping[Entry, Verdict]

#: Codes of the citation index that belong to one entry (shown in its audit row).
_ENTRY_CODES = frozenset(
    {Code.ORPHAN, Code.DUPLICATE_KEY, Code.DUPLICATE_FIELD, Code.DUPLICATE_WORK}
)


def default_thresholds() -> dict[str, str]:
    """The matching thresholds of the verification engine, as shown in the appendix."""
    out: dict[str, str] = {}
    try:
        from citewarden.verify.compare import TITLE_NEAR
    except ImportError:  # verification not installed
        return out
    out["Same work by title"] = (
        f"normalised title similarity ≥ {TITLE_NEAR:.2f} (below 1.00: a near-miss title)"
    )
    out["Authors"] = "compared by surname; the first author must match"
    out["Year"] = "from the issued / print date; ±1 year is a note, not an error"
    out["Volume, issue, pages"] = "exact; swapped digits are named"
    out["Corrections"] = (
        "only when identity is anchored (identifier agrees, or title and authors agree)"
    )
    return out


def _kind_of(ws: Workspace, path: Path) -> str:
    doc = ws.document(path)
    if doc is not None:
        return doc.kind.value
    bib = ws.bibliography(path)
    if bib is not None:
        return bib.format.value
    return path.suffix.lstrip(".") or "file"


def entry_verdicts(entries: Sequence[Entry], verdicts: Verdicts) -> dict[Entry, Verdict]:
    """The verdict of each of ``entries`` that has one (see :data:`Verdicts`)."""
    if not isinstance(verdicts, Mapping):
        return dict(pair_verdicts(entries, verdicts))
    given = cast(Mapping[object, Verdict], verdicts)
    out: dict[Entry, Verdict] = {}
    for e in entries:
        verdict = given.get(e, given.get(e.key))
        if verdict is not None:
            out[e] = verdict
    return out


def file_summaries(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    verdicts: Mapping[Entry, Verdict],
    entries: Sequence[Entry],
) -> list[FileSummary]:
    """One summary row per reported file (score only for a bibliography with verdicts:
    each entry's own)."""
    checked_in: dict[Path, list[EntryAudit]] = {}
    for e in entries:
        verdict = verdicts.get(e)
        if verdict is not None:
            checked_in.setdefault(e.path, []).append(EntryAudit(e, verdict))
    files: list[FileSummary] = []
    for path in sorted(findings):
        counts = Counter(f.effective_severity for f in findings[path])
        doc = ws.document(path)
        bib = ws.bibliography(path)
        checked = checked_in.get(path, [])
        score = document_score(tier_counts(checked)) if checked else None
        files.append(
            FileSummary(
                path=path,
                kind=_kind_of(ws, path),
                entries=len(bib.entries) if bib is not None else 0,
                citations=len(doc.citations) if doc is not None else 0,
                errors=counts[Severity.ERROR],
                warnings=counts[Severity.WARNING],
                notes=counts[Severity.INFORMATION] + counts[Severity.HINT],
                score=score,
            )
        )
    return files


def summary_table(files: Sequence[FileSummary], display: Callable[[Path], str] = str) -> str:
    """The per-file summary as a plain-text table (for batch runs on a terminal)."""
    head = ("file", "kind", "entries", "citations", "errors", "warnings", "notes", "score")
    rows = [
        (
            display(f.path),
            f.kind,
            str(f.entries),
            str(f.citations),
            str(f.errors),
            str(f.warnings),
            str(f.notes),
            "-" if f.score is None else str(f.score),
        )
        for f in files
    ]
    widths = [max(width(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        padded_cells = [
            padded(c, w, right=i > 1) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded_cells).rstrip()

    return "\n".join([line(head), *(line(r) for r in rows)]) + "\n"


def build_audit(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    entries: Sequence[Entry],
    verdicts: Verdicts | None,
    *,
    inputs: Sequence[str] = (),
    settings: Settings | None = None,
    version: str = "",
    root: Path | None = None,
    generated: datetime | None = None,
) -> AuditData:
    """Collect what the HTML report shows from one ``citewarden check`` run.

    ``findings`` are the reported findings by file (verification findings included),
    ``entries`` the bibliography entries in scope, ``verdicts`` their verdicts (None when
    verification did not run).
    """
    from citewarden.fix.plan import REPEATED_KEY, compared_key, corrected_entry, repeated_keys

    by_entry = entry_verdicts(entries, verdicts) if verdicts is not None else {}
    located: list[Located] = []
    entry_findings: dict[tuple[Path, int], list[Finding]] = {}
    spans = _EntrySpans(entries)
    for path, items in findings.items():
        index = ws.line_index(path)
        for f in items:
            offset = f.location.span.start
            line = column = 1
            if index is not None:
                pos = index.position(offset)
                line, column = pos.line + 1, pos.column + 1
            located.append(Located(f, line, column))
            start = spans.start_at(f.location.path, offset) if f.code in _ENTRY_CODES else None
            if start is not None:
                entry_findings.setdefault((f.location.path, start), []).append(f)
    rows: list[EntryAudit] = []
    repeated: dict[Path, frozenset[str]] = {}
    refusals: dict[Path, str | None] = {}
    for e in entries:
        text = ws.text(e.path) or ""
        index = ws.line_index(e.path)
        line = index.position(e.span.start).line + 1 if index is not None else 0
        verdict = by_entry.get(e)
        source = text[e.span.start : e.span.end]
        corrected = not_applied = ""
        parsed = ws.bibliography(e.path)
        bibtex = parsed is not None and parsed.format is BibFormat.BIBTEX
        fold = e.csl_type is None  # BibTeX keys compare lower-cased, CSL ids not
        if parsed is not None and e.path not in repeated:
            repeated[e.path] = repeated_keys(parsed.entries, fold)
        if (
            verdict is not None
            and verdict.corrections
            and compared_key(e.key, fold) in repeated.get(e.path, ())
        ):
            not_applied = REPEATED_KEY  # as --fix: which of the entries is meant?
        elif (
            verdict is not None
            and verdict.corrections
            and parsed is not None
            and (refusal := _refusal_of(refusals, parsed)) is not None
        ):
            not_applied = refusal  # as --fix: the file is not rewritten at all
        elif verdict is not None and verdict.corrections and text and bibtex:
            corrected = corrected_entry(text, e, verdict.corrections)[0]
        elif verdict is not None and verdict.corrections and text and e.csl_type is not None:
            from citewarden.findings.verdicts import csl_decoding
            from citewarden.fix.csl import corrected_item

            corrected = corrected_item(text, e, verdict.corrections, csl_decoding())
            corrected = "" if corrected == source else corrected
        written: Mapping[str, str] = {}
        if verdict is not None and verdict.corrections and not not_applied:
            written = written_corrections(e, verdict.corrections)
        rows.append(
            EntryAudit(
                entry=e,
                verdict=verdict,
                line=line,
                source=source,
                corrected=corrected,
                not_applied=not_applied,
                findings=tuple(entry_findings.get((e.path, e.span.start), ())),
                written=written,
            )
        )
    files = file_summaries(ws, findings, by_entry, entries)
    verify = settings.verify if settings is not None else None
    return AuditData(
        entries=tuple(rows),
        findings=tuple(located),
        files=tuple(files),
        inputs=tuple(inputs),
        generated=generated or datetime.now().astimezone(),
        version=version,
        root=root,
        verification=verdicts is not None,
        offline=bool(verify and verify.offline),
        sources=tuple(verify.sources) if verify is not None else (),
        addresses=_addresses(verify) if verify is not None and verdicts is not None else (),
        thresholds=default_thresholds() if verdicts is not None else {},
    )


class _EntrySpans:
    """The entries' spans of each file in order, to find the entry at an offset by
    bisection (the entries of a file do not overlap)."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self._spans: dict[Path, list[tuple[int, int]]] = {}
        for e in entries:
            self._spans.setdefault(e.path, []).append((e.span.start, e.span.end))
        for spans in self._spans.values():
            spans.sort()

    def start_at(self, path: Path, offset: int) -> int | None:
        """The start of the entry of ``path`` holding ``offset``, or None."""
        spans = self._spans.get(path, [])
        i = bisect_right(spans, (offset, math.inf)) - 1
        if i >= 0 and offset < spans[i][1]:
            return spans[i][0]
        return None


def _refusal_of(refusals: dict[Path, str | None], bib: ParsedBibliography) -> str | None:
    """:func:`~citewarden.fix.run.file_refusal` of ``bib``, found once a file."""
    if bib.path not in refusals:
        refusals[bib.path] = file_refusal(bib)
    return refusals[bib.path]


def _addresses(verify: VerifySettings) -> tuple[tuple[str, str], ...]:
    from citewarden.verify.config import addresses_elsewhere

    return tuple(addresses_elsewhere(verify).items())


def page_data(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    entries: Sequence[Entry],
    verdicts: Verdicts | None,
    *,
    inputs: Sequence[str] = (),
    settings: Settings | None = None,
    root: Path | None = None,
    contexts: Sequence[CitationContext] | None = None,
) -> AuditData:
    """What the HTML report of one ``citewarden check`` run shows; ``contexts`` are the
    citations' contexts (collected here when not given)."""
    from citewarden import __version__

    data = build_audit(
        ws,
        findings,
        entries,
        verdicts,
        inputs=inputs,
        settings=settings,
        version=__version__,
        root=root,
    )
    if contexts is None:
        verified = entry_verdicts(entries, verdicts) if verdicts is not None else None
        contexts = collect_contexts(
            ws, findings, entries, list(verified.values()) if verified is not None else None
        )
    return dataclasses.replace(data, contexts=tuple(contexts))


def html_of(audit: Audit, *, inputs: Sequence[str] = (), root: Path | None = None) -> str:
    """The HTML report of an audit."""
    return "".join(html_chunks_of(audit, inputs=inputs, root=root))


def html_chunks_of(
    audit: Audit, *, inputs: Sequence[str] = (), root: Path | None = None
) -> Iterator[str]:
    """The HTML report of an audit in pieces (:func:`~citewarden.report.html.page.html_chunks`),
    to be written as they come."""
    data = page_data(
        audit.workspace,
        audit.findings,
        audit.entries,
        audit.entry_verdicts() if audit.verdicts is not None else None,
        inputs=inputs,
        settings=audit.settings,
        root=root,
        contexts=audit.contexts,
    )
    return html_chunks(dataclasses.replace(data, stopped=audit.stopped))
