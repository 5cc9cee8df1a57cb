"""Duplicate checks: the same key defined twice, the same work under two keys.

* Duplicate key: keys compare as the tools reading them compare them, within one
  bibliography and across the bibliographies of one project: folded where BibTeX reads
  them (or no project does; :func:`~citewarden.file_state.fold_key`), else exactly (biber
  prints ``Smith`` and ``smith`` both, and pandoc reads two keys too; biber warns of the
  two spellings in one file: :mod:`~citewarden.checks.biber_case`).  The second and later
  definitions are reported, pointing at the first, with a fix that removes the duplicate.
* Duplicate work: two entries with different keys and the same DOI, or the same normalised
  title (at least :data:`MIN_TITLE_CHARS` letters and digits) and the same year.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, count
from operator import methodcaller, not_
from pathlib import Path
from types import MappingProxyType
from typing import Any

from citewarden.checks import Memo
from citewarden.checks.biber_case import case_variant_findings, files_read
from citewarden.checks.cited import keys_of
from citewarden.checks.defined import reader
from citewarden.checks.refsection_flow import refsection_flow
from citewarden.checks.skipped_text import unread_entries
from citewarden.checks.units import resource_order, units_of
from citewarden.file_state import BibIndex, fold_key
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
    quoted,
)
from citewarden.project import Project, Workspace, removal_end

#: titles shorter than this (letters and digits only) never make a duplicate work
MIN_TITLE_CHARS = 12

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_LATEX_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\*?|.)")
_NON_WORD = re.compile(r"[\W_]+")
_YEAR = re.compile(r"\d{4}")


def duplicate_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    """Duplicate keys and works per group of bibliographies a project reads together (and
    per bibliography no project reads), leaving out the entries every reader of the group
    skips (biber and pandoc: in comments, :func:`~citewarden.checks.skipped_text.unread_entries`)."""
    found: list[Finding] = []
    groups: dict[tuple[Path, ...], set[str]] = {}
    by_biber: dict[tuple[Path, ...], list[Project]] = {}
    for p in projects:
        if p.bibliographies:
            groups.setdefault(tuple(p.bibliographies), set()).add(reader(p))
            if reader(p) == "biber":
                by_biber.setdefault(tuple(p.bibliographies), []).append(p)
    grouped = {b for g in groups for b in g}
    for b in ws.bibliography_paths():
        if b not in grouped:
            groups.setdefault((b,), set())
    for group, readers in groups.items():
        bibs: list[tuple[Path, ParsedBibliography, BibIndex]] = []
        for path in group:
            bib = ws.bibliography(path)
            index = ws.bib_index(path)
            if bib is not None and index is not None:
                bibs.append((path, bib, index))
        token = tuple(index for _, _, index in bibs)
        skips = tuple(unread_entries(ws, path, index, readers, memo) for path, _, index in bibs)
        if not any(skips):
            skips = ()
        fold = folds_keys(readers)
        found += memo.get(("dupkeys", token, skips, fold), _duplicate_keys, ws, bibs, skips, fold)
        found += memo.get(("dupworks", token, skips, fold), _duplicate_works, bibs, skips, fold)
        if "biber" in readers and not fold:  # (folded: duplicate keys already)
            files = [(path, index) for path, _, index in bibs]
            runs = [_biber_sections(ws, p, files, memo) for p in by_biber.get(group, [])]
            for sections in runs or [[(tuple(range(len(files))), None)]]:
                key = ("casekeys", token, skips, tuple(sections))
                found += memo.get(key, _case_variants, files, sections, skips)
    return _unique(found)


def _case_variants(
    files: list[tuple[Path, BibIndex]],
    sections: list[tuple[tuple[int, ...], frozenset[str] | None]],
    skips: tuple[frozenset[int], ...],
) -> list[Finding]:
    """:func:`case_variant_findings` of one biber run over the ``sections`` (in biber's
    order, each the positions of the ``files`` it reads in order and the keys it looks
    for).  biber reads a file once per run, in the first section that reads it, and
    compares its keys with those that section read before in files it read first: a file
    a section reads again is taken from its cache, with no warning and no key compared."""
    found: list[Finding] = []
    cached: set[int] = set()
    for order, wanted in sections:
        read = [order[i] for i in files_read([files[n] for n in order], wanted)]
        fresh = [n for n in read if n not in cached]
        cached.update(read)
        if fresh:
            scoped = tuple(skips[n] for n in fresh) if skips else ()
            found += case_variant_findings([files[n] for n in fresh], scoped)
    return found


def _unique(found: list[Finding]) -> list[Finding]:
    """``found`` without repeats (a case variant two refsections read warns once)."""
    seen: set[tuple[str, Path, int, str]] = set()
    out: list[Finding] = []
    for f in found:
        mark = (f.code.value, f.location.path, f.location.span.start, f.message)
        if mark not in seen:
            seen.add(mark)
            out.append(f)
    return out


def _biber_sections(
    ws: Workspace, project: Project, files: list[tuple[Path, BibIndex]], memo: Memo
) -> list[tuple[tuple[int, ...], frozenset[str] | None]]:
    """What biber reads of ``files`` for ``project``, one section at a time in the order
    it reads them (by biblatex's number): the positions of the files the section reads, in
    its order of the resources, and the keys it looks for (None: every entry,
    ``\\nocite{*}``).  A refsection with resources of its own reads the global ones, then
    its own; any other section (the document-wide one, one begun without resources) the
    default and global ones in the order they are declared.  A section that cites nothing
    is not read."""
    every = tuple(range(len(files)))
    documents = list(ws.project_documents(project))
    if not any(doc.refsection_marks or doc.refsection_reset for _, doc in documents):
        return [(every, _wanted(ws, [project], memo))]
    units = units_of(ws, project)
    flow = units.flow or refsection_flow(project.root, dict(documents), project.placed)
    keys: dict[int, set[str] | None] = {}
    resources: dict[int, tuple[str, ...] | None] = {}
    for path, doc in documents:
        regions = flow.get(path)
        if regions is None or not regions.numbers:
            continue
        for cit in doc.citations:
            number = regions.number_at(cit.span.start)
            state = regions.at(cit.span.start)
            resources[number] = None if state is None else state[1][2]
            cited = keys.setdefault(number, set())
            if cited is not None:
                cited.add(cit.key)
        for at in doc.nocite_all_at:
            number = regions.number_at(at)
            state = regions.at(at)
            resources[number] = None if state is None else state[1][2]
            keys[number] = None
    declared = resource_order(ws, project, [path for path, _ in files])
    sections: list[tuple[tuple[int, ...], frozenset[str] | None]] = []
    for number in sorted(keys):
        cited = keys[number]
        scope = resources[number]
        if scope is None:
            order = tuple(n for n in declared if units.reads(None, files[n][0]))
        else:
            order = tuple(n for n in declared if units.reads((), files[n][0]))
            for name in scope:
                order += tuple(
                    n
                    for n, (path, _) in enumerate(files)
                    if n not in order and units.reads((name,), path)
                )
        sections.append((order, None if cited is None else frozenset(cited)))
    return sections


def _wanted(ws: Workspace, projects: list[Project], memo: Memo) -> frozenset[str] | None:
    """The keys biber looks for in the bibliographies of ``projects``: those they cite
    (None: every entry, a ``\\nocite{*}``)."""
    docs = [doc for project in projects for _, doc in ws.project_documents(project)]
    if any(doc.nocite_all for doc in docs):
        return None
    return keys_of(docs, memo)


def folds_keys(readers: set[str]) -> bool:
    """Whether keys read by ``readers`` ("bibtex", "biber", "pandoc") compare folded: where
    BibTeX reads them ("Repeated entry" for ``Smith`` after ``smith``), and where nothing
    does (a file no project reads: the strictest reading); biber and pandoc compare them
    exactly."""
    return "bibtex" in readers or not readers


def _places_by_key(index: BibIndex, fold: bool) -> dict[str, list[int]]:
    """Key (folded with ``fold``) -> positions of the entries defining it."""
    return index.folded if fold else index.by_key


def _repeated(index: BibIndex, fold: bool) -> set[str]:
    """The keys (folded with ``fold``) defined more than once in ``index``: an exact key
    defined twice is a folded one defined twice too (the few of those are looked at)."""
    if fold or not index.repeated:
        return index.repeated
    by_key = index.by_key
    return {
        k
        for fk in index.repeated
        for k in {index.keys[i] for i in index.folded[fk]}
        if len(by_key[k]) > 1
    }


def _duplicate_keys(
    ws: Workspace,
    bibs: list[tuple[Path, ParsedBibliography, BibIndex]],
    skips: tuple[frozenset[int], ...] = (),
    fold: bool = True,
) -> list[Finding]:
    """The second and later definitions of each key (folded with ``fold``) of ``bibs``, but
    those of the entries at the positions ``skips`` (per bibliography, if any)."""
    found: list[Finding] = []
    earlier: list[tuple[Path, BibIndex, frozenset[int]]] = []
    earlier_keys: set[str] = set()
    for n, (path, bib, index) in enumerate(bibs):
        skip = skips[n] if skips else frozenset()
        table = _places_by_key(index, fold)
        cross = table.keys() & earlier_keys if earlier_keys else set()
        candidates = _repeated(index, fold) | cross
        if candidates:
            text = ws.text(path) or ""
            for fk in sorted(candidates, key=lambda k: table[k][0]):
                places = _read(table[fk], skip)
                if fk in cross and places:
                    first_path, first_index, first_places = next(
                        (p, ix, kept)
                        for p, ix, s in earlier
                        if (kept := _read(_places_by_key(ix, fold).get(fk, []), s))
                    )
                    first = first_index.entries[first_places[0]]
                    repeats = places
                elif len(places) > 1:
                    first_path, first = path, index.entries[places[0]]
                    repeats = places[1:]
                else:
                    continue
                first_line = _line_of(ws, first_path, first.key_span.start)
                for i in repeats:
                    entry = index.entries[i]
                    end = removal_end(text, entry.span.end)
                    found.append(
                        _duplicate_key(path, bib.format, entry, end, first_path, first, first_line)
                    )
        earlier.append((path, index, skip))
        if len(earlier) < len(bibs):  # only a later bibliography compares with these
            unread = {fold_key(index.keys[i]) if fold else index.keys[i] for i in skip}
            earlier_keys |= table.keys() - {fk for fk in unread if not _read(table[fk], skip)}
    return found


def _read(places: list[int], skip: frozenset[int]) -> list[int]:
    """``places`` but those in ``skip``."""
    return [i for i in places if i not in skip] if skip else places


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
        f"duplicate key {quoted(entry.key)} (first defined at {where})",
        related=(
            Related(
                Location(first_path, first.key_span), f"first definition of {quoted(first.key)}"
            ),
        ),
        fixes=fixes,
        data=MappingProxyType({"key": entry.key, "first": first.key}),
    )


def normalize_doi(raw: str) -> str:
    doi = raw.strip()
    if not doi.startswith("10."):  # else no resolver or ``doi:`` prefix to drop
        doi = _DOI_PREFIX.sub("", doi).strip()
    doi = doi.rstrip(".").lower()
    return doi if doi.startswith("10.") and "/" in doi else ""


_FORMATTING = frozenset(
    [
        "emph",
        "textit",
        "textbf",
        "textsc",
        "texttt",
        "textrm",
        "textsf",
        "textup",
        "textnormal",
        "mathrm",
        "mathit",
        "mathbf",
        "mathcal",
        "mathsf",
        "mathtt",
        "url",
        "it",
        "bf",
        "em",
        "sc",
        "rm",
        "tt",
        "sf",
        "up",
    ]
)


def _command(m: re.Match[str]) -> str:
    name = m.group(1)
    if name is None or name in _FORMATTING:
        return " "
    return name  # \TeX -> TeX: a logo or symbol name stays part of the title


@lru_cache(maxsize=65536)
def normalize_title(raw: str) -> str:
    """Lower-case letters and digits of a title (spaces and punctuation removed), with
    formatting commands and accents dropped."""
    text = _LATEX_COMMAND.sub(_command, raw) if "\\" in raw else raw
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    return _NON_WORD.sub("", text.casefold())


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
    return title if len(title) >= MIN_TITLE_CHARS else ""


#: Bytes dropped from lower-case ASCII text: all but letters, digits and NUL (the separator
#: of titles normalised together)
_NOT_WORD_BYTES = bytes(
    c for c in range(256) if not (chr(c).isascii() and (chr(c).isalnum() or c == 0))
)


#: What a normalised title drops with the backslash: an escaped non-letter (``\\&``, ``\\1``)
#: or a formatting command's name.  Any other command keeps its name, as
#: :func:`normalize_title` keeps it; its backslash goes with the punctuation.
_DROPPED_COMMAND = re.compile(
    r"\\(?:[^A-Za-z\n]|(?:" + "|".join(sorted(_FORMATTING)) + r")(?![A-Za-z]))"
)


def _normalised_titles(titles: list[str]) -> list[str]:
    """``_title_ident`` of each title ("" for "").

    ASCII titles (nearly all) are normalised together: joined with NUL (which no title
    holds and no pattern crosses), formatting commands are dropped by one substitution
    over the whole, then letters and digits are kept byte-wise, in C, and the result is
    split again.  Other titles, and those ending with a backslash, take
    :func:`_title_ident` one by one.
    """
    odd = list(compress(count(), map(not_, map(str.isascii, titles))))
    batch = _without(titles, odd)
    joined = "\x00".join(batch)
    if "\\\x00" in joined or joined.endswith("\\"):
        # a title ending with a backslash would take the separator into a command
        odd = sorted({*odd, *compress(count(), map(methodcaller("endswith", "\\"), titles))})
        batch = _without(titles, odd)
        joined = "\x00".join(batch)
    if joined.count("\x00") != len(titles) - 1:  # a title holds NUL: one by one
        return [_title_ident(title) if title else "" for title in titles]
    if "\\" in joined:
        joined = _DROPPED_COMMAND.sub(" ", joined)
    text = joined.encode("ascii").lower().translate(None, _NOT_WORD_BYTES).decode("ascii")
    out = [title if len(title) >= MIN_TITLE_CHARS else "" for title in text.split("\x00")]
    for i in odd:
        out[i] = _title_ident(titles[i])
    return out


def _without(titles: list[str], odd: list[int]) -> list[str]:
    """``titles`` with those at the positions ``odd`` made empty (a copy if any)."""
    if not odd:
        return titles
    batch = titles.copy()
    for i in odd:
        batch[i] = ""
    return batch


def _title_idents_of(entries: Sequence[Entry]) -> list[str]:
    """``_title_ident_of`` of each entry, the titles normalised together."""
    return _normalised_titles(list(map(methodcaller("get", "title", ""), entries)))


def _title_ident_of(entry: Entry) -> str:
    raw = entry.get("title")
    return _title_ident(raw) if raw else ""


def _doi_of(entry: Entry) -> str:
    raw = entry.get("doi")
    return normalize_doi(raw) if raw else ""


def _dois_of(entries: Sequence[Entry]) -> list[str]:
    """``_doi_of`` of each entry."""
    return [normalize_doi(raw) if raw else "" for raw in map(methodcaller("get", "doi"), entries)]


def _duplicate_works(
    bibs: list[tuple[Path, ParsedBibliography, BibIndex]],
    skips: tuple[frozenset[int], ...] = (),
    fold: bool = True,
) -> list[Finding]:
    """Entries describing the same work under another key (folded with ``fold``: the
    definitions of one key are duplicate keys, not works)."""
    same = _same_folded if fold else str.__eq__
    # per-entry values are tables carried over between versions; counting is done in C,
    # and only entries whose DOI or title occurs twice are looked at one by one (the year,
    # which a title needs to be a work's, too)
    indexes = [index for _, _, index in bibs]
    dois = [index.table("doi", _doi_of, _dois_of) for index in indexes]
    titles = [index.table("title-ident", _title_ident_of, _title_idents_of) for index in indexes]
    shared_dois = _shared(indexes, "doi")
    shared_titles = _shared(indexes, "title-ident")
    if not shared_dois and not shared_titles:
        return []
    candidates = [_candidates(index, shared_dois, shared_titles) for index in indexes]
    works = [
        {i: (title_column[i], _year(index.entries[i])) for i in places if title_column[i]}
        for index, title_column, places in zip(indexes, titles, candidates, strict=True)
    ]
    counted = Counter(work for table in works for work in table.values())
    shared_works = {work for work, n in counted.items() if n > 1 and work[0] in shared_titles}
    by_doi: dict[str, tuple[Path, Entry]] = {}
    by_title: dict[tuple[str, str], tuple[Path, Entry, str]] = {}
    found: list[Finding] = []
    for n, ((path, _, index), doi_column, places, work_of) in enumerate(
        zip(bibs, dois, candidates, works, strict=True)
    ):
        if skips and skips[n]:  # entries that no reader reads are no work
            places = [i for i in places if i not in skips[n]]
        for i in places:
            doi, ident = doi_column[i], work_of.get(i)
            entry = index.entries[i]
            if doi in shared_dois:
                other = by_doi.get(doi)
                if other is None:
                    by_doi[doi] = (path, entry)
                elif not same(other[1].key, entry.key):
                    found.append(_duplicate_work(path, entry, other, f"same DOI {doi}"))
                    continue
            if ident is None or ident not in shared_works:
                continue
            seen = by_title.get(ident)
            if seen is None:
                by_title[ident] = (path, entry, doi)
            elif not same(seen[1].key, entry.key):
                if doi and seen[2] and doi != seen[2]:
                    continue  # e.g. a preprint and its published version
                found.append(
                    _duplicate_work(path, entry, (seen[0], seen[1]), "same title and year")
                )
    return found


def _same_folded(a: str, b: str) -> bool:
    return fold_key(a) == fold_key(b)


def _candidates(index: BibIndex, shared_dois: set[str], shared_titles: set[str]) -> list[int]:
    """Positions in ``index``, in order, whose DOI or title is among the shared ones."""
    dois = _places(index, "doi", shared_dois)
    titles = _places(index, "title-ident", shared_titles)
    return sorted({*dois, *titles}) if dois and titles else dois or titles


def _places(index: BibIndex, name: str, shared: set[Any]) -> list[int]:
    """Positions, in order, of the entries whose value in the table ``name`` is in
    ``shared``; kept per version and, after an edit, derived from the previous version's
    (only a value that became shared is looked for in every entry)."""
    if not shared:
        return []
    found = index.rows.get("#places:" + name)
    if found is not None and found[0] == shared:
        return found[1]  # type: ignore[no-any-return]
    column = index.rows[name]
    prev = index.previous
    old = prev[0].rows.get("#places:" + name) if prev is not None else None
    if prev is not None and old is not None:
        old_shared, old_places = old
        _, a, b, b_old = prev
        shift = b - b_old
        places = [p for p in old_places if p < a and column[p] in shared]
        places += [i for i in range(a, b) if column[i] in shared]
        places += [p + shift for p in old_places if p >= b_old and column[p + shift] in shared]
        gained = shared - old_shared
        if gained:
            places = sorted({*places, *compress(count(), map(gained.__contains__, column))})
    else:
        places = list(compress(count(), map(shared.__contains__, column)))
    index.rows["#places:" + name] = [shared, places]
    return places


def _shared(indexes: list[BibIndex], name: str) -> set[Any]:
    """Values of the per-entry table ``name`` that occur more than once across
    ``indexes`` (empty values and None excluded)."""
    if len(indexes) == 1:
        return _counted(indexes[0], name)[1]
    total: Counter[Any] = Counter()
    for index in indexes:
        total.update(_counted(index, name)[0])
    return {v for v, n in total.items() if n > 1 and v}


def _counted(index: BibIndex, name: str) -> tuple[Counter[Any], set[Any]]:
    """How often each value of the table ``name`` occurs in ``index``, and the values
    occurring more than once; made once per version, and after an edit derived from the
    previous version's counts by recounting only the entries the edit replaced."""
    found = index.rows.get("#count:" + name)
    if found is not None:
        return found[0], found[1]
    column = index.rows[name]
    prev = index.previous
    old = prev[0].rows.get("#count:" + name) if prev is not None else None
    old_column = prev[0].rows.get(name) if prev is not None else None
    if prev is not None and old is not None and old_column is not None:
        _, a, b, b_old = prev
        counts: Counter[Any] = old[0].copy()
        counts.subtract(old_column[a:b_old])
        counts.update(column[a:b])
        touched = set(old_column[a:b_old]) | set(column[a:b])
        shared = (old[1] - touched) | {v for v in touched if counts[v] > 1 and v}
    else:
        counts = Counter(column)
        shared = {v for v, n in counts.items() if n > 1 and v}
    index.rows["#count:" + name] = [counts, shared]
    return counts, shared


def _duplicate_work(path: Path, entry: Entry, other: tuple[Path, Entry], why: str) -> Finding:
    other_path, other_entry = other
    return Finding(
        Code.DUPLICATE_WORK,
        Location(path, entry.key_span),
        f"{quoted(entry.key)} describes the same work as {quoted(other_entry.key)} ({why})",
        related=(
            Related(
                Location(other_path, other_entry.key_span), f"{quoted(other_entry.key)} is here"
            ),
        ),
        data=MappingProxyType({"key": entry.key, "other": other_entry.key}),
    )
