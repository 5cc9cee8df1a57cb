"""Look-ups over a workspace's projects for the checks and the language server: the
documents and bibliographies of a project, the entries visible from a file, the citations
of a key, and the entry or citation at an offset (a base of
:class:`~citewarden.project.Workspace`, which holds the files and their parses)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.file_state import BibIndex, fold_key
from citewarden.model import (
    Citation,
    DocumentKind,
    Entry,
    LinkKind,
    ParsedBibliography,
    ParsedDocument,
)
from citewarden.parsing import is_bibliography, is_document
from citewarden.parsing.pandoc_filters import names_pandoc_crossref, runs_pandoc_crossref
from citewarden.project_graph import Project, ProjectGraph


def read_until(doc: ParsedDocument, number: int) -> ParsedDocument:
    """``doc`` as TeX reads it when the file its include link ``number`` reads ends the
    document: its citations, ``\\nocite{*}`` and ``\\bibitem`` keys after the link are
    not read (:attr:`~citewarden.project_graph.Project.ends`)."""
    includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
    if number >= len(includes):
        return doc
    end = includes[number].span.end
    return replace(
        doc,
        citations=tuple(c for c in doc.citations if c.span.start < end),
        nocite_all=doc.nocite_all and any(at < end for at in doc.nocite_all_at),
        nocite_all_at=tuple(at for at in doc.nocite_all_at if at < end),
        bibitems=tuple((key, span) for key, span in doc.bibitems if span.start < end),
    )


class ProjectQueries(ProjectGraph):
    """The workspace's look-ups (see module doc)."""

    if TYPE_CHECKING:  # provided by Workspace

        def _norm(self, path: Path | str) -> Path: ...
        def projects(self) -> list[Project]: ...
        def projects_of(self, path: Path | str) -> list[Project]: ...
        def bibliography(self, path: Path | str) -> ParsedBibliography | None: ...
        def inline_references(self, path: Path) -> ParsedBibliography | None: ...
        def bib_index(self, path: Path) -> BibIndex | None: ...
        def text(self, path: Path | str) -> str | None: ...

    #: While :meth:`unchanged` holds: each project's documents, by the project's identity
    #: (the project is kept with its list, so an identity is never reused meanwhile).
    _documents_of: dict[int, tuple[Project, list[tuple[Path, ParsedDocument]]]] | None = None

    @contextmanager
    def unchanged(self) -> Iterator[None]:
        """A span in which the workspace does not change (a check): each project's
        documents are looked up once, not once per check that asks for them."""
        outer = self._documents_of is None
        if outer:
            self._documents_of = {}
        try:
            yield
        finally:
            if outer:
                self._documents_of = None

    def runs_crossref_filter(self, project: Project, path: Path) -> bool:
        """Whether the Markdown document ``path`` of ``project`` runs pandoc-crossref, as its
        front matter or a metadata file of its project says."""
        if project.kind is not DocumentKind.MARKDOWN:
            return False
        if runs_pandoc_crossref(self.text(path) or ""):
            return True
        return any(names_pandoc_crossref(self.text(m) or "") for m in project.metadata)

    def project_documents(self, project: Project) -> Iterator[tuple[Path, ParsedDocument]]:
        seen = self._documents_of
        if seen is None:
            return self._looked_up_documents(project)
        held = seen.get(id(project))
        if held is None or held[0] is not project:
            held = seen[id(project)] = (project, list(self._looked_up_documents(project)))
        return iter(held[1])

    def _looked_up_documents(self, project: Project) -> Iterator[tuple[Path, ParsedDocument]]:
        ends = dict(project.ends)
        for path in project.sources:
            doc = self.document(path)
            if doc is not None:
                yield path, doc if path not in ends else read_until(doc, ends[path])

    def project_bibliographies(
        self, project: Project
    ) -> Iterator[tuple[Path, ParsedBibliography, BibIndex]]:
        for path in project.bibliographies:
            state = self._state(path)
            if state is not None and isinstance(state.parsed, ParsedBibliography):
                yield path, state.parsed, state.bib_index

    def entries_for(self, path: Path | str) -> dict[str, list[Entry]]:
        """Entries visible from ``path`` (a document: its projects' bibliographies; a
        bibliography: its own entries), by exact key; ``ids`` aliases map to their entry.

        Keys are matched exactly, as biber and pandoc do; use :meth:`lookup` for the
        case-insensitive fallback BibTeX applies.
        """
        p = self._norm(path)
        result: dict[str, list[Entry]] = {}
        if is_document(p):
            bib_paths: dict[Path, None] = {}
            for project in self.projects_of(p):
                for b in project.bibliographies:
                    bib_paths.setdefault(b, None)
        else:
            bib_paths = {p: None}
        for b in bib_paths:
            index = self.bib_index(b)
            if index is None:
                continue
            for key, places in index.by_key.items():
                result.setdefault(key, []).extend(index.entries[i] for i in places)
            for alias, entry in index.aliases.items():
                result.setdefault(alias, []).append(entry)
        return result

    def lookup(self, path: Path | str, key: str) -> list[Entry]:
        """Entries for ``key`` visible from ``path``: exact match, else a casefolded one."""
        entries = self.entries_for(path)
        if key in entries:
            return entries[key]
        folded = fold_key(key)
        return [e for k, es in entries.items() if fold_key(k) == folded for e in es]

    def all_entries(self) -> list[Entry]:
        """Every entry of every bibliography in use or found by name (.bib), then the
        ``references:`` items of Markdown documents (see :meth:`verified_bibliographies`)."""
        return [e for bib in self.verified_bibliographies() for e in bib.entries]

    def verified_bibliographies(self) -> list[ParsedBibliography]:
        """What verification reads: every bibliography in use or found by name (as
        :meth:`bibliography_paths`), then the ``references:`` items that Markdown documents
        and metadata files of the projects define themselves."""
        out = [b for p in self.bibliography_paths() if (b := self.bibliography(p)) is not None]
        seen: set[Path] = set()
        for project in self.projects():
            if project.kind is not DocumentKind.MARKDOWN:
                continue
            for path in project.sources:
                if path in seen:
                    continue
                seen.add(path)
                own = self.inline_references(path)
                if own is not None and own.entries:
                    out.append(own)
        return out

    def bibliography_paths(self) -> list[Path]:
        """Bibliographies used by any project, then other .bib files known."""
        paths: dict[Path, None] = {}
        for project in self.projects():
            for b in project.bibliographies:
                paths.setdefault(b, None)
        for p in self._known:
            if is_bibliography(p):
                paths.setdefault(p, None)
        return list(paths)

    def citations_of(self, key: str) -> list[tuple[Path, Citation]]:
        """Citations of ``key`` (or one of its aliases) in the projects that define it
        (every project when none does), each place once."""
        projects = self.projects()
        defining = [pr for pr in projects if key in self._defined_keys(pr)]
        names = {key}
        for pr in defining:
            for _, _, index in self.project_bibliographies(pr):
                entries = index.entries_of(key)
                if entries:
                    names.update(a for e in entries for a in e.aliases)
                if key in index.aliases:
                    entry = index.aliases[key]
                    names.add(entry.key)
                    names.update(entry.aliases)
        seen: set[tuple[Path, int, int]] = set()
        result: list[tuple[Path, Citation]] = []
        for pr in defining or projects:
            for path, doc in self.project_documents(pr):
                for cit in doc.citations:
                    if cit.key in names and (path, cit.span.start, cit.span.end) not in seen:
                        seen.add((path, cit.span.start, cit.span.end))
                        result.append((path, cit))
        return result

    def _defined_keys(self, project: Project) -> set[str]:
        keys: set[str] = set()
        for _, _, index in self.project_bibliographies(project):
            keys.update(index.by_key)
            keys.update(index.aliases)
        for _, doc in self.project_documents(project):
            keys.update(k for k, _ in doc.bibitems)
        return keys

    def entry_at(self, path: Path | str, offset: int) -> Entry | None:
        bib = self.bibliography(path)
        if bib is None:
            return None
        for entry in bib.entries:
            if entry.span.start <= offset <= entry.span.end:
                return entry
        return None

    def citation_at(self, path: Path | str, offset: int) -> Citation | None:
        """The citation whose key contains ``offset`` (else whose command does)."""
        doc = self.document(path)
        if doc is None:
            return None
        for cit in doc.citations:
            if cit.span.contains(offset):
                return cit
        for cit in doc.citations:
            if cit.command_span.start <= offset < cit.command_span.end:
                return cit
        return None
