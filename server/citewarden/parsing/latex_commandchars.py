"""fancyvrb's ``commandchars``: verbatim text that reads commands.

``\\begin{Verbatim}[commandchars=\\\\\\{\\}]`` makes the backslash and the braces active again
inside the verbatim text, so ``\\cite{a}`` there cites, as it does in an environment
``\\DefineVerbatimEnvironment{code}{Verbatim}{commandchars=\\\\\\{\\}}`` defines, or every
one after ``\\fvset{commandchars=\\\\\\{\\}}`` in the file (but where its options say
otherwise); ``%`` stays an ordinary character.  Other escape and group characters
(``commandchars=|()``) are read as LaTeX's where the file gives them (:func:`read_as_tex`);
an environment another file defines so stays verbatim.
"""

from __future__ import annotations

import re

from citewarden.parsing.latex_static import in_comment, line_end

#: fancyvrb's environments that take ``commandchars``
_FANCYVRB = frozenset({"Verbatim", "BVerbatim", "LVerbatim"})

#: ``commandchars=\\\{\}``: 1: its three characters (escape, begin group, end group), each
#: written alone or after a backslash
_CHARS = r"commandchars[ \t]*=[ \t]*((?:\\[^\sA-Za-z]|[^\\\s,\]A-Za-z]){3})"
_OPTION = re.compile(_CHARS)
#: LaTeX's own: these are read as they are
_AS_WRITTEN = "\\{}"

#: ``\\DefineVerbatimEnvironment{name}{Verbatim}{options}`` with ``commandchars`` among
#: its options (on the definition's line); 1: the name, 2: the characters
_DEFINITION = re.compile(
    r"\\DefineVerbatimEnvironment[ \t]*\{[ \t]*([A-Za-z*]{1,100})[ \t]*\}[ \t]*"
    r"\{[ \t]*[BL]?Verbatim\*?[ \t]*\}[ \t]*\{[^\n]{0,300}?" + _CHARS
)

#: ``\\fvset{commandchars=\\\\\\{\\}}``: every fancyvrb environment after it so (on its line)
_FVSET = re.compile(r"\\fvset[ \t]*\{[^\n]{0,300}?" + _CHARS)

_BEGIN = re.compile(r"\\begin[ \t]*\{([A-Za-z*]{1,100})\}")
_OPTIONS = re.compile(r"[ \t]*\[([^\n]{0,500}?)\]")


def _chars(written: str) -> str:
    """The three characters of ``commandchars`` as written (``\\\\\\{\\}``: ``\\{}``)."""
    return re.sub(r"\\(.)", r"\1", written)


def command_environments(text: str) -> dict[str, str]:
    """The environments ``text`` defines with fancyvrb whose verbatim text reads commands,
    with their escape and group characters (``\\{}`` as in LaTeX)."""
    if "commandchars" not in text:
        return {}
    return {
        m.group(1): _chars(m.group(2))
        for m in _DEFINITION.finditer(text)
        if not in_comment(text, m.start())
    }


def command_bodies(
    text: str, defined: dict[str, str] | None = None
) -> dict[int, tuple[int, int, str]]:
    """Where ``\\begin`` of a fancyvrb environment reading commands stands (given
    ``commandchars``, or one of ``defined``) -> its verbatim text (after its options, to
    its ``\\end``) and its escape and group characters."""
    if "commandchars" not in text:
        return {}
    defined = defined or {}
    found: dict[int, tuple[int, int, str]] = {}
    fvset = next((m for m in _FVSET.finditer(text) if not in_comment(text, m.start())), None)
    #: per environment: where its ``\\end`` was last looked for and where it stands (-1:
    #: nowhere after), so many ``\\begin`` with no ``\\end`` read the text once
    ends: dict[str, tuple[int, int]] = {}
    for m in _BEGIN.finditer(text):
        name = m.group(1)
        if name.rstrip("*") not in _FANCYVRB and name not in defined:
            continue
        options = _OPTIONS.match(text, m.end())
        if options is not None and "commandchars" in options.group(1):
            given = _OPTION.search(options.group(1))
            chars = _chars(given.group(1)) if given is not None else ""
        elif name in defined:
            chars = defined[name]
        else:  # as \fvset before it says
            chars = (
                _chars(fvset.group(1)) if fvset is not None and fvset.start() < m.start() else ""
            )
        if not chars or in_comment(text, m.start()):
            continue
        # the verbatim text starts on the next line: fancyvrb passes over the rest of this one
        body = min(line_end(text, options.end() if options is not None else m.end()) + 1, len(text))
        since, end = ends.get(name, (len(text) + 1, -1))
        if since > body or 0 <= end < body:
            end = text.find("\\end{" + name + "}", body)
            ends[name] = (body, end)
        found[m.start()] = (body, len(text) if end < 0 else end, chars)
    return found


def read_as_tex(text: str, bodies: dict[int, tuple[int, int, str]]) -> str:
    """``text`` with the verbatim text of ``bodies`` given other escape or group characters
    than LaTeX's written with LaTeX's (``|cite(a)`` as ``\\cite{a}``), and LaTeX's there,
    which are ordinary characters, as spaces: as long as ``text``."""
    parts: list[str] = []
    at = 0
    for body, end, chars in sorted(bodies.values()):
        if chars == _AS_WRITTEN or body < at:
            continue
        table = {ord(c): " " for c in _AS_WRITTEN}
        table.update((ord(c), t) for c, t in zip(chars, _AS_WRITTEN, strict=True))
        parts += (text[at:body], text[body:end].translate(table))
        at = end
    return "".join(parts) + text[at:] if parts else text


__all__ = ["command_bodies", "command_environments", "read_as_tex"]
