"""biblatex's ``refsection=`` option: a new reference section at each heading of a level.

``\\usepackage[refsection=chapter]{biblatex}`` (or the option given by
``\\ExecuteBibliographyOptions`` or ``\\PassOptionsToPackage``) makes each ``\\chapter``
begin a new refsection, as a ``\\newrefsection`` without resources would: it ends the
section open there (one with resources of its own too) and reads the default resources.
biblatex 3.18 patches the standard classes' headings: ``part`` resets at ``\\part`` (not
``\\part*``, whose ``\\@spart`` it leaves alone), ``chapter``, ``section`` and
``subsection`` at the starred headings too, and ``chapter+``, ``section+`` and
``subsection+`` at that level and every one above it.  The headings of
``\\printbibliography`` start none.
"""

from __future__ import annotations

import re

from citewarden.parsing import latex_static
from citewarden.parsing.latex_args import CodeRegions, _is_definition

_PART = frozenset({"part"})
_CHAPTER = frozenset({"chapter", "chapter*"})
_SECTION = frozenset({"section", "section*"})
_SUBSECTION = frozenset({"subsection", "subsection*"})
#: the headings (with ``*`` when starred) each value of the option begins a section at
RESETS: dict[str, frozenset[str]] = {
    "none": frozenset(),
    "part": _PART,
    "chapter": _CHAPTER,
    "section": _SECTION,
    "subsection": _SUBSECTION,
    "chapter+": _PART | _CHAPTER,
    "section+": _PART | _CHAPTER | _SECTION,
    "subsection+": _PART | _CHAPTER | _SECTION | _SUBSECTION,
}

#: a package's options, biblatex's options, or options passed to it: group 1
_OPTIONS = re.compile(
    r"\\(?:usepackage\s*\[([^\[\]{}]{0,2000})\]\s*\{[^{}]{0,2000}\}"
    r"|ExecuteBibliographyOptions\s*(?:\[[^\[\]{}]{0,2000}\]\s*)?\{([^{}]{0,2000})\}"
    r"|PassOptionsToPackage\s*\{([^{}]{0,2000})\}\s*\{\s*biblatex\s*\})"
)
_OPTION = re.compile(r"(?:^|,)\s*+refsection\s*+=\s*+\{?\s*+([a-z]+\+?)\s*+\}?\s*+(?:,|$)")
#: a heading command, starred or not, and the start of its title (group 3)
_HEADING = re.compile(
    r"\\(part|chapter|section|subsection)(?![A-Za-z@])\s*+(\*?)"
    r"(\s*+(?:\[[^\[\]]{0,500}\])?\s*+\{[^{}]{0,500})?"
)


def reset_option(text: str) -> str:
    """The last ``refsection=`` option ``text`` gives biblatex (``"chapter"``, ...), or
    ``""``."""
    if "refsection" not in text:
        return ""
    found = ""
    for m in _OPTIONS.finditer(text):
        if m.group(1) is not None and "biblatex" not in text[m.end(1) : m.end()]:
            continue
        if latex_static.in_comment(text, m.start()):
            continue
        options = next(g for g in m.groups() if g is not None)
        option = _OPTION.search(options)
        if option is not None and option.group(1) in RESETS:
            found = option.group(1)
    return found


def headings(text: str) -> tuple[tuple[int, str], ...]:
    """Where each ``\\part``, ``\\chapter``, ``\\section`` and ``\\subsection`` of ``text``
    stands, with its name (``chapter*`` when starred); not in comments, code, a
    definition, or a macro's body (a title holding ``#``)."""
    if "\\part" not in text and "chapter" not in text and "section" not in text:
        return ()
    found: list[tuple[int, str]] = []
    code: CodeRegions | None = None
    for m in _HEADING.finditer(text):
        at = m.start()
        if m.group(3) is not None and "#" in m.group(3):
            continue
        if latex_static.in_comment(text, at) or _is_definition(text, at):
            continue
        code = code or CodeRegions(text)
        if code.holds(at):
            continue
        found.append((at, m.group(1) + m.group(2)))
    return tuple(found)


__all__ = ["RESETS", "headings", "reset_option"]
