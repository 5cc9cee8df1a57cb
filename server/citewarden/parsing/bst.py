"""The ``MACRO`` commands of a BibTeX style (.bst) file: the macros a .bib file read with
that style may use without defining them (plain.bst's ``MACRO {cacm} {"Communications of
the ACM"}``, and the months).

Read as BibTeX reads a style, command by command up to ``READ`` (a ``MACRO`` after it is
an error, "Illegal, macro command after read command", and defines nothing): white space
and ``%`` comments (outside string literals) between tokens, commands in any case, the
brace groups of the other commands skipped with their string literals (which may hold
braces but never a line break).  A macro is ``MACRO {name} {"text"}``, its name lower-cased;
a name defined twice keeps its first text.  The fields ``ENTRY`` names are read too (BibTeX
stores no other field, so a macro in another field is never expanded, nor undefined).
Where BibTeX would report an error (an unknown command, an unclosed group or string, a
malformed ``MACRO``) the style is not read: the result says where and why, and holds no
macros (BibTeX would skip to the next blank line and go on; which macros it then defines
is not guessed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citewarden.model import quoted

#: the commands of a style and how many brace groups each takes
_COMMANDS = {
    "entry": 3,
    "execute": 1,
    "function": 2,
    "integers": 1,
    "iterate": 1,
    "macro": 2,
    "read": 0,
    "reverse": 1,
    "sort": 0,
    "strings": 1,
}
#: white space and ``%`` comments (to the end of their line)
_GAP = re.compile(r"(?:[ \t\r\n\f\v]++|%[^\n]*+)*+")
#: a ``%`` comment
_COMMENT = re.compile(r"%[^\n]*")
#: an identifier: anything but white space and the characters BibTeX forbids in one
_IDENT = re.compile(r"[^\s\"#%'(),={}]+")
#: the text of a string literal and its closing quote, on one line
_STRING = re.compile(r'([^"\n]*)"')
#: inside a group: anything but braces, quotes, comments and line breaks, in one step
_PLAIN = re.compile(r'[^{}"%\n]+')


@dataclass(frozen=True, slots=True)
class StyleMacros:
    """What a style defines: its macros (lower-case name, text) in the order defined, or
    the error that stopped the reading (``problem``, with its line; no macros then)."""

    macros: tuple[tuple[str, str], ...] = ()
    problem: str | None = None
    #: the fields its ``ENTRY`` command names (lower-case; BibTeX reads no other field of
    #: an entry, nor the macros in one)
    fields: frozenset[str] = frozenset()


class _Stop(Exception):
    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


def style_macros(text: str) -> StyleMacros:
    """The macros the style ``text`` defines before its ``READ`` (never raises)."""
    fields: set[str] = set()
    try:
        return StyleMacros(tuple(_macros(text, fields).items()), fields=frozenset(fields))
    except _Stop as stop:
        line = text.count("\n", 0, stop.pos) + 1
        return StyleMacros(problem=f"line {line}: {stop.message}")


def _macros(text: str, fields: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    n = len(text)
    pos = _GAP.match(text, 0).end()  # type: ignore[union-attr]
    while pos < n:
        m = _IDENT.match(text, pos)
        if m is None:
            raise _Stop(pos, f"expected a command, found '{text[pos]}'")
        command = m.group().lower()
        groups = _COMMANDS.get(command)
        if groups is None:
            raise _Stop(pos, f"unknown command {quoted(m.group())}")
        if command == "read":
            break
        pos = m.end()
        if command == "macro":
            pos = _macro(text, pos, found)
        elif command == "entry":
            start = _gap(text, pos)
            pos = _skip_group(text, start)
            names = _COMMENT.sub(" ", text[start + 1 : pos - 1])
            fields.update(name.lower() for name in _IDENT.findall(names))
            for _ in range(groups - 1):
                pos = _skip_group(text, _gap(text, pos))
        else:
            for _ in range(groups):
                pos = _skip_group(text, _gap(text, pos))
        pos = _gap(text, pos)
    return found


def _gap(text: str, pos: int) -> int:
    return _GAP.match(text, pos).end()  # type: ignore[union-attr]


def _expect(text: str, pos: int, char: str, what: str) -> int:
    if not text.startswith(char, pos):
        found = f"'{text[pos]}'" if pos < len(text) else "the end of the file"
        raise _Stop(pos, f"expected '{char}' {what}, found {found}")
    return pos + 1


def _macro(text: str, pos: int, found: dict[str, str]) -> int:
    """``{name} {"text"}`` after ``MACRO``; -> the offset after it."""
    pos = _gap(text, _expect(text, _gap(text, pos), "{", "after MACRO"))
    m = _IDENT.match(text, pos)
    if m is None or m.group()[0].isdecimal():
        raise _Stop(pos, "expected the name of a macro")
    name = m.group().lower()
    shown = quoted(name)
    pos = _expect(text, _gap(text, m.end()), "}", "after the macro's name")
    pos = _gap(text, _expect(text, _gap(text, pos), "{", f"before the text of macro {shown}"))
    pos = _expect(text, pos, '"', f'(the text of macro {shown} is "-delimited)')
    s = _STRING.match(text, pos)
    if s is None:
        raise _Stop(pos, f"no '\"' ends the text of macro {shown} on its line")
    found.setdefault(name, s.group(1))
    return _expect(text, _gap(text, s.end()), "}", f"after the text of macro {shown}")


def _skip_group(text: str, pos: int) -> int:
    """A ``{...}`` group at ``pos`` (nested groups, string literals, comments); -> the
    offset after it."""
    start = pos = _expect(text, pos, "{", "to open a group")
    depth = 1
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == "{":
            depth += 1
            pos += 1
        elif c == "}":
            depth -= 1
            pos += 1
            if depth == 0:
                return pos
        elif c == '"':
            s = _STRING.match(text, pos + 1)
            if s is None:
                raise _Stop(pos, "no '\"' ends the string on its line")
            pos = s.end()
        elif c == "%":
            pos = _gap(text, pos)
        elif c == "\n":
            pos += 1
        else:
            pos = _PLAIN.match(text, pos).end()  # type: ignore[union-attr]
    raise _Stop(start - 1, "a group opened here is not closed")


__all__ = ["StyleMacros", "style_macros"]
