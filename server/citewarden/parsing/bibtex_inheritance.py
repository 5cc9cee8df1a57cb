"""Which ``@string`` macros each .bib file of a LaTeX project inherits from its BibTeX
style and the files read before it.

BibTeX reads the files of ``\\bibliography{IEEEabrv,refs}`` one after the other as one
database, and biber its ``\\addbibresource`` files in order: a macro defined in
``IEEEabrv.bib`` holds in ``refs.bib`` (``journal = IEEE_J_PAMI``), and one defined only
in a later file is undefined where it is used (BibTeX: ``string name "x" is undefined``).
A later definition replaces an earlier one.  pandoc reads each bibliography file on its
own, so a Markdown project passes nothing on.  A file that several projects read inherits
what any of them defines before it (the first definition met wins).

BibTeX defines the ``MACRO`` commands of the style (:mod:`citewarden.parsing.bst`) before it
reads any .bib file: plain.bst's ``cacm`` holds in every file of a project with
``\\bibliographystyle{plain}``, and an ``@string{cacm = ...}`` of a file replaces it from
there on.  The month macros every reader knows with BibTeX's values
(:data:`~citewarden.parsing.bibtex_patterns.MONTH_MACROS`) are not passed on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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


def inherited_strings(
    readings: Iterable[tuple[Sequence[Path], Macros]],
    read: Callable[[Path, Macros], Mapping[str, str] | None],
) -> dict[Path, Macros]:
    """The macros each file inherits from the style and the files read before it, for
    the files that inherit any.  ``readings``: each LaTeX project's .bib files in the
    order it reads them, with its style's macros (:func:`style_strings`);
    ``read(path, inherited)``: the file's own macros (None: not a BibTeX file), asked in
    reading order with what it inherits so far (a file not read yet is read with them at
    once)."""
    found: dict[Path, dict[str, str]] = {}
    for reading, style in readings:
        defined: dict[str, str] = dict(style)
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


__all__ = ["Macros", "inherited_strings", "style_strings"]
