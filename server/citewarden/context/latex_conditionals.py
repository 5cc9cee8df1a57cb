"""LaTeX's conditionals on flags in a citing sentence (pure): ``\\ifthenelse{\\boolean{x}}
{yes}{no}`` (ifthenelse), ``\\ifbool{x}{yes}{no}`` and ``\\iftoggle{x}{yes}{no}``
(etoolbox) read ``yes``, and so does a TeX conditional (``\\ifdraft yes\\else no\\fi``, a
``\\newif`` flag's).

A build of the document typesets one branch, never the condition and never both; which one
depends on a flag the document may set anywhere (``\\setboolean``, ``\\toggletrue``, a class
option), which the sentence is not read with.  The first branch is what the flag's author
wrote the conditional for (``\\ifthenelse{\\boolean{long}}{a longer wording}{}``), and it
is text some build shows: the sentence reads as in that build.  Showing nothing would read
words out of every build of it, showing both would read a sentence no build has.  The
condition and the second branch are masked before the sentence breaks are looked for
(:func:`other_branches_hidden`), so a full stop or a blank line in them ends no sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citewarden.parsing.tex_tokens import BRACE_TOKENS

_CONDITIONAL = re.compile(r"\\(?:ifthenelse|ifbool|notbool|iftoggle|nottoggle)(?![A-Za-z@])\s*")
#: the longest argument read (characters)
MAX_ARGUMENT = 2000


def brace_pairs(text: str, longest: int | None = None) -> dict[int, int]:
    """Where each ``{`` of ``text`` that is closed is closed (the ``}``'s offset), read in
    one pass, so that many groups never closed (``\\iftoggle{x}{`` 200 000 times) cost no
    more than the text's length; ``longest``: only groups of at most that many characters
    (braces included)."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for m in BRACE_TOKENS.finditer(text):
        c = m.group()
        if c == "{":
            opened.append(m.start())
        elif c == "}" and opened:
            at = opened.pop()
            if longest is None or m.end() - at <= longest:
                pairs[at] = m.start()
    return pairs


def _groups(text: str, at: int, count: int, ends: dict[int, int]) -> list[tuple[int, int]] | None:
    """(start, end) of the contents of ``count`` brace groups from ``at`` (white space
    between them passed over; ``ends``: :func:`brace_pairs`), None if they are not there."""
    found: list[tuple[int, int]] = []
    for _ in range(count):
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        close = ends.get(at, -1) if text.startswith("{", at) else -1
        if close < 0:
            return None
        found.append((at + 1, close))
        at = close + 1
    return found


def _conditionals(text: str) -> Iterator[tuple[int, int, int, int]]:
    """(start, first branch's start, its end, end) of each outermost conditional on a flag
    of ``text`` whose arguments are all there (``end`` after its last closing brace)."""
    if "\\if" not in text and "\\not" not in text:
        return
    pos = 0
    ends: dict[int, int] | None = None
    for m in _CONDITIONAL.finditer(text):
        if m.start() < pos:
            continue  # inside a branch already read
        ends = brace_pairs(text, MAX_ARGUMENT) if ends is None else ends
        groups = _groups(text, m.end(), 3, ends)
        if groups is None:
            continue
        (_, _), (a, b), (_, end) = groups
        pos = end + 1
        yield m.start(), a, b, pos


def first_branches(text: str) -> str:
    """``text`` with each conditional on a flag replaced by its first branch (its condition
    and second branch gone); one whose arguments are not all there is left as it is."""
    parts: list[str] = []
    pos = 0
    for start, a, b, end in _conditionals(text):
        # the branch read as the rest of the text is, conditionals in it too
        parts += (text[pos:start], " ", first_branches(text[a:b]), " ")
        pos = end
    parts.append(text[pos:])
    return "".join(parts) if parts[1:] else text


def other_branches_hidden(text: str) -> str:
    """``text`` with the command, the condition and the second branch of each conditional on
    a flag replaced by spaces, offset for offset (the first branch's braces too): what is
    left is what :func:`first_branches` reads, and no break in the rest ends a sentence."""
    parts: list[str] = []
    pos = 0
    for start, a, b, end in _conditionals(text):
        parts += (text[pos:start], " " * (a - start), other_branches_hidden(text[a:b]))
        parts.append(" " * (end - b))
        pos = end
    parts.append(text[pos:])
    return "".join(parts) if parts[1:] else text


#: a TeX conditional's opener (``\ifdraft``, ``\if@twocolumn``, ``\ifx``), ``\else``, ``\fi``,
#: or an escaped character
_TEX_CONDITIONAL = re.compile(
    r"\\(?:(?P<if>if[A-Za-z@]*)|(?P<else>else)|(?P<fi>fi))(?![A-Za-z@])|\\."
)
#: what after ``\if...`` makes it a command with braced arguments (etoolbox's ``\ifdef{..}``)
_BRACED = re.compile(r"\s*\{")


def else_branches_hidden(text: str) -> str:
    """``text`` with the ``\\else`` branch of each TeX conditional (``\\ifdraft A\\else
    B\\fi``, a ``\\newif`` flag's) replaced by spaces from its ``\\else`` to its ``\\fi``,
    offset for offset: the first branch is read, as for :func:`first_branches`.  A command
    with braced arguments (etoolbox's ``\\ifdef{...}``) is no conditional of this kind, and
    one never closed hides nothing."""
    if "\\else" not in text:
        return text
    hidden: list[tuple[int, int]] = []
    opened: list[int] = []  # the ``\\else`` of each open conditional, -1 before it
    for m in _TEX_CONDITIONAL.finditer(text):
        if m.group("if"):
            if not _BRACED.match(text, m.end()):
                opened.append(-1)
        elif m.group("else"):
            if opened and opened[-1] < 0:
                opened[-1] = m.start()
        elif m.group("fi") and opened:
            at = opened.pop()
            if at >= 0:
                hidden.append((at, m.end()))
    if not hidden:
        return text
    parts: list[str] = []
    pos = 0
    for a, b in sorted(hidden):
        if a < pos:  # inside a branch already hidden
            continue
        parts += (text[pos:a], " " * (b - a))
        pos = b
    parts.append(text[pos:])
    return "".join(parts)
