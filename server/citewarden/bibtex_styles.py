"""The BibTeX style a LaTeX project names (``\\bibliographystyle{plain}``): where its .bst
file is and the macros it defines (:mod:`citewarden.parsing.bst`).

BibTeX defines a style's ``MACRO`` commands before it reads the .bib files, so
``journal = cacm`` is "Communications of the ACM" under plain.bst and an undefined string
under amsplain.bst.  The file is looked for as BibTeX (kpathsea) looks for it: ``NAME.bst``
(the name as written when it ends in ``.bst``) in the folder BibTeX runs in (the root
document's), in the folders ``BSTINPUTS`` names (the environment's, then the project's
.latexmkrc's), then in TeX's trees, asked of ``kpsewhich`` (its answer for a name is kept
:data:`KPSEWHICH_LIFETIME` seconds, so that a style installed meanwhile is found; no
``kpsewhich``, or no answer within :data:`KPSEWHICH_TIMEOUT`: not there).

A style file is read only when it is a regular file of at most :data:`MAX_STYLE_BYTES`;
what it defines is remembered per path, modification time and size, and
:func:`is_current` tells whether looking again would find another file or another text.  A style that is not
found, cannot be read or that BibTeX would stop on has no known macros
(:attr:`BibStyle.macros` None, :attr:`BibStyle.unknown` says why): the undefined-string
findings of the .bib files only such projects read become less certain
(:mod:`citewarden.checks.styles`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.files import (
    FileTooLarge,
    ReadPerVersion,
    Stamp,
    file_stamp,
    megabytes,
    read_regular,
)
from citewarden.model import quoted
from citewarden.parsing.bst import StyleMacros, style_macros
from citewarden.tex_trees import (
    KPSEWHICH_LIFETIME,
    KPSEWHICH_TIMEOUT,
    answer_is_fresh,
    find_file,
    searchable,
)

#: The largest style file read, in bytes (TeX Live's largest, apacite's, has 142 KB).
MAX_STYLE_BYTES = 1 << 20
#: Style files (and ``kpsewhich`` answers) remembered at most; past that all are dropped.
MAX_REMEMBERED = 256

Macros = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class BibStyle:
    """The style BibTeX reads for a project: its name, where it is named, its file and
    the macros that file defines."""

    #: the name as written in ``\\bibliographystyle{...}`` (text macros expanded)
    name: str
    #: the document naming it, and the number of that command among the document's
    #: (:attr:`~citewarden.model.ParsedDocument.bib_styles`)
    document: Path
    index: int
    #: the .bst file found (None: none)
    path: Path | None = None
    #: lower-case name and text of each macro it defines; None: not known (``unknown``)
    macros: Macros | None = None
    unknown: str = ""
    #: the fields its ``ENTRY`` command names (known macros only)
    fields: frozenset[str] = frozenset()
    #: the folders it was looked for in before TeX's trees (none: not looked for), and the
    #: modification time and size of its file then (:func:`is_current`)
    dirs: tuple[Path, ...] = ()
    stamp: Stamp | None = None


def file_name(name: str) -> str:
    """The file BibTeX looks for: ``NAME.bst``, or the name itself when it ends in .bst."""
    return name if name.endswith(".bst") else name + ".bst"


def find_style(name: str, dirs: Sequence[Path]) -> Path | None:
    """The file of the style ``name``: in ``dirs`` (the root document's folder, then the
    ``BSTINPUTS`` folders), else in TeX's trees."""
    if not searchable(name):
        return None
    return find_file(file_name(name), dirs, name, "bst")


def read_style(path: Path) -> StyleMacros:
    """What the style file ``path`` defines; ``problem``: why that is not known."""
    try:
        return _macros(path)
    except (OSError, ValueError) as exc:
        return StyleMacros(problem=f"{quoted(path.name)} could not be read: {_reason(exc)}")


def _read_macros(path: Path) -> StyleMacros:
    try:
        data = read_regular(path, MAX_STYLE_BYTES)
    except FileTooLarge:
        shown = quoted(path.name)
        return StyleMacros(
            problem=f"{shown} is larger than {megabytes(MAX_STYLE_BYTES)}; it is not read"
        )
    except OSError as exc:
        return StyleMacros(problem=f"{quoted(path.name)} could not be read: {_reason(exc)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # BibTeX reads bytes: every byte stands for itself
    result = style_macros(text)
    if result.problem is not None:
        return StyleMacros(problem=f"BibTeX stops reading {quoted(path.name)} at {result.problem}")
    return result


#: what each style file defines, per version
_macros = ReadPerVersion(_read_macros, MAX_REMEMBERED)


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else None) or str(exc)


def is_current(style: BibStyle) -> bool:
    """Whether looking for ``style`` again would find the same file, unchanged: a few
    stats (a file now in a folder searched before, the file's modification time and
    size); a style not found is looked for in TeX's trees again once the answer of
    ``kpsewhich`` is :data:`KPSEWHICH_LIFETIME` seconds old."""
    if not style.dirs or not searchable(style.name):
        return True  # not looked for
    wanted = file_name(style.name)
    for folder in style.dirs:
        candidate = folder / wanted
        if candidate == style.path:
            break
        try:
            if candidate.is_file():
                return False
        except (OSError, ValueError):
            continue
    if style.path is not None:
        return file_stamp(style.path) == style.stamp
    return answer_is_fresh(style.name, "bst")


def bib_style(name: str, document: Path, index: int, dirs: Sequence[Path]) -> BibStyle:
    """The style ``name``, named by the ``index``-th ``\\bibliographystyle`` of
    ``document``, looked for in ``dirs`` and TeX's trees, with what its file defines."""
    looked = tuple(dirs)
    path = find_style(name, dirs)
    if path is None:
        wanted = quoted(file_name(name) if "\x00" not in name else repr(name))
        if shutil.which("kpsewhich") is None:
            why = f"{wanted} is not found (in the root document's folder or BSTINPUTS; "
            why += "TeX's trees are not searched, there is no kpsewhich)"
        else:
            why = f"{wanted} is not found (in the root document's folder, BSTINPUTS or TeX's trees)"
        return BibStyle(name, document, index, unknown=why, dirs=looked)
    stamp = file_stamp(path)
    read = read_style(path)
    if read.problem is not None:
        return BibStyle(name, document, index, path, unknown=read.problem, dirs=looked, stamp=stamp)
    return BibStyle(
        name, document, index, path, read.macros, fields=read.fields, dirs=looked, stamp=stamp
    )


__all__ = [
    "KPSEWHICH_LIFETIME",
    "KPSEWHICH_TIMEOUT",
    "MAX_STYLE_BYTES",
    "BibStyle",
    "bib_style",
    "file_name",
    "find_style",
    "is_current",
    "read_style",
]
