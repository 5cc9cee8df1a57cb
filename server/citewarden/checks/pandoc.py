"""A .bib file read by pandoc that pandoc cannot read, in the Markdown projects (pandoc,
Quarto, R Markdown): one ``bib-syntax`` finding per place pandoc rejects (see
:mod:`~citewarden.parsing.pandoc_syntax`), where citewarden's own reading finds no error
in that block.  ``pandoc --citeproc`` then stops with an error, so no citation of the
document is resolved, where citewarden goes on reading every entry; likewise a CSL-JSON
file that is an object of ``"items"``, which pandoc 2 stops at (and a CSL-YAML file that
is a bare list of items, from which pandoc 2 reads no entry).  An entry pandoc
skips (``@commentary{...}``) is one finding too; it defines nothing in those projects
(:func:`~citewarden.checks.defined.commented_keys`).  After an edit, only the blocks
around it are read again (:func:`~citewarden.parsing.pandoc_syntax.read_again`).

pandoc reads a bibliography as UTF-8 only: one that is not (Latin-1, UTF-16) makes it stop
with an error ("Cannot decode byte '\\xe9'" for a .bib file), so the ``file-encoding``
error of such a file says so (:func:`pandoc_encoding`).  A Markdown document that is not
UTF-8 pandoc reads as Latin-1, with a warning."""

from __future__ import annotations

import bisect
import dataclasses
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
    Severity,
    quoted,
)
from citewarden.parsing.encoding import NOT_UTF8
from citewarden.parsing.pandoc_syntax import (
    PANDOC_2,
    PandocDialect,
    dialect_of,
    pandoc_skips,
    read_again,
)

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace


def pandoc_dialect(projects: list[Project]) -> PandocDialect:
    """How the pandoc of the Markdown ``projects`` reads a .bib file they share (of
    projects read by different versions, the first one's)."""
    for project in projects:
        if project.kind is DocumentKind.MARKDOWN:
            return dialect_of(project.pandoc_version)
    return dialect_of(None)


def pandoc_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    read_by_pandoc: dict[tuple[Path, PandocDialect], None] = {}
    for project in projects:
        if project.kind is DocumentKind.MARKDOWN:
            dialect = dialect_of(project.pandoc_version)
            read_by_pandoc.update(dict.fromkeys((p, dialect) for p in project.bibliographies))
    found: list[Finding] = []
    for path, dialect in read_by_pandoc:
        bib = ws.bibliography(path)
        if bib is not None and bib.format is BibFormat.BIBTEX:
            key = ("pandoc-syntax", Ident(bib), dialect)
            found += memo.get(key, _findings, ws, path, bib, memo, dialect)
            last = ("pandoc-reading", path, dialect)
            if last not in memo.current and memo.previous(last) is not None:
                memo.current[last] = memo.previous(last)  # for the next edit
        elif bib is not None and (
            (bib.format is BibFormat.CSL_JSON and not dialect.csl_items_object)
            or (bib.format is BibFormat.CSL_YAML and not dialect.csl_yaml_bare_list)
        ):
            found += memo.get(("pandoc-csl", Ident(bib), dialect), _csl_findings, ws, bib)
    return found


def _csl_findings(ws: Workspace, bib: ParsedBibliography) -> list[Finding]:
    """What of the CSL bibliography ``bib`` pandoc 2 does not read, where citewarden's own
    reading finds no error: a CSL-JSON object of ``"items"`` (it stops with an error), a
    CSL-YAML file that is a bare list of items (it reads no entry); one finding at the name
    ``"items"``, at the list's first line."""
    if any(p.code is Code.BIB_SYNTAX for p in bib.problems):
        return []
    # (the CSL reader loads YAML: only for a project that has a CSL bibliography)
    from citewarden.parsing.csl import bare_list, items_object

    text = ws.text(bib.path) or ""
    if bib.format is BibFormat.CSL_YAML:
        span = bare_list(text)
        message = (
            "pandoc 2 reads no entry from this file: a bare list of CSL items, where it "
            "reads the items of a references: list (pandoc 3 reads both); write references: "
            "above the list, or no citation of its items is found in a pandoc 2 document"
        )
    else:
        span = items_object(text)
        message = (
            "pandoc cannot read this file: pandoc 2 reads a CSL-JSON array of items, not an "
            'object whose "items" are one (pandoc 3 reads both) (pandoc --citeproc stops '
            "with an error, and no citation of the document is found)"
        )
    return [] if span is None else [Finding(Code.BIB_SYNTAX, Location(bib.path, span), message)]


def _findings(
    ws: Workspace, path: Path, bib: ParsedBibliography, memo: Memo, dialect: PandocDialect
) -> list[Finding]:
    text = ws.text(path) or ""
    last = ("pandoc-reading", path, dialect)
    reading = read_again(text, bib, memo.previous(last), dialect)
    memo.current[last] = (bib.entries, len(text), reading)
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


def pandoc_encoding(
    ws: Workspace, projects: list[Project], findings: list[Finding], memo: Memo
) -> list[Finding]:
    """``findings``, the ``file-encoding`` ones of a bibliography a Markdown project reads
    that is not UTF-8 saying that pandoc stops at it."""
    code = Code.FILE_ENCODING
    wrong = [f for f in findings if f.code is code and f.data.get("encoding") in NOT_UTF8]
    if not wrong:
        return findings
    read_by_pandoc: dict[Path, PandocDialect] = {}
    for project in projects:
        if project.kind is DocumentKind.MARKDOWN:
            dialect = dialect_of(project.pandoc_version)
            for path in project.bibliographies:
                read_by_pandoc.setdefault(path, dialect)
    stops: dict[int, Finding] = {}
    for f in wrong:
        reading = read_by_pandoc.get(f.location.path)
        if reading is not None:
            key = ("pandoc-encoding", Ident(f), reading)
            stops[id(f)] = memo.get(key, _stops, ws, f, reading)
    return [stops.get(id(f), f) for f in findings] if stops else findings


def _stops(ws: Workspace, finding: Finding, dialect: PandocDialect) -> Finding:
    path = finding.location.path
    bib = ws.bibliography(path)
    byte = finding.data.get("byte")
    offset = finding.data.get("byte_offset")
    error = ""
    if bib is not None and bib.format is BibFormat.BIBTEX and isinstance(byte, int):
        if dialect is PANDOC_2:
            error = f" (\"Cannot decode byte '\\x{byte:02x}'\")"
        elif isinstance(offset, int):
            where = f"{quoted(path.name)} at byte offset {offset}"
            error = f' ("UTF-8 decoding error in {where} ({byte:02x})")'
    message = (
        f"{finding.message}. pandoc --citeproc reads a bibliography as UTF-8 only and stops "
        f"at this file with an error{error}: it writes no document, and no citation is "
        "resolved"
    )
    return dataclasses.replace(finding, message=message, severity=Severity.ERROR)


__all__ = ["pandoc_dialect", "pandoc_encoding", "pandoc_findings"]
