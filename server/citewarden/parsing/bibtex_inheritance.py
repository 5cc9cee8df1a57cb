"""Which ``@string`` macros each .bib file of a LaTeX project inherits from its BibTeX
style and the files read before it.

BibTeX reads the files of ``\\bibliography{IEEEabrv,refs}`` one after the other as one
database, and biber its ``\\addbibresource`` files in order: a macro defined in
``IEEEabrv.bib`` holds in ``refs.bib`` (``journal = IEEE_J_PAMI``), and one defined only
in a later file is undefined where it is used (BibTeX: ``string name "x" is undefined``).
A later definition replaces an earlier one.  pandoc reads each bibliography file on its
own, so a Markdown project passes nothing on.  A file that several projects read inherits
only what every one of them defines before it (the first definition met gives the value):
a macro one of them lacks is undefined there, as that project's BibTeX, biber or pandoc
says.

BibTeX defines the ``MACRO`` commands of the style (:mod:`citewarden.parsing.bst`) before it
reads any .bib file: plain.bst's ``cacm`` holds in every file of a project with
``\\bibliographystyle{plain}``, and an ``@string{cacm = ...}`` of a file replaces it from
there on.  The month macros every reader knows with BibTeX's values
(:data:`~citewarden.parsing.bibtex_patterns.MONTH_MACROS`) are not passed on.  A project
whose style's macros are not known (:attr:`Reading.open_style`) may define any name: it
narrows what a file inherits only when no other project reads the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.parsing.bibtex_patterns import MONTH_MACROS

#: macros by lower-case name, as a sorted tuple of (name, expanded value)
Macros = tuple[tuple[str, str], ...]


def style_strings(macros: Macros | None) -> Macros:
    """The macros of a style (lower-case name, text) that its .bib files inherit: all but
    the months defined as every reader defines them."""
    if not macros:
        return ()
    return tuple((name, text) for name, text in macros if MONTH_MACROS.get(name) != text)


@dataclass(frozen=True, slots=True)
class Reading:
    """How one project reads its bibliography files."""

    #: the files in the order it reads them
    paths: Sequence[Path]
    #: its style's macros (:func:`style_strings`)
    style: Macros = ()
    #: whether a file's macros hold in the files read after it (BibTeX, biber; not pandoc)
    passes_on: bool = True
    #: its style's macros are not known: any name may be one
    open_style: bool = False


def inherited_strings(
    readings: Iterable[Reading],
    read: Callable[[Path, Macros], Mapping[str, str] | None],
) -> dict[Path, Macros]:
    """The macros each file inherits from the style and the files read before it, for
    the files that inherit any: those every project reading the file defines before it
    (projects with an :attr:`~Reading.open_style` count only for a file no other project
    reads).  ``readings``: every project's reading of its bibliography files;
    ``read(path, inherited)``: the file's own macros (None: not a BibTeX file), asked in
    reading order with what it inherits so far (a file not read yet is read with them at
    once)."""
    sure: dict[Path, dict[str, str]] = {}
    unsure: dict[Path, dict[str, str]] = {}
    for reading in readings:
        defined: dict[str, str] = dict(reading.style)
        into = unsure if reading.open_style else sure
        for path in reading.paths:
            mine = into.get(path)
            into[path] = dict(defined) if mine is None else _common(mine, defined)
            own = read(path, _sorted(sure.get(path, unsure.get(path))))
            if own is not None and reading.passes_on:
                defined.update(own)
    found = {**unsure, **sure}
    return {path: _sorted(macros) for path, macros in found.items() if macros}


def _common(mine: dict[str, str], defined: Mapping[str, str]) -> dict[str, str]:
    """The macros of ``mine`` that ``defined`` holds too, with the values of ``mine``."""
    return {name: value for name, value in mine.items() if name in defined}


def _sorted(macros: Mapping[str, str] | None) -> Macros:
    return tuple(sorted(macros.items())) if macros else ()


__all__ = ["Macros", "Reading", "inherited_strings", "style_strings"]
