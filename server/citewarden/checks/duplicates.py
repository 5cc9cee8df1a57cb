"""Duplicate checks: the same key defined twice, the same work under two keys.

* Duplicate key: keys compare case-insensitively, as BibTeX compares them, within one
  bibliography and across the bibliographies of one project.  The second and later
  definitions are reported, pointing at the first, with a fix that removes the duplicate.
* Duplicate work: two entries with different keys and the same DOI, or the same normalised
  title (at least :data:`MIN_TITLE_CHARS` letters and digits) and the same year.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from citewarden.checks import Memo
from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Finding,
    Fix,
    Location,
    ParsedBibliography,
    Related,
    TextEdit,
)
from citewarden.project import BibIndex, Project, Workspace, removal_end

#: titles shorter than this (letters and digits only) never make a duplicate work
MIN_TITLE_CHARS = 12

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?|\\.")
_NON_WORD = re.compile(r"[\W_]+")
_YEAR = re.compile(r"\d{4}")


def duplicate_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    found: list[Finding] = []
    groups: list[list[Path]] = [list(p.bibliographies) for p in projects if p.bibliographies]
    grouped = {b for g in groups for b in g}
    groups += [[b] for b in ws.bibliography_paths() if b not in grouped]
    seen_groups: set[tuple[Path, ...]] = set()
    for group in groups:
        ident = tuple(group)
        if ident in seen_groups:
            continue
        seen_groups.add(ident)
        bibs: list[tuple[Path, ParsedBibliography, BibIndex]] = []
        for path in group:
            bib = ws.bibliography(path)
            index = ws.bib_index(path)
            if bib is not None and index is not None:
                bibs.append((path, bib, index))
        token = tuple(index for _, _, index in bibs)
        found += memo.get(("dupkeys", token), _duplicate_keys, ws, bibs)
        found += memo.get(("dupworks", token), _duplicate_works, bibs)
    return found


def _duplicate_keys(
    ws: Workspace, bibs: list[tuple[Path, ParsedBibliography, BibIndex]]
) -> list[Finding]:
    found: list[Finding] = []
    earlier: list[tuple[Path, BibIndex]] = []
    earlier_keys: set[str] = set()
    for path, bib, index in bibs:
        cross = index.folded.keys() & earlier_keys if earlier_keys else set()
        candidates = index.repeated | cross
        if candidates:
            text = ws.text(path) or ""
            for fk in sorted(candidates, key=lambda k: index.folded[k][0]):
                places = index.folded[fk]
                if fk in cross:
                    first_path, first_index = next((p, ix) for p, ix in earlier if fk in ix.folded)
                    first = first_index.entries[first_index.folded[fk][0]]
                    repeats = places
                else:
                    first_path, first = path, index.entries[places[0]]
                    repeats = places[1:]
                first_line = _line_of(ws, first_path, first.key_span.start)
                for i in repeats:
                    entry = index.entries[i]
                    end = removal_end(text, entry.span.end)
                    found.append(
                        _duplicate_key(path, bib.format, entry, end, first_path, first, first_line)
                    )
        earlier.append((path, index))
        earlier_keys |= index.folded.keys()
    return found


def _line_of(ws: Workspace, path: Path, offset: int) -> int:
    index = ws.line_index(path)
    return index.line_of(offset) + 1 if index is not None else 1


def _duplicate_key(
    path: Path,
    fmt: BibFormat,
    entry: Entry,
    end: int,
    first_path: Path,
    first: Entry,
    first_line: int,
) -> Finding:
    from citewarden.model import Span

    where = f"{first_path.name}:{first_line}"
    fixes: tuple[Fix, ...] = ()
    if fmt is BibFormat.BIBTEX:
        fixes = (
            Fix(
                "Remove duplicate entry",
                (TextEdit(path, Span(entry.span.start, end), ""),),
            ),
        )
    return Finding(
        Code.DUPLICATE_KEY,
        Location(path, entry.key_span),
        f"duplicate key '{entry.key}' (first defined at {where})",
        related=(
            Related(Location(first_path, first.key_span), f"first definition of '{first.key}'"),
        ),
        fixes=fixes,
        data=MappingProxyType({"key": entry.key, "first": first.key}),
    )


def normalize_doi(raw: str) -> str:
    doi = _DOI_PREFIX.sub("", raw.strip()).strip().rstrip(".").lower()
    return doi if doi.startswith("10.") and "/" in doi else ""


@lru_cache(maxsize=65536)
def normalize_title(raw: str) -> str:
    """Lower-case letters and digits of a title, LaTeX commands and accents removed."""
    text = _LATEX_COMMAND.sub(" ", raw)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", text.casefold()).strip()


def _year(entry: Entry) -> str:
    year = entry.get("year") or ""
    if not year:
        date = entry.get("date") or entry.get("issued") or ""
        year = date[:4]
    m = _YEAR.search(year)
    return m.group(0) if m else ""


@lru_cache(maxsize=65536)
def _title_ident(raw: str) -> str:
    """The normalised title, or "" when it is too short to identify a work."""
    title = normalize_title(raw)
    return title if len(title) - title.count(" ") >= MIN_TITLE_CHARS else ""


WorkRow = tuple[str, tuple[str, str] | None]


def _work_row(entry: Entry) -> WorkRow:
    """(normalised DOI, (normalised title, year) or None) of one entry."""
    doi_raw = entry.get("doi")
    doi = normalize_doi(doi_raw) if doi_raw else ""
    title_raw = entry.get("title")
    title = _title_ident(title_raw) if title_raw else ""
    return doi, ((title, _year(entry)) if title else None)


def _duplicate_works(bibs: list[tuple[Path, ParsedBibliography, BibIndex]]) -> list[Finding]:
    by_doi: dict[str, tuple[Path, Entry]] = {}
    by_title: dict[tuple[str, str], tuple[Path, Entry, str]] = {}
    found: list[Finding] = []
    for path, _, index in bibs:
        entries = index.entries
        for i, (doi, ident) in enumerate(index.table("works", _work_row)):
            if not doi and ident is None:
                continue
            entry = entries[i]
            if doi:
                other = by_doi.get(doi)
                if other is None:
                    by_doi[doi] = (path, entry)
                elif other[1].key.casefold() != entry.key.casefold():
                    found.append(_duplicate_work(path, entry, other, f"same DOI {doi}"))
                    continue
            if ident is None:
                continue
            seen = by_title.get(ident)
            if seen is None:
                by_title[ident] = (path, entry, doi)
            elif seen[1].key.casefold() != entry.key.casefold():
                if doi and seen[2] and doi != seen[2]:
                    continue  # e.g. a preprint and its published version
                found.append(
                    _duplicate_work(path, entry, (seen[0], seen[1]), "same title and year")
                )
    return found


def _duplicate_work(path: Path, entry: Entry, other: tuple[Path, Entry], why: str) -> Finding:
    other_path, other_entry = other
    return Finding(
        Code.DUPLICATE_WORK,
        Location(path, entry.key_span),
        f"'{entry.key}' describes the same work as '{other_entry.key}' ({why})",
        related=(
            Related(Location(other_path, other_entry.key_span), f"'{other_entry.key}' is here"),
        ),
        data=MappingProxyType({"key": entry.key, "other": other_entry.key}),
    )
