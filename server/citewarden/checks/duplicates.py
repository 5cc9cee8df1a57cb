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
        found += _duplicate_keys(ws, bibs, memo)
        found += _duplicate_works(bibs)
    return found


def _duplicate_keys(
    ws: Workspace, bibs: list[tuple[Path, ParsedBibliography, BibIndex]], memo: Memo
) -> list[Finding]:
    first: dict[str, tuple[Path, Entry]] = {}
    found: list[Finding] = []
    for path, bib, index in bibs:
        text: str | None = None
        for folded, entries in index.folded.items():
            start = 0
            if folded not in first:
                first[folded] = (path, entries[0])
                start = 1
            if len(entries) <= start:
                continue
            if text is None:
                text = ws.text(path) or ""
            first_path, first_entry = first[folded]
            for entry in entries[start:]:
                end = removal_end(text, entry.span.end)
                key = ("dupkey", path, entry.key, entry.span, end, first_path, first_entry.key_span)
                found.append(
                    memo.get(
                        key,
                        _duplicate_key,
                        path,
                        bib.format,
                        entry,
                        end,
                        first_path,
                        first_entry,
                        _line_of(ws, first_path, first_entry.key_span.start),
                    )
                )
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
    digits = "".join(c for c in year if c.isdigit())
    return digits[:4]


def _duplicate_works(bibs: list[tuple[Path, ParsedBibliography, BibIndex]]) -> list[Finding]:
    by_doi: dict[str, tuple[Path, Entry]] = {}
    by_title: dict[tuple[str, str], tuple[Path, Entry]] = {}
    found: list[Finding] = []
    for path, bib, _ in bibs:
        for entry in bib.entries:
            doi_raw = entry.get("doi")
            if doi_raw:
                doi = normalize_doi(doi_raw)
                if doi:
                    other = by_doi.get(doi)
                    if other is None:
                        by_doi[doi] = (path, entry)
                    elif other[1].key.casefold() != entry.key.casefold():
                        found.append(_duplicate_work(path, entry, other, f"same DOI {doi}"))
                        continue
            title_raw = entry.get("title")
            if not title_raw:
                continue
            title = normalize_title(title_raw)
            if sum(c.isalnum() for c in title) < MIN_TITLE_CHARS:
                continue
            ident = (title, _year(entry))
            other = by_title.get(ident)
            if other is None:
                by_title[ident] = (path, entry)
            elif other[1].key.casefold() != entry.key.casefold():
                if doi_raw and other[1].get("doi"):
                    a, b = normalize_doi(doi_raw), normalize_doi(other[1].get("doi") or "")
                    if a and b and a != b:
                        continue  # e.g. a preprint and its published version
                found.append(_duplicate_work(path, entry, other, "same title and year"))
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
