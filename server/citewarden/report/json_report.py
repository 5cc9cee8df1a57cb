"""The JSON report of ``citewarden check --format json`` (schema ``citewarden-report/1``).

Shape (lines and columns 1-based, columns in Unicode code points; ``file`` is relative to
the working directory when the file lies under it, else absolute)::

    {
      "schema": "citewarden-report/1",
      "citations": {
        "dangling":   [{"key", "file", "line", "column", "suggestions": [key, ...]}],
        "orphans":    [{"key", "file", "line", "column"}],
        "duplicates": [{"kind": "key" | "work", "key", "file", "line", "column",
                        "other": {"key", "file", "line", "column"}}]
      },
      "diagnostics": [{"file", "line", "column", "end_line", "end_column",
                       "code", "severity", "message"}],
      # with verification only:
      "entries": [{"key", "file", "line", "status", "tier",
                   "match": {"source", "doi", "score"} | null,
                   "corrections": {field: value},
                   "findings": [{"code", "severity", "message", "field"}]}],
      "score": 0-100,
      "tiers": {"H": n, "E": n, "M": n, "D": n}
    }

``dangling``/``orphans``/``duplicates`` list each place once; ``diagnostics`` holds every
finding (those included) after suppression and severity settings, sorted by file and place.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from citewarden.model import Code, Entry, Finding, Location, Verdict
from citewarden.text import LineIndex
from citewarden.verify.report import verification_json

SCHEMA = "citewarden-report/1"

IndexOf = Callable[[Path], LineIndex | None]


def display_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` relative to ``cwd`` when under it, else absolute."""
    base = cwd if cwd is not None else Path.cwd()
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return os.fspath(path)


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


def sorted_findings(findings: Mapping[Path, Sequence[Finding]]) -> list[Finding]:
    out = [f for path in sorted(findings) for f in findings[path]]
    out.sort(key=lambda f: (str(f.location.path), f.location.span.start, f.code.value))
    return out


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


def entries_section(
    entries: Sequence[Entry],
    verdicts: Sequence[Verdict],
    index: IndexOf,
    cwd: Path | None = None,
) -> tuple[list[dict[str, Any]], int, dict[str, int]]:
    """The per-entry verification results, the document score and the tier counts."""

    def line_of(entry: Entry) -> int | None:
        return _place(index, Location(entry.path, entry.key_span), cwd)["line"]

    report = verification_json({v.key: v for v in verdicts}, entries, line_of=line_of, cwd=cwd)
    return report["entries"], report["score"], report["tiers"]


def build_report(
    findings: Mapping[Path, Sequence[Finding]],
    index: IndexOf,
    *,
    cwd: Path | None = None,
    entries: Sequence[Entry] = (),
    verdicts: Sequence[Verdict] | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict (see the module docstring for its shape)."""
    ordered = sorted_findings(findings)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "citations": citations_section(ordered, index, cwd),
        "diagnostics": [diagnostic(f, index, cwd) for f in ordered],
    }
    if verdicts is not None:
        rows, score, tiers = entries_section(entries, verdicts, index, cwd)
        report["entries"] = rows
        report["score"] = score
        report["tiers"] = tiers
    return report
