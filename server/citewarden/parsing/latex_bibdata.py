"""The ``\\bibliography`` and ``\\bibliographystyle`` commands of a LaTeX project, in
document order.

LaTeX's ``\\bibliography{a,b}`` writes ``\\bibdata{a,b}`` to the .aux (an ``\\include``d
file's to its own .aux, which the root's reads in place of the ``\\include``).  BibTeX
obeys the first ``\\bibdata`` only: at another it says "Illegal, another \\bibdata
command" and skips it, so the files only a later ``\\bibliography`` names are not read.
This reads a project as one stream (each included file in place of the link that reads
it) and gives its ``\\bibliography`` commands in that order, each with the links of its
names (a document has one link per name).  A command in the preamble writes nothing (the
.aux is opened at ``\\begin{document}``, and LaTeX writes the ``\\bibdata`` line to the log):
BibTeX reads none of its files.  One at the preamble's top level (the root's, or a file's
``\\input`` there) is given marked :attr:`Command.preamble`; one in a definition, a hook
or a conditional may write later, and is left out.

``\\bibliographystyle{plain}`` writes ``\\bibstyle{plain}`` (at ``\\begin{document}`` when
given in the preamble), and BibTeX obeys the first of those too ("Illegal, another
\\bibstyle command"): :func:`first_style` is the first in document order.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import DocumentKind, LinkKind, ParsedDocument
from citewarden.parsing.latex_static import TopLevel

#: the link command of ``\\bibliography`` (and of a ``\\let`` alias of it)
BIBLIOGRAPHY = "bibliography"
_COMMENT = re.compile(r"%[^\n]*")


@dataclass(frozen=True, slots=True)
class Command:
    """One ``\\bibliography`` command: the document and the indices of its names' links in
    the document's :attr:`~citewarden.model.ParsedDocument.links`."""

    path: Path
    links: tuple[int, ...]
    #: the command stands at the preamble's top level: it writes nothing to the .aux
    preamble: bool = False


def _one_argument(text: str, end: int, start: int) -> bool:
    """Only commas, spaces and comments stand between two names: one argument's."""
    between = _COMMENT.sub("", text[end:start])
    return "," in between and not between.replace(",", "").strip()


def file_commands(doc: ParsedDocument, text: str) -> list[tuple[int, ...]]:
    """The file's ``\\bibliography`` commands, in file order: the indices of each one's
    links."""
    found: list[list[int]] = []
    end = -1
    for i, link in enumerate(doc.links):
        if link.kind is not LinkKind.BIBLIOGRAPHY or link.command != BIBLIOGRAPHY:
            continue
        if found and end >= 0 and _one_argument(text, end, link.span.start):
            found[-1].append(i)
        else:
            found.append([i])
        end = link.span.end
    return [tuple(links) for links in found]


def _placed(doc: ParsedDocument, text: str) -> list[tuple[int, tuple[int, ...], bool, bool]]:
    """Each ``\\bibliography`` command of the file: (offset, links, in the body, at the
    top level).  A command before ``\\begin{document}``, or in a file without one (read
    in the preamble when an ``\\input`` there reads it), is asked whether it stands
    outside every brace group and conditional; one in the body is not."""
    placed: list[tuple[int, tuple[int, ...], bool, bool]] = []
    top: TopLevel | None = None
    for links in file_commands(doc, text):
        at = doc.links[links[0]].span.start
        body = at >= doc.body_start  # body_start -1: no \begin{document}
        if doc.body_start >= 0 and body:
            placed.append((at, links, True, True))
            continue
        top = top or TopLevel(text)
        # asked at the argument's opening brace, outside the argument
        placed.append((at, links, body, top.at(max(0, text.rfind("{", 0, at)))))
    return placed


def file_shape(doc: ParsedDocument, text: str) -> tuple[object, ...]:
    """How many names each ``\\bibliography`` command of the file has, and where it
    stands, and how many of its included files it reads in the preamble (what the
    project's reading of them depends on in this file, without offsets; none of a
    Markdown file)."""
    if doc.kind is not DocumentKind.LATEX:
        return ()
    shape: list[object] = [(len(links), body, top) for _, links, body, top in _placed(doc, text)]
    if doc.body_start >= 0:
        includes = (link for link in doc.links if link.kind is LinkKind.INCLUDE)
        shape.append(sum(1 for link in includes if link.span.start < doc.body_start))
    return tuple(shape)


