"""chapterbib units: each ``\\include``d file writes its own .aux, and BibTeX run on it
makes that chapter's bibliography.

A chapter reads the files of the first ``\\bibliography`` among its documents (BibTeX obeys
the first ``\\bibdata`` of an .aux) and resolves its own citations only; a chapter without
one leaves them undefined.  The root's .aux also holds every chapter's .aux, so BibTeX run
on the root reads the citations of the whole document against the first ``\\bibliography``
in document order (the root's own, or that of a chapter included before it), and the
root's citations are resolved against it.  A key is dangling when its unit does not read
it; an entry is an orphan when no unit that reads its file cites it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks.defined import bibtex_defined_keys
from citewarden.file_state import fold_key
from citewarden.model import Citation, Code, Finding, LinkKind, Location, quoted
from citewarden.project_links import bib_names

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace

#: commands whose file writes its own .aux (as in project.py)
_OWN_AUX = frozenset({"include", "includefrom", "subincludefrom"})


@dataclass(frozen=True, slots=True)
class Chapter:
    """One .aux: the documents writing to it and the bibliography names BibTeX reads."""

    documents: tuple[Path, ...]
    #: names of the first ``\\bibliography`` of the unit, as written; empty without one
    own: tuple[str, ...]
    #: what BibTeX run on this .aux reads (for the root: possibly a chapter's)
    reads: tuple[str, ...]
    is_root: bool


def _stem(written: str) -> str:
    name = written.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.endswith((".bib", ".tex")) else name


def _first_bibliography(ws: Workspace, project: Project, docs: tuple[Path, ...]) -> tuple[str, ...]:
    """The names of the first ``\\bibliography{a,b}`` of ``docs`` (one link per name)."""
    for path in docs:
        doc = ws.document(path)
        if doc is None:
            continue
        names: list[str] = []
        end = -1
        for link in doc.links:
            if link.kind is LinkKind.BIBLIOGRAPHY and link.command == "bibliography":
                if names and not _same_argument(ws.text(path) or "", end, link.span.start):
                    break
                names.extend(bib_names(link, project.target(path, link)))
                end = link.span.end
            elif names:
                break
        if names:
            return tuple(names)
    return ()


def _same_argument(text: str, end: int, start: int) -> bool:
    """Only a comma and spaces stand between two names: they are one argument's."""
    return text[end:start].strip() == ","


def chapters_of(ws: Workspace, project: Project) -> list[Chapter]:
    """The units of a chapterbib project, the root's first."""
    own = [_first_bibliography(ws, project, unit) for unit in project.chapters]
    root_reads = own[0]
    root_doc = ws.document(project.root)
    if own[0] and root_doc is not None:
        # the first \bibdata of the root's .aux: its own, or that of a chapter before it
        by_stem = {unit[0].stem: i for i, unit in enumerate(project.chapters) if i}
        for link in root_doc.links:
            if link.kind is LinkKind.BIBLIOGRAPHY and link.command == "bibliography":
                break
            if link.kind is LinkKind.INCLUDE and link.command in _OWN_AUX:
                i = by_stem.get(_stem(project.target(project.root, link)), 0)
                if i and own[i]:
                    root_reads = own[i]
                    break
    return [
        Chapter(unit, own[i], root_reads if i == 0 else own[i], i == 0)
        for i, unit in enumerate(project.chapters)
    ]


def _reads(names: tuple[str, ...], bib: Path) -> bool:
    return bib.stem in {_stem(n) for n in names} or bib.name in names


def _citations(ws: Workspace, docs: tuple[Path, ...]) -> Iterator[tuple[Path, Citation]]:
    for path in docs:
        doc = ws.document(path)
        if doc is not None:
            for cit in doc.citations:
                if cit.key.strip():
                    yield path, cit


def _keys_read(
    ws: Workspace, project: Project, names: tuple[str, ...]
) -> tuple[set[str], set[str]]:
    exact: set[str] = set()
    for bib, _, index in ws.project_bibliographies(project):
        if _reads(names, bib):
            if project.casefold_keys:  # BibTeX knows no ids field, skips some entries
                exact.update(bibtex_defined_keys(ws, bib, index))
            else:
                exact.update(index.by_key)
                exact.update(index.aliases)
    return exact, {fold_key(k) for k in exact}


def unit_dangling(
    ws: Workspace, project: Project, is_defined: Callable[[str], bool]
) -> list[Finding]:
    """Citations of keys the project defines but no bibliography of their unit does."""
    found: list[Finding] = []
    fold = project.casefold_keys
    for chapter in chapters_of(ws, project):
        exact, folded = _keys_read(ws, project, chapter.reads)
        where = "the root document" if chapter.is_root else "its chapter (chapterbib)"
        for path, cit in _citations(ws, chapter.documents):
            if not is_defined(cit.key):
                continue  # dangling everywhere: reported by the project-wide check
            if cit.key in exact or (fold and fold_key(cit.key) in folded):
                continue
            found.append(unread_key(path, cit, where))
    return found


def unread_key(path: Path, cit: Citation, where: str) -> Finding:
    """The dangling finding of a citation whose unit (``where``) reads no bibliography
    defining its key, though another bibliography of the project does."""
    return Finding(
        Code.DANGLING,
        Location(path, cit.span),
        f"citation key {quoted(cit.key)} is not defined in the bibliographies {where} reads",
        data=MappingProxyType({"key": cit.key, "suggestions": []}),
    )


def _cited_documents(project: Project, chapter: Chapter) -> tuple[Path, ...]:
    """The documents whose citations BibTeX reads for ``chapter`` (the root: all)."""
    return project.documents if chapter.is_root else chapter.documents


def cited_by_readers(ws: Workspace, bib: Path, project: Project) -> tuple[set[str], bool]:
    """Keys cited by the units of ``project`` that read ``bib``, and whether one of them
    has a ``\\nocite{*}`` (it cites every entry of its bibliography)."""
    cited: set[str] = set()
    for chapter in chapters_of(ws, project):
        if not _reads(chapter.reads, bib):
            continue
        for path in _cited_documents(project, chapter):
            doc = ws.document(path)
            if doc is None:
                continue
            if doc.nocite_all:
                return cited, True
            cited.update(c.key for c in doc.citations)
    return cited, False


__all__ = ["Chapter", "chapters_of", "cited_by_readers", "unit_dangling"]
