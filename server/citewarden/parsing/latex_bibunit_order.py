"""Which default bibliography each bare ``\\putbib`` of a LaTeX project reads, in document order.

bibunits keeps one default (``\\bu@bibdata``).  ``\\defaultbibliography{c}`` sets it where
TeX reads it and writes it to the .aux; at ``\\begin{document}`` the .aux of the run
before sets it to the last one written in the body, in document order (an ``\\include``d
file's .aux is read where the file is included).  So a bare ``\\putbib`` reads the last
default set in the body before it, in any file read before it (a chapter's default holds
for the units after its ``\\include``), else the last one set in the body anywhere, else
the preamble's.  Each file says where it sets a default and where its bare ``\\putbib``
stand (:attr:`~citewarden.model.ParsedDocument.bibunit_defaults`,
:attr:`~citewarden.model.ParsedDocument.bare_putbibs`); this reads the project as one
stream, each included file in place of the link that reads it.  A file ``\\input`` before
``\\begin{document}`` is read in the preamble: its defaults are the preamble's (TeX sets
them there, and nothing is written to the .aux before the body).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from citewarden.model import Link, LinkKind, ParsedDocument


@dataclass(frozen=True, slots=True)
class Default:
    """A ``\\defaultbibliography`` of the project: in ``path`` at ``at``, its files as
    written with their spans."""

    path: Path
    at: int
    items: tuple[tuple[str, int, int], ...]
    in_body: bool

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.items)


#: the kinds of :func:`_file_events`
_DEFAULT, _PUTBIB, _INCLUDE = 0, 1, 2


def _file_events(doc: ParsedDocument, includes: Sequence[Link]) -> list[tuple[int, int, int]]:
    """(offset, kind, number) of the file's defaults (their number in
    :attr:`~citewarden.model.ParsedDocument.bibunit_defaults`), bare ``\\putbib`` (in
    :attr:`~citewarden.model.ParsedDocument.bare_putbibs`) and ``includes`` (its include
    links), in file order."""
    found = [(at, _DEFAULT, i) for i, (at, _, _) in enumerate(doc.bibunit_defaults)]
    found += [(putbib, _PUTBIB, i) for i, (_, putbib) in enumerate(doc.bare_putbibs)]
    found += [(link.span.start, _INCLUDE, i) for i, link in enumerate(includes)]
    found.sort()
    return found


def _includes(doc: ParsedDocument) -> list[Link]:
    return [link for link in doc.links if link.kind is LinkKind.INCLUDE]


def _in_preamble(doc: ParsedDocument, link: Link) -> bool:
    """``link`` (an include link of ``doc``) stands before ``\\begin{document}``."""
    return link.span.start < doc.body_start


def file_order(doc: ParsedDocument) -> tuple[object, ...]:
    """The order of the file's defaults (their files), bare ``\\putbib`` and include links
    (their targets), and the files it includes in the preamble, without offsets: what the
    project's reading of the defaults depends on in this file (``()`` for a file with
    neither defaults, bare ``\\putbib`` nor a file included in the preamble)."""
    includes = _includes(doc)
    preamble = tuple(link.target for link in includes if _in_preamble(doc, link))
    if not (doc.bibunit_defaults or doc.bare_putbibs):
        return (preamble,) if preamble else ()
    order: list[object] = []
    for _, kind, i in _file_events(doc, includes):
        if kind == _DEFAULT:
            order.append(tuple(name for name, _, _ in doc.bibunit_defaults[i][1]))
        else:
            order.append("putbib" if kind == _PUTBIB else includes[i].target)
    return (*order, preamble)


#: one event of a file: a default, a bare ``\\putbib``'s unit start, or an included
#: file (whether it is included in the preamble)
_Event = Default | int | tuple[Path, bool]


def _events(
    path: Path, doc: ParsedDocument, children: Mapping[int, Path], preamble: bool
) -> list[_Event]:
    """The file's defaults, bare ``\\putbib`` and included files, the last first;
    ``preamble``: the file is read in the preamble (its defaults are the preamble's)."""
    found: list[_Event] = []
    includes = _includes(doc) if children else []
    for _, kind, i in _file_events(doc, includes):
        if kind == _DEFAULT:
            default = Default(path, *doc.bibunit_defaults[i])
            found.append(replace(default, in_body=False) if preamble else default)
        elif kind == _PUTBIB:
            found.append(doc.bare_putbibs[i][0])
        elif i in children:
            found.append((children[i], preamble or _in_preamble(doc, includes[i])))
    found.reverse()
    return found


def _stream(
    root: Path, documents: Mapping[Path, ParsedDocument], placed: Sequence[tuple[Path, Path, int]]
) -> Iterator[tuple[Path, Default | int]]:
    """(document, a default or a bare ``\\putbib``'s unit start), in document order: each
    included file read in place of its link."""
    children: dict[Path, dict[int, Path]] = {}
    for child, parent, index in placed:
        children.setdefault(parent, {})[index] = child
    stack: list[tuple[Path, list[_Event]]] = []

    def enter(path: Path, preamble: bool) -> None:
        doc = documents.get(path)
        if doc is not None:
            stack.append((path, _events(path, doc, children.get(path, {}), preamble)))

    enter(root, False)
    while stack:
        path, pending = stack[-1]
        if not pending:
            stack.pop()
            continue
        what = pending.pop()
        if isinstance(what, tuple):
            enter(*what)
        else:
            yield path, what


def bare_putbib_defaults(
    root: Path, documents: Mapping[Path, ParsedDocument], placed: Sequence[tuple[Path, Path, int]]
) -> dict[tuple[Path, int], Default]:
    """The default each bare ``\\putbib`` of the project reads, by (document, the unit's
    start); none where no default is set anywhere (the project's ``\\jobname`` then)."""
    if not any(doc.bare_putbibs for doc in documents.values()):
        return {}
    stream = list(_stream(root, documents, placed))
    defaults = [what for _, what in stream if isinstance(what, Default)]
    body = [d for d in defaults if d.in_body]
    preamble = [d for d in defaults if not d.in_body]
    current = body[-1] if body else preamble[-1] if preamble else None
    read: dict[tuple[Path, int], Default] = {}
    for path, what in stream:
        if not isinstance(what, Default):  # a bare \putbib
            if current is not None:
                read[path, what] = current
        elif what.in_body:
            current = what
    return read


__all__ = ["Default", "bare_putbib_defaults", "file_order"]
