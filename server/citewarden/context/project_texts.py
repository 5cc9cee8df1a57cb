"""The texts of a LaTeX project's files in the order LaTeX reads them, whose words commands
(:mod:`~citewarden.context.latex_macros`) a citing sentence in any of them shows: a book's
``macros.tex`` cites nothing, yet defines ``\\Coq`` for every chapter; and the Markdown
documents whose project runs pandoc-crossref, and the version of pandoc of each."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from citewarden.model import DocumentKind
from citewarden.pandoc_version import Version
from citewarden.project import Workspace


def project_latex_texts(ws: Workspace, paths: Iterable[Path]) -> list[str]:
    """The texts of the documents of every LaTeX project holding one of ``paths``: each
    project's root first, then each file it includes in reading order, each file once.
    Only the texts the workspace holds are read."""
    wanted = set(paths)
    seen: set[Path] = set()
    texts: list[str] = []
    for project in ws.projects():
        if project.kind is not DocumentKind.LATEX or wanted.isdisjoint(project.documents):
            continue
        for path in project.documents:
            if path in seen:
                continue
            seen.add(path)
            text = ws.text(path)
            if text is not None:
                texts.append(text)
    return texts


def crossref_documents(ws: Workspace, paths: Iterable[Path]) -> frozenset[Path]:
    """The Markdown documents among ``paths`` that run pandoc-crossref, as their front
    matter or a metadata file of a project holding them (``_quarto.yml``) says."""
    return frozenset(
        path
        for path in paths
        if any(ws.runs_crossref_filter(project, path) for project in ws.projects_of(path))
    )


def pandoc_versions(ws: Workspace, paths: Iterable[Path]) -> dict[Path, Version | None]:
    """The version of pandoc that typesets each Markdown document of ``paths``, as the
    first project holding it knows it (None: not known, or not a Markdown document)."""
    return {path: next((p.pandoc_version for p in ws.projects_of(path)), None) for path in paths}
