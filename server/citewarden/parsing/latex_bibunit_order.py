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
stream, each included file in place of the link that reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import LinkKind, ParsedDocument


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


#: one event of a file: (offset, a default, a bare ``\\putbib``'s unit start or the
#: included file)
_Event = tuple[int, "Default | int | Path"]


def _events(path: Path, doc: ParsedDocument, children: Mapping[int, Path]) -> list[_Event]:
    """The file's defaults, bare ``\\putbib`` and included files, the last first."""
    found: list[_Event] = [
        (at, Default(path, at, items, in_body)) for at, items, in_body in doc.bibunit_defaults
    ]
    found += [(putbib, start) for start, putbib in doc.bare_putbibs]
    if children:
        includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
        for index, child in children.items():
            if 0 <= index < len(includes):
                found.append((includes[index].span.start, child))
    found.sort(key=lambda e: e[0], reverse=True)
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

    def enter(path: Path) -> None:
        doc = documents.get(path)
        if doc is not None:
            stack.append((path, _events(path, doc, children.get(path, {}))))

    enter(root)
    while stack:
        path, pending = stack[-1]
        if not pending:
            stack.pop()
            continue
        _, what = pending.pop()
        if isinstance(what, Path):
            enter(what)
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


__all__ = ["Default", "bare_putbib_defaults"]
