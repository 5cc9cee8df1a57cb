"""The inline scan of the Markdown reader: pandoc's citation key grammar, and one
left-to-right pass that finds citations and passes over what pandoc does not read as text
(code, HTML comments and tags, the content of ``<pre>``, ``<script>``, ``<style>`` and
``<textarea>`` elements, autolinks, link destinations, escapes, TeX math and raw TeX,
Quarto shortcodes).  See :mod:`~citewarden.parsing.markdown`."""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from citewarden.model import (
    Span,
)
from citewarden.parsing.pandoc_tex import (
    TEX_ACCENT_COMMANDS,
    TEX_ARGUMENT_MODES,
    TEX_AT_AFTER_SPACE_COMMANDS_3_9,
    TEX_AT_ARGUMENT_COMMANDS,
    TEX_BLOCK_COMMANDS,
    TEX_BLOCK_NAMES,
    TEX_BLOCK_ONLY_COMMANDS,
    TEX_BLOCK_START_COMMANDS,
    TEX_BRACED_OPTION_COMMANDS,
    TEX_CHARACTER_ARGUMENT_COMMANDS,
    TEX_CHARACTER_ARGUMENT_COMMANDS_3,
    TEX_CHARACTER_OPTION_COMMANDS,
    TEX_CITATION_COMMANDS,
    TEX_CITATION_KEY_CHARACTERS,
    TEX_DECLARATION_COMMANDS,
    TEX_DECLARATION_STOP_COMMANDS,
    TEX_DEFINITION_COMMANDS,
    TEX_DIMENSION_COMMANDS_3,
    TEX_GROUP_BLOCK_COMMANDS,
    TEX_GROUP_BLOCK_NO_OPTION_COMMANDS,
    TEX_GROUP_COUNTS,
    TEX_GROUP_COUNTS_3,
    TEX_GROUP_COUNTS_3_9,
    TEX_GROUPS_ONLY_COMMANDS,
    TEX_INLINE_CODE_COMMANDS,
    TEX_INLINE_ENVIRONMENTS,
    TEX_INLINE_ENVIRONMENTS_3,
    TEX_MULTI_CITATION_COMMANDS,
    TEX_NO_ARGUMENT_COMMANDS,
    TEX_NO_ARGUMENT_COMMANDS_3,
    TEX_NO_ARGUMENT_COMMANDS_3_9,
    TEX_NO_BLANK_LINE_COMMANDS,
    TEX_NO_BLANK_LINE_COMMANDS_3,
    TEX_NO_BLANK_LINE_COMMANDS_3_9,
    TEX_NO_CHARACTER_AFTER_OPTIONS,
    TEX_NO_OPTION_COMMANDS,
    TEX_NO_OPTION_COMMANDS_3,
    TEX_NO_OPTION_COMMANDS_3_9,
    TEX_NOT_ARGUMENT_COMMANDS,
    TEX_NOT_ARGUMENT_COMMANDS_3,
    TEX_ONE_OPTION_COMMANDS,
    TEX_ONE_OPTION_COMMANDS_3,
    TEX_OPTION_ON_LINE_COMMANDS_3,
    TEX_OPTIONS_ONLY_COMMANDS,
    TEX_PARSED_COMMANDS,
    TEX_PARSED_COMMANDS_3,
    TEX_RAW_BLOCK_COMMANDS,
    TEX_TEXT_COMMANDS,
    TEX_TOKEN_ARGUMENT_COMMANDS,
    TEX_TOKEN_BLOCK_COMMANDS,
    TEX_TOKEN_LATER_ARGUMENT_COMMANDS,
    TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS,
    TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS_3_9,
    TEX_UNIT_COMMANDS,
    TEX_UNIT_KEYVAL_COMMANDS,
)
from citewarden.parsing.tex_brackets import TexBrackets
from citewarden.parsing.tex_tokens import BRACE_TOKENS, ESCAPES_AND_COMMENTS
from citewarden.text import count_line_breaks

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


_TICK_RUN = re.compile(r"(?<!`)`+")


class TickRuns:
    """Where the runs of backticks of ``text[start:end]`` stand, by length: found in one
    pass when first asked.  A code span's closer is then found by bisection, where a search for a run of the
    opener's length read the rest of the paragraph again for each length that does not
    close (a paragraph of runs of growing lengths: a pass for each)."""

    __slots__ = ("_end", "_start", "_starts", "_text")

    def __init__(self, text: str, start: int = 0, end: int | None = None) -> None:
        self._text = text
        self._start = start
        self._end = len(text) if end is None else end
        self._starts: dict[int, list[int]] | None = None

    def closer(self, length: int, pos: int, limit: int) -> int:
        """The offset after the first run of exactly ``length`` backticks in
        ``text[pos:limit]`` (within ``start`` and ``end``) that no backtick precedes, a run
        that ``limit`` cuts counted as cut (what ``(?<!`)`{length}(?!`)`` finds), or -1."""
        text = self._text
        if self._starts is None:
            self._starts = {}
            for m in _TICK_RUN.finditer(text, self._start, self._end):
                self._starts.setdefault(m.end() - m.start(), []).append(m.start())
        starts = self._starts.get(length)
        if starts is not None:
            k = bisect_left(starts, pos)
            if k < len(starts) and starts[k] + length <= limit:
                return starts[k] + length
        # a longer run that ``limit`` cuts to ``length`` backticks
        j = limit - length
        if (
            pos <= j
            and limit < len(text)
            and text[limit] == "`"
            and (j == 0 or text[j - 1] != "`")
            and text.count("`", j, limit) == length
        ):
            return limit
        return -1


_INLINE = re.compile(
    r"<(?:(!--)|((?:[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]{0,2000}|[^\s<>@]{1,300}@[^\s<>@]{1,300})>))"
    r"|`(`*)|\\([\s\S])|\[()|\]()|\n([ \t]*\r?\n)"
    r"|-@(?:(" + _SIMPLE_KEY + r")|(\{))?()"
    r"|@(?:(" + _SIMPLE_KEY + r")|(\{))?()"
    r"|\{(\{<)"
    r"|(\$\$?)"
    r"|<(/?[A-Za-z][A-Za-z0-9-]{0,30})(?=[\s/>])"
    r"|(\{)"
    r"|(\*+|_+)"
)
#: a start or end tag of an element pandoc's Markdown reader takes for a block (HTML's and
#: DocBook's, in any case; the same in pandoc 2.17, 3.6.1 and 3.9), or an HTML comment, on one
#: line: a raw HTML block, and a block starts after it and the white space after it on
#: its line (``<pre>@x.``, ``<!-- c --> @x.``: an example item's marker)
_BLOCK_NAMES = (
    r"(?:address|applet|area|article|aside|audio|blockquote|body|button|canvas"
    r"|caption|center|col|colgroup|dd|del|details|dir|div|dl|dt|embed|fieldset"
    r"|figcaption|figure|footer|form|frameset|h[1-6]|head|header|hgroup|hr|html|iframe"
    r"|ins|li|main|map|menu|meta|nav|noscript|object|ol|p|para|pre|progress|script"
    r"|section|source|style|summary|svg|table|tbody|td|textarea|tfoot|th|thead|title|tr"
    r"|ul|video"
    # DocBook's
    r"|calloutlist|caution|epigraph|equation|example|formalpara|glosslist|important"
    r"|informalfigure|informaltable|itemizedlist|literallayout|mediaobject|note"
    r"|orderedlist|procedure|programlisting|qandaset|screen|segmentedlist|sidebar|simpara"
    r"|tip|variablelist|warning)(?=[\s/>])"
)
_BLOCK_TAG = re.compile(
    r"<(?:/?"
    + _BLOCK_NAMES
    + r"(?:[^<>\"'\n]|\"[^\"\n]*+\"|'[^'\n]*+')*+>|!--(?:[^-\n]|-(?!->))*+-->)[ \t]*+",
    re.I,
)
#: such a tag over lines (pandoc reads a tag's attributes over line breaks and blank
#: lines), the white space after it; matched within :data:`MAX_TAG` characters
_BLOCK_TAG_LINES = re.compile(
    r"</?" + _BLOCK_NAMES + r"(?:[^<>\"']|\"[^\"]*+\"|'[^']*+')*+>[ \t]*+", re.I
)
#: Longest tag read over lines, in characters.
MAX_TAG = 4_000


def block_tag_end(text: str, i: int) -> int:
    """``text[i]`` opens a block element's start or end tag: the offset after it and the
    white space after it on its line (it may go on over lines), or -1."""
    m = _BLOCK_TAG_LINES.match(text, i, i + MAX_TAG)
    return m.end() if m is not None else -1


#: a tag :data:`_BLOCK_TAG` matches that ends a paragraph a line of it starts with, as
#: pandoc reads it (``a\n<div> @x.``): no comment, and none of the elements pandoc takes for
#: a block or inline (``<ins>``, ``<video>``, ...), which it reads as inline HTML there
_INTERRUPTING_TAG = re.compile(
    r"</?(?!(?:audio|applet|button|iframe|embed|del|ins|progress|map|area|noscript|object"
    r"|svg|video|source)(?=[\s/>]))[a-z]",
    re.I,
)
_COMMENT, _AUTOLINK, _TICKS, _OPEN, _CLOSE, _BLANK = 1, 2, 3, 5, 6, 7
_DASH_AT, _AT, _SHORTCODE, _ESCAPE, _MATH, _TAG, _BRACE, _STARS = 10, 13, 14, 4, 15, 16, 17, 18
#: The cross-reference types Quarto knows without a ``crossref: custom:`` one: floats
#: (figures, tables, listings), callouts, proofs, theorems (``alg``, algorithms, since
#: Quarto 1.8), equations and sections.
QUARTO_CROSSREF_TYPES = frozenset(
    {
        "fig", "tbl", "lst",
        "nte", "wrn", "cau", "tip", "imp",
        "prf", "rem", "sol",
        "thm", "lem", "cor", "prp", "cnj", "def", "exm", "exr", "alg",
        "eq", "sec",
    }
)  # fmt: skip
_QUARTO_TYPE = re.compile(r"([A-Za-z]+)-")


def is_quarto_crossref(key: str) -> bool:
    """``key`` is a cross-reference's label to Quarto, which its crossref filter resolves
    before citations are (or reports as ``?@fig-x`` when no element has that label): its
    letters up to the first ``-``, in any case, name a type Quarto knows (``fig-plot``,
    ``Fig-plot`` at a sentence's start, ``sec-intro``, ``alg-sort``); as its filter
    reads a citation's id.  ``fig:plot``, pandoc-crossref's form, is a citation to Quarto."""
    m = _QUARTO_TYPE.match(key)
    return m is not None and m.group(1).lower() in QUARTO_CROSSREF_TYPES


_PAR = re.compile(r"\n[ \t]*\r?\n")
#: empty brackets, ``^`` or nothing between them, the last followed by no link destination,
#: label or attributes (``^[]^[][]``: text); a thousand at most a match, as :mod:`re` keeps a frame
#: for each repetition of a group it may backtrack into
_EMPTY_BRACKETS = re.compile(r"\[\](?:\^?\[\]){0,1000}(?![(:{])")
_IGNORE = re.compile(r"citewarden:\s*ignore\b", re.I)
#: Longest footnote label read, in characters.
_MAX_NOTE_LABEL = 1_000


@dataclass(slots=True)
class _Pending:
    key: str
    span: Span
    start: int  # the "@" or the "-" before it
    end: int
    dash: bool
    group: Span | None = None
    #: a braced key in which the ``]`` balancing the ``[`` open before it stands: a
    #: citation only in a citation group (pandoc reads the other brackets up to that ``]``)
    straddles: bool = False
    #: a braced key holding a ``[`` or a ``]`` (pandoc 3 before 3.8 counts them)
    bracketed: bool = False


@dataclass(slots=True)
class _Scan:
    pending: list[_Pending] = field(default_factory=list)
    at_signs: list[int] = field(default_factory=list)  # every "@" read as a citation start
    suppressed: set[int] = field(default_factory=set)
    #: the footnote references read (``[^label]``): (label, offset of its ``[``)
    note_refs: list[tuple[str, int]] = field(default_factory=list)
    #: where a tag that ends a paragraph stands in the text, outside brackets (pandoc's
    #: inline reading stops at a block element's tag: a block starts there)
    block_tags: list[int] = field(default_factory=list)
    #: where the text of the line after a raw TeX block that ends a line starts (a block
    #: starts there; unlike :attr:`block_tags`, also where the block pass sees a tag)
    line_blocks: list[int] = field(default_factory=list)
    #: where a raw TeX block starts a paragraph's text (given in ``tex_starts``)
    lead_blocks: list[int] = field(default_factory=list)
    #: the offsets of the ``bars`` given read in the text (a pipe table's cells' ends),
    #: not in code, math, raw TeX, HTML or an escape
    bars_read: list[int] = field(default_factory=list)
    #: the stretches pandoc 2 drops, the ``joined`` the reading was given
    joined: list[tuple[int, int, int]] = field(default_factory=list)


