"""Block structure of a pandoc Markdown document for the Markdown reader: fenced and
indented code blocks, raw HTML blocks of a ``<pre>``, ``<script>``, ``<style>`` or
``<textarea>`` element, and YAML metadata blocks (read as metadata), as pandoc delimits
them.  See :mod:`~citewarden.parsing.markdown`.

One pass over the lines keeps the containers a line is in, as pandoc's reader nests them:
block quotes (a line goes on in one with its ``>``; its content starts a column after the
``>``, two with a space after it) and list items (their content starts where the text
after the marker does, or a column past the marker when five or more spaces follow it),
definitions and footnotes (four columns in).  A line is indented code when its text lies
four columns or more past the content column of its innermost container where a block
may start: after a blank line, on the container's first line, or after a block that ends
at its line (an ATX or setext heading, a rule, a fence, a pipe or grid table, a fenced
div's fence, a ``<div>`` tag or an HTML element's end tag, an HTML comment, a reference
definition).  So a list item's indented paragraph (``- item``, a blank line, ``    more``)
is text, and ``1. item``, a blank line, ``        code`` is code.  Tabs stop every four
columns.  A line without a block quote's ``>`` (a lazy line) is the quote's text, its
indentation dropped, unless it starts with a ``>``, a backtick fence or, in a list, a list
item: the quote ends there.

The pass also notes where pandoc reads the text apart from the text before it (a list
item's, a definition's, a footnote's, a table row's, a quote's paragraph: no inline
construct goes on past there, see :attr:`Blocks.breaks`) and the footnotes defined (pandoc
drops the ones no note reference names), and a line starting with a note's marker ends a
footnote's lines.

A code fence that no later fence of its character as long (or longer) closes opens no code
block: pandoc (2.17, 3.6.1 and 3.9) reads the line as text, and what follows it; a ``~~~``
fence does not interrupt a paragraph (but a list item's lines).  A fenced div's opening
fence is one whether or not a fence closes it, as pandoc 3 reads it (pandoc 2 reads an
unclosed one as text).  A simple table's lines (the dashes under its header indented up to
three spaces too), a multiline table's and a table's with no header row are cut into their
cells where pandoc cuts them (:attr:`Blocks.cells`); a header with no row under its dashes
is a paragraph's text.  HTML blocks other than the ones above are read as paragraphs.  Each line is read in time linear in its length (a
fence's closing line is found from a table of the text's fence lines).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from citewarden.model import Span
from citewarden.parsing.markdown_inline import (
    _ATTRIBUTE,
    _BLOCK_TAG,
    _INTERRUPTING_TAG,
    _SIMPLE_KEY_RE,
    LineCrossings,
    Verbatim,
    _Pending,
    _Scan,
    _scan,
    _within,
    block_tag_end,
    joined_brackets,
)
from citewarden.parsing.pandoc_syntax import PANDOC_3_9, PandocDialect
from citewarden.parsing.yamlmeta import Metadata, read_metadata

#: a code fence at a line's first character (after its containers' markers)
_FENCE = re.compile(r"(`{3,}|~{3,})([^\n]*)")
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
#: a line that starts with a verbatim element (its content may hold what looks like a
#: fence or a metadata block: it is neither)
_VERBATIM_LINE = re.compile(r" {0,3}<(?:pre|script|style|textarea)(?=[\s/>])", re.I)
#: a verbatim element's start tag
_VERBATIM_TAG = re.compile(r"<(?:pre|script|style|textarea)(?=[\s/>])", re.I)
#: a line that may close a fence: only backticks or only tildes (after block quote marks)
_CLOSER = {
    char: re.compile(r"^[ \t]*(?:>[ \t]?)*(" + re.escape(char) + r"{3,})[ \t]*\r?$", re.M)
    for char in "`~"
}
_BULLET = re.compile(r"[-+*](?=[ \t]|$)")
#: an ordered list marker: decimal, ``#``, a letter or a roman numeral, an example label
#: (``@good``), followed by ``.``, ``)`` or in parentheses; an upper-case letter with a
#: period wants two spaces (or a tab) after it (``B. Russell`` is text), or the line's end
_ORDERED = re.compile(
    r"(?!p\.[ \t]+\d)(?:\((?:\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+|@[\w-]*)\)"
    r"|(?:\d+|#|[a-z]|[ivxlcdmIVXLCDM]{2,}|@[\w-]*)[.)]|[A-Z]\)"
    r"|[A-Z]\.(?=\t|  |[ \t]*+\r?$))(?=[ \t]|$)"
)
_DEFINITION = re.compile(r"[:~][ \t]")
_NOTE = re.compile(r"\[\^([^\]\s]+)\]:")
#: a note's marker, which ends a footnote's lines (pandoc's noteMarker)
_NOTE_MARKER = re.compile(r"\[\^[^\]\s]+\]")
_ATX = re.compile(r"#{1,6}(?=[ \t]|$)")
_SETEXT = re.compile(r"[=-]+[ \t]*$")
#: a simple table's line under its header: dashes in two columns or more
_SIMPLE_BREAK = re.compile(r"-++(?:[ \t]++-++)++[ \t]*+$")
#: a line of dashes in one column or more, up to three spaces in: a table's top or bottom
_TABLE_EDGE = re.compile(r" {0,3}+-++(?:[ \t]++-++)*+[ \t]*+\r?$")
#: one column's dashes in it, and the white space after them
_DASHES = re.compile(r"-++([ \t]*+)")
_DASH_RUN = re.compile(r"-+")
_PIPE_BREAK = re.compile(r"\|?[ \t]*:?-+:?(?:[ \t]*\|[ \t]*:?-+:?)*(?:[ \t]*\|)?[ \t]*$")
_GRID_TOP = re.compile(r"\+(?:[-=:]+\+)+[ \t]*$")
_CAPTION = re.compile(r"(?::(?![!-/:-@\[-`{-~])|Table:)")
_DIV_FENCE = re.compile(r":{3,}[ \t]*(\S?)")
_DIV_CLOSER = re.compile(r"^[ \t>]*+:{3,}+[ \t]*+\r?$", re.M)
#: an opening fence's class, a word alone on its line (``:::@key`` names the class
#: ``@key``, ``::: {.a`` the class ``{.a``: pandoc reads it as no text)
_DIV_WORD = re.compile(r":{3,}+[ \t]*+(\S++)[ \t]*+(?::++[ \t]*+)?$")
#: an opening fence's attributes, alone on its line (else the line is a paragraph's)
_DIV_ATTRIBUTES = re.compile(r":{3,}+[ \t]*+\{[^\n]*\}[ \t]*+(?::++[ \t]*+)?$")
#: a line that is a ``<div>``'s start tag (its content is Markdown: a block may start after
#: it), or an HTML block element's end tag (a block may start after it)
_DIV_START = re.compile(r"<div(?:\s[^<>]*)?>[ \t]*$", re.I)
_BLOCK_END = re.compile(
    r"</(?:address|article|aside|blockquote|body|canvas|caption|center|col|colgroup|dd"
    r"|details|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header"
    r"|hgroup|hr|html|li|main|menu|nav|ol|p|section|summary|table|tbody|td|tfoot|th|thead"
    r"|tr|ul)[ \t]*>[ \t]*$",
    re.I,
)
#: what may open a span that goes on past a heading's line (a code span, math, an HTML
#: comment, raw TeX), as pandoc reads it; emphasis does not
_HEADING_SPANS = re.compile(r"[`$\\]|<!--")
#: a line starting with a list item's marker: its indentation
_ITEM_LINE = re.compile(r"^([ \t]*)(?:[-+*]|[0-9]{1,9}[.)]|#[.)]|\(?[A-Za-z][.)])[ \t]", re.M)
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_REF_SPNL = r"[ \t]*+(?:\r?\n[ \t]*+)?+"
_REF_TITLE = r"(?:\"[^\"\n]*+\"|'[^'\n]*+'|\([^()\n]*+\))"
#: an attribute set ``{#id .class key="value"}`` (pandoc's ``link_attributes``)
_REF_ATTRIBUTES = r"\{" + _REF_SPNL + r"(?:" + _ATTRIBUTE + _REF_SPNL + r")*+\}"


def _reference_tail(label: str) -> re.Pattern[str]:
    """What follows a link reference definition's ``[label]:``: its destination
    (``<...>``, or words on one line, up to a title, an attribute set or a ``label``,
    bracketed text that is a link's label), a title (``"..."``, ``'...'``, ``(...)``), an
    attribute set, each may start on the next line, and nothing else up to the end of the
    line (else the line is a paragraph's)."""
    word = r"(?!" + _REF_TITLE + r"|" + label + r"|" + _REF_ATTRIBUTES + r")\S++"
    return re.compile(
        _REF_SPNL
        + r"(?!\[)(?:<[^<>\n]*+>|"
        + word
        + r"(?:[ \t]++"
        + word
        + r")*+)?+(?:"
        + _REF_SPNL
        + _REF_TITLE
        + r")?+(?:"
        + _REF_SPNL
        + _REF_ATTRIBUTES
        + r")?+[ \t]*+(?=\r?\n|\Z)"
    )


#: pandoc 3: a note's marker (``[^1]``) is no label, ``[^a b]`` is one; pandoc 2: no
#: bracketed text starting with ``^`` is one
_REFERENCE_TAIL = _reference_tail(r"(?!\[\^[^\]\s]++\])\[[^\]\n]*+\]")
_REFERENCE_TAIL_2 = _reference_tail(r"\[(?!\^)[^\]\n]*+\]")
#: what a line of ``=`` or ``-`` starts with, in its containers
_MAYBE_UNDERLINE = re.compile(r"[ \t>]*+[=-]")
#: a line and a definition's marker on the next line, or after a blank line: the line is
#: a term
_TERM = re.compile(r"[^\n]*+\n(?:[ \t]*+\n)?+ {0,3}[:~][ \t]")
#: pandoc 3.9: a line followed by a definition's marker alone on its line, a term
_BARE_TERM = re.compile(r"[^\n]*+\n(?:[ \t]*+\n)?+ {0,3}[:~](?:\n|\Z)")
_LABEL_TOKENS = re.compile(r"\\.|[\[\]]")


@dataclass(slots=True)
class Note:
    """A footnote's definition: its label and the text from its ``[^label]:`` line to the
    start of the line after it (pandoc drops it when no note reference names it)."""

    label: str
    start: int
    end: int


@dataclass(slots=True)
class Blocks:
    #: Sorted, disjoint ``(start, end)`` regions not to read as text.
    skip: list[tuple[int, int]] = field(default_factory=list)
    metadata: list[Metadata] = field(default_factory=list)
    #: ``(start, end)`` of the YAML text of each of :attr:`metadata`, between its fences.
    regions: list[tuple[int, int]] = field(default_factory=list)
    #: The indented code blocks of :attr:`skip`.
    indented: list[tuple[int, int]] = field(default_factory=list)
    #: Sorted offsets of the line breaks after which pandoc reads the text apart from the
    #: text before (it cuts a container's lines out before it reads them): a definition
    #: starts on the next line, or, right after a line of text, a footnote, a block quote
    #: or a pipe table's separator line.  No code span, math, bracket, raw TeX or HTML
    #: comment goes on past one.  (After a blank line, a paragraph's HTML comment or raw TeX goes on
    #: over a block quote or a footnote: pandoc reads those as they come.)
    breaks: list[int] = field(default_factory=list)
    #: Likewise, where a list item starts that ends the one before (at its level or an
    #: outer one), after a blank line too; an HTML comment goes on past one in pandoc
    #: before 3.9, whose list reader reads a comment whole with the line it opens on.
    item_breaks: list[int] = field(default_factory=list)
    #: Where the run of containers (or the table, the line block) each of :attr:`breaks`
    #: and :attr:`item_breaks` ends the text of began (a definition's: its term's): a
    #: construct opened before it goes on past the break, as pandoc read that text as it
    #: came, the containers not yet there (a paragraph's HTML comment over a blank line
    #: and the list after it).
    breaks_since: list[int] = field(default_factory=list)
    item_breaks_since: list[int] = field(default_factory=list)
    #: Sorted offsets of the line breaks where a paragraph ends though no blank line
    #: stands there as the text stands: before a line blank in its containers (``>``
    #: alone in a block quote), or a list item's first sub-item.
    paragraphs: list[int] = field(default_factory=list)
    #: The footnotes defined, in order.
    notes: list[Note] = field(default_factory=list)
    #: The labels of the example list items (``(@good)``, ``@good.``), in order.
    examples: list[str] = field(default_factory=list)
    #: Where pandoc's title block (its ``%`` lines at the text's start) ends.
    title_end: int = 0
    #: Sorted offsets of the line breaks before a pipe table's body row and of the ``|`` in
    #: its rows: pandoc reads each cell's text apart (no bracket or emphasis goes on past
    #: one), but a code span, math, raw TeX or HTML in a cell goes on over the ``|`` and
    #: the rows after it as far as it would in a paragraph (an escaped ``|`` is text).
    rows: list[int] = field(default_factory=list)
    #: Sorted offsets where a simple table's header or row line is cut into its cells:
    #: pandoc reads each cell's text apart, cut at the columns where the dashes under the
    #: header start, whatever stands there (``x @k2`` under ``--- ---`` is ``x @k`` and
    #: ``2``); see :func:`cut_at_cells`.  Likewise after each ``|`` of a pipe table's row
    #: (``@{a|b}`` cites nothing there).
    cells: list[int] = field(default_factory=list)
    #: A pipe table's rows: where the text of each starts, where it ends and how many
    #: columns the table has (pandoc drops the cells past them).
    pipe_rows: list[tuple[int, int, int]] = field(default_factory=list)
    #: Sorted, disjoint ``(start, end)`` of the block quotes' ``>`` markers before the text
    #: of a line going on in them (raw TeX reads past them to a command's arguments).
    quote_marks: list[tuple[int, int]] = field(default_factory=list)
    #: Sorted offsets of the ``*`` markers of list items (one at a line's end opens no
    #: emphasis).
    bullets: list[int] = field(default_factory=list)
    #: Offsets of the ``<`` the pass read where a block may start (a tag there is read as
    #: a block's, or as text when no block starts at it).
    tag_starts: set[int] = field(default_factory=set)
    #: Offsets of the ``\\`` that start a paragraph's text (pandoc reads some commands
    #: there as a raw TeX block, see
    #: :data:`~citewarden.parsing.pandoc_tex.TEX_BLOCK_START_COMMANDS`).
    tex_starts: set[int] = field(default_factory=set)


def block_structure(path: Path, text: str, dialect: PandocDialect = PANDOC_3_9) -> Blocks:
    """One pass over the lines: fenced and indented code blocks, verbatim HTML elements,
    YAML metadata blocks, link reference definitions, as the pandoc of ``dialect`` reads
    them."""
    return _Reader(path, text, dialect=dialect).read()


def scan_blocks(
    text: str,
    blocks: Blocks,
    counted_brackets: bool = False,
    list_comments: bool = False,
    tex_at_letters: bool = False,
    tex_expand_words: bool = False,
    joined: list[tuple[int, int, int]] | None = None,
    groups_before_text: bool = False,
) -> _Scan:
    """The inline reading of ``text`` within the ``blocks`` the block pass found in it (see
    :func:`~citewarden.parsing.markdown_inline._scan` for the flags and ``joined``)."""
    return _scan(
        text,
        blocks.skip,
        counted_brackets,
        blocks.breaks,
        blocks.paragraphs,
        blocks.item_breaks,
        list_comments,
        blocks.rows,
        blocks.breaks_since,
        blocks.item_breaks_since,
        tex_at_letters,
        tex_expand_words,
        blocks.bullets,
        joined,
        groups_before_text,
        [bar for start, end, _ in blocks.pipe_rows for bar in _pipe_bars(text, start, end)],
        _unquoted(text, blocks.quote_marks) if "\\" in text else None,
        blocks.cells,
        blocks.tex_starts,
    )


def _unquoted(text: str, marks: list[tuple[int, int]]) -> str | None:
    """``text`` with the ``marks`` (see :attr:`Blocks.quote_marks`) as spaces, or None
    when there are none."""
    if not marks:
        return None
    parts, at = [], 0
    for start, end in marks:
        parts += [text[at:start], " " * (end - start)]
        at = end
    parts.append(text[at:])
    return "".join(parts)


#: how many times a text is read again with the block elements' tags found in it
_TAG_ROUNDS = 4


def read_blocks(
    path: Path, text: str, dialect: PandocDialect = PANDOC_3_9, metadata: bool = True
) -> tuple[Blocks, _Scan]:
    """The block structure of ``text`` and its inline reading, as the pandoc of ``dialect``
    reads them.  A block element's tag the inline reading finds in a paragraph's text (not
    at its line's start, nor in a bracket, code, a comment ...) ends the text there and a
    block starts at it (``a <div> @x.`` opens an example list), as after a raw TeX block
    (on its line, or at the next line's text when it ends the line): the block pass reads
    the text again with those places, the inline reading after it, a few rounds at most;
    a line a raw TeX block leads is no definition's term (pandoc reads the block first)."""
    tags: set[int] = set()
    lead: set[int] = set()
    blocks = _Reader(path, text, metadata, dialect).read()
    scan = _dialect_scan(text, blocks, dialect)
    for _ in range(_TAG_ROUNDS):
        found = (set(scan.block_tags) - blocks.tag_starts).union(scan.line_blocks) - tags
        if not found and (not tags or lead.issuperset(scan.lead_blocks)):
            break  # (a raw TeX block leading a line matters with a forced place only)
        tags |= found
        lead |= set(scan.lead_blocks)
        blocks = _Reader(path, text, metadata, dialect, sorted(tags), lead).read()
        scan = _dialect_scan(text, blocks, dialect)
    if blocks.cells:
        scan.pending = cut_at_cells(text, scan.pending, blocks.cells)
    if blocks.pipe_rows:
        scan.pending = _in_columns(text, scan.pending, blocks.pipe_rows, scan.bars_read)
    return blocks, scan


def _pipe_bars(text: str, start: int, end: int) -> list[int]:
    """The offsets of the ``|`` in a pipe table's row from ``start`` to ``end``, but the
    escaped ones."""
    bars = []
    bar = text.find("|", start, end)
    while bar >= 0:
        k = bar
        while k > start and text[k - 1] == "\\":
            k -= 1
        if (bar - k) % 2 == 0:
            bars.append(bar)
        bar = text.find("|", bar + 1, end)
    return bars


def _in_columns(
    text: str, pending: list[_Pending], rows: list[tuple[int, int, int]], bars: list[int]
) -> list[_Pending]:
    """The citations of ``pending`` but those in a pipe table's cells past its columns:
    the ``bars`` read in the text (no leading one) separate a row's cells."""
    starts = [start for start, _, _ in rows]
    kept = []
    for p in pending:
        k = bisect_right(starts, p.start) - 1
        if k >= 0 and p.start < rows[k][1]:
            start, _, columns = rows[k]
            first = start + (text[start] == "|")  # a leading "|" separates nothing
            if bisect_left(bars, p.start) - bisect_left(bars, first) >= columns:
                continue
        kept.append(p)
    return kept


def cut_at_cells(text: str, pending: list[_Pending], cells: list[int]) -> list[_Pending]:
    """``pending`` as pandoc reads them in a simple table's cells (:attr:`Blocks.cells`): a
    key a cell's start cuts ends there (``@k`` of ``@k2``, trailing punctuation dropped),
    a citation cut between its ``@`` and its key, or in a braced key, is none; a citation
    group a cell starts in on its first line (not a pipe table's cell, after a ``|``) is
    no group, its ``[`` left open."""
    kept: list[_Pending] = []
    for p in pending:
        if p.group is not None and _cut_group(text, p.group, cells):
            p.group, p.end = None, p.span.end
        at = p.start + p.dash
        k = bisect_right(cells, at)
        if k == len(cells) or cells[k] >= p.span.end + (text[at + 1 : at + 2] == "{"):
            kept.append(p)  # no cell starts in it
            continue
        cut = cells[k]
        if cut <= p.span.start or text[at + 1 : at + 2] == "{":
            continue
        m = _SIMPLE_KEY_RE.match(text, p.span.start, cut)
        if m is not None and m.end() > m.start():
            p.key, p.span = m.group(), Span(m.start(), m.end())
            if p.group is None:
                p.end = m.end()
            kept.append(p)
    return kept


def _cut_group(text: str, group: Span, cells: list[int]) -> bool:
    """A simple table's cell starts in ``group`` on the line it opens on."""
    line_end = text.find("\n", group.start, group.end)
    first_line = group.end if line_end < 0 else line_end + 1  # (a cell at its end: on it)
    k = bisect_right(cells, group.start)
    while k < len(cells) and cells[k] < first_line:
        if text[cells[k] - 1] != "|":
            return True
        k += 1
    return False


def _dialect_scan(text: str, blocks: Blocks, dialect: PandocDialect) -> _Scan:
    joined = None
    if dialect.brackets_across_paragraphs:
        joined = joined_brackets(
            text,
            blocks.skip,
            blocks.title_end,
            dialect.tex_at_letters,
            dialect.tex_expandafter_words,
        )
    return scan_blocks(
        text,
        blocks,
        dialect.counted_brackets,
        dialect.list_comments,
        dialect.tex_at_letters,
        dialect.tex_expandafter_words,
        joined,
        dialect.groups_before_text,
    )


def string_citations(value: str) -> tuple[list[tuple[str, int, int]], list[str]]:
    """The citations of a metadata string ``value``, which pandoc reads as a Markdown
    document of its own (blocks, code, math, comments, escapes as in the text; no metadata
    block in it), and the labels of its footnote references: ((key, start, end) in
    ``value``, labels)."""
    # lines of text alone make paragraphs: no block pass
    if _has_blocks(value):
        blocks, scan = read_blocks(Path(), value, metadata=False)
    else:
        blocks = Blocks()
        scan = scan_blocks(value, blocks)
    pending = scan.pending
    if blocks.notes:
        pending = unread_notes_dropped(pending, blocks.notes, scan.note_refs)
    keys = [(p.key, p.span.start, p.span.end) for p in pending]
    return keys, [label for label, _ in scan.note_refs]


#: a line the block pass may read as more than a paragraph's: indented, starting with a
#: character that is no letter or digit (a marker, a fence, a quote, a table, a tag, a note,
#: a heading's underline, a definition ...), or with what may be a list's number or letter
_BLOCK_LINE = re.compile(r"^(?:[ \t]|[^\sA-Za-z0-9]|[A-Za-z0-9]++[.)])", re.M)


def _has_blocks(value: str) -> bool:
    """The string ``value`` may hold more than paragraphs of text: the block pass reads it
    (one line: when it starts with white space, a tag or a bracket; a line of its own is a
    paragraph's, its block read alike)."""
    if "\n" not in value:
        return value[:1] in (" ", "\t", "<", "[")
    return _BLOCK_LINE.search(value) is not None


def unread_notes_dropped(
    pending: list[_Pending],
    notes: list[Note],
    refs: list[tuple[str, int]],
    labels: list[str] | None = None,
) -> list[_Pending]:
    """The citations of ``pending`` but those in the footnotes pandoc drops: those no note
    reference names outside the footnotes (``refs``: (label, offset) of those read in the
    text, an inline note's too; ``labels``: those of the metadata; labels compared
    exactly), and each but the last of a label defined twice."""
    inside = _union([(note.start, note.end) for note in notes])
    starts = [start for start, _ in inside]
    named = {label for label, at in refs if not _within(inside, starts, at)}
    named.update(labels or ())
    last = {note.label: k for k, note in enumerate(notes)}
    dropped = _union(
        [
            (note.start, note.end)
            for k, note in enumerate(notes)
            if note.label not in named or last[note.label] != k
        ]
    )
    if not dropped:
        return pending
    starts = [start for start, _ in dropped]
    return [p for p in pending if not _within(dropped, starts, p.start)]


def _union(stretches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of ``stretches`` as sorted, disjoint stretches."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(stretches):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


@dataclass(slots=True)
class _Box:
    """A container a line may be in: a block quote, or a list item, a definition or a
    footnote (whose content starts at column ``col``)."""

    quote: bool
    col: int = 0
    list_item: bool = False
    definition: bool = False
    #: a footnote's: its index in :attr:`Blocks.notes`
    note: int = -1
    #: a list item's marker style (see :func:`_marker_style`)
    style: str = ""


@dataclass(slots=True)
class _Code:
    """An indented code block being read: in the first ``depth`` containers, its content
    column ``base``, from ``start`` to ``end`` (its last line with text)."""

    depth: int
    base: int
    start: int
    end: int


class _Closers:
    """The lines that may close a fence of ``char``: the first one at or after an offset
    as long as a fence or longer, each look-up at most as many steps as the fence is long
    (a chain of ever longer lines), so a text of many unclosed fences is read in linear
    time."""

    def __init__(self, text: str, char: str) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.lengths: list[int] = []
        for m in _CLOSER[char].finditer(text):
            self.starts.append(m.start())
            self.ends.append(m.end())
            self.lengths.append(len(m.group(1)))
        count = len(self.starts)
        #: the next line longer than each
        self.longer = [count] * count
        stack: list[int] = []
        for i in range(count - 1, -1, -1):
            while stack and self.lengths[stack[-1]] <= self.lengths[i]:
                stack.pop()
            if stack:
                self.longer[i] = stack[-1]
            stack.append(i)

    def find(self, offset: int, length: int) -> int | None:
        """The end of the first closing line at or after ``offset`` for a fence
        ``length`` long; None when there is none."""
        i = bisect_left(self.starts, offset)
        count = len(self.starts)
        while i < count and self.lengths[i] < length:
            i = self.longer[i]
        return self.ends[i] if i < count else None


def _is_rule(line: str, j: int) -> bool:
    """``line`` from ``j`` on is a rule: three or more ``-``, ``*`` or ``_`` (one of
    them) and spaces, in time linear in its length (a regular expression would try
    again from each marker of ``- - - x``, a line of list items)."""
    ch = line[j]
    if ch not in "-*_":
        return False
    rest = line.rstrip(" \t")
    if rest[-1] != ch:
        return False
    tail = len(rest.rstrip(ch + " \t"))
    return j >= tail and rest.count(ch, j) >= 3


def _skip(line: str, i: int, col: int) -> tuple[int, int]:
    """Index and column of the first character from ``i`` (at column ``col``) that is no
    space, tab (to the next multiple of four) or carriage return (pandoc drops it)."""
    n = len(line)
    while i < n:
        c = line[i]
        if c == " ":
            col += 1
        elif c == "\t":
            col += 4 - col % 4
        elif c != "\r":
            break
        i += 1
    return i, col


class _Reader:
    def __init__(
        self,
        path: Path,
        text: str,
        metadata: bool = True,
        dialect: PandocDialect = PANDOC_3_9,
        tags: list[int] | None = None,
        lead: set[int] | None = None,
    ) -> None:
        self.path = path
        self.text = text
        #: sorted offsets of the block elements' tags the inline reading found in the text
        #: (see :attr:`~citewarden.parsing.markdown_inline._Scan.block_tags`)
        self.tags = tags or []
        #: where a raw TeX block starts a paragraph's text (see
        #: :attr:`~citewarden.parsing.markdown_inline._Scan.lead_blocks`): its line is no
        #: definition's term (pandoc reads the raw TeX block first)
        self.lead = lead or set()
        #: the line :meth:`_term` was last asked about, and its answer
        self.term_asked = (-1, False)
        self.dialect = dialect
        #: the columns where a simple table's line is cut into cells (its dashes' starts),
        #: counted from its containers' content column
        self.columns: list[int] = []
        #: the end of the lines of a table with no header row or of a multiline table (a
        #: row goes on over its lines, blank lines between the rows): each line's cells
        #: are cut at :attr:`columns`
        self.table_until = -1
        #: how many columns the pipe table being read has
        self.pipe_columns = 0
        #: where a code span, math, raw TeX or HTML opened in the pipe table's row above
        #: closes, past that row's line (-1: none): pandoc reads the lines up to
        #: it, and the rest of the line it closes on, as the same row
        self.row_until = -1
        #: a YAML metadata block may be read (not in a metadata string)
        self.metadata = metadata
        self.out = Blocks()
        self.stack: list[_Box] = []
        #: how many of :attr:`stack` are list items
        self.items = 0
        self.code: _Code | None = None
        self.verbatim: Verbatim | None = None
        self.closers: dict[str, _Closers] = {}
        self.crossings: LineCrossings | None = None
        #: where the HTML comment or raw TeX a paragraph's line opened closes (past the
        #: line: its lines are the paragraph's text)
        self.reach = -1
        #: a block may start on the next line (in its innermost container)
        self.open = True
        #: the previous line was blank (in the containers it continued)
        self.blank = True
        #: a metadata block may start on the next line
        self.yaml = True
        #: the previous line was a paragraph's first (a setext heading's text, a table's
        #: header row, a term), with a ``|`` in it
        self.para_first = False
        self.pipe = False
        #: the line before the blank line before was a paragraph's first (a term)
        self.term = False
        #: the rows of a table go on: "pipe", "grid" or "simple"
        self.table: str | None = None
        #: the lines of a line block (``| ``) go on
        self.lines = False
        #: the last of them is a ``|`` alone: no line goes on in it
        self.lines_empty = False
        #: the last of them was cut at a block element's tag: the lines going on in it are
        #: dropped with the rest of it
        self.lines_cut = False
        #: the previous line was a footnote's marker with nothing after it: the lines
        #: after one blank line are its first (pandoc's optional blank line there)
        self.empty_note = False
        #: that footnote, its first lines read at its marker's column up to a blank line
        self.note_lines: _Box | None = None
        #: how many fenced divs are open
        self.divs = 0
        #: the next line of colons alone at or after the last offset asked about (past
        #: the text's end: none)
        self.div_closer = -1
        #: no HTML comment ends at or after this offset
        self.no_comment_end = len(text) + 1
        #: the start of the line being read
        self.pos = 0
        #: where the rest of a line after a raw HTML block that ended on it starts: it is
        #: read as a line in the containers open there
        self.resume = -1
        #: the line before it was blank (in the containers it went on in, or as it stands)
        self.after_blank = True
        #: a list item ended on the line being read
        self.item_ended = False
        #: the marker style of the outermost list item that ended last
        self.ended_style = ""
        #: how many containers the line being read started in
        self.depth_at_start = 0
        #: where the run of containers, the table or the line block the line is in began
        self.run_start = 0
        #: where the last paragraph began (a definition's term)
        self.para_start = 0
        #: where the text of the paragraph's first line starts, its column and the content
        #: column of its containers (a simple table's header)
        self.para_text = (0, 0, 0)

    def read(self) -> Blocks:
        text = self.text
        n = len(text)
        pos = 1 if text.startswith("\ufeff") else 0
        if self.metadata and text.startswith("%", pos):
            pos = self._title_block(pos)
        while pos < n:
            nl = text.find("\n", pos)
            line_end = n if nl < 0 else nl
            next_pos = n if nl < 0 else nl + 1
            line = text[pos:line_end]
            if line.endswith("\r"):
                line = line[:-1]
            if self.code is not None and self._code_goes_on(line, line_end):
                pos = next_pos
                continue
            if self.code is not None:  # it ended before this line: read what follows
                pos = self._end_code()
                continue
            self.pos = pos
            self.after_blank = self.blank
            self.item_ended = False
            self.depth_at_start = len(self.stack)
            pos = self._line(pos, line_end, line, next_pos)
        if self.code is not None:
            self._end_code()
        return self.out

    def _title_block(self, pos: int) -> int:
        """After pandoc's title block at ``pos``: up to three ``%`` lines (title, authors,
        date), each with the lines after it that start with white space, read apart from
        each other and from what follows (where a block may start)."""
        text = self.text
        n = len(text)
        for _ in range(3):
            if not text.startswith("%", pos):
                break
            start = pos
            pos = _line_start_after(text, pos)
            while (
                pos < n and text[pos] in " \t" and text[pos : _line_start_after(text, pos)].strip()
            ):
                pos = _line_start_after(text, pos)
            forced = self._forced_tag(start + 1, pos)
            if forced >= 0:  # a block element's tag or raw TeX block: the rest is dropped
                self.out.skip.append((forced, pos))
            _add(self.out.breaks, pos, self.out.breaks_since, start)
        self._after_block()
        self.out.title_end = pos
        return pos

    # -- indented code -------------------------------------------------------------------

    def _code_goes_on(self, line: str, line_end: int) -> bool:
        """The line is in the code block being read: blank, or as indented in its
        containers."""
        code = self.code
        assert code is not None
        matched, i, col, _ = self._match(line, code.depth)
        if matched < code.depth:
            return False
        j, c = _skip(line, i, col)
        if j >= len(line):
            return True
        if c - code.base >= 4:
            code.end = line_end
            return True
        return False

    def _end_code(self) -> int:
        code = self.code
        assert code is not None
        self.out.skip.append((code.start, code.end))
        self.out.indented.append((code.start, code.end))
        self.code = None
        self._after_block()
        return _line_start_after(self.text, code.end)

    def _after_block(self) -> None:
        """A block ended at the line before: the next line may start one."""
        self.open = True
        self.blank = False
        self.yaml = True
        self.para_first = self.pipe = False
        self.table = None
        self.lines = False

    def _break(self, always: bool = False) -> None:
        """The line being read starts a text pandoc reads apart from the line before (a
        new container's, a table row's): see :attr:`Blocks.breaks`; ``always``: after a
        blank line too (a definition, whose term's text it cuts)."""
        if always or not self.after_blank:
            since = min(self.para_start, self.pos) if always else self.run_start
            _add(self.out.breaks, self.pos, self.out.breaks_since, since)

    def _begin_run(self) -> None:
        """A container starts on the line being read: when the line is in none, a run of
        containers begins there (see :attr:`Blocks.breaks_since`)."""
        if self.depth_at_start == 0 and self.run_start != self.pos:
            self.run_start = self.pos

    def _item_break(self) -> None:
        """A list item starts on the line being read (see :attr:`Blocks.item_breaks`)."""
        self._begin_run()
        if self.item_ended:
            out = self.out
            _add(out.item_breaks, self.pos, out.item_breaks_since, self.run_start)
        elif self.stack and self.stack[-1].list_item and not self.after_blank:
            _add(self.out.paragraphs, self.pos)  # a sub-item: the item's paragraph ends

    def _closed_fence(self, line: str, j: int, next_pos: int, char: str) -> int | None:
        """Where the fence of ``char`` at ``line[j]`` is closed (the end of the closing
        line, at or after ``next_pos``); None when it is no fence or none closes it."""
        fence = _FENCE.match(line, j)
        if fence is None or line[j] != char or (char == "`" and "`" in fence.group(2)):
            return None
        closers = self.closers.get(char)
        if closers is None:
            closers = self.closers[char] = _Closers(self.text, char)
        return closers.find(next_pos, len(fence.group(1)))

    def _reference_end(self, line: str, j: int, pos: int) -> int:
        """The end of the link reference definition ``[label]: ...`` whose ``[`` is
        ``line[j]`` (the line starting at ``pos``), or -1 when it is none: its label is no
        citation group (``[see @a]: u`` is a paragraph) nor a note's marker (``[^a]:``;
        with white space, ``[^a b]:``, a label in pandoc 3), nothing but a destination
        and a title follows it, and no definition follows its line (it is a term), nor a
        setext heading's underline (it is the heading's text)."""
        close = _label_close(line, j)
        if close < 0 or not line.startswith(":", close + 1):
            return -1
        label = line[j : close + 1]
        if label.startswith("[^") and not (
            self.dialect.caret_references and any(c.isspace() for c in label)
        ):
            return -1
        tails = _REFERENCE_TAIL if self.dialect.caret_references else _REFERENCE_TAIL_2
        tail = tails.match(self.text, pos + close + 2)
        if tail is None or _cites_as_group(label) or self._term(pos):
            return -1
        if self._underlined(_line_start_after(self.text, pos)):
            return -1  # a setext heading's text
        return tail.end()

    def _term(self, pos: int) -> bool:
        """The line at ``pos`` is a definition's term: a definition's marker follows (the
        last line asked remembered: a line of many block starts asks it for each)."""
        if self.term_asked[0] == pos:
            return self.term_asked[1]
        term = _TERM.match(self.text, pos) is not None or (
            self.dialect.bare_definition_markers and _BARE_TERM.match(self.text, pos) is not None
        )
        self.term_asked = (pos, term)
        return term

    def _underlined(self, next_pos: int) -> bool:
        """The line at ``next_pos`` is a line of ``=`` or ``-`` in the containers of the
        line being read (a setext heading's underline, or a simple table's line under its
        header, one column's)."""
        text = self.text
        if _MAYBE_UNDERLINE.match(text, next_pos) is None:
            return False
        nl = text.find("\n", next_pos)
        following = text[next_pos : len(text) if nl < 0 else nl].rstrip("\r")
        matched, i, col, base = self._match(following, len(self.stack))
        j, c = _skip(following, i, col)
        return matched == len(self.stack) and c == base and _SETEXT.match(following, j) is not None

    def _table_header(self, next_pos: int) -> bool:
        """The line at ``next_pos`` is the line under a simple table's header of two
        columns or more (dashes, up to three columns in, in the containers of the line
        being read) and a line with text follows it: the line being read is the header,
        which pandoc reads before indented code."""
        text = self.text
        if _MAYBE_UNDERLINE.match(text, next_pos) is None:
            return False
        after = _line_start_after(text, next_pos)
        following = text[next_pos:after].rstrip("\r\n")
        matched, i, col, base = self._match(following, len(self.stack))
        j, c = _skip(following, i, col)
        if matched < len(self.stack) or c - base > 3 or not _SIMPLE_BREAK.match(following, j):
            return False
        row = text[after : _line_start_after(text, after)]
        return bool(row.strip(" \t\r\n>"))

    def _setext_next(self, next_pos: int, start: int) -> bool:
        """The line at ``next_pos`` is a setext heading's underline in the containers
        of the line being read, whose text from ``start`` opens nothing that closes past
        it (then the line is a heading's text)."""
        if not self._underlined(next_pos):
            return False
        return not self._crossings().crosses(start, next_pos - 1)

    def _first_line_crosses(self, pos: int) -> bool:
        """The paragraph's first line, before the line at ``pos`` (a setext heading's
        underline, a pipe table's separator line), opens an inline construct that closes
        past its end: pandoc reads no heading, no table's header there."""
        return self._crossings().crosses(self.para_start, pos - 1)

    def _reach(self, line: str, start: int, end: int) -> None:
        """Note where an HTML comment or raw TeX opened in the text ``line`` holds from
        ``start`` to ``end`` closes, past the line (see :attr:`reach`)."""
        if "<!--" in line or "\\" in line:
            self.reach = max(self.reach, self._crossings().reach(start, end))

    def _crossings(self) -> LineCrossings:
        if self.crossings is None:
            dialect = self.dialect
            self.crossings = LineCrossings(
                self.text, dialect.tex_at_letters, dialect.tex_expandafter_words
            )
        return self.crossings

    def _div_closed(self, offset: int) -> bool:
        """A fence of colons alone on a line at or after ``offset`` may close a div opened
        before it (always so unless the dialect's ``closed_divs``)."""
        if not self.dialect.closed_divs:
            return True
        if self.div_closer < offset:
            m = _DIV_CLOSER.search(self.text, offset)
            self.div_closer = len(self.text) + 1 if m is None else m.start()
        return self.div_closer <= len(self.text)

    def _note_lines(self, empty_note: bool) -> None:
        """At a blank line: a footnote's first lines end; after its marker alone on its
        line (``empty_note``), they start, read at its marker's column (pandoc reads the
        lines up to the next blank line as the note's first, not indented)."""
        if self.note_lines is not None:
            self.note_lines.col += 4
            self.note_lines = None
        if empty_note and self.stack and self.stack[-1].note >= 0:
            self.note_lines = self.stack[-1]
            self.note_lines.col -= 4

    def _resumable(self, pos: int, end: int) -> bool:
        """A raw HTML block from the line at ``pos`` to ``end`` is read whole in the
        containers: no blank line ends a block quote in it, no list item's marker the
        innermost item (pandoc 3.9)."""
        if any(box.quote for box in self.stack) and _BLANK_LINE.search(self.text, pos, end):
            return False
        return not (self.items and self._ends_item(pos, end))

    def _resume(self, end: int) -> int:
        """After a raw HTML block that ends at ``end`` on a later line: where the next
        block starts, the white space after it passed over; the rest of that line, read
        in the containers as a line of its own (see :attr:`resume`), or the next line."""
        text = self.text
        while end < len(text) and text[end] in " \t\r":
            end += 1
        if end >= len(text) or text[end] == "\n":
            return min(end + 1, len(text))
        self.resume = end
        return end

    def _forced_tag(self, start: int, end: int) -> int:
        """The offset of the first tag of :attr:`tags` in ``text[start:end]``, or -1."""
        k = bisect_left(self.tags, start)
        return self.tags[k] if k < len(self.tags) and self.tags[k] < end else -1

    def _cells_cut(self, start: int, end: int) -> None:
        """A table row's cells from ``start`` to ``end``: each block element's tag of
        :attr:`tags` in a cell ends its text, pandoc drops the rest of the cell."""
        tag = self._forced_tag(start, end)
        while tag >= 0:
            bar = self.text.find("|", tag, end)
            cell_end = end if bar < 0 else bar
            if cell_end > tag:  # (one at a "|" drops nothing)
                self.out.skip.append((tag, cell_end))
            tag = self._forced_tag(max(cell_end, tag + 1), end)

    def _bars(self, start: int, end: int) -> None:
        """Note the pipe table's row from ``start`` to ``end`` in :attr:`Blocks.pipe_rows`,
        its ``|`` but the escaped ones in :attr:`Blocks.rows` and the cells they start in
        :attr:`Blocks.cells` (one cuts a braced key)."""
        self.out.pipe_rows.append((start, end, self.pipe_columns))
        self._note_bars(start, end)

    def _note_bars(self, start: int, end: int) -> None:
        """The ``|`` from ``start`` to ``end`` but the escaped ones in :attr:`Blocks.rows`,
        the cells they start in :attr:`Blocks.cells`."""
        rows, cells = self.out.rows, self.out.cells
        for bar in _pipe_bars(self.text, start, end):
            if not rows or rows[-1] < bar:
                rows.append(bar)
                cells.append(bar + 1)

    def _row_reach(self, start: int, end: int) -> None:
        """Note in :attr:`row_until` where a construct opened in the pipe table's row from
        ``start`` to ``end`` (its line break) closes when that is past ``end``."""
        self.row_until = self._crossings().reach(start, end, tags=True)

    def _row_goes_on(self, start: int, end: int) -> None:
        """The pipe table's row above goes on over the line from ``start`` to ``end``: one
        row (its cells past the columns dropped), no new row's break at the line."""
        row_start, _, columns = self.out.pipe_rows[-1]
        self.out.pipe_rows[-1] = (row_start, end, columns)
        self._note_bars(start, end)
        if self.row_until <= end:  # it closes on this line: what opens after it may not
            self._row_reach(self.row_until, end)

    def _simple_table(self, line: str, j: int, col: int, base: int) -> None:
        """A simple table starts: ``line`` from ``j`` (at column ``col``, its containers'
        content at ``base``) is the line of dashes under its header, the line before it."""
        self.table = "simple"
        self._columns(line, j, col, base)
        start, col, base = self.para_text
        self.out.tex_starts.discard(start)  # a header row, read before raw TeX
        self._note_cells(start, self.pos - 1, col, base)

    def _columns(self, line: str, j: int, col: int, base: int = 0) -> None:
        """:attr:`columns` of a table whose line of dashes is ``line``, from ``j`` (at
        column ``col``, its containers' content at ``base``): where each column's dashes
        but the first start."""
        self.columns = []
        for m in _DASHES.finditer(line, j):
            dashes = m.end() - m.start() - len(m.group(1))
            _, col = _skip(line, m.start() + dashes, col + dashes)
            self.columns.append(col - base)
        del self.columns[-1:]  # the last cell goes on to the line's end

    def _edged_table(self, line: str, j: int, col: int, next_pos: int) -> bool:
        """Whether the line of dashes ``line`` (at ``j``, column ``col``), where a block
        starts outside any container, is the top of a table whose rows pandoc cuts into
        cells: a multiline table (a header's lines, the dashes of its columns, rows with
        blank lines between them) or a table with no header row (the dashes of its
        columns, rows); a line of dashes then ends it.  Then its
        lines up to that end are read as such (:attr:`table_until`)."""
        text = self.text
        pos, header = next_pos, 0
        while pos < len(text):  # a multiline table's header lines, then its columns
            end = _line_start_after(text, pos)
            row = text[pos:end].rstrip("\r\n")
            if not row.strip():
                break
            if _TABLE_EDGE.match(row):
                until = _rows_end(text, end) if header else -1
                k, c = _skip(row, 0, 0)
                if until > 0 and _SIMPLE_BREAK.match(row, k):
                    self._columns(row, k, c)
                    self.table_until = until
                    return True
                break
            header += 1
            pos = end
        until = _rows_end(text, next_pos)
        if until < 0 or not _SIMPLE_BREAK.match(line, j):
            return False
        self._columns(line, j, col)
        self.table_until = until
        return True

    def _note_cells(self, start: int, end: int, col: int, base: int) -> None:
        """Note where the cells of the table line from ``start`` (at column ``col``, its
        containers' content at ``base``: a block quote's lines may stand a column apart)
        to ``end`` start: at each of :attr:`columns`, tabs stopping every four columns, a
        wide character taking two (one across a column goes in the cell before it).  A
        space right before or at a cell's start goes in :attr:`Blocks.rows`: no bracket or
        emphasis goes on past it."""
        text, cells, rows = self.text, self.out.cells, self.out.rows
        k = 0
        columns = self.columns
        for i in range(start, end):
            while k < len(columns) and col - base >= columns[k]:
                cells.append(i)
                space = i - 1 if i > start and text[i - 1] in " \t" else i
                if text[space] in " \t" and (not rows or rows[-1] < space):
                    rows.append(space)
                k += 1
            if k == len(columns):
                return
            ch = text[i]
            if ch == "\t":
                col += 4 - col % 4
            elif ch.isascii():
                col += 1
            else:
                col += 2 if unicodedata.east_asian_width(ch) in "WF" else 1

    def _definition_marker(self, line: str, j: int) -> bool:
        """``line`` from ``j`` on starts with a definition's marker: ``:`` or ``~`` and
        white space, or, in pandoc 3.9, the line's end."""
        if _DEFINITION.match(line, j):
            return True
        return (
            self.dialect.bare_definition_markers
            and line[j : j + 1] in (":", "~")
            and not line[j + 1 :].strip()
        )

    def _ends_item(self, pos: int, end: int) -> bool:
        """A line after the one at ``pos`` and before ``end`` starts a list item that ends
        the innermost one (its marker left of that item's text)."""
        col = next(box.col for box in reversed(self.stack) if box.list_item)
        for m in _ITEM_LINE.finditer(self.text, pos, end):
            if m.start() > pos and len(m.group(1).expandtabs(4)) < col:
                return True
        return False

    def _html_block_line(self, line: str, j: int, next_pos: int) -> bool:
        """``line`` holds a block element's start tag at ``j`` and nothing after it: a block
        starts on the next line, as pandoc reads it, when that line is not indented (pandoc
        reads the blocks in the element with the next line's indentation dropped: an
        indented line there is a paragraph's, no code, as it is read without the tag).  A
        ``<div>``, an end tag and a comment are read as before."""
        if self.stack or line.startswith(("</", "<!--"), j) or line[j + 1 : j + 4].lower() == "div":
            return False
        return not self.text.startswith(("    ", "\t", " \t", "  \t", "   \t"), next_pos)

    def _verbatim_end(self, line: str, j: int, pos: int) -> int:
        """When ``line`` (at ``pos``) opens at ``j`` a verbatim element a closing tag
        closes, the offset after that tag (its content is no block, as read in a container;
        see :class:`Verbatim`); else -1."""
        if _VERBATIM_TAG.match(line, j) is None:
            return -1
        self.verbatim = self.verbatim or Verbatim(self.text)
        return self.verbatim.end(pos + j)

    def _comment_end(self, offset: int) -> int | None:
        """The start of the line after the end of the HTML comment whose text starts at
        ``offset``, when nothing follows the ``-->`` on its line; else None."""
        if offset >= self.no_comment_end:
            return None
        close = self.text.find("-->", offset)
        if close < 0:
            self.no_comment_end = offset  # nor after any later offset
            return None
        after = _line_start_after(self.text, close)
        return after if not self.text[close + 3 : after].strip() else None

    # -- containers ----------------------------------------------------------------------

    def _end_lazy(self, matched: int) -> bool:
        """A line not indented enough for the containers past the first ``matched`` ends
        them, but a footnote among them and those it is in: pandoc cuts a note's lines out
        whole, a line not indented with them, and reads it in the note as it is.  True
        when a footnote goes on."""
        notes = [k for k in range(matched, len(self.stack)) if self.stack[k].note >= 0]
        self._truncate(notes[-1] + 1 if notes else matched)
        return bool(notes)

    def _truncate(self, depth: int) -> None:
        """The containers past the first ``depth`` end."""
        if depth < len(self.stack):
            ended = 0
            for box in self.stack[depth:]:
                if box.list_item and not ended:
                    self.ended_style = box.style
                ended += box.list_item
                if box.note >= 0:
                    self.out.notes[box.note].end = self.pos
            self.items -= ended
            self.item_ended = self.item_ended or ended > 0
            # pandoc read the container's lines apart: nothing in them goes on past them
            out = self.out
            if ended:
                _add(out.item_breaks, self.pos, out.item_breaks_since, self.run_start)
            if ended < len(self.stack) - depth:
                _add(out.breaks, self.pos, out.breaks_since, self.run_start)
            del self.stack[depth:]

    def _match(self, line: str, depth: int) -> tuple[int, int, int, int]:
        """How many of the first ``depth`` containers ``line`` goes on in (a block quote
        by its ``>``, another by its indentation, or a blank rest), the index and column
        after their markers, and the content column of the last of them."""
        i = col = base = 0
        j, c = _skip(line, 0, 0)
        n = len(line)
        for k in range(depth):
            box = self.stack[k]
            if box.quote:
                if j >= n or line[j] != ">" or c - base > 3:
                    return k, i, col, base
                i, col = j + 1, c + 1
                base = col
                if i < n and line[i] in " \t":
                    base += 1
                    if line[i] == " ":
                        i, col = i + 1, col + 1
                j, c = _skip(line, i, col)
            elif j < n and c < box.col:
                return k, i, col, base
            else:
                base = box.col
        return depth, i, col, base

    # -- a line outside code -------------------------------------------------------------

    def _line(self, pos: int, line_end: int, line: str, next_pos: int) -> int:
        text = self.text
        n = len(text)
        empty_note, self.empty_note = self.empty_note, False
        if pos < self.table_until:
            if line.strip():
                self._break()  # pandoc reads each row's cells apart
                self._note_cells(pos, line_end, 0, 0)
            return next_pos
        # YAML metadata block: "---" after a blank line (or first line), not followed by a
        # blank line, closed by "---" or "...".
        # in the lines a paragraph's comment or raw TeX covers, no block starts
        inside = pos < self.reach
        text_end = len(line.rstrip())  # the end of the line's text
        if not inside and self.yaml and self.metadata and line.rstrip() == "---" and next_pos < n:
            nl2 = text.find("\n", next_pos)
            following = text[next_pos : n if nl2 < 0 else nl2]
            close = _YAML_CLOSE.search(text, next_pos) if following.strip() else None
            if close is not None:
                meta = read_metadata(self.path, text, next_pos, close.start(), string_citations)
                # a block whose top level is a mapping or nothing is metadata, and one
                # that is no YAML (pandoc stops at it: its error is reported); a scalar
                # or a list is text, as pandoc decides
                if meta.is_metadata:
                    self.out.metadata.append(meta)
                    self.out.regions.append((next_pos, close.start()))
                    end = _line_start_after(text, close.end())
                    self.out.skip.append((pos, end))
                    self._truncate(0)
                    self._after_block()
                    return end
        if not inside and line.lstrip(" ").startswith("<") and _VERBATIM_LINE.match(line):
            self.verbatim = self.verbatim or Verbatim(text)
            element_end = self.verbatim.end(text.index("<", pos))
            if element_end > 0 and not text[element_end:line_end].strip():
                self.out.skip.append((pos, element_end))
                after = _line_start_after(text, element_end)
                self._after_block()
                self.open = self.blank = self.yaml = not text[element_end:after].strip()
                if not self.open and not self.stack:
                    # text after its closing tag on a later line: a block starts there
                    self.open = True
                    self.yaml = False
                    while text[element_end] in " \t":
                        element_end += 1
                    return element_end
                return after
        if pos == self.resume:  # the rest of a line after a raw HTML block
            matched, i, col, base = len(self.stack), 0, 0, 0
        else:
            matched, i, col, base = self._match(line, len(self.stack))
            if ">" in line[:i]:
                self.out.quote_marks.append((pos, pos + i))
        self.resume = -1
        j, c = _skip(line, i, col)
        if j >= len(line):  # blank, in the containers it goes on in
            if line.strip():  # a paragraph ends where a blank line does
                _add(self.out.paragraphs, pos)
            self._truncate(matched)
            self._note_lines(empty_note)
            self.open = self.blank = True
            self.yaml = not line.strip()
            self.term = self.para_first
            self.para_first = self.pipe = False
            self.table = None
            if self.lines:  # a line block's last line is read apart from what follows
                _add(self.out.breaks, pos, self.out.breaks_since, self.run_start)
            self.lines = False
            return next_pos
        lazy = matched < len(self.stack)
        after_definition = lazy and self.stack[matched].definition
        # the containers it does not go on in end after a blank line; a line without the
        # ">" of a block quote is in it (a blank line ends it), as is one not indented
        # enough for a list item after a line of it
        if lazy and self.blank and not self.stack[matched].quote:
            self._truncate(matched)
            lazy = False
        term, self.term = self.term, False
        # a list item's line not indented enough is in it as it is (laziness)
        ok = self.open
        if (
            lazy
            and line.startswith("[^", j)
            and c - base <= 3
            and _NOTE_MARKER.match(line, j)
            and any(box.note >= 0 for box in self.stack[matched:])
        ):
            # a line that starts with a note's marker ends a footnote's lines
            self._truncate(matched)
            self._break()
            lazy = False
            ok = True
        if (
            lazy
            and self.dialect.definitions_end_items
            and self._definition_marker(line, j)
            and any(box.list_item for box in self.stack[matched:])
        ):
            # pandoc 3.9: a definition's marker ends the list items the line is not in
            if self._end_lazy(matched):
                base = c
            self._break()
            lazy = term = self.para_first = False
            ok = True
        if lazy and self.stack[matched].quote:
            # pandoc appends a line without the ">" of a block quote to the quote's text,
            # without its indentation (a paragraph's line, or a new block's first after a
            # blank line or a block that ended in the quote), unless it starts with a
            # ">" (too far in for a marker), with a backtick fence (at its first column)
            # or, in a list, with a list item's marker: there the quote ends
            if (
                line[j] == ">"
                or (c == base and self._closed_fence(line, j, next_pos, "`") is not None)
                or (
                    self.items
                    and c - base <= 3
                    and (_BULLET.match(line, j) or _ORDERED.match(line, j))
                    and not _is_rule(line, j)
                )
            ):
                self._truncate(matched)
                ok = True
            else:
                base = c
                ok = self.open
            lazy = False
        if (
            self.lines
            and lazy
            and self.stack[matched].list_item
            and not _is_line_block_line(line, j)
            and _BULLET.match(line, j) is None
            and _ORDERED.match(line, j) is None
        ):
            # a list item's line not indented enough after its line block is the item's
            # (pandoc reads it in the item as it is): the first of a block
            base = c
            lazy = False
        if (
            self.lines
            and not lazy
            and (c == base or self.lines_empty)
            and not _is_line_block_line(line, j)
        ):
            # a line block ends at a line that neither is one of its lines nor goes on in
            # one: a block starts there, read apart
            self.lines = False
            self._break()
            ok = True
        self.yaml = False
        self.blank = False
        para_first, pipe = self.para_first, self.pipe
        self.para_first = self.pipe = False
        caption = False
        if self.table == "pipe" and pos <= self.row_until:  # the row above goes on here
            self._row_goes_on(pos + j, line_end)
            self._cells_cut(pos + j, line_end)
            return next_pos
        if self.table is not None:
            rest = line[j:]
            if self.table == "simple":
                self._break()  # pandoc reads each row's cells apart
                self._note_cells(pos + j, line_end, c, base)
                return next_pos
            if self.table == "grid" and _GRID_TOP.match(line, j):
                self._break()  # a line between rows: pandoc reads each row's cells apart
                return next_pos
            if "|" in rest and (self.table == "pipe" or rest[0] in "+|"):
                if self.table == "pipe":
                    _add(self.out.rows, pos)
                    self._bars(pos + j, line_end)
                    self._row_reach(pos + j, line_end)
                self._cells_cut(pos + j, line_end)
                return next_pos  # a row
            self.table = None
            ok = True
            caption = _CAPTION.match(line, j) is not None
        if not ok and not self.lines and self._forced_tag(pos, pos + j + 1) >= 0:
            # the line after a raw TeX block that ends a line: the block took the line
            # break and the white space up to the text, where a block starts (indented
            # or not: no code)
            _add(self.out.breaks, pos + j + 1, self.out.breaks_since, self.run_start)
            base = c
            ok = True
        in_list = self.items > 0
        first_j = j
        # a list item's lines end at a fence (a paragraph elsewhere goes on over "~~~")
        in_item = bool(self.stack) and self.stack[matched if lazy else -1].list_item
        while True:
            j, c = _skip(line, i, col)
            if j >= len(line):  # a container's marker alone on its line
                self.open = True
                self.blank = self.stack[-1].quote
                return next_pos
            rel = c - base
            if ok and rel >= 4 and not inside:
                if self._underlined(next_pos) or self._table_header(next_pos):
                    break  # a setext heading's or a table's: pandoc reads them first
                self.code = _Code(len(self.stack), base, pos, line_end)
                return next_pos
            if rel > 3:
                break
            ch = line[j]
            if ch == "<":  # a block may start at it: no need to read the text again for it
                self.out.tag_starts.add(pos + j)
            para_first = para_first and j == first_j  # not after a marker on this line
            if para_first and rel == 0 and _SETEXT.match(line, j):
                if self._first_line_crosses(pos):  # no heading: a table (-) or a paragraph (=)
                    if line[j] == "-":
                        self._simple_table(line, j, c, base)
                        self.run_start = min(self.para_start, pos)
                        self._break()
                        return next_pos
                    break
                self._after_block()
                self.yaml = False
                self.out.tex_starts.discard(self.para_text[0])  # read before raw TeX
                if "*" in text[self.para_start : pos] or "_" in text[self.para_start : pos]:
                    _add(self.out.paragraphs, next_pos)  # its text's emphasis ends with it
                return next_pos
            if (
                para_first
                and pipe
                and "|" in line
                and _PIPE_BREAK.match(line, j)
                and not self._first_line_crosses(pos)
            ):
                self.table = "pipe"
                self.lines = False
                self.run_start = min(self.para_start, pos)  # its header row's
                self.pipe_columns = len(_DASH_RUN.findall(line, j))
                header = self.para_text[0]
                self.out.tex_starts.discard(header)  # read before raw TeX
                # its header row, read as a line block's line before: its cells cut
                self.out.skip = [
                    region for region in self.out.skip if not header <= region[0] < pos - 1
                ]
                self._bars(header, pos - 1)
                self._cells_cut(header, pos - 1)
                self._break()
                return next_pos
            if (  # up to three spaces in, a row after it (else a paragraph's line)
                para_first
                and ch == "-"
                and _SIMPLE_BREAK.match(line, j)
                and text[next_pos : _line_start_after(text, next_pos)].strip(" \t\r\n>")
            ):
                self._simple_table(line, j, c, base)
                self.run_start = min(self.para_start, pos)  # its header row's
                self._break()
                return next_pos
            if not inside and (ch == "`" or (ch == "~" and (ok or in_item))):
                closed = self._closed_fence(line, j, next_pos, ch)
                if closed is not None:  # else no fence: pandoc reads the line as text
                    if lazy and in_item:
                        self._truncate(matched)
                    end = min(n, closed + 1)
                    self.out.skip.append((pos, end))
                    self._after_block()
                    return end
            if ok and ch == ">":
                self._begin_run()
                self._break()
                self.stack.append(_Box(quote=True))
                i, col = j + 1, c + 1
                base = col
                if i < len(line) and line[i] in " \t":
                    base += 1
                    if line[i] == " ":
                        i, col = i + 1, col + 1
                continue
            if ok and ch == "[" and not inside:
                reference_end = self._reference_end(line, j, pos)
                if reference_end >= 0:  # neither its label nor its destination is text
                    self.out.skip.append((pos + j, reference_end))
                    self._after_block()
                    self.yaml = False
                    return _line_start_after(text, reference_end)
            if (
                ok
                and ch == "-"
                and not self.stack
                and not inside
                and _TABLE_EDGE.match(line)
                and self._edged_table(line, j, c, next_pos)
            ):
                self._after_block()
                self.yaml = False
                self.run_start = pos
                return next_pos
            if ok and (
                (rel == 0 and _ATX.match(line, j) and self._forced_tag(pos + j, line_end) < 0)
                or _is_rule(line, j)
                or _GRID_TOP.match(line, j)
                or _DIV_START.match(line, j)
            ):
                self._after_block()
                self.yaml = False
                if _GRID_TOP.match(line, j):
                    self.table = "grid"
                    self.run_start = pos
                elif line[j] == "#":  # a heading's text
                    self._reach(line, pos + j, line_end)
                if ("*" in line or "_" in line) and (
                    _is_rule(line, j)
                    or (
                        line[j] == "#"
                        and self.reach <= line_end
                        and not _HEADING_SPANS.search(line)
                    )
                ):
                    # no emphasis opened on its line goes on past it
                    _add(self.out.paragraphs, next_pos)
                return next_pos
            if ch == ":" and rel == 0:
                # a fenced div's fence (pandoc 2 reads one that no fence closes as text)
                div = _DIV_FENCE.match(line, j)
                word = _DIV_WORD.match(line, j) if div is not None and div.group(1) else None
                opens = word is not None or _DIV_ATTRIBUTES.match(line, j) is not None
                if div is not None and (ok and opens if div.group(1) else self.divs):
                    self.divs += 1 if div.group(1) else -1
                    if word is not None and self._div_closed(next_pos):
                        self.out.skip.append((pos + j, line_end))  # its class: no text
                    self._after_block()
                    self.yaml = False
                    return next_pos
            elif (
                ch == "<"
                and (tag := _BLOCK_TAG.match(line, j)) is not None
                and (
                    ok
                    # a paragraph's line: the tag ends the paragraph, a block starts after it
                    or (
                        not lazy
                        and tag.end() < text_end
                        and _INTERRUPTING_TAG.match(line, j) is not None
                    )
                )
                and (tag.end() < text_end or self._html_block_line(line, j, next_pos))
                and (
                    (element_end := self._verbatim_end(line, j, pos)) <= 0
                    or (not inside and element_end - pos < text_end)
                )
            ):
                if not ok:  # a paragraph's text ends before the tag
                    self._break()
                    ok = True
                if element_end > 0:
                    # a verbatim element closed on its line: a block starts after it
                    self.out.skip.append((pos + j, element_end))
                    i, col = _skip(line, element_end - pos, c + element_end - pos - j)
                    base = col
                    ok = True
                    continue
                # a raw HTML block's tag: what follows it on its line starts a block
                if tag.end() >= text_end:
                    self._after_block()
                    self.yaml = False
                    return next_pos
                i, col = _skip(line, tag.end(), c + tag.end() - j)
                base = col
                continue
            elif ch == "<" and _BLOCK_END.match(line, j):
                self._after_block()  # an end tag ends a paragraph in its element
                self.yaml = False
                return next_pos
            elif (
                ch == "<"
                and not inside
                and (ok or (not lazy and _INTERRUPTING_TAG.match(line, j) is not None))
                and _VERBATIM_TAG.match(line, j) is None
                and not any(box.quote for box in self.stack)
                and (tag_end := block_tag_end(text, pos + j)) > line_end
            ):
                # a block element's tag over lines: a raw HTML block, a block starts after it
                if not ok:
                    self._break()
                self._after_block()
                self.yaml = False
                return self._resume(tag_end)
            elif ok and line.startswith("<!--", j):
                comment_end = self._comment_end(pos + j + 4)
                if (
                    comment_end is not None
                    and any(box.quote for box in self.stack)
                    and _BLANK_LINE.search(text, pos, comment_end) is not None
                ):
                    comment_end = None  # a blank line ends the quote pandoc reads it in
                if comment_end is not None and self.items and self._ends_item(pos, comment_end):
                    comment_end = None  # pandoc 3.9 ends the item at the next item's marker
                if comment_end is not None:  # a comment block: a block may start after it
                    self._after_block()
                    self.yaml = False
                    return comment_end
                start = pos + j + 4
                after = text.find("-->", start) + 3 if start < self.no_comment_end else -1
                if after > line_end and self._resumable(pos, after):
                    # a comment over lines with text after it: a block starts after it
                    self._after_block()
                    self.yaml = False
                    return self._resume(after)
            marker = None if caption else (_BULLET.match(line, j) or _ORDERED.match(line, j))
            if (
                marker is not None
                and ok
                and not self.items
                and (not self.item_ended or _marker_style(marker.group()) != self.ended_style)
                and line[j] not in "-+*"
                and self._setext_next(next_pos, pos + j)
            ):
                marker = None  # pandoc reads a setext heading before a new ordered list
            if marker is not None and (ok or in_list) and not _is_rule(line, j):
                if lazy:
                    self._truncate(matched)
                    lazy = False
                end_col = c + marker.end() - j
                k, c2 = _skip(line, marker.end(), end_col)
                if k >= len(line):
                    content = end_col + (1 if k > marker.end() else 0)
                elif c2 - end_col >= 5:
                    content = end_col + 1
                else:
                    content = c2
                lines_col = content
                if "@" in marker.group():  # an example item goes on four columns in,
                    lines_col = min(content, base + 4)  # whatever its label's length
                    label = marker.group().strip("(@.)")  # (its first line's text past
                    if label:  # its marker as another item's)
                        self.out.examples.append(label)
                self._item_break()
                if line[j] == "*":
                    self.out.bullets.append(pos + j)
                style = _marker_style(marker.group())
                self.stack.append(_Box(quote=False, col=lines_col, list_item=True, style=style))
                self.items += 1
                i, col, base = marker.end(), end_col, content
                ok = in_list = True
                continue
            if (
                not caption
                and rel <= 2
                and (para_first or term or after_definition)
                and ch in ":~"
                and self._definition_marker(line, j)
            ):
                if lazy:
                    if self._end_lazy(matched):
                        base = c
                    lazy = False
                self._begin_run()
                self._break(always=True)
                self.stack.append(_Box(quote=False, col=base + 4, definition=True))
                i, col, base = j + 1, c + 1, base + 4
                ok = True
                continue
            note = _NOTE.match(line, j) if ok and ch == "[" else None
            # else a definition's term, a setext heading's text
            if note is not None and not self._term(pos) and not self._underlined(next_pos):
                self._begin_run()
                self._break()
                self.stack.append(_Box(quote=False, col=base + 4, note=len(self.out.notes)))
                self.out.notes.append(Note(note.group(1), pos, len(text)))
                self.open = False
                self.empty_note = not line[note.end() :].strip()
                k, _ = _skip(line, note.end(), c)
                marker = _ORDERED.match(line, k)
                if marker is not None and "@" in marker.group():
                    # the note's text starts a block: an example item's label
                    label = marker.group().strip("(@.)")
                    if label:
                        self.out.examples.append(label)
                forced = self._forced_tag(pos + k, line_end)
                if forced < 0:
                    return next_pos
                # a block element's tag in the note's first line: a block starts at it
                _add(self.out.breaks, forced + 1, self.out.breaks_since, self.run_start)
                i, col = forced - pos, _column(line, k, c + k - j, forced - pos)
                base = col
                ok = True
                continue
            forced = self._forced_tag(pos + j + 1, line_end) if not inside else -1
            if (
                forced >= 0
                and ok
                and not self.lines
                and pos + j not in self.lead
                and self._term(pos)
            ):
                self.out.skip.append((forced, line_end))  # a term's text ends at it, pandoc
                break  # drops the rest of its line
            if forced >= 0 and not self.lines and not _is_line_block_line(line, j):
                # a block element's tag in the text: the text ends before it, a block
                # starts at it (pandoc's inline reading stops there)
                _add(self.out.breaks, forced + 1, self.out.breaks_since, self.run_start)
                i, col = forced - pos, _column(line, j, c, forced - pos)
                base = col
                ok = True
                continue
            break
        # a paragraph's line; of a line block, each line read apart
        if _is_line_block_line(line, j):
            self.lines_empty = not line[j + 1 :].strip()
            if ok:
                self.lines = True
                self.run_start = pos
            elif self.lines:
                self._break()
            k = len(line) - len(line[j + 1 :].lstrip(" \t"))
            self.lines_cut = False
            if (
                self.lines
                and line.startswith("<", k)
                and _BLOCK_TAG.match(line, k) is not None
                and _INTERRUPTING_TAG.match(line, k) is not None
            ):
                # pandoc reads no inline HTML there: the line ends before the tag
                self.out.skip.append((pos + k, line_end))
                self.lines_cut = True
            elif self.lines and (forced := self._forced_tag(pos + k, line_end)) >= 0:
                self.out.skip.append((forced, line_end))  # so at a tag later in the line
                self.lines_cut = True
        elif self.lines and self.lines_cut:
            self.out.skip.append((pos + j, line_end))  # a line going on in one cut there
        elif self.lines and (forced := self._forced_tag(pos + j, line_end)) >= 0:
            self.out.skip.append((forced, line_end))
            self.lines_cut = True
        self.open = False
        self.para_first = ok and not caption
        if self.para_first:
            self.para_start = pos
            self.para_text = (pos + j, c, base)
            if line[j] == "\\":
                self.out.tex_starts.add(pos + j)
        self.pipe = self.para_first and "|" in line
        self._reach(line, pos + j, line_end)
        return next_pos


def _column(line: str, j: int, col: int, k: int) -> int:
    """The column of ``line[k]``, ``line[j]`` standing at column ``col`` (tabs stop every
    four columns)."""
    for ch in line[j:k]:
        col += 4 - col % 4 if ch == "\t" else 1
    return col


def _marker_style(marker: str) -> str:
    """What of a list marker's style ends a list when it changes (pandoc starts a new
    list): a bullet; an example label or another number, and its delimiter."""
    if marker in "-+*":
        return "bullet"
    kind = "example" if "@" in marker else "number"
    return kind + ("()" if marker.startswith("(") else marker[-1])


def _is_line_block_line(line: str, j: int) -> bool:
    """``line`` from ``j`` on is a line block's line: a ``|`` and white space or nothing."""
    return line.startswith("|", j) and line[j + 1 : j + 2] in ("", " ", "\t")


def _label_close(line: str, j: int) -> int:
    """``line[j] == "["``: the index of the ``]`` that balances it (escapes passed over),
    -1 when none does."""
    depth = 0
    for m in _LABEL_TOKENS.finditer(line, j):
        c = m.group()
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _cites_as_group(label: str) -> bool:
    """The bracket ``label`` is a citation group as pandoc reads it alone."""
    if "@" not in label:
        return False
    whole = (0, len(label))
    return any(
        p.group is not None and (p.group.start, p.group.end) == whole
        for p in _scan(label, []).pending
    )


def _add(
    offsets: list[int], line_start: int, sinces: list[int] | None = None, since: int = 0
) -> None:
    """Note the line break before the line at ``line_start`` in ``offsets`` (once), and
    ``since`` in ``sinces`` with it."""
    if line_start > 0 and (not offsets or offsets[-1] != line_start - 1):
        offsets.append(line_start - 1)
        if sinces is not None:
            sinces.append(since)


def _rows_end(text: str, start: int) -> int:
    """Where the rows of a table from ``start`` end: after the line of dashes that closes
    them, at least one row before it (blank lines between rows, as in a multiline
    table); -1 where they are no table's."""
    pos, rows = start, 0
    while pos < len(text):
        end = _line_start_after(text, pos)
        row = text[pos:end].rstrip("\r\n")
        if not row.strip():
            if not rows:
                return -1
        elif _TABLE_EDGE.match(row):
            return end if rows else -1
        else:
            rows += 1
        pos = end
    return -1


def _line_start_after(text: str, offset: int) -> int:
    nl = text.find("\n", offset)
    return len(text) if nl < 0 else nl + 1
