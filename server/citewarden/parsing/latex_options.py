"""Where a LaTeX command's delimited argument (``[..]``, ``(..)``, ``<..>``) closes.

Such an argument is read up to :data:`MAX_OPTIONAL` characters, within its paragraph.  A
text of ``[`` arguments that never close (``\\cite[`` repeated along a long paragraph) was
read again from each one: a pass of that length per argument.  The reading of the last
``[`` argument found unclosed is kept: an argument that opens inside it, outside its
braces, is read exactly as the rest of it was (TeX ends a ``[`` argument at its first
``]`` outside braces, whatever other ``[`` come before), so it fails where that one
failed, or goes on from where that one's reading stopped at its length limit.  Arguments
asked in text order then cost one pass.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from citewarden.parsing.tex_tokens import ESCAPES_AND_COMMENTS

#: a paragraph break: no argument goes past it
PARAGRAPH_BREAK = r"\n[ \t]*\r?\n"
_TOKENS = {
    "[": re.compile(ESCAPES_AND_COMMENTS + r"|[{}\[\]]|" + PARAGRAPH_BREAK),
    "(": re.compile(ESCAPES_AND_COMMENTS + r"|[{}()]|" + PARAGRAPH_BREAK),
    "<": re.compile(ESCAPES_AND_COMMENTS + r"|[{}<>]|" + PARAGRAPH_BREAK),
}
_CLOSER = {"[": "]", "(": ")", "<": ">"}
#: Longest optional argument read, in characters.
MAX_OPTIONAL = 2_000
#: Deepest nesting of brackets (and of braces) inside an optional argument.
MAX_NESTING = 4
#: openings kept of an unclosed argument's reading before those behind the last asked go
_KEPT = 4096


@dataclass(slots=True)
class _Unclosed:
    """The reading of a ``[`` argument that did not close."""

    text: str
    #: the ``[`` met outside its braces (each would fail as it did), by offset
    inner: set[int] = field(default_factory=set)
    #: where its reading stopped at the length limit: the last token read starts there
    #: (-1: it stopped for good, at a paragraph break, a ``}`` or too deep a nesting)
    resume: int = -1
    #: the depth of braces before that token
    braces: int = 0


_LOCAL = threading.local()


def close_delimited(text: str, i: int, nest: bool = True) -> int:
    """``text[i]`` is ``[``, ``(`` or ``<``: the offset after the matching closer, braces
    nested inside counted, or -1 (also beyond :data:`MAX_OPTIONAL` characters).  Without
    ``nest``, the first closer outside braces closes it, as it ends a TeX delimited
    argument (``[see [4]]`` is ``[see [4]``)."""
    end = min(len(text), i + MAX_OPTIONAL)
    if nest or text[i] != "[":
        return _read(text, i, end, 0, nest, None)
    kept: _Unclosed | None = getattr(_LOCAL, "unclosed", None)
    if kept is not None and kept.text is text and i in kept.inner:
        if kept.resume < 0:
            return -1
        if len(kept.inner) > _KEPT:
            kept.inner = {k for k in kept.inner if k >= i}
        return _read(text, kept.resume, end, kept.braces, False, kept, opened=True)
    found = _Unclosed(text)
    close = _read(text, i, end, 0, False, found)
    if close < 0:
        _LOCAL.unclosed = found
    return close


def _read(
    text: str,
    start: int,
    end: int,
    braces: int,
    nest: bool,
    unclosed: _Unclosed | None,
    opened: bool = False,
) -> int:
    """Read the tokens from ``start`` (the opening, or where a kept reading stopped:
    ``opened``, with ``braces`` open) to ``end``: the offset after the closer, or -1; a
    failed ``[`` reading is recorded in ``unclosed``."""
    opener = "[" if opened else text[start]
    closer = _CLOSER[opener]
    depth = 1 if opened else 0
    last, last_braces = start, braces
    for m in _TOKENS[opener].finditer(text, start, end):
        last_braces = braces
        last = m.start()
        c = m.group()[0]
        if c == "{":
            braces += 1
            if braces > MAX_NESTING:
                break
        elif c == "}":
            braces -= 1
            if braces < 0:
                break
        elif c == "\n":
            break
        elif braces == 0 and c == opener:
            if unclosed is not None and depth:
                unclosed.inner.add(last)
            if nest or not depth:
                depth += 1
                if depth > MAX_NESTING:
                    break
        elif braces == 0 and c == closer:
            depth -= 1
            if depth == 0:
                return m.end()
    else:
        if unclosed is not None:  # stopped at the length limit: the last token read again
            unclosed.resume = last
            unclosed.braces = last_braces
        return -1
    if unclosed is not None:
        unclosed.resume = -1
    return -1