def _scan(
    text: str,
    skip: list[tuple[int, int]],
    counted_brackets: bool = False,
    breaks: list[int] | None = None,
    paragraphs: list[int] | None = None,
    item_breaks: list[int] | None = None,
    list_comments: bool = False,
    rows: list[int] | None = None,
    breaks_since: list[int] | None = None,
    item_breaks_since: list[int] | None = None,
    tex_at_letters: bool = False,
    tex_expand_words: bool = False,
    bullets: list[int] | None = None,
    joined: list[tuple[int, int, int]] | None = None,
    open_follows: bool = False,
    bars: list[int] | None = None,
    tex_text: str | None = None,
    cells: list[int] | None = None,
    tex_starts: set[int] | None = None,
) -> _Scan:
    """The citations of ``text`` outside the ``skip`` regions.  ``counted_brackets``: a
    citation group ends at the ``]`` that balances its ``[``, the brackets inside braced
    keys counted (pandoc 3 before 3.8, see
    :attr:`~citewarden.parsing.pandoc_syntax.PandocDialect.counted_brackets`).
    ``breaks``, ``item_breaks`` and ``paragraphs``: the block pass's
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.breaks` and
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.item_breaks` (no inline construct
    goes on past one, but an HTML comment past an item's with ``list_comments``, as
    pandoc before 3.9 reads it) and
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.paragraphs` (a paragraph ends there,
    as at a blank line); ``rows``, its
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.rows` (no bracket goes on past
    one); ``breaks_since`` and ``item_breaks_since``, its
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.breaks_since` and
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.item_breaks_since` (a construct
    opened before a break's since goes on past it; none given: no construct does).
    ``tex_at_letters``: ``@`` is a letter of a raw TeX command's name (pandoc 2, see
    :attr:`~citewarden.parsing.pandoc_syntax.PandocDialect.tex_at_letters`);
    ``tex_expand_words``: ``\\expandafter`` takes a word after it as raw TeX (pandoc 3.9,
    see :attr:`~citewarden.parsing.pandoc_syntax.PandocDialect.tex_expandafter_words`);
    ``bullets``: the block pass's
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.bullets` (none given: a ``*`` alone
    at a line's end after list markers is taken for one); ``joined``: sorted, disjoint
    stretches pandoc drops whole, the text on either side read as one (pandoc 2's
    brackets over paragraphs, see :func:`joined_brackets`); ``open_follows``: a bracket
    followed by a ``[`` no ``]`` balances, or a ``{`` that opens no attribute set, may be a
    citation group (pandoc 3, see
    :attr:`~citewarden.parsing.pandoc_syntax.PandocDialect.groups_before_text`);
    ``bars``: sorted offsets of a pipe table's ``|``, those read in the text noted in
    :attr:`_Scan.bars_read`; ``tex_text``: ``text`` as raw TeX reads it (the block
    quotes' markers as spaces); ``cells``: sorted offsets where a table's cells start (a
    ``@`` or a ``-`` there is after no word nor emphasis, a simple table's ends a code
    span); ``tex_starts``: the block pass's
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.tex_starts` (a command of
    :data:`TEX_BLOCK_START_COMMANDS` there is a raw TeX block)."""
    out = _Scan(joined=joined or [])
    pending = out.pending
    n = len(text)
    stack: list[_Bracket] = []  # open brackets, innermost last
    marks = _Marks(text)
    regions = iter(skip)
    region = next(regions, None)
    joins = iter(joined or ())
    join = next(joins, None)
    verbatim: Verbatim | None = None
    comment_close = -2  # next "-->" (-1: there is none further on)
    # the next paragraph break, "$" that may close math, ">}}" and line break, and the
    # runs of backticks: each search goes on from where the last one stopped
    plain = _Cuts(breaks, breaks_since)
    hard = _Cuts.merged(plain, _Cuts(item_breaks, item_breaks_since))
    par = _Limits(text, hard, paragraphs, plain if list_comments else hard)
    math_close = _Next(text, _MATH_CLOSE)
    # where the block pass ends a paragraph or a container's text, and the next one
    cuts = hard.offsets
    if paragraphs or rows:
        cuts = list(heapq.merge(cuts, paragraphs or (), rows or ()))
    cut_at = cuts[0] if cuts else n
    shortcode_close, line_end = _Next(text, _SHORTCODE_CLOSE), _Next(text, _LINE_END)
    ticks = TickRuns(text)
    line_starts, attributes = _LineStarts(text), _AttributeSets(text)
    raw_tex = _RawTex(tex_text or text, tex_at_letters, tex_expand_words)
    tex_end = -1  # end of the last raw TeX command read
    counted_to = counted_line = 0  # line numbers of ignore comments, counted incrementally
    key_end = -1  # end of the last key read
    emphasis = _Emphasis(text, bullets)
    drop_until = -1  # citations starting before this offset are text pandoc drops
    balance = Balance(
        text, tex_text, tex_at_letters, tex_expand_words, {o: c for o, _, c in joined or ()}
    )
    #: groups a "]" of a key cuts when the bracket around them is no citation group
    cut_groups: list[tuple[_Bracket, list[_Pending]]] = []
    pos = 0
    bars = bars or []
    bar = 0  # the next of bars, at next_bar
    next_bar = bars[0] if bars else n
    while pos < n:
        m = _INLINE.search(text, pos)
        if m is None:
            break
        start = m.start()
        while join is not None and join[2] <= start:
            join = next(joins, None)
        if join is not None and join[1] <= start:
            # dropped: no blank line, no break in it ends what is open; the brackets
            # opened after its own are dropped with it, and it is no citation group
            pos = join[2]
            while stack and stack[-1].open_at > join[0]:
                stack.pop()
                emphasis.leave()
            if stack and stack[-1].open_at == join[0]:
                stack[-1].blocked = join[1]
            continue
        while region is not None and region[1] <= start:
            region = next(regions, None)
        if next_bar < start:
            bar = _bars_read(bars, bar, pos, start, region, out.bars_read)
            next_bar = bars[bar] if bar < len(bars) else n
        if region is not None and region[0] <= start:
            pos = max(region[1], start + 1)
            stack.clear()
            continue
        if cut_at < start:
            k = bisect_left(cuts, pos)
            if k < len(cuts) and cuts[k] < start:  # passed over in the text: as a blank line
                stack.clear()
                emphasis.clear()
            k = bisect_right(cuts, start, k)
            cut_at = cuts[k] if k < len(cuts) else n
        pos = m.end()
        group = m.lastindex
        if group == _COMMENT:
            if comment_close < pos and comment_close != -1:
                comment_close = text.find("-->", pos)
            close = comment_close
            if close < 0 or 0 <= par.cut(pos, comment=True) < close:
                continue
            if cells and _cell_end(text, cells, start, close) < close:
                continue  # a simple table's cell ends in it: no comment
            pos = close + 3
            if _IGNORE.search(text, start, pos):
                counted_line += count_line_breaks(text, counted_to, start)
                counted_to = start
                last = counted_line + count_line_breaks(text, start, pos)
                out.suppressed.update(range(counted_line, last + 2))
        elif group == _TICKS:  # code span
            limit = par.start(pos)
            if limit < 0:
                limit = n
            if region is not None:
                limit = min(limit, region[0])
            if cells:
                limit = _cell_end(text, cells, start, limit)
            closer = ticks.closer(pos - start, pos, limit)
            # a run none closes: its first backtick is text, the rest of the run opens again
            pos = attributes.end(closer, limit) if closer >= 0 else start + 1
        elif group == _SHORTCODE:  # closed on its line
            close = shortcode_close.start(pos)
            if close >= 0 and not 0 <= line_end.start(pos) < close:
                pos = close + 3
        elif group == _OPEN:
            empty = _EMPTY_BRACKETS.match(text, start)
            if empty is not None and (region is None or empty.end() <= region[0]):
                pos = empty.end()  # each "[" closed at once, nothing inside: text
            else:
                emphasis.enter()
                stack.append(_Bracket(start, len(pending)))
        elif group == _CLOSE:
            emphasis.leave()
            if stack:
                bracket = stack.pop()
                bracket.close(start, marks)
                open_at, first_index = bracket.open_at, bracket.first_index
                if bracket.blocked >= 0:
                    # a block element's tag in it: pandoc drops its text from the tag on
                    kept = [p for p in pending[first_index:] if p.start < bracket.blocked]
                    if len(kept) < len(pending) - first_index:
                        pending[first_index:] = kept
                        bracket.recount(pending, marks)
                if (
                    text[open_at + 1] == "^"
                    and open_at + 2 < start <= open_at + _MAX_NOTE_LABEL
                    and not marks.space_in(open_at + 2, start)
                ):  # a footnote reference, ``[^label]``
                    out.note_refs.append((text[open_at + 2 : start], open_at))
                if first_index == len(pending) and text[pos : pos + 1] != "(":
                    if stack:  # nothing cited inside, no link after: plain text (``^[x]``)
                        stack[-1].take(bracket, marks)
                    pos = attributes.end(pos, _in_cell(par.start(pos), next_bar))  # a span's
                    continue
                follows = text[start + 1 : start + 2]
                if open_follows and follows in ("[", "{"):
                    # pandoc 3: a group unless a label or an attribute set follows
                    if follows == "[":
                        follows = "[" if balance.of(start + 1) >= 0 else ""
                    elif (
                        _RAW_ATTRIBUTE.match(text, start + 1)  # a span has none
                        or attributes.end(start + 1, _in_cell(par.start(start + 1), next_bar))
                        == start + 1
                    ):
                        follows = ""
                pos, members = _close_group(
                    text,
                    bracket,
                    start,
                    pending,
                    marks,
                    balance if counted_brackets else None,
                    # pandoc 3 before 3.8 alone still reads a group there
                    (bracket.blocked < 0 and not bracket.no_group) or counted_brackets,
                    follows in ("[", "{"),
                    next_bar,
                )
                # a span's, a link's
                pos = attributes.end(pos, _in_cell(par.start(pos), next_bar))
                changed = False
                if counted_brackets and members:
                    size, made = len(pending), members[0].group
                    end = _counted_group(
                        text, open_at, start, pending, first_index, bracket.member_list(), balance
                    )
                    drop_until = max(drop_until, end)
                    if len(pending) == size and all(p.group is None for p in members):
                        bracket.ungrouped(members)  # no group after all
                        members = None
                    else:
                        changed = len(pending) != size or any(p.group is not made for p in members)
                if bracket.straddles and _cut_in_bracket(text, open_at, pending, first_index):
                    # no group around the note may take the key
                    pending[first_index:] = [
                        p for p in pending[first_index:] if not (p.straddles and p.group is None)
                    ]
                    changed = True
                if (
                    members
                    and not counted_brackets
                    and bracket.bracketed
                    and stack
                    and open_at < balance.of(stack[-1].open_at) <= start
                ):
                    # the "]" balancing the bracket around it, brackets in keys counted,
                    # ends it: unless that bracket is a citation group, pandoc reads its
                    # text again up to there, where this one is cut (``[[@{]}]]`` cites
                    # nothing)
                    cut_groups.append((stack[-1], members))
                if members:
                    _suffix_keys_let_go(bracket)
                    bracket.made_group = True
                if changed:  # its keys told anew
                    bracket.recount(pending, marks)
                elif members is not None:  # no key left ungrouped in it
                    bracket.grouped(marks)
                if stack:
                    stack[-1].take(bracket, marks)
        elif group == _STARS:
            emphasis.run(start, pos)
        elif group == _BLANK:
            stack.clear()
            emphasis.clear()
            pos = start + 1
        elif group == _ESCAPE:
            if text[start + 1].isalpha():  # raw TeX: a command and its arguments
                cut = par.cut(start)
                if cut == start:  # a block starts at it (after another): it reads on
                    cut = par.cut(start + 1)
                par_cut = cut
                if stack:  # pandoc reads the bracket's text up to its "]" alone
                    close = balance.of(stack[-1].open_at)
                    if close > start and not 0 <= cut < close:
                        cut = close
                pos = tex_end = raw_tex.end(start, cut)
                if raw_tex.is_text(start):  # its reading fails
                    pos = tex_end = start + 1
                if not stack:  # a block takes its groups past line breaks and comments
                    pos = tex_end = max(pos, raw_tex.paragraph_block_end(start, cut))
                if cells:  # as far as the simple table's cell goes
                    pos = tex_end = _cell_end(text, cells, start, pos)
                if pos <= start:  # nothing read at a cut: the "\\" is text
                    pos = tex_end = start + 1
                if not stack:
                    lead = tex_starts is not None and start in tex_starts
                    if raw_tex.block_end(start, cut) >= 0 or (lead and raw_tex.starts_block(start)):
                        if lead:
                            out.lead_blocks.append(start)
                        # a raw TeX block in a paragraph's text: the text ends at it, and
                        # a block may start after it (``x \\par @a. y`` opens an example
                        # list; in a table's cell or a term, the rest is dropped)
                        after = _spaces_end(text, pos, n)
                        if after < n and text[after] not in "\r\n":
                            out.block_tags.append(after)
                        elif (after := _next_line_text(text, after, n)) >= 0:
                            out.line_blocks.append(after)  # it ends the line: the next
                elif raw_tex.block_end(start, cut) >= 0:
                    drop_until = max(drop_until, _block_in_bracket(stack, start, balance, emphasis))
                elif cut != par_cut and raw_tex.block_end(start, par_cut) >= 0:
                    # a block read past the "]": pandoc's reading of a citation group,
                    # which reads on past it, fails there (``[\\section{@a]}`` cites
                    # ``a`` in the text)
                    stack[-1].no_group = True
        elif group == _MATH:
            pos = _math_end(text, start, len(m.group(_MATH)) == 2, par, math_close)
            if cells and _cell_end(text, cells, start, pos) < pos:
                pos = start + 1  # a simple table's cell ends in it: no math
        elif group == _AUTOLINK:
            if start < next_bar < pos:  # a pipe table's cell ends in it: its "<" is text
                pos = start + 1
            else:
                pos = attributes.end(pos, _in_cell(par.start(pos), next_bar))
        elif group == _BRACE:  # a heading's or a div's attributes, at the end of the line
            close = attributes.end(start, par.start(pos))
            if close > start and _block_attributes(text, line_starts.of(start), start, close):
                pos = close
        elif group == _TAG:
            close = -1
            if m.group(_TAG).lower() in VERBATIM_TAGS:
                if verbatim is None:
                    verbatim = Verbatim(text)
                close = verbatim.end(start)
            if _INTERRUPTING_TAG.match(text, start) and block_tag_end(text, start) > 0:
                if stack:
                    drop_until = max(drop_until, _block_in_bracket(stack, start, balance, emphasis))
                if not stack:  # in a paragraph's text: it ends there, and what it opened
                    out.block_tags.append(start)
                    emphasis.clear()
            if close > 0:  # a raw HTML block: it ends the paragraph
                pos = close
                stack.clear()
            else:
                pos = _tag_end(text, pos)
                if cells and _cell_end(text, cells, start, pos) < pos:
                    pos = start + 1  # a simple table's cell ends in it: no tag
        elif group in (_DASH_AT, _AT):  # a citation start, with or without a key
            dash = group == _DASH_AT
            at = start + 1 if dash else start
            key, brace = (m.group(8), m.start(9)) if dash else (m.group(11), m.start(12))
            key_start = m.start(8) if dash else m.start(11)
            # a "-" after a word, emphasis or in a dash (pandoc reads "---" and "--" as
            # dashes, in turn) is text
            mid_cell = not _at_cell(cells, start)
            if dash and (
                (_after_word(text, start) and start != key_end and start != tex_end and mid_cell)
                or (start == emphasis.closed_at and mid_cell)
                or _in_dash(text, start)
            ):
                dash = False
                start = at
            # "@a@b" cites both, "\\foo@a" a (pandoc 3: raw TeX "\\foo", then text)
            mid_cell = not _at_cell(cells, start)
            if _after_word(text, start) and start != key_end and start != tex_end and mid_cell:
                if key is not None:  # "x@a@b" cites b: text, read as a key's
                    key_end = pos
                continue
            if not dash and start == emphasis.closed_at and mid_cell:  # "*x*@a": as after a word
                key_end = pos
                continue
            out.at_signs.append(at)
            dropped = start < drop_until
            if key is not None:
                if not dropped:
                    pending.append(_Pending(key, Span(key_start, pos), start, pos, dash))
                    if stack:
                        stack[-1].add(pending[-1], marks)
                key_end = pos
            elif brace >= 0:
                close = _braced_end(text, brace)
                if close > 0:
                    span = Span(brace + 1, close - 1)
                    if not dropped:
                        key = text[span.start : span.end]
                        p = _Pending(key, span, start, close, dash)
                        p.bracketed = _HAS_BRACKET.search(key) is not None
                        if stack and "]" in key:
                            p.straddles = span.start <= balance.of(stack[-1].open_at) < span.end
                        pending.append(p)
                        if stack:
                            stack[-1].add(p, marks)
                    if next_bar < close:  # a "|" in a braced key is text
                        bar = _bars_read(bars, bar, brace, close, None, out.bars_read)
                        next_bar = bars[bar] if bar < len(bars) else n
                    pos = close
        # otherwise an escape or an autolink: skipped as a whole
    for outer, members in cut_groups:
        if not outer.made_group:
            for p in members:
                p.group = None
    if any(p.straddles and p.group is None for p in pending):
        out.pending = [p for p in pending if not (p.straddles and p.group is None)]
    return out


