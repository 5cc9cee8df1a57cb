"""A .bib file read by pandoc that pandoc cannot read, in the Markdown projects (pandoc,
Quarto, R Markdown): one ``bib-syntax`` finding per place pandoc rejects (see
:mod:`~citewarden.parsing.pandoc_syntax`), where citewarden's own reading finds no error
in that block.  ``pandoc --citeproc`` then stops with an error, so no citation of the
document is resolved, where citewarden goes on reading every entry.  An entry pandoc
skips (``@commentary{...}``) is one finding too; it defines nothing in those projects
(:func:`~citewarden.checks.defined.commented_keys`).  After an edit, only the blocks
around it are read again (:func:`~citewarden.parsing.pandoc_syntax.read_again`)."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.model import (
    BibFormat,
    Code,
    DocumentKind,
    Finding,
    Location,
    ParsedBibliography,
    quoted,
)
from citewarden.parsing.pandoc_syntax import pandoc_skips, read_again

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace


def pandoc_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    read_by_pandoc: dict[Path, None] = {}
    for project in projects:
        if project.kind is DocumentKind.MARKDOWN:
            read_by_pandoc.update(dict.fromkeys(project.bibliographies))
    found: list[Finding] = []
    for path in read_by_pandoc:
        bib = ws.bibliography(path)
        if bib is not None and bib.format is BibFormat.BIBTEX:
            found += memo.get(("pandoc-syntax", Ident(bib)), _findings, ws, path, bib, memo)
            last = ("pandoc-reading", path)
            if last not in memo.current and memo.previous(last) is not None:
                memo.current[last] = memo.previous(last)  # for the next edit
    return found


def _findings(ws: Workspace, path: Path, bib: ParsedBibliography, memo: Memo) -> list[Finding]:
    text = ws.text(path) or ""
    reading = read_again(text, bib, memo.previous(("pandoc-reading", path)))
    memo.current[("pandoc-reading", path)] = (bib.entries, len(text), reading)
    errors = sorted(p.location.span.start for p in bib.problems if p.code is Code.BIB_SYNTAX)
    found = [
        Finding(
            Code.BIB_SYNTAX,
            Location(path, span),
            f"pandoc cannot read this file: {why} (pandoc --citeproc stops with an error, and "
            "no citation of the document is found)",
        )
        for span, why, block in reading.rejections
        if bisect.bisect_right(errors, span.end) == bisect.bisect_left(errors, block)
    ]
    found += (
        Finding(
            Code.BIB_SYNTAX,
            Location(path, place),
            f"pandoc skips this entry: {why}, so a citation of {quoted(entry.key)} is not "
            "found in a pandoc document",
        )
        for entry, place, why in pandoc_skips(reading, bib.entries)
    )
    return found


__all__ = ["pandoc_findings"]
