"""Verdicts as report data and as findings placed on the field at fault (pure).

* :func:`entries_json` -> the ``"entries"`` list of ``citewarden check --format json``:
  ``{"key", "file", "line", "status", "tier", "match": {"source", "doi", "score"} | null,
  "corrections": {field: value}, "findings": [{"code", "severity", "message", "field"}]}``.
* :func:`verification_json` adds ``"score"`` (100 - 12 H - 5 E - 2 M) and ``"tiers"``.
* :func:`find_field` finds the field an issue is about (by name or alias), where findings
  are placed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from citewarden.model import (
    Entry,
    Field,
    Issue,
    Status,
    Tier,
    Verdict,
    document_score,
)

LineOf = Callable[[Entry], int | None]

#: A field an issue names, and the fields an entry may use for it instead (BibTeX and
#: biblatex names of the same thing, or where the same information lives).
FIELD_ALIASES: Mapping[str, tuple[str, ...]] = {
    "number": ("number", "issue"),
    "issue": ("issue", "number"),
    "journal": ("journal", "journaltitle"),
    "journaltitle": ("journaltitle", "journal"),
    "year": ("year", "date"),
    "eprint": ("eprint", "url"),
    "author": ("author", "editor"),
}


def _file_line_of(cache: dict[Path, str | None]) -> LineOf:
    def line_of(entry: Entry) -> int | None:
        if entry.path not in cache:
            try:
                cache[entry.path] = entry.path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                cache[entry.path] = None
        text = cache[entry.path]
        if text is None:
            return None
        return text.count("\n", 0, entry.span.start) + 1

    return line_of


def _display(path: Path, cwd: Path | None) -> str:
    base = cwd if cwd is not None else Path.cwd()
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return os.fspath(path)


def issue_json(issue: Issue) -> dict[str, Any]:
    return {
        "code": issue.code.value,
        "severity": issue.effective_severity.label,
        "message": issue.message,
        "field": issue.field,
    }


def entry_json(
    verdict: Verdict, entry: Entry | None, line: int | None, cwd: Path | None = None
) -> dict[str, Any]:
    match = verdict.match
    return {
        "key": verdict.key,
        "file": _display(entry.path, cwd) if entry is not None else None,
        "line": line,
        "status": verdict.status.value,
        "tier": verdict.tier.value,
        "match": (
            {"source": match.source, "doi": match.doi, "score": round(match.score, 4)}
            if match is not None
            else None
        ),
        "corrections": dict(verdict.corrections),
        "findings": [issue_json(i) for i in verdict.issues],
    }


def entries_json(
    verdicts: Mapping[str, Verdict] | Iterable[Verdict],
    entries: Iterable[Entry],
    *,
    line_of: LineOf | None = None,
    cwd: Path | None = None,
) -> list[dict[str, Any]]:
    """One row per verdict, in the order of ``entries`` (verdicts without an entry last).

    ``line_of`` gives the 1-based line of an entry; by default the entry's file is read once.
    """
    values = list(verdicts.values()) if isinstance(verdicts, Mapping) else list(verdicts)
    by_key = {v.key: v for v in values}
    locate = line_of or _file_line_of({})
    rows: list[dict[str, Any]] = []
    done: set[str] = set()
    for entry in entries:
        verdict = by_key.get(entry.key)
        if verdict is None or entry.key in done:
            continue
        done.add(entry.key)
        rows.append(entry_json(verdict, entry, locate(entry), cwd))
    for verdict in values:
        if verdict.key not in done:
            rows.append(entry_json(verdict, None, None, cwd))
    return rows


def tier_counts(verdicts: Iterable[Verdict]) -> dict[Tier, int]:
    counts = {t: 0 for t in Tier}
    for v in verdicts:
        if v.status is not Status.SKIPPED:
            counts[v.tier] += 1
    return counts


def verification_json(
    verdicts: Mapping[str, Verdict],
    entries: Iterable[Entry],
    *,
    line_of: LineOf | None = None,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """``{"entries": [...], "score": n, "tiers": {"H": n, "E": n, "M": n, "D": n}}``."""
    counts = tier_counts(verdicts.values())
    return {
        "entries": entries_json(verdicts, entries, line_of=line_of, cwd=cwd),
        "score": document_score(counts),
        "tiers": {t.value: n for t, n in counts.items()},
    }


# ----------------------------------------------------------------------------------------
# Findings on the field at fault
# ----------------------------------------------------------------------------------------


def find_field(
    entry: Entry,
    name: str | None,
    aliases: Mapping[str, tuple[str, ...]] = FIELD_ALIASES,
) -> Field | None:
    """The first field of ``entry`` among ``aliases[name]`` (just ``name`` when it has no
    aliases); None when ``name`` is empty or the entry has none of them."""
    if not name:
        return None
    for candidate in aliases.get(name, (name,)):
        found = entry.field(candidate)
        if found is not None:
            return found
    return None