#: pandoc's white space with at most one line break (its ``spnl``)
_SPNL = r"[ \t]*+(?:\r?\n[ \t]*+)?+"
#: one attribute: ``#id``, ``.class``, ``key=value`` (the value's quoted and bare parts
#: joined) or ``-`` (unnumbered); a quote left open is read to the end
_ATTRIBUTE = (
    r"(?:#[\w\-:.]++|\.[^\W\d_][\w\-:.]*+|-|[^\W\d_][\w\-:.]*+="
    r"(?:\"(?:[^\"\\]|\\.)*+\"?+|'(?:[^'\\]|\\.)*+'?+|[^\s}\"'])++)"
)
#: What pandoc reads of an attribute set (``{=format}`` of raw code too) before its
#: ``}``: each part as far as it goes, never taken back (possessive: no backtracking).
_ATTRIBUTE_SET = re.compile(
    r"\{" + _SPNL + r"(?:=[\w\-]++[ \t]*+|(?:" + _ATTRIBUTE + _SPNL + r")*+)"
)
#: a raw attribute ``{=format}``'s start
_RAW_ATTRIBUTE = re.compile(r"\{" + _SPNL + "=")
#: Longest attribute set read, in characters.
_MAX_ATTRIBUTES = 2_000
#: Characters attribute sets may be read over, beyond twice the text's length (see
#: :class:`_AttributeSets`).
_ATTRIBUTE_BUDGET = 1_000_000
_CONTAINERS = r"(?:[ ]{0,3}>[ ]?|[ ]{0,3}(?:[-+*]|\d{1,9}[.)])[ \t]++)*+"
#: a rule's line (``* * *``), which starts no list item
_RULE = re.compile(r"[ ]{0,3}([-*_])(?:[ \t]*+\1){2,}[ \t]*+\r?$", re.M)
#: what stands before an empty list item's ``*`` on its line
_ITEM_START = re.compile(_CONTAINERS + r"[ ]{0,3}")
#: before the attributes on their line: an ATX heading's marker, a div fence
_ATX_START = re.compile(_CONTAINERS + r"#{1,6}[ \t]")
_FENCE_START = re.compile(_CONTAINERS + r"[ ]{0,3}:{3,}+[ \t]*+")
#: after them: the end of the line (of a div fence, colons may close it first), a setext
#: heading's underline
_LINE_REST = re.compile(r"[ \t]*+(?:\r?\n|\Z)")
_FENCE_REST = re.compile(r"[ \t]*+:*+[ \t]*+(?:\r?\n|\Z)")
_UNDERLINE = re.compile(r"[ \t]*+\r?\n[ ]{0,3}(?:=++|-++)[ \t]*+(?:\r?\n|\Z)")


