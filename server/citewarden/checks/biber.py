"""A .bib file read by biber that biber cannot read: one ``bib-syntax`` finding per place
biber rejects (see :mod:`~citewarden.parsing.biber_syntax`), in the projects that use biber
(biblatex with the biber backend).  biber then reads no entry of the file, where citewarden
goes on reading every entry, so the finding says so.  In a file biber reads, a key it reads
as another (``x'y`` as ``x``) is one too: its citations find no entry."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.defined import biber_reading
from citewarden.model import Code, DocumentKind, Finding, Location, ParsedBibliography
from citewarden.parsing.biber_syntax import renamed_key

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace


def biber_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    read_by_biber: dict[Path, None] = {}
    for project in projects:
        if project.kind is DocumentKind.LATEX and not project.casefold_keys:
            read_by_biber.update(dict.fromkeys(project.bibliographies))
    found: list[Finding] = []
    for path in read_by_biber:
        bib = ws.bibliography(path)
        if bib is not None and path.suffix.lower() == ".bib":
            found += memo.get(("biber-syntax", Ident(bib)), _findings, ws, path, bib)
    return found


def _findings(ws: Workspace, path: Path, bib: ParsedBibliography) -> list[Finding]:
    index = ws.bib_index(path)
    if index is None:
        return []
    reading = biber_reading(ws, path, index)
    rejected = [
        Finding(
            Code.BIB_SYNTAX,
            Location(path, span),
            f"{why}: a syntax error for biber, which then reads no entry of this file",
        )
        for span, why in reading.rejections
    ]
    if rejected:
        return rejected
    return [
        Finding(Code.BIB_SYNTAX, Location(path, span), why)
        for span, why in (renamed_key(index.entries[i], read) for i, read in reading.renamings)
    ]


__all__ = ["biber_findings"]
