"""fancyvrb's ``commandchars``: verbatim text that reads commands.

``\\begin{Verbatim}[commandchars=\\\\\\{\\}]`` makes the backslash and the braces active again
inside the verbatim text, so ``\\cite{a}`` there cites, as it does in an environment
``\\DefineVerbatimEnvironment{code}{Verbatim}{commandchars=\\\\\\{\\}}`` defines, or every
one after ``\\fvset{commandchars=\\\\\\{\\}}`` in the file (but where its options say
otherwise); ``%`` stays an ordinary character.  Only the backslash as escape character is
read: with another one (``commandchars=|\\{\\}``) the text stays verbatim for the reader.
"""

from __future__ import annotations

import re

from citewarden.parsing.latex_static import in_comment

#: fancyvrb's environments that take ``commandchars``
_FANCYVRB = frozenset({"Verbatim", "BVerbatim", "LVerbatim"})

#: ``commandchars`` whose escape character is the backslash
_BACKSLASH_ESCAPE = re.compile(r"commandchars[ \t]*=[ \t]*\\\\")

#: ``\\DefineVerbatimEnvironment{name}{Verbatim}{options}`` with the backslash as escape
#: character among its options (on the definition's line); 1: the name
_DEFINITION = re.compile(
    r"\\DefineVerbatimEnvironment[ \t]*\{[ \t]*([A-Za-z*]{1,100})[ \t]*\}[ \t]*"
    r"\{[ \t]*[BL]?Verbatim\*?[ \t]*\}[ \t]*\{[^\n]{0,300}?commandchars[ \t]*=[ \t]*\\\\"
)

#: ``\\fvset{commandchars=\\\\\\{\\}}``: every fancyvrb environment after it so (on its line)
_FVSET = re.compile(r"\\fvset[ \t]*\{[^\n]{0,300}?commandchars[ \t]*=[ \t]*\\\\")

_BEGIN = re.compile(r"\\begin[ \t]*\{([A-Za-z*]{1,100})\}")
_OPTIONS = re.compile(r"[ \t]*\[([^\n]{0,500}?)\]")


def command_environments(text: str) -> frozenset[str]:
    """The environments ``text`` defines with fancyvrb whose verbatim text reads commands."""
    if "commandchars" not in text:
        return frozenset()
    return frozenset(
        m.group(1) for m in _DEFINITION.finditer(text) if not in_comment(text, m.start())
    )


def command_bodies(text: str, defined: frozenset[str] = frozenset()) -> dict[int, tuple[int, int]]:
    """Where ``\\begin`` of a fancyvrb environment reading commands stands (given
    ``commandchars`` with the backslash, or one of ``defined``) -> its verbatim text (after
    its options, to its ``\\end``)."""
    if "commandchars" not in text:
        return {}
    found: dict[int, tuple[int, int]] = {}
    fvset = next((m.start() for m in _FVSET.finditer(text) if not in_comment(text, m.start())), -1)
    for m in _BEGIN.finditer(text):
        name = m.group(1)
        if name.rstrip("*") not in _FANCYVRB and name not in defined:
            continue
        options = _OPTIONS.match(text, m.end())
        if options is not None and "commandchars" in options.group(1):
            given = _BACKSLASH_ESCAPE.search(options.group(1)) is not None
        else:  # as the environment is defined, or as \fvset before it says
            given = name in defined or 0 <= fvset < m.start()
        if not given or in_comment(text, m.start()):
            continue
        # the verbatim text starts on the next line: fancyvrb passes over the rest of this one
        line_end = text.find("\n", options.end() if options is not None else m.end())
        body = len(text) if line_end < 0 else line_end + 1
        end = text.find("\\end{" + name + "}", body)
        found[m.start()] = (body, len(text) if end < 0 else end)
    return found


__all__ = ["command_bodies", "command_environments"]