class _AttributeSets:
    """pandoc's attribute sets ``{#id .class key="value"}`` of a text.  Sets that do not
    close may be read over again from a later ``{`` inside them (an unclosed quote, a value
    holding ``{``): such reading stops at :data:`_ATTRIBUTE_BUDGET` beyond twice the
    text's length (a text made of them would take a pass each), the sets left then read
    as text."""

    __slots__ = ("_budget", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._budget = _ATTRIBUTE_BUDGET + 2 * len(text)

    def end(self, i: int, limit: int) -> int:
        """Where ``text[i:]`` goes on after the attribute set it opens (within ``limit``,
        -1: the end), else ``i``: pandoc reads one after a span, a link, an image, an
        autolink and a code span, not as text."""
        text = self._text
        if text[i : i + 1] != "{" or self._budget < 0:
            return i
        limit = min(len(text) if limit < 0 else limit, i + _MAX_ATTRIBUTES)
        m = _ATTRIBUTE_SET.match(text, i, limit)
        if m is None:
            return i
        read = m.end()
        self._budget -= read - i
        return read + 1 if read < limit and text[read] == "}" else i


def _block_attributes(text: str, line_start: int, start: int, end: int) -> bool:
    """The attribute set ``text[start:end]`` on the line from ``line_start`` is a
    heading's (at the end of an ATX heading's line, or of a line a setext underline
    follows) or a div fence's: pandoc reads it, not as text."""
    if _FENCE_START.fullmatch(text, line_start, start) is not None:
        return _FENCE_REST.match(text, end) is not None
    if _UNDERLINE.match(text, end) is not None and _after_blank_line(text, line_start):
        return True
    return (
        _LINE_REST.match(text, end) is not None
        and _ATX_START.match(text, line_start, start) is not None
    )


def _after_blank_line(text: str, line_start: int) -> bool:
    """The line from ``line_start`` is the text's first or follows a blank line."""
    if line_start == 0:
        return True
    before = text.rfind("\n", 0, line_start - 1) + 1
    return not text[before : line_start - 1].strip()


class _LineStarts:
    """Where the line that holds an offset starts, asked from offsets that grow: the text
    between two questions is read once."""

    __slots__ = ("_read_to", "_start", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._read_to = self._start = 0

    def of(self, i: int) -> int:
        """The start of the line that holds ``text[i]``."""
        if i < self._read_to:
            return self._text.rfind("\n", 0, i) + 1
        k = self._text.rfind("\n", self._read_to, i)
        if k >= 0:
            self._start = k + 1
        self._read_to = i
        return self._start


#: a raw TeX command: its name of letters (pandoc 3), of letters and ``@`` (pandoc 2), the
#: white space and ``*`` after it
_TEX_COMMAND = re.compile(r"\\([^\W\d_]++)[ \t]*+(?:\*[ \t]*+)?+")
#: a word of letters (pandoc's TeX tokenizer reads it as one token)
_TEX_WORD = re.compile(r"[^\W\d_]++")
_TEX_COMMAND_AT = re.compile(r"\\((?:[^\W\d_]|@)++)[ \t]*+(?:\*[ \t]*+)?+")
#: a dimension after a command's optional arguments (pandoc's ``dimenarg``), after white
#: space with one line break at most (a comment before it): ``=`` may open it, then a word,
#: a ``.`` and a word may follow; its digits and dots, then a unit or nothing (``\\foo 1``,
#: ``\\foo=2.5cm``, ``\\foo% c`` and ``1pt`` on the next line)
_TEX_DIMENSION = re.compile(
    r"[ \t]*+(?:(?:%[^\n]*+)?+\r?\n[ \t]*+)?+=?+([^\W_]++)(?:\.([^\W_]++))?+"
)
_TEX_NUMBER = re.compile(r"[0-9.]*+")
_TEX_UNITS = frozenset({"", "pt", "pc", "in", "bp", "cm", "mm", "dd", "cc", "sp"})
#: pandoc's white space in raw TeX: spaces, at most one line break, a comment before it
#: (its ``sp``)
_TEX_SPACE = re.compile(r"[ \t]*+(?:(?:%[^\n]*+)?+\r?\n[ \t]*+)?+")
#: what is no character argument after a command's name (braces and brackets open
#: arguments, TeX's special characters are read otherwise, white space ends a paragraph)
_TEX_NOT_CHARACTER_ARGUMENT = re.compile(r"[\s{}\[\\%$~#&^_]")
#: what is no token after the options of a block command that takes one (a ``]`` ends
#: the bracket it is read in)
_NO_BLOCK_TOKEN = TEX_NO_CHARACTER_AFTER_OPTIONS | {"]"}
#: an environment's name after ``\\begin`` and its ``\\end``
_TEX_ENVIRONMENT_NAME = re.compile(r"\{([^{}\\]*+)\}")
_TEX_ENVIRONMENT_END = re.compile(r"\\end[ \t]*+\{([^{}\\]*+)\}")
#: the white space before a character argument: blank lines and comments too
_TEX_BLANKS = re.compile(r"(?:\s++|%[^\n]*+)*+")
#: what a braced argument and an optional one hold of note: braces, escapes, comments
_TEX_GROUP = BRACE_TOKENS
_TEX_OPTION = re.compile(ESCAPES_AND_COMMENTS + r"|[{\]]")
#: what a ``(..)`` note of a citation command holds of note: braces, its closing, escapes
_TEX_NOTE = re.compile(ESCAPES_AND_COMMENTS + r"|[{)]")
#: white space and comments, no key (pandoc fails on such a key list)
_TEX_NO_KEYS = re.compile(r"(?:[ \t\r\n]++|%[^\n]*+)++")
#: a citation command's key list: keys and white space, comments between them
_TEX_CITATION_KEYS = re.compile(
    r"(?:[\w \t\r\n" + re.escape(TEX_CITATION_KEY_CHARACTERS) + r"]++|%[^\n]*+)*+"
)
#: a line of white space alone (pandoc's LaTeX reader ends a paragraph there)
_BLANK_LINE = re.compile(r"\n[ \t\r]*+\n")
#: spaces on a line
_TEX_INLINE_SPACE = re.compile(r"[ \t]*+")
#: what ends or is passed over in the text a font switch takes
#: (:meth:`_RawTex._declaration_end`)
_DECLARATION_TOKENS = re.compile(r"[\\{}$]|%[^\n]*+")
#: what a unit of siunitx without braces passes over before each part: white space,
#: comments, ``.`` and ``~`` (:meth:`_RawTex._parts_end`)
_UNIT_SKIP = re.compile(r"(?:[\s.~]++|%[^\n]*+)*+")
#: characters each of which (or each word of which) is a part of such a unit
_UNIT_PLAIN = re.compile(r"[^\s.~\\{}$#&^_%]++")
#: a unit's options: ``key=value`` pairs, a value in braces or up to a ``,`` (pandoc's
#: ``keyvals``; ``[@a]`` is none)
_UNIT_KEYVALS = re.compile(r"\[(?:\s*+[\w-]++\s*+(?:=\s*+(?:\{[^{}]*+\}|[^\],{}])++)?+,?+\s*+)*+\]")
#: Longest raw TeX environment, argument or ``\verb`` read, in characters.
_MAX_RAW_TEX = 20_000
#: Commands read as arguments of commands read as arguments, at most (``\\emph \\emph
#: \\emph x``): deeper ones are read as the outer command's end
_MAX_NESTED_COMMANDS = 32
#: Characters raw TeX may be read over, beyond twice the text's length (see
#: :class:`_RawTex`).
_RAW_TEX_BUDGET = 1_000_000


def _next_line_text(text: str, pos: int, n: int) -> int:
    """Past the line break at ``pos`` and the white space of the next line: where its
    text starts, or -1 at the end or a blank line (a raw TeX block ending a line takes
    them, and a block starts there, as indented as the line is)."""
    if pos < n and text[pos] == "\r":
        pos += 1
    if pos >= n or text[pos] != "\n":
        return -1
    pos = _spaces_end(text, pos + 1, n)
    return -1 if pos >= n or text[pos] in "\r\n" else pos


def _spaces_end(text: str, pos: int, cut: int) -> int:
    """The offset after the spaces and tabs at ``pos`` (before ``cut``)."""
    m = _TEX_INLINE_SPACE.match(text, pos, cut)
    return pos if m is None else m.end()


def _after_name_and_space(text: str, pos: int) -> bool:
    """``text[:pos]`` ends with a command's name and white space (no ``*`` after it)."""
    k = pos
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k < pos and text[k - 1 : k].isalpha()


class _RawTex:
    """The raw TeX commands of a text, read as pandoc reads them: a ``\\name`` with its
    ``[..]`` and ``{..}`` arguments (braces balanced at any depth, across lines and blank
    lines, escapes and ``%`` comments passed over; spaces and a line break before an
    optional argument, spaces only right after the name before a braced one),
    ``\\verb<d>..<d>`` on one line, a ``\\begin{env}`` up to its ``\\end{env}``.  Where
    arguments close is read once for the text (:class:`TexBrackets`).  An opening that
    reading passed over (inside what it took for an escape or a comment) is read from
    itself, and such readings stop at :data:`_RAW_TEX_BUDGET` beyond twice the text's
    length (a text made of them would take a pass each), the commands left then read
    without arguments (``\\verb``, read from each, is charged to the same budget)."""

    __slots__ = (
        "_at_after_space_commands",
        "_blank_lines",
        "_brackets",
        "_budget",
        "_character_commands",
        "_command",
        "_cut",
        "_declaration_ends",
        "_dimension_commands",
        "_ends",
        "_environment_ends",
        "_expand_words",
        "_group_counts",
        "_group_from",
        "_group_missing",
        "_inline_environments",
        "_nested",
        "_no_argument_commands",
        "_no_blank_line_commands",
        "_no_option_commands",
        "_not_argument_commands",
        "_one_option_commands",
        "_options_on_line",
        "_parsed_commands",
        "_reading_fails",
        "_text",
        "_texts_read",
        "_too_deep",
        "_unclosed_after_arguments",
        "_unclosed_raw_commands",
        "_unit_ends",
    )

    def __init__(
        self,
        text: str,
        at_letters: bool = False,
        expand_words: bool = False,
        table: bool = True,
    ) -> None:
        self._text = text
        self._expand_words = expand_words
        self._budget = _RAW_TEX_BUDGET + 2 * len(text)
        #: where arguments close, read once (``table=False``: each read from its opening)
        self._brackets = TexBrackets(text, _MAX_RAW_TEX) if table else None
        self._cut = len(text)
        self._command = _TEX_COMMAND_AT if at_letters else _TEX_COMMAND
        #: pandoc 2 reads "@" as a letter of a name; pandoc 3 takes more commands' character
        self._character_commands = (
            TEX_CHARACTER_ARGUMENT_COMMANDS if at_letters else TEX_CHARACTER_ARGUMENT_COMMANDS_3
        )
        #: and reads fewer commands with no argument; pandoc 3.9 (the reading that
        #: ``expand_words`` marks) more
        self._no_argument_commands = (
            TEX_NO_ARGUMENT_COMMANDS
            if at_letters
            else TEX_NO_ARGUMENT_COMMANDS_3_9
            if expand_words
            else TEX_NO_ARGUMENT_COMMANDS_3
        )
        #: and reads every character command's options after a line break
        self._options_on_line = frozenset() if at_letters else TEX_OPTION_ON_LINE_COMMANDS_3
        #: and reads some commands' options otherwise, others with a dimension only
        self._one_option_commands = (
            TEX_ONE_OPTION_COMMANDS if at_letters else TEX_ONE_OPTION_COMMANDS_3
        )
        self._dimension_commands = frozenset() if at_letters else TEX_DIMENSION_COMMANDS_3
        #: and takes fewer commands as another's argument
        self._not_argument_commands = (
            TEX_NOT_ARGUMENT_COMMANDS if at_letters else TEX_NOT_ARGUMENT_COMMANDS_3
        )
        #: and takes no option after more commands
        self._no_option_commands = (
            TEX_NO_OPTION_COMMANDS
            if at_letters
            else TEX_NO_OPTION_COMMANDS_3_9
            if expand_words
            else TEX_NO_OPTION_COMMANDS_3
        )
        #: and takes an "@" after more commands' white space
        self._at_after_space_commands = (
            TEX_AT_AFTER_SPACE_COMMANDS_3_9 if expand_words else frozenset()
        )
        #: and reads more commands with a parser of its own
        self._parsed_commands = TEX_PARSED_COMMANDS if at_letters else TEX_PARSED_COMMANDS_3
        #: and reads more environments as inline raw TeX
        self._inline_environments = (
            TEX_INLINE_ENVIRONMENTS if at_letters else TEX_INLINE_ENVIRONMENTS_3
        )
        #: environment name -> the sorted offsets of its ``\\end``s (built when first asked)
        self._environment_ends: dict[str, list[int]] | None = None
        #: and knows more commands' number of braced arguments
        self._group_counts = (
            TEX_GROUP_COUNTS
            if at_letters
            else TEX_GROUP_COUNTS_3_9
            if expand_words
            else TEX_GROUP_COUNTS_3
        )
        #: whose braced arguments may hold no blank line
        self._no_blank_line_commands = (
            TEX_NO_BLANK_LINE_COMMANDS
            if at_letters
            else TEX_NO_BLANK_LINE_COMMANDS_3_9
            if expand_words
            else TEX_NO_BLANK_LINE_COMMANDS_3
        )
        #: and still reads these as raw TeX when a brace that never closes follows their
        #: options
        self._unclosed_raw_commands = (
            TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS_3_9
            if expand_words
            else TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS
        )
        #: the command read last takes a group first and none comes, or another argument
        #: it does not find (its reading fails where pandoc reads it as inline text: in
        #: what a font switch takes, in braces read as text)
        self._group_missing = False
        #: where the braced arguments of the command read last begin (-1: none)
        self._group_from = -1
        #: pandoc's reading of the command read last fails, so that it is text: its
        #: options, or the braced arguments it reads as many of as come, are followed by a
        #: brace that never closes
        self._reading_fails = False
        #: a brace that never closes comes where the command read last reads its braced
        #: arguments (``\\foo{ y``)
        self._unclosed_after_arguments = False
        #: commands being read as another's argument (``\\emph \\foo{x}``) or as a part of
        #: a unit (``\\si m \\bf y \\si m``)
        self._nested = 0
        #: units nested too deep were met: every reading they are in ends there
        self._too_deep = False
        #: (start, stop, blocks) of braced arguments -> whether pandoc reads them as text
        self._texts_read: dict[tuple[int, int, bool], bool] = {}
        #: (offset, cut) after a font switch's name -> where the text it takes ends
        self._declaration_ends: dict[tuple[int, int], int] = {}
        #: the blank lines, where that text ends at the latest
        self._blank_lines = _Next(text, _BLANK_LINE)
        #: (offset, cut) of a command read -> where it ends, whether a group it takes first
        #: is missing and whether a brace that never closes follows its arguments (it is
        #: then no argument of another), so that a command read as another's argument, in
        #: braces read as text, or a chain of them asked command by command, is read once
        self._ends: dict[tuple[int, int], tuple[int, bool, bool]] = {}
        #: (offset, cut) after the name of a command that ends in a unit -> where it ends,
        #: and whether its reading fails (a chain of units asked line by line is read once)
        self._unit_ends: dict[tuple[int, int], tuple[int, bool]] = {}

    def end(self, i: int, cut: int = -1) -> int:
        """``text[i:]`` is ``\\name``: the offset after the command and its arguments,
        which pandoc reads as raw TeX, not as text; none goes on past ``cut`` (-1: the
        end), where pandoc reads the text that follows apart."""
        self._cut = cut if cut >= 0 else len(self._text)
        if self._nested == 0:
            self._too_deep = False
        key = (i, self._cut)
        known = self._ends.get(key)
        if known is None:
            self._group_missing = False
            self._unclosed_after_arguments = False
            known = (self._read_end(i), self._group_missing, self._unclosed_after_arguments)
            self._ends[key] = known
            self._cut = key[1]
        stop, self._group_missing, self._unclosed_after_arguments = known
        return stop

    def is_text(self, i: int) -> bool:
        """Whether the command at ``i``, which :meth:`end` read last, is text to pandoc in
        a paragraph: it takes a group first and none comes (or another argument it does
        not find), so that its reading fails (``\\footnote*x*@a`` is text and emphasis,
        ``@a`` no citation), but for those pandoc reads as blocks with their options
        (``\\usepackage*x*@a`` cites ``a``)."""
        if not self._group_missing:
            return False
        m = self._command.match(self._text, i)
        return (
            m is not None
            and m.group(1) not in TEX_RAW_BLOCK_COMMANDS
            # pandoc 3.9 reads "\\ifstrequal[@a]{ y" as raw TeX up to the "{"
            and not (self._unclosed_after_arguments and m.group(1) in self._unclosed_raw_commands)
        )

    def bracket_end(self, i: int) -> int:
        """Where pandoc's search for the ``]`` of a bracket around it goes on after the
        command at ``i``: after the command and its arguments (:meth:`end`), or after its
        ``\\`` where pandoc reads no raw TeX inline there (a block's name,
        :data:`TEX_BLOCK_NAMES`, ``\\end``, the ``\\begin`` of an environment not read
        inline, a reading that fails): ``[\\textbf{[}]@a]`` cites ``a``,
        ``[\\section{[}]@a]`` nothing."""
        m = self._command.match(self._text, i)
        if m is None or m.group(1) in TEX_BLOCK_NAMES or m.group(1) == "end":
            return i + 1
        if m.group(1) == "begin":
            env = _TEX_ENVIRONMENT_NAME.match(self._text, m.end())
            if env is None or env.group(1) not in self._inline_environments:
                return i + 1
        stop = self.end(i)
        return i + 1 if self.is_text(i) else stop

    def block_end(self, i: int, cut: int = -1) -> int:
        """Where the command at ``i`` ends as a raw TeX block to pandoc (up to ``cut`` as in
        :meth:`end`), or -1 where it is none: one of :data:`TEX_BLOCK_COMMANDS` (after its
        name), of :data:`TEX_RAW_BLOCK_COMMANDS` (:meth:`_raw_block_end`), an environment
        an ``\\end`` closes (after its name, :meth:`_closed_environment`), one of
        :data:`TEX_TOKEN_BLOCK_COMMANDS` with a token or of :data:`TEX_GROUP_BLOCK_COMMANDS`
        with its groups (white space with a line break at most, a comment before it, and
        options before each, but for :data:`TEX_GROUP_BLOCK_NO_OPTION_COMMANDS`), pandoc
        reading the groups (:meth:`_arguments_read`)."""
        text = self._text
        self._cut = cut = cut if cut >= 0 else len(text)
        m = self._command.match(text, i, cut)
        if m is None:
            return -1
        name = m.group(1)
        if name in TEX_BLOCK_COMMANDS:
            return m.end()
        if name in TEX_RAW_BLOCK_COMMANDS:
            return self._raw_block_end(m.end(), TEX_RAW_BLOCK_COMMANDS[name])
        if name == "begin":
            return m.end() if self._closed_environment(m.end()) else -1
        token = name in TEX_TOKEN_BLOCK_COMMANDS
        options = name not in TEX_GROUP_BLOCK_NO_OPTION_COMMANDS
        pos = m.end()
        first = -1  # where the groups start
        for _ in range(1 if token else TEX_GROUP_BLOCK_COMMANDS.get(name, 0)):
            while (gap := _TEX_SPACE.match(text, pos, cut)) is not None:
                pos = gap.end()
                if not (options and text.startswith("[", pos)):
                    break
                if (pos := self._closed(_TEX_OPTION, pos)) < 0:
                    break
            if pos < 0 or pos >= cut:
                return -1
            if token and text[pos] != "{":  # a character pandoc takes as one
                return -1 if text[pos] in _NO_BLOCK_TOKEN else pos + 1  # "]": the bracket's
            first = pos if first < 0 else first
            if (pos := self._group_close(pos)) < 0:
                return -1
        if first < 0:
            return -1
        group_from, self._group_from = self._group_from, first
        try:
            return pos if self._arguments_read(name, pos) else -1
        finally:
            self._group_from = group_from
            self._cut = cut

    def starts_block(self, i: int) -> bool:
        """The command at ``i`` is a raw TeX block to pandoc where a block starts, as it
        reads it inline (one of :data:`TEX_BLOCK_START_COMMANDS`)."""
        m = self._command.match(self._text, i)
        return m is not None and m.group(1) in TEX_BLOCK_START_COMMANDS

    def _raw_block_end(self, pos: int, most: int) -> int:
        """Where a command of :data:`TEX_RAW_BLOCK_COMMANDS` whose name ends at ``pos`` ends
        as a block: after its options and ``most`` groups at most (-1: any number), spaces
        before each; -1 where a ``{`` there never closes."""
        text, cut = self._text, self._cut
        while pos < cut and text[pos] == "[" and (close := self._closed(_TEX_OPTION, pos)) >= 0:
            pos = _spaces_end(text, close, cut)
        while most != 0 and pos < cut and text[pos] == "{":
            if (close := self._group_close(pos)) < 0:
                return -1
            pos = _spaces_end(text, close, cut)
            most -= 1
        return pos

    def paragraph_block_end(self, i: int, cut: int = -1) -> int:
        """Where the command at ``i`` ends as a raw TeX block in a paragraph's text, where
        pandoc reads it as a block alone (:data:`TEX_BLOCK_ONLY_COMMANDS`), or -1."""
        m = self._command.match(self._text, i)
        if m is None or m.group(1) not in TEX_BLOCK_ONLY_COMMANDS:
            return -1
        return self.block_end(i, cut)

    def _closed_environment(self, pos: int) -> bool:
        """Whether the ``\\begin`` whose name ends at ``pos`` opens an environment pandoc
        reads as a block: one not inline (:data:`TEX_INLINE_ENVIRONMENTS`) that an
        ``\\end`` closes before the cut."""
        m = _TEX_ENVIRONMENT_NAME.match(self._text, pos, self._cut)
        if m is None or m.group(1) in self._inline_environments:
            return False
        if self._environment_ends is None:
            self._environment_ends = {}
            for end in _TEX_ENVIRONMENT_END.finditer(self._text):
                self._environment_ends.setdefault(end.group(1), []).append(end.start())
        ends = self._environment_ends.get(m.group(1), [])
        k = bisect_left(ends, m.end())
        return k < len(ends) and ends[k] < self._cut

    def _read_end(self, i: int) -> int:
        """:meth:`end` read from the text."""
        text = self._text
        m = self._command.match(text, i)
        if m is None:
            return i + 1
        pos = m.end()
        name = m.group(1)
        if name == "expandafter":
            return self._expandafter(m.end(1), pos)
        self._clear_command_flags()
        if name in TEX_TEXT_COMMANDS:
            return i + 1  # "\\citetext{@a}" cites a
        if name in TEX_CITATION_COMMANDS or name in TEX_MULTI_CITATION_COMMANDS:
            cited = self._citation_end(name, pos)
            if cited is not None:  # "\\cite{@a \\x}" cites a: pandoc's reading fails
                return i + 1 if cited < 0 else cited
        stop = self._arguments(name, pos)
        after = pos if name == "xspace" else self._xspaces_end(pos)  # each read once
        if after > pos and stop == pos:
            # pandoc drops "\\xspace" there: "\\foo\\xspace [@a]" is "\\foo[@a]"
            self._forget_command()
            stop = self._arguments(name, after)
            if stop == after:  # nothing taken after it: "\\xspace" is read on its own
                self._forget_command()
                stop = self._arguments(name, pos)
        if name in TEX_CITATION_COMMANDS or name in TEX_MULTI_CITATION_COMMANDS:
            self._group_missing = True  # no key list: "\\bf x \\cite y @a" cites a
        if self._reading_fails:
            return i + 1  # pandoc's reading of its arguments fails: "\\cite[@a]{ y" cites a
        if 0 <= self._group_from < stop and not self._arguments_read(name, stop):
            return i + 1  # pandoc's LaTeX reader fails on it: "\\emph{a", a blank line ...
        return stop

    def _xspaces_end(self, pos: int) -> int:
        """The offset after the ``\\xspace`` commands at ``pos`` (with the white space
        after each), which pandoc drops before the arguments of the command before them
        (``pos`` if none)."""
        while (m := self._command.match(self._text, pos, self._cut)) and m.group(1) == "xspace":
            pos = m.end()
        return pos

    def _arguments_read(self, name: str, stop: int) -> bool:
        """Whether pandoc reads the braced arguments of ``name`` (from ``_group_from`` to
        ``stop``) as it reads them: as inline text or as blocks (see
        :data:`TEX_NO_BLANK_LINE_COMMANDS`, :data:`TEX_ARGUMENT_MODES`)."""
        start = self._group_from
        if name in self._no_blank_line_commands:
            return self._reads_as_text(start, stop, blocks=False)
        for mode in TEX_ARGUMENT_MODES.get(name, ""):
            close = self._group_close(start)
            if not 0 <= close <= stop:
                break
            if mode != "-" and not self._reads_as_text(start, close, blocks=mode == "b"):
                return False
            start = close
        return True

    def _reads_as_text(self, start: int, stop: int, blocks: bool) -> bool:
        """Whether pandoc's LaTeX reader reads the groups ``text[start:stop]`` to their end
        as inline text (``blocks``: as paragraphs): no blank line (but in blocks), no block
        command (but in blocks), no ``$`` left open, no command whose reading fails."""
        key = (start, stop, blocks)
        known = self._texts_read.get(key)
        if known is None:
            flags = (
                self._group_from,
                self._reading_fails,
                self._unclosed_after_arguments,
                self._group_missing,
            )
            known = (blocks or not _BLANK_LINE.search(self._text, start, stop)) and (
                self._text_read(start, stop, blocks)
            )
            (
                self._group_from,
                self._reading_fails,
                self._unclosed_after_arguments,
                self._group_missing,
            ) = flags
            self._texts_read[key] = known
        return known

    def _text_read(self, start: int, stop: int, blocks: bool) -> bool:
        """:meth:`_reads_as_text` read from the text, its commands each read once (those
        nested too deep are taken as read)."""
        text = self._text
        cut = self._cut
        at = start
        while (m := _DECLARATION_TOKENS.search(text, at, stop)) is not None:
            k = m.start()
            at = m.end()
            if text[k] == "$":
                math = _MATH_CLOSE.search(text, k + 1, stop)
                if math is None:
                    return False  # "\\emph{@a $ b}" cites a
                at = math.end()
                continue
            command = self._command.match(text, k, stop) if text[k] == "\\" else None
            if command is None:  # a brace, a comment, an escaped character
                at = k + 2 if text[k] == "\\" else at
                continue
            name = command.group(1)
            at = command.end()
            if name in TEX_DECLARATION_STOP_COMMANDS:
                if not blocks:
                    return False  # "\\section{@a\\par}" cites a
                if self._block_fails(k, stop):
                    return False  # "\\footnote{@a\\section}" cites a
                continue
            if (
                name in TEX_DEFINITION_COMMANDS
                or name in TEX_DECLARATION_COMMANDS
                or name == "endinput"
                or self._nested >= _MAX_NESTED_COMMANDS
            ):
                continue  # read on, as a font switch's text is
            self._nested += 1
            try:
                after = self.end(k, cut)
                failed = after == k + 1 or self._group_missing
            finally:
                self._nested -= 1
                self._cut = cut
            if failed:
                return False  # "\\textbf{@a\\gls}" cites a
            at = max(at, min(after, stop))
        return True

    def _block_fails(self, k: int, stop: int) -> bool:
        """Whether the command at ``k``, in braces read as blocks up to ``stop``, is a block
        command whose block reading fails there: one that takes a token or groups and
        has none (:data:`TEX_TOKEN_BLOCK_COMMANDS`, :data:`TEX_GROUP_BLOCK_COMMANDS`;
        those nested too deep are taken as read)."""
        m = self._command.match(self._text, k, stop)
        if m is None or not (
            m.group(1) in TEX_TOKEN_BLOCK_COMMANDS or m.group(1) in TEX_GROUP_BLOCK_COMMANDS
        ):
            return False
        if self._nested >= _MAX_NESTED_COMMANDS:
            return False
        flags = (self._group_from, self._group_missing, self._unclosed_after_arguments)
        cut = self._cut
        self._nested += 1
        try:
            return self.block_end(k, stop) < 0
        finally:
            self._nested -= 1
            self._cut = cut
            self._group_from, self._group_missing, self._unclosed_after_arguments = flags

    def _clear_command_flags(self) -> None:
        """Forget what the reading of the command read last found of its arguments (where
        its groups begin, a reading that fails, a brace left open after them)."""
        self._group_from = -1
        self._reading_fails = False
        self._unclosed_after_arguments = False

    def _forget_command(self) -> None:
        """:meth:`_clear_command_flags`, and forget whether a group the command read last
        takes is missing."""
        self._clear_command_flags()
        self._group_missing = False

    def _expandafter(self, name_end: int, pos: int) -> int:
        """After ``\\expandafter`` (its name ends at ``name_end``, the white space after it
        at ``pos``): a command and a word after it, on its line, make one command
        (``\\expandafter\\foo x`` is ``\\foox``), read with its arguments; a word alone
        is raw TeX with it when ``expand_words`` (pandoc 3.9), else ``\\expandafter`` is
        text."""
        text = self._text
        m = self._command.match(text, pos)
        chained = False
        while m is not None and m.group(1) == "expandafter":  # a chain: none joins a word
            chained = True
            pos = m.end()
            m = self._command.match(text, pos)
        if chained and m is None:
            return pos
        if m is not None:
            word = _TEX_WORD.match(text, m.end())
            spaced = m.end() > m.end(1) and "*" not in text[m.end(1) : m.end()]
            if word is not None and spaced and not chained:
                return self._arguments(m.group(1) + word.group(), word.end())
            return self._arguments(m.group(1), m.end()) if chained else pos
        if self._expand_words:
            word = _TEX_WORD.match(text, pos)
            if word is not None and pos > name_end and "*" not in text[name_end:pos]:
                return word.end()
            return self._arguments("expandafter", pos)
        return name_end

    def _arguments(self, name: str, pos: int) -> int:
        """The offset after the arguments of the command ``name`` whose name (and the white
        space after it) ends at ``pos``."""
        text = self._text
        start = pos
        if name in TEX_DECLARATION_COMMANDS:  # "\\bf x @a" cites nothing
            return self._declaration_end(pos)
        if name == "endinput":  # the rest of the text is raw TeX
            return self._cut
        if name in TEX_UNIT_COMMANDS:  # "\\si m @a" cites nothing
            return self._unit_command_end(name, pos)
        if name in TEX_INLINE_CODE_COMMANDS:  # "\\lstinline|@a|" cites nothing
            end = self._inline_code_end(name, pos)
            self._reading_fails = end < 0
            return pos if end < 0 else end
        if (
            text[pos : pos + 1] == "@"
            and name in TEX_AT_ARGUMENT_COMMANDS
            # right after the name: "\\gls @a" cites a
            and (
                text[pos - 1 : pos].isalpha()
                or (name in self._at_after_space_commands and _after_name_and_space(text, pos))
            )
        ):
            return pos + 1  # the "@" is its argument: "\\emph@a", "\\xspace@a" cite nothing
        if name in self._no_argument_commands:  # "\\small{@a}" cites a
            return pos
        if name in TEX_OPTIONS_ONLY_COMMANDS:  # "\\par [@a]" cites nothing, "\\par{@a}" a
            return self._options_end(pos)
        if name in self._character_commands:
            name_end = pos
            if name in TEX_CHARACTER_OPTION_COMMANDS:  # "\\caption[x]@b": "@" is its argument
                pos = self._options_end(
                    pos,
                    1 if name in self._one_option_commands else -1,
                    lines=name not in self._options_on_line,
                )
            k = _TEX_BLANKS.match(text, pos).end()  # type: ignore[union-attr]
            if k < self._cut and (text[k] == "[" or not _TEX_NOT_CHARACTER_ARGUMENT.match(text, k)):
                return k + 1  # "\\emph x@b", "\\emph[@b]": "x", "[" is its argument
            # "\\emph % c\n\\foo{x}": a command, with its arguments, is the argument
            if k < self._cut and text[k] == "\\" and self._nested < _MAX_NESTED_COMMANDS:
                inner = self._command_argument_end(k)
                if inner > k + 1:
                    return inner
                if pos > name_end and self._command.match(text, k) is not None:
                    return name_end  # "\\caption [@a]\\gls": its bracket is text
            # "\\emph\n{@b}": one braced group (as far as the budget goes)
            if self._budget >= 0 and k < self._cut and text[k] == "{":
                close = self._closed(_TEX_GROUP, k)
                if close > 0:
                    self._group_from = k
                    return close
            if pos > name_end and self._no_character(pos):
                # "\\caption [@a]" at the end: its bracket is text, and as another's
                # argument it fails ("\\caption [@a]\\textgerman [@b]" cites both)
                self._group_missing = True
                return name_end
            if (k >= self._cut or text[k] == "}") and name not in TEX_ACCENT_COMMANDS:
                self._group_missing = True  # nothing to take: "\\emph{x \\emph} @a" cites a
                return pos
        if name in TEX_BRACED_OPTION_COMMANDS:
            after = self._options_end(pos)
            if after > pos and text[after : after + 1] != "{":
                self._group_missing = name in self._group_counts
                return pos  # "\\cite [@a] y": its bracket is text, "\\cite[@a]{b}" none
        if name == "begin":
            env = re.match(r"\{([A-Za-z*]{1,30})\}", text[pos : pos + 40])
            if env is not None:
                limit = min(pos + _MAX_RAW_TEX, self._cut)
                close = text.find("\\end{" + env.group(1) + "}", pos, limit)
                if close >= 0:
                    return close + len(env.group(1)) + 6
        if name in self._dimension_commands:  # "\\hskip [@a]" cites a
            end = self._dimension_end(pos)
            self._group_missing = end == pos  # no dimension: "\\bf x \\hskip @a" cites a
            return end
        if name not in self._no_option_commands:  # "\\href[@a]{b}": its bracket is text
            after = self._options_end(pos)
            if after > start and name not in self._unclosed_raw_commands:
                self._reading_fails = self._opens_unclosed(self._dimension_end(after))
            pos = after
        if name not in self._parsed_commands:  # "\\foo1pt@a" cites a, "\\href1pt@a" not
            pos = self._dimension_end(pos)
        count = self._group_counts.get(name, -1)
        stop, read = self._braced_end(pos, count)
        self._group_missing = (
            read == 0
            and count > 0
            and name not in TEX_TOKEN_ARGUMENT_COMMANDS
            and not (name == "hyperref" and pos > start)  # "\\hyperref[x] y": a token
        )
        self._unclosed_after_arguments = self._opens_unclosed(stop)
        if 0 < read < count and name in TEX_TOKEN_LATER_ARGUMENT_COMMANDS:
            group_from = self._group_from  # its groups, read as text after: a command
            for _ in range(count - read):  # read as a token clears the flags
                after = self._token_end(stop)  # "\\href{x}@a": "@" is its second argument
                if after < 0:  # "\\href{@a}" at the end cites a
                    self._reading_fails = True
                    break
                stop = after
            self._group_from = group_from  # "\\texorpdfstring{@a\\par}\\foo" cites a
            return stop
        if 0 < read < count and name in TEX_GROUPS_ONLY_COMMANDS:
            self._reading_fails = True  # "\\parbox{x}@a" cites a
        if self._unclosed_after_arguments and read > 0 and read != count:
            self._reading_fails = True  # "\\foo{@a}{ y", "\\href{x}{ y @a" cite a
        return stop  # "\\href{x}{y}{@a}": "{@a}" is text

    def _declaration_end(self, pos: int) -> int:
        """After a font switch (``\\bf``; its name and the white space after it end at
        ``pos``): the offset where the text pandoc reads as its argument ends (see
        :data:`TEX_DECLARATION_COMMANDS`).  The switches met on the way end there too, so
        each part of the text is read once for them."""
        cut = self._cut
        known = self._declaration_ends.get((pos, cut))
        if known is not None:
            return known
        text = self._text
        blank = self._blank_lines.start(pos)
        stop = blank if 0 <= blank < cut else cut
        inner = [pos]
        at = pos
        end = stop
        while (m := _DECLARATION_TOKENS.search(text, at, stop)) is not None:
            k = m.start()
            c = text[k]
            if c == "%":
                at = m.end()
                continue
            if c == "}":
                end = k
                break
            if c == "{":
                close = self._closed(_TEX_GROUP, k) if self._budget >= 0 else -1
                if close < 0 or close > stop or not self._reads_as_text(k, close, False):
                    end = k  # "\\bf x {@a\\par} y" cites a
                    break
                at = close
                continue
            if c == "$":
                math = _MATH_CLOSE.search(text, k + 1, stop)
                if math is None:
                    end = k
                    break
                at = math.end()
                continue
            command = self._command.match(text, k, stop)
            if command is None:  # an escaped character
                at = k + 2
                continue
            name = command.group(1)
            if name in TEX_DECLARATION_COMMANDS:  # it ends where this one does
                inner.append(command.end())
                at = command.end()
                continue
            if name in TEX_DEFINITION_COMMANDS:  # what it defines is read on
                at = command.end()
                continue
            if name == "endinput":
                end = cut
                break
            if name in TEX_DECLARATION_STOP_COMMANDS:
                end = k  # "\\bf x \\section{y} @a" cites a
                break
            after = self.end(k, cut)
            if after == k + 1 or self._group_missing:  # its reading fails
                end = k
                break
            at = after
            if self._too_deep:
                end = at
                break
            if at > stop:  # a unit read over the blank line: "\\bf \\si x", a blank line
                blank = self._blank_lines.start(at)
                stop = end = blank if 0 <= blank < cut else cut
        self._cut = cut
        self._forget_command()
        for start in inner:
            self._declaration_ends[start, cut] = end
        return end

    def _unit_command_end(self, name: str, pos: int) -> int:
        """After one of siunitx's commands that end in a unit (its name and the white
        space after it end at ``pos``; :data:`TEX_UNIT_COMMANDS`): the offset after its
        options, numbers and unit.  Its reading fails where a number's group or the unit
        is missing (``\\SI 1 m @a``, ``\\si $x$ @a`` cite ``a``)."""
        key = (pos, self._cut)
        known = self._unit_ends.get(key)
        if known is None:
            known = self._unit_command_reading(name, pos)
            self._unit_ends[key] = known
        end, self._reading_fails = known
        return end

    def _unit_command_reading(self, name: str, pos: int) -> tuple[int, bool]:
        """:meth:`_unit_command_end` read from the text: the offset and whether the
        reading fails."""
        keyvals = name in TEX_UNIT_KEYVAL_COMMANDS
        pos = self._keyvals_end(pos) if keyvals else self._options_end(pos)
        for _ in range(TEX_UNIT_COMMANDS[name]):
            k = _TEX_SPACE.match(self._text, pos).end()  # type: ignore[union-attr]
            close = self._group_close(k)
            if close < 0:
                return pos, True
            pos = close if keyvals else self._options_end(close, 1)  # "\\SI{1}[x]{m}"
        end = self._unit_end(pos if keyvals else self._keyvals_end(pos))
        return (pos, True) if end < 0 else (end, False)

    def _group_close(self, k: int) -> int:
        """The offset after the group a ``{`` at ``k`` opens, or -1 (no ``{``, one that
        never closes, the budget spent)."""
        if self._budget < 0 or self._text[k : k + 1] != "{":
            return -1
        return self._closed(_TEX_GROUP, k)

    def _keyvals_end(self, pos: int) -> int:
        """The offset after ``key=value`` options at ``pos`` (pandoc's ``keyvals``), or
        ``pos``."""
        if self._text[pos : pos + 1] != "[" or self._budget < 0:
            return pos
        close = self._closed(_TEX_OPTION, pos)
        if close < 0 or _UNIT_KEYVALS.fullmatch(self._text, pos, close) is None:
            return pos
        return close

    def _unit_end(self, pos: int) -> int:
        """The offset after a unit from ``pos`` on: a group that holds one (past white
        space, one line break at most), else its parts without braces; -1 where no part
        comes (:data:`TEX_UNIT_COMMANDS`)."""
        k = _TEX_SPACE.match(self._text, pos).end()  # type: ignore[union-attr]
        close = self._group_close(k)
        # "\\si{x } y @a" cites nothing: no unit ends before its "}", so the group is
        # the first part of one without braces
        if close >= 0 and (close == k + 2 or self._parts_end(k + 1) == close - 1):
            return close
        return self._parts_end(pos)

    def _parts_end(self, pos: int) -> int:
        """The offset after the last part of a unit without braces from ``pos`` on, or -1
        where none comes (see :data:`TEX_UNIT_COMMANDS`)."""
        text = self._text
        cut = self._cut
        end = -1
        at = pos
        while (k := _UNIT_SKIP.match(text, at).end()) < cut:  # type: ignore[union-attr]
            c = text[k]
            if c in "^_":  # "m^2": what it raises belongs to the part right before it
                after = self._token_end(k + 1) if k == end else -1
            elif c in "}#$&":
                break
            elif c == "{":
                after = self._inline_group_end(k)
            elif c == "\\":
                after = self._inline_command_end(k)
            else:
                after = _UNIT_PLAIN.match(text, k).end()  # type: ignore[union-attr]
            if after < 0:
                break
            at = end = after
            if self._too_deep:
                break
        return end

    def _token_end(self, pos: int) -> int:
        """The offset after what pandoc reads as one token from ``pos`` on (its ``tok``),
        past white space, blank lines and comments: a group read as text, a command with
        its arguments, a character that is not special; or -1."""
        text = self._text
        k = _TEX_BLANKS.match(text, pos).end()  # type: ignore[union-attr]
        if k >= self._cut or text[k] in "#$%&~_^}":
            return -1
        if text[k] == "{":
            return self._inline_group_end(k)
        if text[k] == "\\":
            return self._inline_command_end(k)
        return k + 1

    def _inline_group_end(self, k: int) -> int:
        """The offset after the group opening at ``k`` if pandoc reads it as inline text
        (it closes, and holds no blank line, no ``$`` left open, no block command), or
        -1."""
        close = self._group_close(k)
        return close if close >= 0 and self._reads_as_text(k, close, False) else -1

    def _inline_command_end(self, k: int) -> int:
        """The offset after the command at ``k`` read as inline text (a part of a unit, a
        token), or -1 where it is none (a block command, one whose reading fails, units
        nested too deep)."""
        text = self._text
        cut = self._cut
        m = self._command.match(text, k, cut)
        if m is None:  # an escaped character: "\\$", "\\\\"
            return k + 2 if k + 1 < cut else -1
        name = m.group(1)
        if name == "endinput":
            return cut
        if name in TEX_DEFINITION_COMMANDS:
            return m.end()
        if name in TEX_DECLARATION_STOP_COMMANDS:
            return -1
        if self._nested >= _MAX_NESTED_COMMANDS:  # the units around end here as well
            self._too_deep = True
            return -1
        self._nested += 1
        try:
            if name in TEX_DECLARATION_COMMANDS:
                return self._declaration_end(m.end())
            after = self.end(k, cut)
            return -1 if after == k + 1 or self._group_missing else after
        finally:
            self._nested -= 1
            self._cut = cut
            self._forget_command()

    def _command_argument_end(self, k: int) -> int:
        """The offset after the command at ``k`` read as another command's argument (k + 1
        where it is no command, one pandoc takes as none (:data:`TEX_NOT_ARGUMENT_COMMANDS`),
        or one pandoc reads as text or whose braces do not close)."""
        m = self._command.match(self._text, k)
        if m is None or m.group(1) in self._not_argument_commands:
            return k + 1
        cut = self._cut
        self._nested += 1
        try:
            stop = self.end(k, cut)
            unclosed = self._unclosed_after_arguments or self._group_missing
        finally:
            self._nested -= 1
        self._cut = cut
        self._clear_command_flags()
        return k + 1 if unclosed else stop

    def _citation_end(self, name: str, pos: int) -> int | None:
        """After a citation command's name (and the white space after it) at ``pos``: the
        offset after its arguments, -1 where pandoc's reading of them fails (the command is
        text), None where no closed key list follows its options (read as any other
        command's; see :data:`TEX_CITATION_COMMANDS`)."""
        multi = name in TEX_MULTI_CITATION_COMMANDS
        if multi:
            for _ in range(3):
                note = self._note_end(pos)
                if note < 0:
                    break
                pos = note
            else:
                return -1  # a third note: "\\cites(a)(b)(c){@k}" cites k
        stop = self._key_list_end(pos)
        if stop is None or stop < 0 or not multi:
            return stop
        while True:
            more = self._key_list_end(stop)
            if more is None or more < 0:
                return stop
            stop = more

    def _note_end(self, pos: int) -> int:
        """The offset after a ``(..)`` note at ``pos`` (white space before it passed over;
        braces balanced in it), or -1."""
        text = self._text
        k = _TEX_SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if text[k : k + 1] != "(" or self._budget < 0:
            return -1
        limit = min(self._cut, k + _MAX_RAW_TEX)
        at = k + 1
        while (m := _TEX_NOTE.search(text, at, limit)) is not None:
            at = m.end()
            if m.group() == ")":
                self._budget -= at - k
                return at
            if m.group() == "{":
                at = self._closed(_TEX_GROUP, m.start())
                if at < 0:
                    break
        self._budget -= limit - k
        return -1

    def _key_list_end(self, pos: int) -> int | None:
        """At most two options and a key list from ``pos`` (white space before them
        passed over): the offset after the list, -1 where it holds what no key list does
        (a blank line too, or white space and comments and no key: ``\\cite{ }``; ``{}``
        is a list) or a third option comes, None where no closed ``{..}`` comes after the
        options."""
        text = self._text
        k = self._options_end(pos, 2)
        if self._options_end(k, 1) > k:
            return -1  # a third option
        if k == pos:
            k = _TEX_SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if text[k : k + 1] != "{" or self._budget < 0:
            return None
        close = self._closed(_TEX_GROUP, k)
        if close < 0:
            return None
        keys = _TEX_CITATION_KEYS.fullmatch(text, k + 1, close - 1)
        if keys is None or _BLANK_LINE.search(text, k + 1, close - 1):
            return -1
        return -1 if _TEX_NO_KEYS.fullmatch(text, k + 1, close - 1) else close

    def _opens_unclosed(self, pos: int) -> bool:
        """Whether a ``{`` that does not close (within the budget) opens at ``pos``."""
        return (
            self._budget >= 0
            and self._text[pos : pos + 1] == "{"
            and self._closed(_TEX_GROUP, pos) < 0
        )

    def _dimension_end(self, pos: int) -> int:
        """The offset after a dimension (``1pt``, ``=2.5cm``) at ``pos``, or ``pos``."""
        d = _TEX_DIMENSION.match(self._text, pos, self._cut)
        if d is not None:
            word = d.group(1) if d.group(2) is None else d.group(1) + "." + d.group(2)
            digits = _TEX_NUMBER.match(word).end()  # type: ignore[union-attr]
            if digits > 0 and word[digits:] in _TEX_UNITS:
                return d.end()
        return pos

    def _braced_end(self, pos: int, most: int = -1) -> tuple[int, int]:
        """The offset after the braced arguments from ``pos`` on (``most`` of them at
        most, -1: any number), and how many were read."""
        text = self._text
        read = 0
        while read != most and self._budget >= 0 and text[pos : pos + 1] == "{":
            close = self._closed(_TEX_GROUP, pos)
            if close < 0:
                break
            if self._group_from < 0:
                self._group_from = pos
            pos = close
            read += 1
        return pos, read

    def _no_character(self, pos: int) -> bool:
        """Whether nothing pandoc takes as a command's character argument comes at or
        after ``pos``, past white space (blank lines, comments): the text's end, or a character
        of :data:`TEX_NO_CHARACTER_AFTER_OPTIONS`."""
        m = _TEX_BLANKS.match(self._text, pos)
        k = m.end() if m is not None else pos
        return k >= len(self._text) or self._text[k] in TEX_NO_CHARACTER_AFTER_OPTIONS

    def _options_end(self, pos: int, most: int = -1, lines: bool = True) -> int:
        """The offset after the optional arguments from ``pos`` on, each in white space
        (``most`` of them at most, -1: any number; ``lines``: a line break in it)."""
        text = self._text
        at = pos  # where the white space before the next option begins
        spaces = _TEX_SPACE if lines else _TEX_INLINE_SPACE
        while self._budget >= 0 and most != 0:
            most -= 1
            space = spaces.match(text, at)
            assert space is not None  # it matches the empty string
            close = (
                self._closed(_TEX_OPTION, space.end())
                if text[space.end() : space.end() + 1] == "["
                else -1
            )
            if close < 0:
                break
            # the white space after it, read once: "\\foo [@a]", a blank line, "[@b]" cites b
            at = close
            pos = _TEX_SPACE.match(text, close).end()  # type: ignore[union-attr]
        return pos

    def _inline_code_end(self, name: str, pos: int) -> int:
        """After ``\\verb``, ``\\Verb``, ``\\lstinline`` or ``\\mintinline`` (its name and
        the white space after it end at ``pos``): the offset after its code, from a
        delimiter to the same one (from ``{`` to ``}``), or -1 where there is none
        (:data:`TEX_INLINE_CODE_COMMANDS`)."""
        text = self._text
        if name == "lstinline":
            pos = _TEX_INLINE_SPACE.match(text, self._keyvals_end(pos)).end()  # type: ignore[union-attr]
        elif name == "mintinline":  # its options and language, then the delimiter at once
            k = _TEX_SPACE.match(text, self._options_end(pos)).end()  # type: ignore[union-attr]
            pos = self._group_close(k)
        if not 0 <= pos < len(text) or text[pos].isalnum() or text[pos] in " \t\r\n\\%":
            return -1
        stop = "}" if text[pos] == "{" else text[pos]
        limit = min(len(text), pos + 1 + _MAX_RAW_TEX)
        close = text.find(stop, pos + 1, limit)
        self._budget -= (limit if close < 0 else close) - pos
        if name in ("lstinline", "mintinline"):  # their code goes on over line breaks
            return close + 1 if close >= 0 else -1
        line_end = text.find("\n", pos + 1, limit if close < 0 else close)
        return close + 1 if close >= 0 and line_end < 0 else -1

    def _closed(self, tokens: re.Pattern[str], i: int) -> int:
        """``text[i]`` opens a ``{..}`` (``tokens``: ``_TEX_GROUP``) or ``[..]`` argument
        (``_TEX_OPTION``, braced groups inside): the offset after it closes, or -1.  The
        table of closings answers when it can (its reading is linear, so it is charged to
        no budget); else a reading from ``i`` does, charged to the budget."""
        if self._brackets is not None:
            known = (
                self._brackets.group(i, self._cut)
                if tokens is _TEX_GROUP
                else self._brackets.option(i, self._cut)
            )
            if known is not None:
                return known
        return self._read_closed(tokens, i)

    def _read_closed(self, tokens: re.Pattern[str], i: int) -> int:
        """:meth:`_closed` by reading the text from ``i``."""
        text = self._text
        limit = min(self._cut, i + _MAX_RAW_TEX)
        depth = 0
        pos = i + 1 if tokens is _TEX_OPTION else i
        while (m := tokens.search(text, pos, limit)) is not None:
            c = text[m.start()]
            pos = m.end()
            if c == "{":
                if tokens is _TEX_OPTION:  # a "{" that never closes is a character in it
                    inner = self._closed(_TEX_GROUP, m.start())
                    pos = inner if inner >= 0 else m.end()
                    continue
                depth += 1
            elif c == "}" or c == "]":
                depth -= 1
                if depth <= 0:
                    self._budget -= pos - i
                    return pos
        self._budget -= max(limit - i, 0)
        return -1


#: a dollar sign no backslash escapes: the first after ``$`` closes inline math, or the
#: math is none (see :func:`_inline_math_close`)
_MATH_CLOSE = re.compile(r"(?<!\\)\$")
_SHORTCODE_CLOSE = re.compile(">}}")
_LINE_END = re.compile("\n")


def _math_end(text: str, i: int, display: bool, par: _Limits, close: _Next) -> int:
    """``text[i]`` opens TeX math (``$..$``, ``$$..$$``): the offset after it closes within
    the paragraph, else ``i + 1`` (a plain dollar sign).  ``par`` finds the paragraph
    breaks, ``close`` the dollar signs that may close inline math: asked from offsets that
    grow, they read the text once (a search from each dollar sign to the end of its
    paragraph read a paragraph of unclosed ones again for each)."""
    limit = par.start(i)
    if limit == i:  # a block starts at it (after a raw TeX block): it reads on
        limit = par.start(i + 1)
    if limit < 0:
        limit = len(text)
    if display:
        end = text.find("$$", i + 2, limit)
        return end + 2 if end >= 0 else i + 2
    end = _inline_math_close(text, i, limit, close)
    return end if end >= 0 else i + 1


def _inline_math_close(text: str, i: int, limit: int, close: _Next) -> int:
    """``text[i]`` is a ``$`` that may open inline math: the offset after the ``$`` that
    closes it before ``limit``, or -1 when it is no math.  As pandoc reads it, the first
    ``$`` after it closes it, and the math is none when white space follows the opening
    one, precedes the closing one, or a digit follows that (``$@c $ x$``, ``$a$1``)."""
    if i + 1 >= limit or text[i + 1].isspace():
        return -1
    end = close.start(i + 2)
    if not 0 <= end < limit or text[end - 1].isspace() or text[end + 1 : end + 2].isdigit():
        return -1
    return end + 1


_TAG_REST = re.compile(r"""(?:[^<>"']|"[^"\n]*"|'[^'\n]*'){0,2000}>""")
#: one attribute of a tag (its name, up to white space, "/", ">" or "="; its value), or a
#: "/"
_TAG_ATTRIBUTE = re.compile(
    r"""\s*+(?:/|([^\s/>=]*+)\s*+(?:=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>]*+))?)"""
)


def _tag_end(text: str, i: int) -> int:
    """After the name of a raw HTML tag: the offset after its ``>`` (attributes are not
    text), or ``i`` when it does not close or is no tag to pandoc: an attribute's name
    that is no name (a letter, then letters, digits, ``:``, ``-`` or ``_``: ``<button
    @click="go">`` is text, and ``@click`` a citation)."""
    m = _TAG_REST.match(text, i)
    if m is None:
        return i
    end = m.end() - 1
    while end > i and text[end - 1].isspace():
        end -= 1
    pos = i
    while pos < end:
        a = _TAG_ATTRIBUTE.match(text, pos, end)
        if a is None or a.end() == pos:
            break
        name = a.group(1)
        if name is not None and not _is_attribute_name(name):
            return i
        pos = a.end()
    return m.end()


def _is_attribute_name(name: str) -> bool:
    """pandoc's test of a tag's attribute name (``isName``)."""
    return (
        name[:1].isalpha() and name.replace(":", "a").replace("-", "a").replace("_", "a").isalnum()
    )


#: Raw HTML elements whose content pandoc never reads as Markdown (its "verbatim" tags),
#: wherever they stand, when a closing tag closes them.
VERBATIM_TAGS = frozenset({"pre", "script", "style", "textarea"})
_ATTRIBUTES = r"""((?:[^<>"']|"[^"\n]*"|'[^'\n]*'){0,2000})>"""
_VERBATIM_OPEN = re.compile(r"<(pre|script|style|textarea)(?=[\s/>])" + _ATTRIBUTES, re.I)
_SCRIPT_CLOSE = re.compile(r"</script(?=[\s/>])[^>]*>", re.I)


@lru_cache(maxsize=4)
def _verbatim_tags(name: str) -> re.Pattern[str]:
    """An HTML comment's start, an opening or a closing tag named ``name``."""
    return re.compile(
        r"(<!--)|<" + name + r"(?=[\s/>])" + _ATTRIBUTES + r"|</" + name + r"(?=[\s/>])[^>]*>",
        re.I,
    )


#: Characters the tags of verbatim elements may be read over, beyond twice the text's
#: length (see :class:`Verbatim`).
_REREAD_BUDGET = 1_000_000


@dataclass(slots=True)
class _Pairs:
    """The ``<name>`` tags read so far from some offset on, and how they pair."""

    tags: re.Pattern[str]
    pos: int
    done: bool = False
    #: opening tags read (self-closing ones are none), and where each one's element ends
    opens: set[int] = field(default_factory=set)
    ends: dict[int, int] = field(default_factory=dict)
    unclosed: list[int] = field(default_factory=list)


class Verbatim:
    """Where the ``<pre>``, ``<script>``, ``<style>`` and ``<textarea>`` elements of a text
    end, as pandoc reads them (its ``htmlInBalanced``, with tagsoup's tags): at the closing
    tag that balances the opening one (elements of the same name inside counted, HTML
    comments passed over), a ``<script>`` at its first ``</script>`` (tagsoup reads a
    script's content as plain text).  The tags of each name are read on from where the
    last question left them, as pandoc would read them from the element asked about: a
    document's elements, asked about in order, cost one pass.  Only an element that the
    tags read so far took for a comment's text (its ``<!--`` was in a code span) is read
    again from its own tag; such reading stops at :data:`_REREAD_BUDGET` (a document made
    of them, each unclosed, would take a pass each), the elements left then unclosed."""

    __slots__ = ("_budget", "_comment", "_pairs", "_script", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._pairs: dict[str, _Pairs] = {}
        #: characters the tags may still be read over (each one once, some a second time)
        self._budget = _REREAD_BUDGET + 2 * len(text)
        #: the last ``</script>`` and ``-->`` found: (searched from, start, end)
        self._script = (len(text) + 1, -1, -1)
        self._comment = (len(text) + 1, -1, -1)

    def end(self, i: int) -> int:
        """``text[i]`` opens a verbatim element: the offset after its closing tag, or -1
        when it has none (or is ``<pre/>``): pandoc then reads its content as Markdown."""
        m = _VERBATIM_OPEN.match(self._text, i)
        if m is None or m.group(2).endswith("/"):
            return -1
        name = m.group(1).lower()
        if name == "script":
            self._script = _first_from(self._text, _SCRIPT_CLOSE, m.end(), self._script)
            return self._script[2]
        pairs = self._pairs.get(name)
        while pairs is not None and not pairs.done and pairs.pos <= i:
            self._step(pairs)
        if pairs is None or i not in pairs.opens:
            # the first element, or one read so far as a comment's text: read from it
            pairs = self._pairs[name] = _Pairs(_verbatim_tags(name), i)
        while i not in pairs.ends and not pairs.done:
            self._step(pairs)
        return pairs.ends.get(i, -1)

    def _step(self, pairs: _Pairs) -> None:
        """Read the next tag, or HTML comment (an unclosed one hides the rest)."""
        text = self._text
        m = pairs.tags.search(text, pairs.pos)
        if m is None:
            pairs.done = True
            return
        end = m.end()
        comment = m.group(1) is not None
        if comment:
            self._comment = _first_from(text, _COMMENT_CLOSE, end, self._comment)
            end = self._comment[2]
        self._budget -= (end if end >= 0 else len(text)) - pairs.pos
        if end < 0 or self._budget < 0:
            pairs.done = True
            return
        pairs.pos = end
        if comment:
            return
        if text[m.start() + 1] == "/":
            if pairs.unclosed:
                pairs.ends[pairs.unclosed.pop()] = end
        elif not m.group(2).endswith("/"):
            pairs.opens.add(m.start())
            pairs.unclosed.append(m.start())


_Found = tuple[int, int, int]
_COMMENT_CLOSE = re.compile("-->")


class _Limits:
    """Where a construct that stops at a paragraph's end stops, asked from an offset: the
    next blank line, line blank in its containers or break between texts pandoc reads
    apart (:attr:`~citewarden.parsing.markdown_blocks.Blocks.breaks`); :meth:`cut`, the
    next break alone, for what goes on over blank lines (raw TeX, HTML comments, which
    ``comment_breaks`` alone stop)."""

    __slots__ = ("_breaks", "_comment_breaks", "_par", "_paragraphs")

    def __init__(
        self, text: str, breaks: _Cuts, paragraphs: list[int] | None, comment_breaks: _Cuts
    ) -> None:
        self._par = _Next(text, _PAR)
        self._breaks = breaks
        self._paragraphs = paragraphs or []
        self._comment_breaks = comment_breaks

    def start(self, i: int) -> int:
        """Where the paragraph holding ``text[i]`` ends (the line break there), or -1."""
        found = self._par.start(i)
        cut = self._breaks.after(i)
        if cut >= 0 and (found < 0 or cut < found):
            found = cut
        offsets = self._paragraphs
        if offsets:
            k = bisect_left(offsets, i)
            if k < len(offsets) and (found < 0 or offsets[k] < found):
                found = offsets[k]
        return found

    def cut(self, i: int, comment: bool = False) -> int:
        """The first break at or after ``i`` (the line break there) that ends what opens
        at ``i``, or -1; ``comment``: of those that end an HTML comment."""
        return (self._comment_breaks if comment else self._breaks).after(i)


def _at_cell(cells: list[int] | None, i: int) -> bool:
    """A cell of ``cells`` (sorted offsets) starts at ``i``."""
    if not cells:
        return False
    k = bisect_left(cells, i)
    return k < len(cells) and cells[k] == i


def _cell_end(text: str, cells: list[int], i: int, limit: int) -> int:
    """``limit``, or where the simple table's cell ``i`` is in ends before it on its line
    (pandoc cuts the line into cells before it reads them; a pipe table's cell, after a
    ``|``, none: its code spans go on over its ``|``)."""
    k = bisect_right(cells, i)
    if k < len(cells) and cells[k] < limit:
        cut = cells[k]
        if text[cut - 1] != "|" and "\n" not in text[i:cut]:
            return cut
    return limit


def _in_cell(limit: int, bar: int) -> int:
    """``limit`` (-1: none), or ``bar`` before it: the ``|`` ending the pipe table's cell
    being read (pandoc cuts the cell there before it reads an attribute set or an
    autolink in it)."""
    return bar if limit < 0 or bar < limit else limit


def _bars_read(
    bars: list[int], k: int, pos: int, start: int, region: tuple[int, int] | None, out: list[int]
) -> int:
    """Note in ``out`` the ``bars`` from the ``k``-th on that stand in the text between
    ``pos`` and ``start`` (before the ``region`` skipped), those before ``pos`` passed
    over; the index of the next."""
    end = start if region is None or region[0] > start else region[0]
    while k < len(bars) and bars[k] < pos:
        k += 1
    while k < len(bars) and bars[k] < end:
        out.append(bars[k])
        k += 1
    return k


class _Cuts:
    """Breaks (offsets, sorted) with where the text each one ends began (see
    :attr:`~citewarden.parsing.markdown_blocks.Blocks.breaks_since`), nondecreasing."""

    __slots__ = ("offsets", "sinces")

    def __init__(self, offsets: list[int] | None, sinces: list[int] | None = None) -> None:
        self.offsets = offsets or []
        self.sinces = sinces if sinces is not None else [-1] * len(self.offsets)

    @staticmethod
    def merged(a: _Cuts, b: _Cuts) -> _Cuts:
        """The breaks of ``a`` and ``b`` together."""
        if not b.offsets:
            return a
        if not a.offsets:
            return b
        pairs = list(
            heapq.merge(
                zip(a.offsets, a.sinces, strict=True), zip(b.offsets, b.sinces, strict=True)
            )
        )
        return _Cuts([o for o, _ in pairs], [s for _, s in pairs])

    def after(self, i: int) -> int:
        """The first break at or after ``i`` of the text ``i`` is in, or -1: one of a
        container's text that began after ``i`` ends nothing opened at ``i`` (nor does
        any break after it, the texts coming in order)."""
        offsets = self.offsets
        k = bisect_left(offsets, i)
        return offsets[k] if k < len(offsets) and self.sinces[k] <= i else -1


class _Next:
    """The first match of a pattern in a text from an offset on, the last one remembered
    (see :func:`_first_from`): asked from offsets that grow, one pass over the text."""

    __slots__ = ("_found", "_pattern", "_text")

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self._text = text
        self._pattern = pattern
        self._found: _Found = (len(text) + 1, -1, -1)

    def start(self, i: int) -> int:
        """Where the first match from ``i`` on starts, or -1."""
        self._found = _first_from(self._text, self._pattern, i, self._found)
        return self._found[1]


def _first_from(text: str, pattern: re.Pattern[str], i: int, last: _Found) -> _Found:
    """The first match of ``pattern`` from ``i`` on: (``i``, its start, its end), or
    (``i``, -1, -1); ``last``, the previous answer, when it holds for ``i`` too (each
    search then goes on from where the last one stopped: one pass over the text)."""
    since, start, _ = last
    if since <= i and (start < 0 or start >= i):
        return last
    m = pattern.search(text, i)
    return (i, m.start(), m.end()) if m is not None else (i, -1, -1)


class _Emphasis:
    """The runs of ``*`` or ``_`` read so far that open emphasis (``*x*``, ``__x__``,
    ``***x***``), one of each length, and where the last emphasis closed: pandoc reads an
    ``@`` right after emphasis closes as after a word (``*x*@a`` cites nothing).  Runs are
    paired only within the same brackets, between blank lines: the runs open before a
    ``[`` are open again after its ``]`` (``_@a [x] _@b`` cites a alone)."""

    __slots__ = ("_bullets", "_open", "_outer", "_text", "closed_at")

    def __init__(self, text: str, bullets: list[int] | None = None) -> None:
        self._text = text
        #: where the list items' ``*`` markers stand (None: not known)
        self._bullets = bullets
        self._open: set[str] = set()
        #: the runs open outside each bracket the text is in, the innermost last
        self._outer: list[set[str]] = []
        self.closed_at = -1

    def run(self, start: int, end: int) -> None:
        """``text[start:end]`` is a run of ``*`` or of ``_``: it closes the emphasis a run
        like it opened, else opens one when no space or tab follows it (a line break may:
        ``*`` at a line's end opens, as in pandoc), nor a letter or a digit stands before a
        ``_``."""
        text = self._text
        run = text[start:end]
        if len(run) > 3:
            return
        after = text[end : end + 1]
        if run in self._open:
            if run[0] == "*" or not after.isalnum():
                self._open.discard(run)
                self.closed_at = end
            return
        if after and after not in " \t" and (run[0] == "*" or not _after_word(text, start)):
            if after in "\r\n" and run == "*" and self._is_bullet(start):
                return  # an empty list item's marker
            self._open.add(run)

    def _is_bullet(self, start: int) -> bool:
        """The ``*`` at ``start``, at a line's end, is a list item's marker: one the block
        pass read (a ``- *`` line in a paragraph is its text), else when only containers'
        markers stand before it on its line, which is no rule."""
        if self._bullets is not None:
            k = bisect_left(self._bullets, start)
            return k < len(self._bullets) and self._bullets[k] == start
        text = self._text
        line_start = text.rfind("\n", 0, start) + 1
        return (
            _ITEM_START.fullmatch(text, line_start, start) is not None
            and _RULE.match(text, line_start) is None
        )

    def enter(self) -> None:
        """A ``[``: the runs open before it close nothing inside it."""
        self._outer.append(self._open)
        self._open = set()

    def leave(self) -> None:
        """A ``]``: the runs open before its ``[`` are open again (a ``]`` no ``[`` opened
        changes nothing)."""
        if self._outer:
            self._open = self._outer.pop()

    def clear(self) -> None:
        """A blank line: the runs before it open nothing after it."""
        self._open.clear()
        self._outer.clear()


def _in_dash(text: str, i: int) -> bool:
    """The ``-`` at ``i`` ends a run of hyphens that pandoc reads as dashes with it: "---"
    an em dash, "--" an en dash, in turn from the run's start, the last one alone a
    hyphen (a run of 1, 4, 7 ... hyphens)."""
    k = i
    while k > 0 and text[k - 1] == "-":
        k -= 1
    return (i - k) % 3 != 0


def _after_word(text: str, i: int) -> bool:
    """True when ``text[i-1]`` is a letter, a digit or a dot (pandoc's notAfterString)."""
    if i == 0:
        return False
    c = text[i - 1]
    return c == "." or c.isalnum()


class _Marks:
    """Where the semicolons and the white space of a text stand, each list found in one
    pass when first asked: how many semicolons lie in a stretch, whether white space does,
    told by bisection (a search along the stretch read a nest of brackets again for each
    bracket closed)."""

    __slots__ = ("_semicolons", "_spaces", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._semicolons: list[int] | None = None
        self._spaces: list[int] | None = None

    def semicolons(self, start: int, end: int) -> int:
        """How many ``;`` stand in ``text[start:end]``."""
        if end <= start:
            return 0
        if self._semicolons is None:
            self._semicolons = [m.start() for m in _SEMICOLON.finditer(self._text)]
        found = self._semicolons
        return bisect_left(found, end) - bisect_left(found, start)

    def space_in(self, start: int, end: int) -> bool:
        """White space (``str.isspace``) stands in ``text[start:end]``."""
        if self._spaces is None:
            self._spaces = [m.start() for m in _SPACE.finditer(self._text)]
        k = bisect_left(self._spaces, start)
        return k < len(self._spaces) and self._spaces[k] < end


_SEMICOLON = re.compile(";")
_SPACE = re.compile(r"\s")


class _Bracket:
    """An open ``[`` and what it holds so far, read as pandoc's ``;``-separated parts of a
    citation group: the keys not yet in a group (its members) and the semicolons outside
    their keys, counted, with whether the first part, the last part and every part between
    hold a key.  A bracket closed inside it stands within one part, its semicolons and
    keys no part's (its keys kept for the readings of pandoc 3 before 3.8), where the
    account was made anew for each ``]`` from everything since its ``[`` (nested
    brackets: each ``]`` read the nest again)."""

    __slots__ = (
        "at",
        "blocked",
        "bracketed",
        "first_index",
        "followers",
        "gap",
        "head",
        "items",
        "last_part",
        "made_group",
        "members",
        "no_group",
        "open_at",
        "own_straddles",
        "semis",
        "straddles",
        "tail",
    )

    def __init__(self, open_at: int, first_index: int) -> None:
        self.open_at = open_at
        self.first_index = first_index  # where its keys start in the pending list
        self.at = open_at + 1  # read up to here
        self.semis = self.members = 0
        self.head = self.tail = False  # the first, the last part holds a member
        self.gap = False  # a part between two semicolons holds none
        self.straddles = 0  # members that straddle their bracket's "]"
        self.own_straddles = 0  # of them, those not in a bracket inside it
        self.bracketed = 0  # members whose braced key holds a bracket
        #: where the first block element's tag in it stands (-1: none)
        self.blocked = -1
        #: a raw TeX block starts in it where read past its "]" (``[\\section{@a]}``):
        #: its text is read alone, and it is no citation group (see :func:`_scan`)
        self.no_group = False
        #: it closed as a citation group
        self.made_group = False
        #: the members in order, those of closed brackets inside as nested lists
        self.items: list[_Pending | list[Any]] = []
        #: its own members that are not the first of their part, and the last one's part
        self.followers: list[_Pending] = []
        self.last_part = -1

    def _add(self, semis: int, members: int, head: bool, tail: bool, gap: bool) -> None:
        """Append the account of a stretch that follows."""
        if not semis:
            if not self.semis:
                self.head = self.tail = self.head or head
            else:
                self.tail = self.tail or head
        elif not self.semis:
            self.head = self.head or head
            self.tail, self.gap = tail, gap
        else:
            self.gap = self.gap or gap or not (self.tail or head)
            self.tail = tail
        self.semis += semis
        self.members += members

    def _read_to(self, i: int, marks: _Marks) -> None:
        k = marks.semicolons(self.at, i)
        if k:
            self._add(k, 0, False, False, k >= 2)
        self.at = max(self.at, i)

    def add(self, p: _Pending, marks: _Marks) -> None:
        """A key read inside it (no bracket between)."""
        self._read_to(p.span.start, marks)
        self._add(0, 1, True, True, False)
        self.at = p.span.end
        self.items.append(p)
        if self.last_part == self.semis:
            self.followers.append(p)
        self.last_part = self.semis
        if p.straddles:
            self.straddles += 1
            self.own_straddles += 1
        self.bracketed += p.bracketed

    def close(self, close_at: int, marks: _Marks) -> None:
        """Its ``]`` stands at ``close_at``."""
        self._read_to(close_at, marks)

    def all_parts_cite(self) -> bool:
        """Each ``;``-separated part holds a member."""
        return self.head and self.tail and not self.gap

    def member_list(self) -> list[_Pending]:
        """The members in order."""
        out: list[_Pending] = []
        todo: list[Iterator[Any]] = [iter(self.items)]
        while todo:
            for x in todo[-1]:
                if isinstance(x, list):
                    todo.append(iter(x))
                    break
                out.append(x)
            else:
                todo.pop()
        return out

    def _emptied(self) -> int:
        """Its account set back to nothing read; returns where it was read to."""
        close_at = self.at
        self.semis = self.members = 0
        self.head = self.tail = self.gap = False
        self.straddles = self.own_straddles = self.bracketed = 0
        self.items = []
        self.followers = []
        self.last_part = -1
        self.at = self.open_at + 1
        return close_at

    def grouped(self, marks: _Marks) -> None:
        """Its members are taken (a group, or a footnote reference's label): it holds only
        semicolons, those inside the keys too."""
        close_at = self._emptied()
        self._read_to(close_at, marks)

    def ungrouped(self, members: list[_Pending]) -> None:
        """Its ``members``, grouped, are let go again: its account stands."""
        self.items = list(members)
        self.straddles = self.own_straddles = sum(p.straddles for p in members)
        self.bracketed = sum(p.bracketed for p in members)

    def let_go(self) -> None:
        """It is no group, and its members' keys straddle no bracket: those of its own
        are looked at, those of the brackets inside only when one of theirs straddles
        (a nest of such brackets, each let go, is read once)."""
        if self.straddles:
            if self.straddles > self.own_straddles:
                members = self.member_list()
            else:
                members = [x for x in self.items if not isinstance(x, list)]
            for p in members:
                p.straddles = False
        self.straddles = self.own_straddles = 0

    def recount(self, pending: list[_Pending], marks: _Marks) -> None:
        """Its account made anew from the keys not in a group in ``pending``."""
        close_at = self._emptied()
        for p in pending[self.first_index :]:
            if p.group is None:
                self.add(p, marks)
        self._read_to(close_at, marks)

    def take(self, inner: _Bracket, marks: _Marks) -> None:
        """``inner``, closed at ``inner.at``, stands next in it: pandoc reads it within
        one part, a prefix's or a suffix's text (its semicolons separate no parts, its
        keys are no part's key)."""
        self._read_to(inner.open_at, marks)
        self.members += inner.members
        if inner.members:
            self.items.append(inner.items)
        self.straddles += inner.straddles
        self.bracketed += inner.bracketed
        self.at = inner.at + 1


def _close_group(
    text: str,
    bracket: _Bracket,
    close_at: int,
    pending: list[_Pending],
    marks: _Marks,
    balance: Balance | None = None,
    may_group: bool = True,
    opens: bool = True,
    bar: int = -1,
) -> tuple[int, list[_Pending] | None]:
    """A ``]`` closes ``bracket``: make it a citation group if pandoc would.  Returns where
    scanning resumes (after a link destination, if one follows) and the members grouped,
    else ``None`` (an empty list: its members are let go, a footnote reference's label).
    ``balance``: pandoc 3 before 3.8 counts the brackets in braced keys (see
    :func:`_counted_group`).  ``may_group``: else it is no group (a link's text at most).
    ``opens``: the ``[`` or ``{`` after it opens a label or attributes (else it is text).
    ``bar``: where the pipe table's cell it is in ends (the next ``|`` after it), if it is
    in one: a destination it cuts is left open (pandoc cuts the cell there first)."""
    open_at = bracket.open_at
    after = close_at + 1
    nxt = text[after : after + 1]
    if nxt == "(":  # link destination: not read as text
        end = _close_parens(text, after)
        return (end if end > 0 and not after < bar < end else after), None
    if not may_group:
        return after, None
    if not bracket.members or (nxt in ("[", "{") and opens) or text[open_at - 1 : open_at] == "^":
        return after, None
    if text[open_at + 1 : open_at + 2] == "^" and not marks.space_in(open_at + 2, close_at):
        # a footnote reference: its label is no key (with a space, "^" is a prefix)
        first_index = bracket.first_index
        pending[first_index:] = [p for p in pending[first_index:] if p.group is not None]
        return after, []
    # every ";"-separated part must hold a key (a ";" inside a braced key separates nothing)
    if not bracket.all_parts_cite():
        return after, None
    if (
        balance is not None
        and bracket.bracketed
        and _text_bracket(text, bracket, close_at, pending, balance)
    ):
        bracket.let_go()
        return after, None
    group = Span(open_at, close_at + 1)
    members = [x for x in bracket.items if not isinstance(x, list)]
    for p in members:
        p.group = group
    return after, members


def _block_in_bracket(
    stack: list[_Bracket], start: int, balance: Balance, emphasis: _Emphasis
) -> int:
    """A block starts at ``start`` (an HTML block element's tag, a raw TeX block) in the
    brackets of ``stack``: those no ``]`` balances after it are text (taken off the
    stack), and pandoc's reading of the innermost one's text stops there, dropping the rest
    up to its ``]`` (``[a <div> @b]``, ``[a \\par @b]`` cite nothing).  The offset of that
    ``]``, brackets in keys counted (-1: none is left)."""
    while stack:
        closing = balance.of(stack[-1].open_at)
        if closing > start:
            if stack[-1].blocked < 0:
                stack[-1].blocked = start
            return closing
        stack.pop()  # no "]" balances it after the block's start: its "[" is text
        emphasis.leave()
    return -1


def _suffix_keys_let_go(bracket: _Bracket) -> None:
    """Of the keys of a citation group, each but the first of its ``;``-separated part
    leaves the group: pandoc reads it in the part's suffix, as a citation in the text
    (``[@a, @b]`` cites ``b`` in the text), as it reads those in a bracket inside
    (``[@a [x; @b]]``)."""
    for p in bracket.followers:
        p.group = None


def _text_bracket(
    text: str, bracket: _Bracket, close_at: int, pending: list[_Pending], balance: Balance
) -> bool:
    """pandoc 3 before 3.8 reads the ``[`` of ``bracket``, closed at ``close_at`` and
    holding a braced key with a bracket, as text: no ``]`` balances it, counting the
    brackets in keys, or one before ``close_at`` does and it opens the locator of the
    in-text citation before it (what :func:`_counted_group` undoes)."""
    end = balance.of(bracket.open_at)
    if end >= close_at:
        return False
    first_index = bracket.first_index
    last = pending[first_index - 1] if first_index else None
    return end < 0 or _after_in_text(text, bracket.open_at, last)


def _cut_in_bracket(text: str, open_at: int, pending: list[_Pending], first_index: int) -> bool:
    """The bracket at ``open_at``, closed as no citation group, is a note (``^[``) holding
    a braced key that holds the ``]`` balancing it: pandoc ends the note there (every
    version), the key is text."""
    return text[open_at - 1 : open_at] == "^" and any(
        p.straddles and p.group is None for p in pending[first_index:]
    )


def _counted_group(
    text: str,
    open_at: int,
    close_at: int,
    pending: list[_Pending],
    first_index: int,
    members: list[_Pending],
    balance: Balance,
) -> int:
    """pandoc 3 before 3.8 reads the citation group ``text[open_at:close_at + 1]`` (of
    ``members``, in order) only up to the ``]`` that balances its ``[``, counting the
    brackets inside braced keys too: its members are corrected to that reading.  Returns
    the offset up to which the citations after the group are text pandoc drops (-1:
    none)."""
    if not any(text[p.span.start - 1] == "{" and _HAS_BRACKET.search(p.key) for p in members):
        return -1
    end = balance.of(open_at)
    if end == close_at:
        return -1
    if end > close_at:  # a "[" in a key: the text after the group up to "end" is dropped
        return end + 1
    if end < 0 or _after_in_text(text, open_at, pending[first_index - 1] if first_index else None):
        # no balancing "]": the "[" is text; after an in-text citation, its locator
        for p in members:
            p.group = None
            p.straddles = False
        return -1
    # a "]" in a key ends the group: that key is text, the keys before it a group when
    # the key stood in the last one's locator (no ";" between them)
    i = next((i for i, p in enumerate(members) if p.span.start <= end < p.span.end), -1)
    if i < 0:
        # the "]" ends the group though no member's key holds it: a key's "]" closed a
        # bracket inside the group first (``[@a [@{]}]]``); that key is text, the keys
        # after the "]" are no group
        group = Span(open_at, end + 1)
        for p in members:
            p.group = group if p.end <= end else None
        cut_keys = [p for p in members if _cut_by_inner(text, p, open_at, balance)]
        pending[first_index:] = [p for p in pending[first_index:] if p not in cut_keys]
        return -1
    cut = members[i]
    kept = i > 0 and ";" not in text[members[i - 1].end : cut.start]
    for p in members:
        p.group = Span(open_at, end + 1) if kept and p.start < cut.start else None
    pending.remove(cut)
    return -1


def _cut_by_inner(text: str, p: _Pending, open_at: int, balance: Balance) -> bool:
    """A ``]`` of ``p``'s braced key balances a ``[`` between ``open_at`` and it."""
    if "]" not in p.key:
        return False
    return any(
        p.span.start <= balance.of(o) < p.span.end
        for o in range(open_at + 1, p.span.start)
        if text[o] == "["
    )


_HAS_BRACKET = re.compile(r"[\[\]]")
_BRACKET_TOKENS = re.compile(r"\\[\s\S]|`+|\[|\]|\n[ \t]*\r?\n")


class Balance:
    """Where the ``]`` that balances each ``[`` of a text stands, counting every bracket
    of its paragraph but those escaped, in code spans or in raw TeX commands and their
    arguments, as pandoc counts them to find a bracket's text (brackets inside braced
    keys too): found in one pass over the text, when first asked.  ``tex_text``,
    ``tex_at_letters`` and ``tex_expand_words``: as for :func:`_scan`; ``joined``: the
    brackets pandoc 2 closes in a later paragraph (``[`` -> ``]``, see
    :func:`joined_brackets`)."""

    __slots__ = ("_closes", "_joined", "_tex", "_text")

    def __init__(
        self,
        text: str,
        tex_text: str | None = None,
        tex_at_letters: bool = False,
        tex_expand_words: bool = False,
        joined: dict[int, int] | None = None,
    ) -> None:
        self._text = text
        self._closes: dict[int, int] | None = None
        self._tex = (tex_text or text, tex_at_letters, tex_expand_words)
        self._joined = joined or {}

    def of(self, open_at: int) -> int:
        """The offset of the ``]`` balancing the ``[`` at ``open_at``; -1 when none does."""
        if open_at in self._joined:
            return self._joined[open_at]
        if self._closes is None:
            raw_tex = _RawTex(*self._tex) if "\\" in self._text else None
            self._closes = _closes(self._text, raw_tex=raw_tex)
        return self._closes.get(open_at, -1)


def _closes(
    text: str,
    across: bool = False,
    pos: int = 0,
    raw_tex: _RawTex | None = None,
    passed: list[tuple[int, int]] | None = None,
) -> dict[int, int]:
    """The ``]`` balancing each ``[`` of ``text`` from ``pos`` on (escapes and code spans
    passed over, and the raw TeX commands ``raw_tex`` reads, their arguments with them:
    each one's (start, end) added to ``passed``), in its paragraph (``across``: in the
    paragraphs after it too)."""
    closes: dict[int, int] = {}
    opened: list[int] = []
    par_end = -1
    ticks = TickRuns(text)
    while (m := _BRACKET_TOKENS.search(text, pos)) is not None:
        token = m.group()
        pos = m.end()
        if token == "[":
            opened.append(m.start())
        elif token == "]":
            if opened:
                closes[opened.pop()] = m.start()
        elif token[0] == "\\":
            if raw_tex is not None and token[1].isalpha():
                end = raw_tex.bracket_end(m.start())
                if end > pos:
                    pos = end
                    if passed is not None:
                        passed.append((m.start(), end))
        elif token[0] == "`":
            if par_end < pos:
                par = _PAR.search(text, pos)
                par_end = par.start() if par else len(text)
            closer = ticks.closer(len(token), pos, par_end)
            # a run none closes: its first backtick is text, the rest of the run opens again
            pos = closer if closer >= 0 else m.start() + 1
        elif token[0] == "\n" and not across:
            opened.clear()
    return closes


def _within(stretches: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    """``at`` lies in one of the sorted, disjoint ``stretches`` (``starts``: theirs)."""
    k = bisect_right(starts, at) - 1
    return k >= 0 and at < stretches[k][1]


def dropped_by_brackets(
    text: str, skip: list[tuple[int, int]], start: int = 0
) -> list[tuple[int, int]]:
    """The stretches of :func:`joined_brackets`, without their brackets."""
    return [(begin, end) for _, begin, end in joined_brackets(text, skip, start)]


def joined_brackets(
    text: str,
    skip: list[tuple[int, int]],
    start: int = 0,
    tex_at_letters: bool = True,
    tex_expand_words: bool = False,
) -> list[tuple[int, int, int]]:
    """Where pandoc 2 drops text (``(open_at, start, end)``, sorted by ``start``): a ``[``
    (at ``open_at``) outside the ``skip`` regions whose balancing ``]`` stands in a later
    paragraph (brackets counted across blank lines from ``start`` on, escapes, code spans
    and raw TeX commands with their arguments passed over, ``tex_at_letters`` and
    ``tex_expand_words`` as for :func:`_scan`) keeps its text up to its first blank line
    and drops the rest up to that ``]``, the paragraphs and blocks between too (``See
    [x`` , a blank line, ``@a ]``: ``@a`` is no citation; ``[``, a blank line, ``@a;\\b
    ]``: ``\\b`` takes the ``]`` as its token, ``@a`` is cited). pandoc reads the
    bracket's text again, so a blank line in a bracket inside it is that bracket's, read
    the same way (``[[``, a blank line, ``]@a;]`` cites ``a``: the inner bracket drops its
    blank line, the outer one keeps all)."""
    if "[" not in text or _PAR.search(text, start) is None:
        return []
    raw_tex = _RawTex(text, tex_at_letters, tex_expand_words) if "\\" in text else None
    tex: list[tuple[int, int]] = []
    closes = _closes(text, True, start, raw_tex, tex)
    starts = [region_start for region_start, _ in skip]
    tex_starts = [tex_start for tex_start, _ in tex]
    # the first blank line of each bracket that no bracket inside it holds (nor raw TeX:
    # ``[\\b``, a blank line, ``[@a]`` cites ``a``, the bracket is the token's)
    own: dict[int, int] = {}
    events = sorted(
        [(open_at, 0) for open_at in closes]
        + [(close_at, 2) for close_at in closes.values()]
        + [
            (m.start(), 1)
            for m in _PAR.finditer(text, start)
            if not _within(tex, tex_starts, m.start())
        ]
    )
    inside: list[int] = []  # the brackets open around, innermost last
    for at, kind in events:
        if kind == 0:
            inside.append(at)
        elif kind == 2:
            inside.pop()
        elif inside and inside[-1] not in own:
            own[inside[-1]] = at
    dropped: list[tuple[int, int, int]] = []
    regions: list[tuple[int, int]] = []  # dropped stretches around the bracket read
    for open_at in sorted(own):
        while regions and regions[-1][1] <= open_at:
            regions.pop()
        if regions and regions[-1][0] <= open_at:
            continue  # in a stretch a bracket around it drops
        k = bisect_right(starts, open_at) - 1
        if k >= 0 and open_at < skip[k][1]:
            continue  # in code or another region not read as text
        dropped.append((open_at, own[open_at], closes[open_at]))
        regions.append((own[open_at], closes[open_at]))
    dropped.sort(key=lambda d: d[1])
    return dropped


def _after_in_text(text: str, open_at: int, last: _Pending | None) -> bool:
    """The ``[`` at ``open_at`` follows the in-text citation ``last`` (space and at most
    one line break between): it opens that citation's locator."""
    if last is None or last.group is not None:
        return False
    gap = text[last.end : open_at]
    return not gap.strip(" \t\r\n") and gap.count("\n") <= 1


#: Longest link destination read, in characters.
_MAX_DESTINATION = 2_000
_PAREN_TOKENS = re.compile(r"\\[\s\S]|[()]")
_SIMPLE_DESTINATION = re.compile(r"\((?:[^()\\\n]|\\.)*\)")


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


_DISPLAY_CLOSE = re.compile(r"\$\$")
_LINE_OPENERS = re.compile(r"\\[\s\S]|`++|<!--|\$\$?+")
#: the same and a raw HTML tag's name: what a pipe table's row reads whole
_ROW_OPENERS = re.compile(r"\\[\s\S]|`++|<!--|\$\$?+|<(/?[A-Za-z][A-Za-z0-9-]{0,30})(?=[\s/>])")


class LineCrossings:
    """Whether a line's text opens an inline construct that closes past its end (a code
    span, an HTML comment, TeX math, raw TeX), and where: pandoc then reads no setext
    heading there, and no block starts in the lines it covers.  Asked of lines in order,
    each question reads its line and looks the closers up."""

    __slots__ = ("_comments", "_display", "_math", "_par", "_raw_tex", "_text", "_ticks")

    def __init__(
        self, text: str, tex_at_letters: bool = False, tex_expand_words: bool = False
    ) -> None:
        self._text = text
        self._ticks = TickRuns(text)
        self._raw_tex = _RawTex(text, tex_at_letters, tex_expand_words)
        self._comments = _Next(text, _COMMENT_CLOSE)
        self._math = _Next(text, _MATH_CLOSE)
        self._display = _Next(text, _DISPLAY_CLOSE)
        self._par = _Next(text, _PAR)

    def crosses(self, start: int, end: int) -> bool:
        """A construct opened in ``text[start:end]`` (a line, ``end`` at its line break)
        closes after ``end``."""
        return self.reach(start, end) > end

    def reach(self, start: int, end: int, tags: bool = False) -> int:
        """Where the construct opened in ``text[start:end]`` (a line, ``end`` at its line
        break) that closes after ``end`` closes (its lines are its text, no block's), or
        -1 when none does; ``tags``: a raw HTML tag is one too (a pipe table's row)."""
        text = self._text
        par = self._par.start(end)
        limit = len(text) if par < 0 else par
        pos = start
        openers = _ROW_OPENERS if tags else _LINE_OPENERS
        # a tag's name may end the line: its look-ahead sees the line break
        stop = min(end + 1, len(text)) if tags else end
        while (m := openers.search(text, pos, stop)) is not None and m.start() < end:
            token, at = m.group(), m.start()
            close = -1
            if m.lastindex:  # a tag's name: the tag ends after its ">" (none: text)
                close = _tag_end(text, m.end())
                close = close if m.end() < close <= limit else -1
            elif token[0] == "\\":
                if token[1].isalpha():
                    close = self._raw_tex.end(at)
            elif token[0] == "`":
                close = self._ticks.closer(len(token), m.end(), limit)
                if close < 0:  # its first backtick is text, the rest opens again
                    pos = at + 1
                    continue
            elif token == "<!--":
                found = self._comments.start(m.end())
                close = found + 3 if found >= 0 else -1
            elif token == "$$":
                found = self._display.start(at + 2)
                close = found + 2 if 0 <= found < limit else -1
            else:
                close = _inline_math_close(text, at, limit, self._math)
            if close > end:
                return close
            pos = max(close, m.end())
        return -1
