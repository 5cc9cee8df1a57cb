"""The inline scan of the Markdown reader: pandoc's citation key grammar, and one
left-to-right pass that finds citations and passes over what pandoc does not read as text
(code, HTML comments and tags, autolinks, link destinations, escapes, TeX math and raw
TeX, Quarto shortcodes).  See :mod:`~citewarden.parsing.markdown`."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from citewarden.model import (
    Span,
)

_SIMPLE_KEY = r"[\w*](?:\w|[:.#$%&\-+?<>~/](?=\w)|[:/](?=/))*"
_SIMPLE_KEY_RE = re.compile(_SIMPLE_KEY)
#: ``@`` may not follow a letter, a digit or a dot (e-mail addresses, ``x.@y``).
_NOT_AFTER_STR = r"(?<![^\W_])(?<!\.)"
_KEY_IN_TEXT = re.compile(
    r"(?:" + _NOT_AFTER_STR + r"(-))?" + _NOT_AFTER_STR + r"@(?:(" + _SIMPLE_KEY + r")|(\{))?"
)


#: A braced key: no whitespace, braces balanced (nested up to two levels deep).
_BRACED_KEY = re.compile(r"\{(?:[^\s{}]|\{(?:[^\s{}]|\{[^\s{}]*\})*\})*\}")
#: Longest braced key read, in characters.
_MAX_BRACED = 1_000


def _braced_end(text: str, i: int, end: int | None = None) -> int:
    """``text[i] == "{"``: offset after its balanced ``}`` with no whitespace inside (before
    ``end``), or -1."""
    m = _BRACED_KEY.match(text, i, min(len(text) if end is None else end, i + _MAX_BRACED))
    return m.end() if m is not None else -1


def _escaped(text: str, i: int) -> bool:
    """An odd number of backslashes stands before ``text[i]``."""
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def scan_keys(text: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    """Every ``@key`` in ``text[start:end]`` (no code or markup handling): (key, s, e)."""
    pos = start
    while True:
        m = _KEY_IN_TEXT.search(text, pos, end)
        if m is None:
            return
        pos = m.end()
        if _escaped(text, m.start()):
            continue  # "\\@a": an escaped at sign in Markdown text
        if m.group(2) is not None:
            yield m.group(2), m.start(2), m.end(2)
        elif m.group(3) is not None:
            close = _braced_end(text, m.start(3), end)
            if close > 0:
                yield text[m.start(3) + 1 : close - 1], m.start(3) + 1, close - 1
                pos = close


_INLINE = re.compile(
    r"<(?:(!--)|((?:[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]{0,2000}|[^\s<>@]{1,300}@[^\s<>@]{1,300})>))"
    r"|`(`*)|\\([\s\S])|\[()|\]()|\n([ \t]*\r?\n)"
    r"|-@(?:(" + _SIMPLE_KEY + r")|(\{))?()"
    r"|@(?:(" + _SIMPLE_KEY + r")|(\{))?()"
    r"|\{(\{<)"
    r"|(\$\$?)"
    r"|<(/?[A-Za-z][A-Za-z0-9-]{0,30})(?=[\s/>])"
)
_COMMENT, _TICKS, _OPEN, _CLOSE, _BLANK, _DASH_AT, _AT, _SHORTCODE = 1, 3, 5, 6, 7, 10, 13, 14
_ESCAPE, _MATH, _TAG = 4, 15, 16
#: Cross-reference labels (Quarto ``@fig-plot``, pandoc-crossref ``@fig:plot``): not citations.
_CROSSREF = re.compile(
    r"(?:fig|tbl|lst|eq|sec|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|alg|tip|nte|wrn|imp|cau)"
    r"[-:]\w"
)
_PAR = re.compile(r"\n[ \t]*\r?\n")
_IGNORE = re.compile(r"citewarden:\s*ignore\b", re.I)


@lru_cache(maxsize=32)
def _backtick_closer(length: int) -> re.Pattern[str]:
    return re.compile(r"(?<!`)`{" + str(length) + r"}(?!`)")


@dataclass(slots=True)
class _Pending:
    key: str
    span: Span
    start: int  # the "@" or the "-" before it
    end: int
    dash: bool
    group: Span | None = None


@dataclass(slots=True)
class _Scan:
    pending: list[_Pending] = field(default_factory=list)
    at_signs: list[int] = field(default_factory=list)  # every "@" read as a citation start
    suppressed: set[int] = field(default_factory=set)


def _scan(text: str, skip: list[tuple[int, int]]) -> _Scan:
    out = _Scan()
    pending = out.pending
    n = len(text)
    stack: list[tuple[int, int]] = []  # open brackets: (offset, index into pending)
    regions = iter(skip)
    region = next(regions, None)
    comment_close = -2  # next "-->" (-1: there is none further on)
    par_end = -1  # end of the paragraph around the last code span
    counted_to = counted_line = 0  # line numbers of ignore comments, counted incrementally
    key_end = -1  # end of the last key read
    pos = 0
    while pos < n:
        m = _INLINE.search(text, pos)
        if m is None:
            break
        start = m.start()
        while region is not None and region[1] <= start:
            region = next(regions, None)
        if region is not None and region[0] <= start:
            pos = max(region[1], start + 1)
            stack.clear()
            continue
        pos = m.end()
        group = m.lastindex
        if group == _COMMENT:
            if comment_close < pos and comment_close != -1:
                comment_close = text.find("-->", pos)
            close = comment_close
            if close < 0:
                continue
            pos = close + 3
            if _IGNORE.search(text, start, pos):
                counted_line += text.count("\n", counted_to, start)
                counted_to = start
                last = counted_line + text.count("\n", start, pos)
                out.suppressed.update(range(counted_line, last + 2))
        elif group == _TICKS:  # code span
            ticks = pos - start
            if par_end < pos:
                par = _PAR.search(text, pos)
                par_end = par.start() if par else n
            limit = par_end
            if region is not None:
                limit = min(limit, region[0])
            closer = _backtick_closer(ticks).search(text, pos, limit)
            if closer is not None:
                pos = closer.end()
        elif group == _SHORTCODE:
            line_end = text.find("\n", pos)
            close = text.find(">}}", pos, n if line_end < 0 else line_end)
            if close >= 0:
                pos = close + 3
        elif group == _OPEN:
            stack.append((start, len(pending)))
        elif group == _CLOSE:
            if stack:
                open_at, first_index = stack.pop()
                pos = _close_group(text, open_at, start, pending, first_index)
        elif group == _BLANK:
            stack.clear()
            pos = start + 1
        elif group == _ESCAPE:
            if text[start + 1].isalpha():  # raw TeX: a command and its arguments
                pos = _raw_tex_end(text, start)
        elif group == _MATH:
            pos = _math_end(text, start, len(m.group(_MATH)) == 2)
        elif group == _TAG:
            pos = _tag_end(text, pos)
        elif group in (_DASH_AT, _AT):  # a citation start, with or without a key
            dash = group == _DASH_AT
            at = start + 1 if dash else start
            key, brace = (m.group(8), m.start(9)) if dash else (m.group(11), m.start(12))
            key_start = m.start(8) if dash else m.start(11)
            if dash and _after_word(text, start):
                dash = False
                start = at
            if _after_word(text, start) and start != key_end:  # "@a@b" cites both
                continue
            out.at_signs.append(at)
            if key is not None:
                pending.append(_Pending(key, Span(key_start, pos), start, pos, dash))
                key_end = pos
            elif brace >= 0:
                close = _braced_end(text, brace)
                if close > 0:
                    span = Span(brace + 1, close - 1)
                    pending.append(_Pending(text[span.start : span.end], span, start, close, dash))
                    pos = close
        # otherwise an escape or an autolink: skipped as a whole
    return out


_TEX_COMMAND = re.compile(r"\\([A-Za-z]+)\*?")
_TEX_ARGUMENT = re.compile(r"\{(?:[^{}\\\n]|\\.|\{(?:[^{}\\\n]|\\.)*\})*\}|\[[^\[\]{}\n]*\]")
#: Longest raw TeX environment skipped, in characters.
_MAX_RAW_TEX = 20_000


def _raw_tex_end(text: str, i: int) -> int:
    """``text[i:]`` is ``\\name``: pandoc reads the command with its ``{..}`` and ``[..]``
    arguments (a ``\\begin{env}`` up to its ``\\end{env}``) as raw TeX, not as text."""
    m = _TEX_COMMAND.match(text, i)
    if m is None:
        return i + 1
    pos = m.end()
    if m.group(1) == "begin":
        env = re.match(r"\{([A-Za-z*]{1,30})\}", text[pos : pos + 40])
        if env is not None:
            close = text.find("\\end{" + env.group(1) + "}", pos, pos + _MAX_RAW_TEX)
            if close >= 0:
                return close + len(env.group(1)) + 6
    while (arg := _TEX_ARGUMENT.match(text, pos)) is not None:
        pos = arg.end()
    return pos


_MATH_CLOSE = re.compile(r"(?<![\s\\])\$(?!\d)")


def _math_end(text: str, i: int, display: bool) -> int:
    """``text[i]`` opens TeX math (``$..$``, ``$$..$$``): the offset after it closes within
    the paragraph, else ``i + 1`` (a plain dollar sign)."""
    par = _PAR.search(text, i)
    limit = par.start() if par is not None else len(text)
    if display:
        close = text.find("$$", i + 2, limit)
        return close + 2 if close >= 0 else i + 2
    if i + 1 >= limit or text[i + 1].isspace():
        return i + 1
    m = _MATH_CLOSE.search(text, i + 2, limit)
    return m.end() if m is not None else i + 1


_TAG_REST = re.compile(r"""(?:[^<>"']|"[^"\n]*"|'[^'\n]*'){0,2000}>""")


def _tag_end(text: str, i: int) -> int:
    """After the name of a raw HTML tag: the offset after its ``>`` (attributes are not
    text), or ``i`` when it does not close."""
    m = _TAG_REST.match(text, i)
    return m.end() if m is not None else i


def _after_word(text: str, i: int) -> bool:
    """True when ``text[i-1]`` is a letter, a digit or a dot (pandoc's notAfterString)."""
    if i == 0:
        return False
    c = text[i - 1]
    return c == "." or c.isalnum()


def _close_group(
    text: str, open_at: int, close_at: int, pending: list[_Pending], first_index: int
) -> int:
    """A ``]`` closes the bracket opened at ``open_at``: make it a citation group if pandoc
    would; return where scanning resumes (after a link destination, if one follows)."""
    after = close_at + 1
    nxt = text[after : after + 1]
    if nxt == "(":  # link destination: not read as text
        end = _close_parens(text, after)
        return end if end > 0 else after
    if (
        nxt == ":"
        and text[open_at + 1 : open_at + 2] not in ("@", "^")
        and _starts_line(text, open_at)
    ):
        # a link reference definition "[label]: url": the url is not read as text
        end = text.find("\n", after)
        return len(text) if end < 0 else end
    members = [p for p in pending[first_index:] if p.group is None]
    if not members or nxt in ("[", "{") or text[open_at - 1 : open_at] == "^":
        return after
    if text[open_at + 1 : open_at + 2] == "^":  # footnote reference
        return after
    # every ";"-separated part must hold a key (a ";" inside a braced key separates nothing)
    semicolons: list[int] = []
    i = text.find(";", open_at + 1, close_at)
    while i >= 0:
        if not any(p.span.start <= i < p.span.end for p in members):
            semicolons.append(i)
        i = text.find(";", i + 1, close_at)
    if len(semicolons) >= len(members):
        return after
    if semicolons and len({bisect_right(semicolons, p.start) for p in members}) <= len(semicolons):
        return after
    group = Span(open_at, close_at + 1)
    for p in members:
        p.group = group
    return after


#: Longest link destination read, in characters.
_MAX_DESTINATION = 2_000
_PAREN_TOKENS = re.compile(r"\\[\s\S]|[()]")
_SIMPLE_DESTINATION = re.compile(r"\((?:[^()\\\n]|\\.)*\)")


def _starts_line(text: str, i: int) -> bool:
    """Only up to three spaces stand between the start of the line and ``i``."""
    line_start = text.rfind("\n", 0, i) + 1
    return i - line_start <= 3 and not text[line_start:i].strip(" ")


def _close_parens(text: str, i: int) -> int:
    """``text[i] == "("``: offset after the balanced ``)`` within the paragraph, or -1."""
    limit = min(len(text), i + _MAX_DESTINATION)
    simple = _SIMPLE_DESTINATION.match(text, i, limit)
    if simple is not None:
        return simple.end()
    par = _PAR.search(text, i, limit)
    if par is not None:
        limit = par.start()
    depth = 0
    for m in _PAREN_TOKENS.finditer(text, i, limit):
        c = m.group()
        if c == "(":
            depth += 1
            if depth > 8:
                return -1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return m.end()
    return -1