#: one event of a file: a command, or an included file (whether it is read in the preamble)
_Event = Command | tuple[Path, bool]


def _events(
    path: Path, doc: ParsedDocument, text: str, children: Mapping[int, Path], preamble: bool
) -> list[_Event]:
    """The file's commands and its included files, in file order (a command in the
    preamble only at its top level, marked so); ``preamble``: the file is read in the
    preamble."""
    timed: list[tuple[int, _Event]] = []
    for at, links, body, top in _placed(doc, text):
        if not preamble and body:
            timed.append((at, Command(path, links)))
        elif top:
            timed.append((at, Command(path, links, preamble=True)))
    includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
    for i, child in children.items():
        if i < len(includes):
            at = includes[i].span.start
            timed.append((at, (child, preamble or at < doc.body_start)))
    timed.sort(key=lambda t: t[0])
    return [event for _, event in timed]


def commands_in_order(
    root: Path,
    documents: Mapping[Path, ParsedDocument],
    texts: Mapping[Path, str],
    placed: Sequence[tuple[Path, Path, int]],
) -> Iterator[Command]:
    """The project's ``\\bibliography`` commands, in document order (those at the
    preamble's top level marked so)
    (``placed``: each included document, the document including it and the number of
    that include link among the includer's)."""
    children: dict[Path, dict[int, Path]] = {}
    for child, parent, index in placed:
        children.setdefault(parent, {})[index] = child
    stack: list[list[_Event]] = []

    def enter(path: Path, preamble: bool) -> None:
        doc, text = documents.get(path), texts.get(path)
        if doc is not None and text is not None:
            stack.append(_events(path, doc, text, children.get(path, {}), preamble)[::-1])

    enter(root, False)
    while stack:
        pending = stack[-1]
        if not pending:
            stack.pop()
        elif isinstance(event := pending.pop(), Command):
            yield event
        else:
            enter(*event)


def style_shape(doc: ParsedDocument) -> tuple[tuple[str, int], ...]:
    """Each ``\\bibliographystyle`` of the file with the number of include links before it
    (what the project's choice of a style depends on in this file, without offsets)."""
    if not doc.bib_styles:
        return ()
    starts = [link.span.start for link in doc.links if link.kind is LinkKind.INCLUDE]
    return tuple((name, bisect.bisect_left(starts, span.start)) for name, span in doc.bib_styles)


def first_style(
    root: Path, documents: Mapping[Path, ParsedDocument], placed: Sequence[tuple[Path, Path, int]]
) -> tuple[Path, int] | None:
    """The project's first ``\\bibliographystyle`` in document order, each included file
    read in place of its include link (``placed`` as in :func:`commands_in_order`): the
    document and the number of the command among the document's styles; None: none."""
    children: dict[Path, dict[int, Path]] = {}
    for child, parent, index in placed:
        children.setdefault(parent, {})[index] = child
    stack: list[list[tuple[Path, int] | Path]] = []
    entered: set[Path] = set()

    def enter(path: Path) -> None:
        doc = documents.get(path)
        if doc is None or path in entered:
            return
        entered.add(path)
        timed: list[tuple[int, tuple[Path, int] | Path]] = [
            (span.start, (path, i)) for i, (_, span) in enumerate(doc.bib_styles)
        ]
        includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
        for i, child in children.get(path, {}).items():
            if i < len(includes):
                timed.append((includes[i].span.start, child))
        timed.sort(key=lambda t: t[0])
        stack.append([event for _, event in timed][::-1])

    enter(root)
    while stack:
        pending = stack[-1]
        if not pending:
            stack.pop()
        elif isinstance(event := pending.pop(), tuple):
            return event
        else:
            enter(event)
    return None


__all__ = [
    "BIBLIOGRAPHY",
    "Command",
    "commands_in_order",
    "file_commands",
    "file_shape",
    "first_style",
    "style_shape",
]
