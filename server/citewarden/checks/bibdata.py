"""A ``\\bibliography`` after the first, or in the preamble, in a BibTeX project: BibTeX
ignores it.

Each ``\\bibliography`` writes a ``\\bibdata`` line to the .aux; BibTeX obeys the first
and stops at any other ("Illegal, another \\bibdata command"), so the files only a later
one names are not read and their keys are undefined in the document (the project graph
leaves them out, see :mod:`~citewarden.parsing.latex_bibdata`).  One in the preamble
writes nothing to the .aux, which is not open yet: BibTeX never reads its files ("I found
no \\bibdata command" when the body has none).  This finding says why; its fix names the
files in the first ``\\bibliography`` of the body and removes this one, or, when the body
has none, moves it before ``\\end{document}``.
biblatex's ``\\bibliography`` (several allowed), chapterbib's chapters and multibib's
``\\bibliographyXX`` (their own .aux files) are not concerned.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.model import (
    Code,
    Finding,
    Fix,
    Link,
    Location,
    Related,
    Span,
    TextEdit,
    quoted,
)

if TYPE_CHECKING:
    from citewarden.parsing.latex_bibdata import Command
    from citewarden.project import Project, Workspace

#: a command's name and opening brace, just before its first name
_OPENING = re.compile(r"\\[A-Za-z@]+\s*\{\s*\Z")
#: the closing brace just after its last name
_CLOSING = re.compile(r"\s*\}")
#: why a ``\\bibliography`` in the preamble is not read
_PREAMBLE = "in the preamble it writes nothing to the .aux, which LaTeX opens at \\begin{document}"


def ignored_bibliography_findings(ws: Workspace, project: Project) -> list[Finding]:
    """A warning on each ``\\bibliography`` of ``project`` that BibTeX ignores."""
    first = project.bibdata
    if not project.ignored:
        return []
    first_links = _links(ws, first) if first is not None else []
    found: list[Finding] = []
    for command in project.ignored:
        links = _links(ws, command)
        if not links:
            continue
        if first is not None and first_links:
            found.append(_finding(ws, project, command, links, first.path, first_links))
        elif first is None and command.preamble:
            found.append(_preamble_finding(ws, project, command.path, links))
    return found


def late_resource_findings(ws: Workspace, project: Project) -> list[Finding]:
    """A warning on each biblatex resource of a file included after ``\\begin{document}``:
    LaTeX stops on it ("Can be used only in preamble") and biber reads none of its files."""
    found: list[Finding] = []
    for path, index in project.late_resources:
        doc = ws.document(path)
        if doc is None or index >= len(doc.links):
            continue
        link = doc.links[index]
        command = link.command.lstrip("\\")
        message = (
            f"\\{command} after \\begin{{document}} is ignored: this file is read in the "
            "document's body, and biblatex reads bibliographies in the preamble only"
        )
        data = MappingProxyType({"targets": [link.target]})
        found.append(
            Finding(Code.BIBLIOGRAPHY_IGNORED, Location(path, link.span), message, data=data)
        )
    return found


def _links(ws: Workspace, command: Command) -> list[Link]:
    doc = ws.document(command.path)
    if doc is None or any(i >= len(doc.links) for i in command.links):
        return []
    return [doc.links[i] for i in command.links]


def _finding(
    ws: Workspace,
    project: Project,
    command: Command,
    links: list[Link],
    first_path: Path,
    first_links: list[Link],
) -> Finding:
    path = command.path
    names = [project.target(path, link) for link in links]
    read = {project.target(first_path, link) for link in first_links}
    unread = [name for name in names if name not in read]
    what = ", ".join(map(quoted, unread)) if unread else "no other file"
    if command.preamble:
        message = (
            f"BibTeX ignores this \\bibliography: {_PREAMBLE}, and it reads only the "
            f"files of the document's first \\bibliography, so {what} is not read"
        )
    else:
        message = (
            "BibTeX ignores this \\bibliography: it reads only the files of the first "
            f"\\bibdata of the .aux, so {what} is not read"
        )
    span = Span(links[0].span.start, links[-1].span.end)
    first_span = Span(first_links[0].span.start, first_links[-1].span.end)
    return Finding(
        Code.BIBLIOGRAPHY_IGNORED,
        Location(path, span),
        message,
        related=(Related(Location(first_path, first_span), "the \\bibliography BibTeX reads"),),
        fixes=_merge_fix(ws, path, links, first_path, first_links, unread),
        data=MappingProxyType({"targets": unread}),
    )


def _preamble_finding(ws: Workspace, project: Project, path: Path, links: list[Link]) -> Finding:
    """A ``\\bibliography`` in the preamble of a document with none in its body: BibTeX
    finds no ``\\bibdata`` and reads no file; the fix moves it before ``\\end{document}``."""
    names = [project.target(path, link) for link in links]
    message = (
        f"BibTeX ignores this \\bibliography: {_PREAMBLE}, so BibTeX finds no \\bibdata "
        f"and reads no file ({', '.join(map(quoted, names))}); write it where the "
        "bibliography is to be printed"
    )
    span = Span(links[0].span.start, links[-1].span.end)
    return Finding(
        Code.BIBLIOGRAPHY_IGNORED,
        Location(path, span),
        message,
        fixes=_move_fix(ws, project, path, links),
        data=MappingProxyType({"targets": names}),
    )


def _move_fix(ws: Workspace, project: Project, path: Path, links: list[Link]) -> tuple[Fix, ...]:
    """Move the command from the preamble to just before the root's ``\\end{document}``."""
    text = ws.text(path) or ""
    command = _command_span(text, links)
    extras = ws.extras(project.root)
    end = extras.end_document
    if command is None or end is None or (path == project.root and end <= command.end):
        return ()
    moved = text[command.start : command.end] + extras.newline
    edits = (TextEdit(path, command, ""), TextEdit(project.root, Span(end, end), moved))
    return (Fix("Move it before \\end{document}", edits, preferred=True),)


def _merge_fix(
    ws: Workspace,
    path: Path,
    links: list[Link],
    first_path: Path,
    first_links: list[Link],
    unread: list[str],
) -> tuple[Fix, ...]:
    """Remove the ignored command; its files not read yet join the first one's names."""
    command = _command_span(ws.text(path) or "", links)
    if command is None:
        return ()
    text = ws.text(path) or ""
    written = [text[link.span.start : link.span.end] for link in links]
    first_written = {
        (ws.text(first_path) or "")[link.span.start : link.span.end] for link in first_links
    }
    added = [name for name in written if name not in first_written]
    edits = [TextEdit(path, command, "")]
    if added and unread:
        end = first_links[-1].span.end
        edits.append(TextEdit(first_path, Span(end, end), "," + ",".join(added)))
        title = "Name its files in the first \\bibliography"
    else:
        title = "Remove it"
    return (Fix(title, tuple(edits), preferred=True),)


def _command_span(text: str, links: list[Link]) -> Span | None:
    """The whole command, from its backslash to its closing brace (None: not found)."""
    start = links[0].span.start
    opening = _OPENING.search(text, max(0, start - 200), start)
    closing = _CLOSING.match(text, links[-1].span.end)
    if opening is None or closing is None:
        return None
    return Span(opening.start(), closing.end())


__all__ = ["ignored_bibliography_findings", "late_resource_findings"]
