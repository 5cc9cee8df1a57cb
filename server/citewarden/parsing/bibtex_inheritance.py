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

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

#: one project's BibTeX files in the order it reads them, each with its own macros
Reading = Sequence[tuple[Path, Mapping[str, str]]]


def inherited_strings(readings: Iterable[Reading]) -> dict[Path, tuple[tuple[str, str], ...]]:
    """The macros (lower-case name, expanded value; sorted by name) each file inherits from
    the files read before it, for the files that inherit any."""
    found: dict[Path, dict[str, str]] = {}
    for reading in readings:
        defined: dict[str, str] = {}
        for path, own in reading:
            if defined:
                mine = found.setdefault(path, {})
                for name, value in defined.items():
                    mine.setdefault(name, value)
            defined.update(own)
    return {path: tuple(sorted(macros.items())) for path, macros in found.items() if macros}


__all__ = ["Reading", "inherited_strings"]
