"""Markdown documents (pandoc, Quarto, R Markdown) -> :class:`~citewarden.model.ParsedDocument`.

Citation keys follow pandoc's grammar (``citeKey`` / ``simpleCiteIdentifier``):

* ``@key`` where the key starts with a letter, digit or ``_`` and goes on with letters,
  digits, ``_`` and single internal punctuation ``:.#$%&-+?<>~/`` (kept only when a key
  character follows; ``:`` and ``/`` are also kept before a ``/``), so trailing punctuation
  is not part of the key;
* ``@{key}``: anything without whitespace, braces balanced (``@{https://doi.org/...}``);
  ``@{}`` is a citation with an empty key (zero-length span inside the braces);
* the ``@`` (or the ``-`` of ``-@key``) must not follow a letter, digit or ``.``, so e-mail
  addresses (``foo@bar.com``) are not citations.

Citation ``command`` names the form: ``"normal"`` inside a bracketed group ``[see @a, p. 3;
@b]`` (``command_span`` is the group), ``"suppress-author"`` for ``-@a``, ``"in-text"`` for a
bare ``@a`` (``@a [p. 3]`` included; ``command_span`` is ``@a``), ``"nocite"`` for keys in a
YAML ``nocite:``.  A bracket is a citation group when every ``;``-separated part holds a
key and it does not open a link, a reference link, an attribute span or an inline note.

Not read as text: inline code spans (any number of backticks), fenced (```` ``` ```` and
``~~~``) and indented code blocks, HTML comments, autolinks ``<...>``, link destinations
``](...)``, backslash escapes, Quarto shortcodes ``{{< ... >}}``, pandoc example-list labels
``(@good)`` and references to them, cross-references (``@fig-plot``, ``@tbl:x``, ``@sec-y``
... with Quarto's and pandoc-crossref's label prefixes), and YAML metadata blocks (read as
metadata instead: front matter, and later blocks that parse as a YAML mapping).
``<!-- citewarden: ignore -->`` suppresses findings on its line and the next.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from citewarden.model import (
    Citation,
    CitationKind,
    CompletionContext,
    DocumentKind,
    Finding,
    Link,
    ParsedDocument,
    Span,
)
from citewarden.parsing.yamlmeta import Metadata, read_metadata

# ---------------------------------------------------------------------------------------
# Key grammar
# ---------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------
# Block structure: code blocks and YAML metadata blocks
# ---------------------------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})([^\n]*)")
_LISTISH = re.compile(
    r"[ \t]|(?:[-+*]|\d+[.)]|#[.)]|\(?(?:[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)]|\(@[\w-]*\)|[:~])"
    r"(?:[ \t]|\r?$)"
)
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)


@lru_cache(maxsize=64)
def _fence_close(char: str, length: int) -> re.Pattern[str]:
    return re.compile(
        r"^[ \t]*(?:>[ \t]?)*" + re.escape(char) + "{" + str(length) + r",}[ \t]*\r?$", re.M
    )


@dataclass(slots=True)
class _Blocks:
    #: Sorted, disjoint ``(start, end)`` regions not to read as text.
    skip: list[tuple[int, int]] = field(default_factory=list)
    metadata: list[Metadata] = field(default_factory=list)


def _blocks(path: Path, text: str) -> _Blocks:
    """One pass over the lines: fenced and indented code blocks, YAML metadata blocks."""
    out = _Blocks()
    n = len(text)
    pos = 0
    prev_blank = True
    prev_listish = False
    first = True
    if text.startswith("\ufeff"):
        pos = 1
    while pos < n:
        nl = text.find("\n", pos)
        line_end = n if nl < 0 else nl
        next_pos = n if nl < 0 else nl + 1
        line = text[pos:line_end]
        if not line.strip():
            prev_blank = True
            first = False
            pos = next_pos
            continue
        # YAML metadata block: "---" after a blank line (or first line), not followed by a
        # blank line, closed by "---" or "...".
        if prev_blank and line.rstrip() == "---" and next_pos < n:
            nl2 = text.find("\n", next_pos)
            following = text[next_pos : n if nl2 < 0 else nl2]
            close = _YAML_CLOSE.search(text, next_pos) if following.strip() else None
            if close is not None:
                meta = read_metadata(path, text, next_pos, close.start(), scan_keys)
                # front matter always counts (its errors are reported); a later block only
                # when it is a YAML mapping, as pandoc decides
                if first or meta.is_mapping:
                    out.metadata.append(meta)
                    end = text.find("\n", close.end())
                    end = n if end < 0 else end + 1
                    out.skip.append((pos, end))
                    pos = end
                    prev_blank = True
                    first = False
                    continue
        first = False
        fence = _FENCE_OPEN.match(line)
        if fence is not None and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            closer = _fence_close(fence.group(1)[0], len(fence.group(1))).search(text, next_pos)
            end = n if closer is None else min(n, closer.end() + 1)
            out.skip.append((pos, end))
            pos = end
            prev_blank = True
            prev_listish = False
            continue
        if prev_blank and not prev_listish and _indent(line) >= 4:
            start = pos
            end = pos
            while pos < n:
                nl = text.find("\n", pos)
                line_end = n if nl < 0 else nl
                line = text[pos:line_end]
                if line.strip() and _indent(line) < 4:
                    break
                if line.strip():
                    end = line_end
                pos = n if nl < 0 else nl + 1
            out.skip.append((start, end))
            prev_blank = True  # stopped at a non-indented line after blank/code lines
            prev_listish = False
            # re-read the stopping line normally
            pos = _line_start_after(text, end)
            continue
        prev_listish = _LISTISH.match(line) is not None
        prev_blank = False
        pos = next_pos
    return out


def _line_start_after(text: str, offset: int) -> int:
    nl = text.find("\n", offset)
    return len(text) if nl < 0 else nl + 1


def _indent(line: str) -> int:
    width = 0
    for c in line:
        if c == " ":
            width += 1
        elif c == "\t":
            width += 4 - width % 4
        else:
            break
    return width


# ---------------------------------------------------------------------------------------
# Inline scan
# ---------------------------------------------------------------------------------------

# Every alternative starts with a fixed character, which keeps the regex engine on its fast
# path.  Groups: 1 "<!--"; 2 autolink; 3 backtick run after the first; 4 escaped character;
# 5 "["; 6 "]"; 7 blank line; 8/9 key or "{" after "-@", 10 marks "-@"; 11/12 key or "{"
# after "@", 13 marks "@"; 14 a Quarto shortcode ``{{< ... >}}``; 15 "$" or "$$" (TeX
# math); 16 the name of a raw HTML tag.  The "not after a word" rule is checked in Python.
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


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


def parse_markdown(path: Path, text: str) -> ParsedDocument:
    """Summarise one Markdown file: citations (text and YAML ``nocite``), bibliography links,
    ``nocite: '@*'``, suppressed lines and YAML problems, with exact spans.  Never raises."""
    blocks = _blocks(path, text)
    scan = _scan(text, blocks.skip)
    citations: list[Citation] = []
    links: list[Link] = []
    problems: list[Finding] = []
    nocite_all = False
    for meta in blocks.metadata:
        citations.extend(meta.citations)
        links.extend(meta.links)
        problems.extend(meta.problems)
        nocite_all = nocite_all or meta.nocite_all
    examples = _example_labels(text)
    for p in scan.pending:
        if examples and _is_example_reference(text, p, examples):
            continue
        if _CROSSREF.match(p.key):
            continue
        if p.group is not None:
            command = "suppress-author" if p.dash else "normal"
            command_span = p.group
        else:
            command = "suppress-author" if p.dash else "in-text"
            command_span = Span(p.start, p.end)
        citations.append(Citation(p.key, p.span, command, command_span, CitationKind.CITE))
    citations.sort(key=lambda c: c.span.start)
    return ParsedDocument(
        path=path,
        kind=DocumentKind.MARKDOWN,
        citations=tuple(citations),
        links=tuple(links),
        nocite_all=nocite_all,
        suppressed_lines=frozenset(scan.suppressed),
        problems=tuple(problems),
    )


_EXAMPLE_MARKER = re.compile(r"^[ \t]*\(@([\w-]+)\)[ \t]", re.M)


def _example_labels(text: str) -> frozenset[str]:
    """Labels of pandoc example-list items, ``(@good)`` at the start of a line."""
    if "(@" not in text:
        return frozenset()
    return frozenset(m.group(1) for m in _EXAMPLE_MARKER.finditer(text))


def _is_example_reference(text: str, p: _Pending, labels: frozenset[str]) -> bool:
    """``(@good)`` or ``@good`` with an example-list label: a marker or a reference to one
    (pandoc prints the example's number), not a citation."""
    return p.key in labels and not p.dash and p.group is None


def parse_metadata_yaml(path: Path, text: str) -> ParsedDocument:
    """A Quarto ``_quarto.yml`` / ``_metadata.yml`` or a pandoc defaults file: its
    ``bibliography`` links and ``nocite`` keys (kind MARKDOWN: it applies to the Markdown
    documents of its project)."""
    meta = read_metadata(path, text, 0, len(text), scan_keys)
    return ParsedDocument(
        path=path,
        kind=DocumentKind.MARKDOWN,
        citations=tuple(meta.citations),
        links=tuple(meta.links),
        nocite_all=meta.nocite_all,
        problems=tuple(meta.problems),
    )


_PARTIAL = re.compile(r"@(?:\{[^\s{}]*|[\w:.#$%&+?<>~/\-]*)\Z")
_BRACED_TAIL = re.compile(r"[^\s{}]*")


def completion_context(text: str, offset: int) -> CompletionContext | None:
    """The partial key at ``offset`` when the cursor is right after an ``@`` that starts a
    citation, or inside its key (not in e-mail addresses, code or comments)."""
    if not 0 <= offset <= len(text):
        return None
    line_start = text.rfind("\n", 0, offset) + 1
    m = _PARTIAL.search(text, line_start, offset)
    if m is None:
        return None
    at = m.start()
    blocks = _blocks(Path(), text)
    if at not in _scan(text, blocks.skip).at_signs:
        return None
    if text[at + 1 : at + 2] == "{":
        if offset < at + 2:  # between "@" and "{"
            return None
        start = at + 2
        tail = _BRACED_TAIL.match(text, offset)
        end = tail.end() if tail else offset
    else:
        start = at + 1
        key = _SIMPLE_KEY_RE.match(text, start)
        end = max(offset, key.end()) if key else offset
    return CompletionContext(text[start:offset], Span(start, end))
