"""How certain an ``undefined-string`` finding is, given the BibTeX styles of the projects
reading its file.

A .bib file is read with the macros its projects' styles define
(:mod:`citewarden.bibtex_styles`): plain.bst's ``cacm`` is no finding in a project with
``\\bibliographystyle{plain}``.  When a project names a style whose file is not found here
(a journal's style not installed on this machine, the document built elsewhere), cannot be
read or is one BibTeX would stop on, which macros it defines is not known: any name could
be one of them.  Reporting the macro as undefined would then often be wrong, saying
nothing would hide a real undefined macro (BibTeX prints an empty journal), so the finding
stays, as information rather than a warning, saying which style may define it.  It stays a
warning when any reader of the file surely does not define the name: another project
whose style is known (or names none, on which BibTeX stops), biber or pandoc (they define
only the months).  The month names are always defined, as every standard style defines
them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.model import Code, Finding, Location, Related, Severity, quoted
from citewarden.model.findings import MAX_QUOTED

if TYPE_CHECKING:
    from citewarden.bibtex_styles import BibStyle
    from citewarden.project import Project, Workspace


def unknown_styles(projects: Iterable[Project]) -> dict[Path, BibStyle]:
    """The bibliography files every project reading which has BibTeX read a style whose
    macros are not known, with the first such style."""
    unknown: dict[Path, BibStyle] = {}
    known: set[Path] = set()
    for project in projects:
        style = project.unknown_style
        for path in project.bibliographies:
            if style is not None:
                unknown.setdefault(path, style)
            else:
                known.add(path)
    return {path: style for path, style in unknown.items() if path not in known}


def uncertain_strings(ws: Workspace, findings: Sequence[Finding], style: BibStyle) -> list[Finding]:
    """``findings`` of a file whose projects' style is not known (:func:`unknown_styles`),
    each ``undefined-string`` one as information naming the style that may define it."""
    related: tuple[Related, ...] = ()
    doc = ws.document(style.document)
    if doc is not None and style.index < len(doc.bib_styles):
        span = doc.bib_styles[style.index][1]
        related = (Related(Location(style.document, span), "the style BibTeX reads"),)
    name = quoted(style.name)
    out: list[Finding] = []
    for finding in findings:
        if finding.code is Code.UNDEFINED_STRING:
            finding = Finding(
                finding.code,
                finding.location,
                f"{finding.message}, unless the BibTeX style {name} defines it: {style.unknown}",
                related=finding.related + related,
                fixes=finding.fixes,
                data=MappingProxyType({**finding.data, "style": style.name[:MAX_QUOTED]}),
                severity=Severity.INFORMATION,
            )
        out.append(finding)
    return out


__all__ = ["uncertain_strings", "unknown_styles"]
