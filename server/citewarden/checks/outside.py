"""Bibliographies outside the project root: ``\\bibliography{/etc/passwd}``, ``../../refs``.

Such a file is read and its entries count, as LaTeX and pandoc would use it, but the
document naming it gets a ``bibliography-outside-root`` warning at the link, so that a
reader of the report knows keys came from outside the project (and SARIF logs leave the
file's text out of their snippets, see :mod:`citewarden.report.sarif`).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.model import Code, Finding, Link, LinkKind, Location, Span

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _names(target: str) -> set[str]:
    """File names a link target can stand for (``refs`` for ``refs.bib``)."""
    names: set[str] = set()
    for part in target.split(","):
        name = PurePosixPath(part.strip()).name
        if name:
            names.update({name, f"{name}.bib"})
    return names


def _link_of(ws: Workspace, project: Project, bib: Path) -> tuple[Path, Link] | None:
    """The bibliography link of the project's documents that names ``bib``."""
    for source in project.sources:
        doc = ws.document(source)
        if doc is None:
            continue
        for link in doc.links:
            if link.kind is not LinkKind.BIBLIOGRAPHY:
                continue
            if bib in project.glob_matches(source, link) or bib.name in _names(
                project.target(source, link)
            ):
                return source, link
    return None


def outside_root_findings(ws: Workspace, projects: list[Project]) -> list[Finding]:
    """A warning at each link to a bibliography outside every workspace folder (and
    outside the directories ``BIBINPUTS`` names, where the user keeps shared ones)."""
    from citewarden.project import normalize_path
    from citewarden.project_links import _bibinputs

    if not ws.folders:
        return []
    folders = (*ws.folders, *(normalize_path(d) for d in _bibinputs()))
    found: list[Finding] = []
    for project in projects:
        if not _inside(project.root, folders):
            continue  # a project outside the root is not this workspace's to judge
        for bib in project.bibliographies:
            if _inside(bib, folders):
                continue
            at = _link_of(ws, project, bib)
            where = Location(at[0], at[1].span) if at is not None else Location(bib, Span(0, 0))
            found.append(
                Finding(
                    Code.BIB_OUTSIDE_ROOT,
                    where,
                    f"bibliography '{bib}' is outside the project root; its entries are "
                    "used, but its text is kept out of SARIF snippets",
                    data=MappingProxyType({"target": str(bib)}),
                )
            )
    return found
