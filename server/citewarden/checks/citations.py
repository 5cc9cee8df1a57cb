"""Citation checks: dangling citations, orphan entries, empty keys, keys followed by a space
(:mod:`~citewarden.checks.key_spaces`), a lost preamble ``\\nocite``
(:mod:`~citewarden.checks.preamble_nocite`), a ``\\bibliography`` BibTeX ignores
(:mod:`~citewarden.checks.bibdata`), missing files, crossref.

Rules:

* A citation is *dangling* when its key is neither an entry key, an ``ids`` alias, a
  ``\\bibitem`` key nor the id of an item of a ``references:`` field of its project.
  Keys match exactly, as biber and pandoc match them,
  except in a project whose bibliographies BibTeX processes (no biblatex, or biblatex with
  ``backend=bibtex``), where they match as BibTeX matches them, ignoring the case of ASCII
  letters only (:func:`~citewarden.file_state.fold_key`).  Not
  reported for a project whose bibliography could not be determined (a bibliography file
  that is missing has its own finding), for a standalone LaTeX file or a Markdown document
  that names no bibliography at all, nor for Quarto cross-references (``@fig-x``) in a
  Quarto document.
* An entry is an *orphan* when no document of any project using its bibliography cites it
  (``\\nocite`` counts; ``\\nocite{*}`` / ``nocite: '@*'`` in any of those projects turns the
  check off for that bibliography).  An entry named by ``crossref``/``xdata`` of a cited
  entry counts as cited, as BibTeX and biber include such parents, and so does one named
  by ``xref`` (biber prints it once ``minxrefs`` cited entries name it; none is an orphan,
  whose removal would leave the ``xref`` fields naming nothing).  A ``\\bibitem`` of a
  ``thebibliography`` that its project never cites is an orphan too, and so is an item of
  a Markdown ``references:`` field that no project reading its file cites.
* An entry whose ``@`` follows a ``%`` on its line (``% @article{x, ...``) is a comment for
  biber and pandoc: it defines nothing (and is no orphan, and its ``crossref`` to a key
  defined nowhere is no finding) in their projects; BibTeX reads it.
* An entry that starts on the last line of its file after the block BibTeX reads there
  (``@misc{a, ...} @misc{b, ...}`` as the last line) defines nothing in a BibTeX project:
  BibTeX stops reading the file there (:mod:`~citewarden.parsing.bibtex_last_line`).

Everything is recomputed on each run from cached pieces: per document version its key set
and its dangling findings, per bibliography version its orphan findings (see
:class:`~citewarden.checks.Memo`), so a run after one edit redoes only what the edit touched.

This module runs them all and holds the empty-key, missing-file and crossref checks;
:mod:`~citewarden.checks.defined` (what a project defines), :mod:`~citewarden.checks.dangling`
and :mod:`~citewarden.checks.orphans` hold the rest.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo, units
from citewarden.checks.bibdata import ignored_bibliography_findings, late_resource_findings
from citewarden.checks.dangling import (
    checks_dangling,
    dangling_findings,
    is_defined,
    is_quarto,
    runs_crossref_filter,
)
from citewarden.checks.defined import (
    Defined,
    defined_names,
    defined_token,
    project_delta,
    reader,
)
from citewarden.checks.key_case import case_clash_findings
from citewarden.checks.key_spaces import key_space_findings
from citewarden.checks.orphans import bibitem_orphans, orphan_findings, reference_orphans
from citewarden.checks.preamble_nocite import preamble_nocite_findings
from citewarden.checks.skipped_text import unread_entries
from citewarden.file_state import fold_key
from citewarden.model import (
    Code,
    DocumentKind,
    Finding,
    Fix,
    LinkKind,
    Location,
    ParsedDocument,
    Span,
    TextEdit,
    quoted,
)
from citewarden.parsing import is_inline_r, latex_bibunits
from citewarden.project_links import MAX_GLOB_ENTRIES, MAX_GLOBBED, MissingLink, is_remote

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace


def citation_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    found: list[Finding] = []
    users: dict[Path, list[Project]] = {}
    for project in projects:
        found += _missing_links(project)
        found += _unresolved_links(project)
        found += ignored_bibliography_findings(ws, project)
        found += late_resource_findings(ws, project)
        token = defined_token(ws, project, memo)
        defined = memo.get(
            ("defined", token, project.casefold_keys, project.kind),
            defined_names,
            ws,
            project,
            memo,
        )
        delta = project_delta(ws, project, memo)
        checked = checks_dangling(ws, project)
        documents = list(ws.project_documents(project))
        spaces = project.kind is DocumentKind.LATEX and not any(
            doc.cite_trims for _, doc in documents
        )
        for path, doc in documents:
            if doc.lost_nocites and (text := ws.text(path)) is not None:
                found += memo.get(
                    ("preamble-nocite", path, Ident(doc)), preamble_nocite_findings, path, doc, text
                )
            if not doc.citations:
                continue
            found += memo.get(("empty", path, Ident(doc)), _empty_keys, path, doc)
            text = ws.text(path) if spaces else None
            if text is not None:
                found += memo.get(
                    ("key-space", path, Ident(doc), project.casefold_keys),
                    key_space_findings,
                    path,
                    doc,
                    text,
                    project.casefold_keys,
                )
            if checked:
                crossref = runs_crossref_filter(ws, project, path)
                found += memo.get(
                    (
                        "dangling",
                        path,
                        Ident(doc),
                        token,
                        project.casefold_keys,
                        is_quarto(project),
                        crossref,
                    ),
                    dangling_findings,
                    path,
                    doc,
                    defined,
                    token,
                    project.casefold_keys,
                    is_quarto(project),
                    memo,
                    delta,
                    ws.text(path) if doc.kind is DocumentKind.MARKDOWN else None,
                    crossref,
                )
        if checked and units.has_units(ws, project):
            found += units.unit_dangling(ws, project, partial(is_defined, defined, project))
        elif checked and project.casefold_keys:
            found += memo.get(
                (
                    "key-case",
                    project.root,
                    project.placed,
                    token,
                    *map(Ident, (d for _, d in documents)),
                ),
                case_clash_findings,
                ws,
                project,
                partial(is_defined, defined, project),
                memo,
            )
        if checked:  # else which keys the project defines is not known (checks_dangling)
            found += _missing_crossrefs(ws, project, defined, token, memo)
        if project.kind is DocumentKind.LATEX:
            found += bibitem_orphans(ws, project, memo)
        for bib in project.bibliographies:
            users.setdefault(bib, []).append(project)
    for bib_path, bib_projects in users.items():
        found += orphan_findings(ws, bib_path, bib_projects, memo)
    found += reference_orphans(ws, projects, memo)
    return found


# ---- empty keys, missing files ----------------------------------------------------------------


def _empty_keys(path: Path, doc: ParsedDocument) -> list[Finding]:
    found: list[Finding] = []
    for cit in doc.citations:
        if cit.key.strip():
            continue
        span = cit.command_span if len(cit.span) == 0 else cit.span
        found.append(
            Finding(
                Code.EMPTY_KEY,
                Location(path, span),
                f"empty citation key in {cit.command}",
                data=MappingProxyType({"command": cit.command}),
            )
        )
    return found


def _missing_links(project: Project) -> list[Finding]:
    found: list[Finding] = []
    for missing in project.missing:
        link = missing.link
        fixes: tuple[Fix, ...] = ()
        if link.kind is LinkKind.BIBLIOGRAPHY:
            code = Code.MISSING_BIBLIOGRAPHY
            what = f"bibliography file {quoted(missing.target)}"
        else:
            code = Code.MISSING_INCLUDE
            shown = f"{link.base.rstrip('/')}/{missing.target}" if link.base else missing.target
            what = f"included file {quoted(shown)}"
        if missing.unreadable is not None:
            code = Code.FILE_UNREADABLE
            message = f"{what} cannot be read: {missing.unreadable}"
        elif link.glob:
            message = f"no file matches the bibliography pattern {quoted(missing.target)}"
        elif missing.beside is not None:
            message, fixes = _beside(project, missing, what)
        elif missing.extended is not None:
            named = f"{missing.target.strip()}.bib"
            message = (
                f"{what} not found: biber looks for a resource by its full name and adds no "
                f"extension ({quoted(missing.extended.name)} is there: write {quoted(named)})"
            )
            end = link.span.end
            edit = TextEdit(missing.path, Span(end, end), ".bib")
            fixes = (Fix(f"Name the file {quoted(named)}", (edit,), preferred=True),)
        else:
            message = f"{what} not found"
            if link.command == latex_bibunits.JOBNAME_DEFAULT:
                message += (
                    " (a bare \\putbib reads the default bibliography; no file sets one "
                    "with \\defaultbibliography, so BibTeX reads the one named after the "
                    "document)"
                )
        found.append(
            Finding(
                code,
                Location(missing.path, link.span),
                message,
                fixes=fixes,
                data=MappingProxyType({"target": missing.target}),
            )
        )
    return found


def _beside(project: Project, missing: MissingLink, what: str) -> tuple[str, tuple[Fix, ...]]:
    """The message and fix of a bibliography found only beside the file naming it."""
    assert missing.beside is not None
    root = project.root.parent
    try:
        named = missing.beside.relative_to(root).as_posix()
    except ValueError:
        named = missing.beside.as_posix()
    if not missing.target.strip().lower().endswith(".bib"):
        named = named.removesuffix(".bib")
    message = (
        f"{what} not found: BibTeX and biber look for it from the root document's folder, "
        f"not from the folder of the file naming it ({quoted(named)} is there)"
    )
    link = missing.link
    if link.target != missing.target or link.span.end - link.span.start != len(link.target):
        return message, ()  # written with a macro: the fix would not be where it is read
    edit = TextEdit(missing.path, link.span, named)
    return message, (Fix(f"Name it {quoted(named)}", (edit,), preferred=True),)


def _unresolved_links(project: Project) -> list[Finding]:
    """A finding on each bibliography link whose entries cannot be known (named by a macro
    the project does not settle, or a remote resource): while one is there, no citation of
    the project is reported dangling."""
    found: list[Finding] = []
    for m in project.unresolved:
        if is_remote(m.target):
            tool = "pandoc" if project.kind is DocumentKind.MARKDOWN else "biber"
            why = f"is a remote resource, which {tool} downloads and citewarden does not read"
        elif is_inline_r(m.target):
            why = "is R code, which R Markdown runs before pandoc reads the document"
        elif m.link.glob:
            why = (
                f"is a pattern that names more than {MAX_GLOBBED} files, or takes more than "
                f"{MAX_GLOB_ENTRIES:,} directory entries to follow"
            )
        else:
            why = (
                "is named by a macro this project does not define as a file name (or "
                "defines in more than one way)"
            )
        found.append(
            Finding(
                Code.BIB_UNRESOLVED,
                Location(m.path, m.link.span),
                f"bibliography {quoted(m.target)} {why}: its entries are unknown, so "
                "citations are not checked for dangling keys",
                data=MappingProxyType({"target": m.target}),
            )
        )
    return found


def _missing_crossrefs(
    ws: Workspace, project: Project, defined: Defined, token: tuple[object, ...], memo: Memo
) -> list[Finding]:
    """``crossref``/``xdata``/``xref`` targets defined nowhere (biber: "I didn't find a
    database entry for xref 'x' in entry 'c'"), per bibliography version and set of
    definitions (``token``), of the entries the project's reader reads (biber and pandoc
    skip those in comments, and their links).  A target matches a key as the reader
    compares keys: BibTeX folded (:func:`~citewarden.file_state.fold_key`), biber and
    pandoc exactly (biber: "I didn't find a database entry for crossref 'Proc'" where the
    key is ``proc``)."""
    found: list[Finding] = []
    fold = project.casefold_keys
    for path, _, index in ws.project_bibliographies(project):
        if index.parent_rows:
            skip = unread_entries(ws, path, index, {reader(project)}, memo)
            key = ("crossrefs", path, Ident(index), token, skip, fold)
            found += memo.get(key, _bib_missing_crossrefs, path, index, defined, memo, skip, fold)
    return found


def _parent_targets(parent_rows: dict[int, tuple[str, ...]], fold: bool) -> frozenset[str]:
    """Every key ``parent_rows`` name (folded with ``fold``)."""
    named = (p for parents in parent_rows.values() for p in parents)
    return frozenset(map(fold_key, named) if fold else named)


def _bib_missing_crossrefs(
    path: Path,
    index: BibIndex,
    defined: Defined,
    memo: Memo,
    skip: frozenset[int] = frozenset(),
    fold: bool = True,
) -> list[Finding]:
    found: list[Finding] = []
    # the same table object while no link changed (see update_bib_index)
    rows = index.parent_rows
    targets = memo.get(("parent-targets", Ident(rows), fold), _parent_targets, rows, fold)
    undefined = defined.missing_folded(targets) if fold else defined.missing(targets)
    if not undefined:
        return found
    for i, parents in index.parent_rows.items():
        if i in skip:
            continue
        entry = index.entries[i]
        for parent in parents:
            if (fold_key(parent) if fold else parent) not in undefined:
                continue
            fld = entry.field("crossref") or entry.field("xdata") or entry.field("entryset")
            for name in ("crossref", "xdata", "xref", "entryset"):
                f = entry.field(name)
                if f is not None and parent in f.text:
                    fld = f
                    break
            span = fld.value_span if fld is not None else entry.key_span
            found.append(
                Finding(
                    Code.MISSING_CROSSREF,
                    Location(path, span),
                    f"{quoted(entry.key)} refers to {quoted(parent)}, which is not defined",
                    data=MappingProxyType({"key": entry.key, "target": parent}),
                )
            )
    return found
