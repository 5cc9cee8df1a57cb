"""The citation commands a biblatex citation style (.cbx) or a package built on biblatex
(``biblatex-chicago.sty``) declares, and the further style files it loads.

biblatex-chicago's ``\\headlesscite`` or biblatex-fiwi's ``\\citefilm`` are
``\\DeclareCiteCommand{\\headlesscite}...`` in the style's .cbx: they cite as ``\\cite``
does, and a ``\\DeclareMultiCiteCommand`` as ``\\cites`` does.  A .cbx loads its parent
with ``\\RequireCitationStyle{verbose}``; a package loads biblatex with
``\\RequirePackage[style=chicago-notes]{biblatex}`` (``citestyle=`` names the .cbx apart
from the bibliography style).  Every declaration of the file counts, also those a package
makes under one of its options only: a command a document uses without its option loaded
stops LaTeX, so counting it never hides a citation LaTeX prints.  Commands LaTeX and
biblatex already have (``\\cite``, ``\\parencite`` ...) keep their own reading.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from citewarden.model import CitationMacro
from citewarden.parsing import latex_static
from citewarden.parsing.latex_commands import is_builtin

_DECLARATION = re.compile(r"\\Declare(?:Multi)?CiteCommand(?!\*)")
_REQUIRE_STYLE = re.compile(r"\\RequireCitationStyle\s*\{\s*([^{}\s]{1,200})\s*\}")
_LOAD_BIBLATEX = re.compile(
    r"\\(?:RequirePackage|usepackage)\s*\[([^\]]{0,2000})\]\s*\{\s*biblatex\s*\}"
)
_STYLE_OPTION = re.compile(
    r"(?:^|,)\s*+(?:cite)?style\s*+=\s*+(\{\s*+)?([A-Za-z0-9_.+-]{1,200})\s*+(?(1)\})\s*+(?=,|$)"
)
#: a ``%`` comment to the end of its line, with the spaces TeX skips at the next line's start
_OPTION_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%[^\n]*(?:\n[ \t]*)?")
#: a ``%`` that starts a comment: no backslash escapes it
_COMMENT_START = re.compile(r"(?<!\\)(?:\\\\)*%")


@dataclass(frozen=True, slots=True)
class StyleCommands:
    """What one style or package file tells of citation commands."""

    #: the citation commands it declares that LaTeX and biblatex do not have (internal
    #: ``@`` names left out)
    macros: tuple[CitationMacro, ...] = ()
    #: the style files it loads (``verbose.cbx``), in order
    requires: tuple[str, ...] = ()


def style_file_names(options: str) -> tuple[str, ...]:
    """The .cbx file the options of a ``\\usepackage[...]{biblatex}`` ask for: that of the
    last ``style=`` or ``citestyle=``, which biblatex reads in order (``style=numeric,
    citestyle=authoryear`` loads authoryear.cbx alone, ``citestyle=authoryear,
    style=numeric`` numeric.cbx).  ``%`` comments in the list are dropped, as TeX drops
    them; a value may be braced."""
    options = _OPTION_COMMENT.sub(r"\1", options)
    chosen = [m.group(2) for m in _STYLE_OPTION.finditer(options)]
    return (chosen[-1] + ".cbx",) if chosen else ()


def loaded_style_files(options: str, packages: frozenset[str]) -> tuple[str, ...]:
    """The style files one ``\\usepackage[options]{packages}`` loads that may declare
    citation commands: biblatex's .cbx (:func:`style_file_names`) and the .sty of a package
    named ``biblatex-*`` (a package built on biblatex, as ``biblatex-chicago``)."""
    files = list(style_file_names(options)) if "biblatex" in packages else []
    files += sorted(name + ".sty" for name in packages if name.startswith("biblatex-"))
    return tuple(files)


def read_style_commands(text: str) -> StyleCommands:
    """The citation commands ``text`` (a .cbx or .sty file) declares outside comments, and
    the style files it loads."""
    in_comment = _Comments(text)
    macros: dict[str, CitationMacro] = {}
    for m in _DECLARATION.finditer(text):
        if in_comment(m.start()):
            continue
        macro, _, _ = latex_static.read_definition(text, m.start(), _never, ())
        if macro is not None and "@" not in macro.name and not is_builtin(macro.name):
            macros.setdefault(macro.name, macro)
    requires: list[str] = []
    for m in _REQUIRE_STYLE.finditer(text):
        if not in_comment(m.start()):
            requires.append(m.group(1) + ".cbx")
    for m in _LOAD_BIBLATEX.finditer(text):
        if not in_comment(m.start()):
            requires += style_file_names(m.group(1))
    return StyleCommands(tuple(macros.values()), tuple(dict.fromkeys(requires)))


class _Comments:
    """Whether an offset of ``text`` is in a ``%`` comment, from the first comment start of
    each line, found once (a line of thousands of declarations is not searched again for
    each)."""

    def __init__(self, text: str) -> None:
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self._firsts: list[int] = []
        ends = [*self._lines[1:], len(text)]
        for start, end in zip(self._lines, ends, strict=True):
            found = _COMMENT_START.search(text, start, end)
            self._firsts.append(found.end() - 1 if found is not None else end + 1)

    def __call__(self, offset: int) -> bool:
        line = bisect.bisect_right(self._lines, offset) - 1
        return offset > self._firsts[line]


def _never(name: str) -> bool:
    return False


__all__ = ["StyleCommands", "loaded_style_files", "read_style_commands", "style_file_names"]
