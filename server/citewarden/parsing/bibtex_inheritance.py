"""Which ``@string`` macros each .bib file of a LaTeX project inherits from the files read
before it.

BibTeX reads the files of ``\\bibliography{IEEEabrv,refs}`` one after the other as one
database, and biber its ``\\addbibresource`` files in order: a macro defined in
``IEEEabrv.bib`` holds in ``refs.bib`` (``journal = IEEE_J_PAMI``), and one defined only
in a later file is undefined where it is used (BibTeX: ``string name "x" is undefined``).
A later definition replaces an earlier one.  pandoc reads each bibliography file on its
own, so a Markdown project passes nothing on.  A file that several projects read inherits
what any of them defines before it (the first definition met wins).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

#: macros by lower-case name, as a sorted tuple of (name, expanded value)
Macros = tuple[tuple[str, str], ...]


def inherited_strings(
    readings: Iterable[Sequence[Path]], read: Callable[[Path, Macros], Mapping[str, str] | None]
) -> dict[Path, Macros]:
    """The macros each file inherits from the files read before it, for the files that
    inherit any.  ``readings``: each LaTeX project's .bib files in the order it reads them;
    ``read(path, inherited)``: the file's own macros (None: not a BibTeX file), asked in
    reading order with what it inherits so far (a file not read yet is read with them at
    once)."""
    found: dict[Path, dict[str, str]] = {}
    for reading in readings:
        defined: dict[str, str] = {}
        for path in reading:
            if defined:
                mine = found.setdefault(path, {})
                for name, value in defined.items():
                    mine.setdefault(name, value)
            own = read(path, _sorted(found.get(path)))
            if own is not None:
                defined.update(own)
    return {path: _sorted(macros) for path, macros in found.items() if macros}


def _sorted(macros: Mapping[str, str] | None) -> Macros:
    return tuple(sorted(macros.items())) if macros else ()


__all__ = ["Macros", "inherited_strings"]
