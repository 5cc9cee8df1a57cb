"""Reading problems and entries of a .bib file in text that every program reading it skips.

citewarden reads a .bib file as BibTeX does, which reads the word ``@comment`` alone and
has no comment character: an entry inside ``@comment{...}`` or after a ``%`` on its line is
read, and its syntax errors, duplicate fields and undefined macros are found.  biber and
pandoc skip both (:mod:`~citewarden.parsing.bib_comments`): a problem there means nothing
to them, so it is not reported for a file that only biber and pandoc projects read (a
file that a BibTeX project reads, or that no project reads, keeps every problem), and
such an entry is no duplicate key or work there (:func:`unread_entries`).  What
biber and pandoc themselves reject is found by :mod:`~citewarden.checks.biber` and
:mod:`~citewarden.checks.pandoc`.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.defined import commented_entries, reader, skipped_regions_of
from citewarden.model import BibFormat, Code, Finding
from citewarden.parsing.bib_comments import comment_groups

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace

#: the problems of citewarden's own reading that may stand in skipped text (an encoding
#: error is the whole file's)
_READING = frozenset({Code.BIB_SYNTAX, Code.DUPLICATE_FIELD, Code.EMPTY_KEY, Code.UNDEFINED_STRING})


def bib_readers(projects: Iterable[Project]) -> dict[Path, set[str]]:
    """Per bibliography, what reads it: "bibtex", "biber" or "pandoc"."""
    readers: dict[Path, set[str]] = {}
    for project in projects:
        for path in project.bibliographies:
            readers.setdefault(path, set()).add(reader(project))
    return readers


def unread_entries(
    ws: Workspace, path: Path, index: BibIndex, readers: set[str], memo: Memo
) -> frozenset[int]:
    """Positions of the entries of the bibliography ``path`` (of ``index``) that all its
    ``readers`` skip (none when BibTeX reads it, or nothing does); once per version."""
    if not readers or "bibtex" in readers:
        return frozenset()
    bib = ws.bibliography(path)
    text = ws.text(path)
    if bib is None or text is None or bib.format is not BibFormat.BIBTEX:
        return frozenset()
    if "%" not in text and "omment" not in text and "OMMENT" not in text:
        return frozenset()
    found: frozenset[int] | None = None
    for name in sorted(readers):
        biber = name == "biber"
        skipped: frozenset[int] = memo.get(
            ("unread-entries", Ident(index), biber), _commented, ws, path, index, biber
        )
        found = skipped if found is None else found & skipped
    return found or frozenset()


def _commented(ws: Workspace, path: Path, index: BibIndex, biber: bool) -> frozenset[int]:
    return frozenset(commented_entries(ws, path, index, biber))


def read_problems(
    ws: Workspace, path: Path, problems: Sequence[Finding], readers: set[str]
) -> Sequence[Finding]:
    """``problems`` of ``path`` without those in text that all its ``readers`` skip."""
    if not problems or not readers or "bibtex" in readers:
        return problems
    bib = ws.bibliography(path)
    text = ws.text(path)
    index = ws.bib_index(path)
    if bib is None or text is None or index is None or bib.format is not BibFormat.BIBTEX:
        return problems
    if "%" not in text and "omment" not in text and "OMMENT" not in text:
        return problems
    skipped = [_skipped(ws, path, index, r == "biber") for r in sorted(readers)]
    if not all(skipped):  # a reader skips nothing: it reads every problem
        return problems
    return [
        p
        for p in problems
        if p.code not in _READING or not all(_inside(p, regions) for regions in skipped)
    ]


def _skipped(ws: Workspace, path: Path, index: BibIndex, biber: bool) -> list[tuple[int, int]]:
    """The disjoint ``[start, end]`` of the text biber (``biber``) or pandoc skips, in order:
    ``@comment`` groups and the entries commented out (their end included: a problem
    found at an entry's end, an unclosed one, is its own); once per version of the file
    (each keystroke in a document reads them again)."""
    name = "#skipped-spans-biber" if biber else "#skipped-spans-pandoc"
    found = index.rows.get(name)
    if found is None:
        found = index.rows[name] = [_skipped_spans(ws, path, index, biber)]
    return found[0]  # type: ignore[no-any-return]


def _skipped_spans(
    ws: Workspace, path: Path, index: BibIndex, biber: bool
) -> list[tuple[int, int]]:
    text = ws.text(path) or ""
    regions = comment_groups(text, index.entries, biber, skipped_regions_of(ws, path, index, biber))
    starts, ends, _ = index.bounds()
    regions += ((starts[i], ends[i]) for i in commented_entries(ws, path, index, biber))
    regions.sort()
    merged: list[tuple[int, int]] = []
    for a, b in regions:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _inside(problem: Finding, regions: list[tuple[int, int]]) -> bool:
    span = problem.location.span
    i = bisect.bisect_right(regions, span.start, key=_first) - 1
    return i >= 0 and regions[i][0] <= span.start and span.end <= regions[i][1]


def _first(region: tuple[int, int]) -> int:
    return region[0]


__all__ = ["bib_readers", "read_problems", "unread_entries"]
