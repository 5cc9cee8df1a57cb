"""Markdown source as sentence text: what is no prose masked out, and the words of a stretch.

:func:`mask_markdown` works offset for offset: the front matter and later metadata blocks
(as the Markdown parser finds them), HTML comments, tags, autolinks and
``<script>``/``<style>`` elements, Quarto shortcodes, raw code (```...`{=latex}``),
fenced and indented code blocks become spaces; math (pandoc's ``$...$``: no space inside its ends, no digit after it, and
``$$...$$``) becomes :data:`MATH` then spaces, bookdown's ``\\@ref(label)``
:data:`~citewarden.context.latex_text.REF`; a backslash escape, inline code, and the text
of a link, an image or a bracketed span (``[R]{.proglang}``) are kept with their
punctuation hidden (:func:`hide`), so that neither ends a sentence nor reads as markup, and
a link's target (or reference label) and its attributes (``{width=50%}``) are dropped.  :func:`markdown_breaks` finds the block structure: blank
lines, headings (to their line's end), rules, fences, table rows, reference definitions,
and list items and block quotes where a block can start (a lazy continuation line starting
``2019)`` or ``>`` is no new block).
"""

from __future__ import annotations

import heapq
import html
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

from citewarden.context.latex_text import MATH, MATH_STOP, REF, latex_plain
from citewarden.context.words import MATH_SHOWN, REF_SHOWN
from citewarden.parsing.markdown_blocks import Blocks, block_structure, read_blocks
from citewarden.parsing.markdown_inline import block_tag_end, is_quarto_crossref

#: Private-use characters that stand for hidden ASCII punctuation (see :func:`hide`).
_HIDDEN_BASE = 0xE000
_PUNCT = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum())
_HIDE = str.maketrans({c: chr(_HIDDEN_BASE + ord(c)) for c in _PUNCT})
_SHOW = {_HIDDEN_BASE + ord(c): c for c in _PUNCT}
#: Stands where a backslash escape's backslash was.
_GONE = "\x03"

#: the YAML metadata block a Markdown file starts with (front matter): not prose.  Its
#: closing ``---`` may follow spaces on a line: where a citation field's value, its line
#: breaks too, was blanked (``nocite: |\n  @x\n---`` reads ``nocite:        ---``)
_HIDDEN = re.compile(
    r"(?P<comment><!--)|(?P<shortcode>\{\{[<%])"
    r"|(?P<blank></?[A-Za-z][\w-]*(?:\s[^<>\n]{0,500})?/?>"
    r"|<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]{0,2000}|[^<>\s@]{1,200}@[^<>\s]{1,200})>)"
    r"|(?P<bookref>\\@ref\([^()\s]{1,200}\))"  # bookdown's cross-reference
    r"|(?P<escape>\\[!-/:-@\[-`{-~ \r\n])"
    r"|(?P<fence>(?:(?<=\n)|\A)[ \t]{0,3}(?P<fch>`{3,}|~{3,})[^\n]*)"
    r"|(?P<code>(?<!`)(?P<ticks>`+)(?!`)(?:[^`\n]|\n(?![ \t\r]*\n)){1,2000}?(?<!`)(?P=ticks)(?!`)"
    r"(?P<raw>\{=[A-Za-z][\w-]{0,30}\})?)"
    r"|(?P<link>!?\[(?P<text>[^\[\]\n]{0,500})\]"
    # a target's attributes too (``![a](x.png){width=50%}``: pandoc's link_attributes)
    r"(?:\((?:[^()\s]|\([^()\s]*\)){0,500}(?:\s+\"[^\"\n]{0,200}\")?\)(?:\{[^{}\n]{0,200}\})?"
    r"|\{[^{}\n]{0,200}\}"
    r"|\[[^\[\]\n]{0,300}\]))"
    r"|(?P<math>\$\$?)"
)
_DISPLAY_CLOSE = re.compile(r"(?:[^$\\]|\\[\s\S]|\$(?!\$))*?\$\$")
#: an inline math's closing ``$`` (pandoc: no space before it, no digit after it)
_INLINE_CLOSE = re.compile(r"(?:[^$\\\n]|\\[\s\S]|\n(?![ \t\r]*\n)|\$)*?(?<![\s\\])\$(?!\d)")
#: inline code that R Markdown (knitr's ```r x```) or Quarto (```{python} x```) runs: the
#: document shows its value, which is not known here
_INLINE_CHUNK = re.compile(r"(?:r|\{[A-Za-z][\w.-]{0,30}\})[ \t]+(?=\S)")
#: Unclosed code fences searched to the end at most (a hostile text's many lengths).
_FENCE_SEARCHES = 8
_PARAGRAPH = re.compile(r"\n[ \t\r]*\n")
_NOT_NEWLINE = re.compile(r"[^\n]")
#: a heading's or a span's attributes (``{#sec:intro .unnumbered}``)
_ATTRIBUTES = re.compile(r"\{[#.][^{}\n]{0,200}\}")
_FINAL_STOP = re.compile(r"([.!?])\s*\Z")


def hide(text: str) -> str:
    """``text`` with its ASCII punctuation as private characters: kept, but no full stop
    and no markup (:func:`markdown_plain` shows them again)."""
    return text.translate(_HIDE)


def mask_markdown(text: str, whole: bool = True, source: str | None = None) -> str:
    """``text`` with what is no prose masked (see the module); ``whole``: ``text`` starts
    where the file does (its front matter is no prose); ``source``: ``text`` before its
    citations were blanked, offset for offset (its block structure is the document's).  Linear: an unclosed ``$`` searches
    to the next paragraph break once, an unclosed code fence to the end (a few at most), the
    other openers no further than a bounded length."""
    text = _without_blocks(text, whole, source)
    parts: list[str] = []
    pos = at = 0
    failed = {"$": -1, "$$": -1}  # searching a closer from before here finds none
    unclosed: dict[str, tuple[int, int]] = {}  # fence character -> (length, after) none closes
    searches = 0  # fences left unclosed: after a few, no more are looked for
    shortcode_ends: dict[str, int] = {}  # the first end of a shortcode found (-1: none)
    paragraph_end = -1  # where the paragraph of the last shortcode searched ends
    while (m := _HIDDEN.search(text, at)) is not None:
        start, at = m.start(), m.end()
        kind = m.lastgroup
        if kind == "blank":
            piece = " " * (at - start)
        elif kind == "shortcode":
            # a Quarto shortcode (``{{< meta title >}}``) up to its end, in its paragraph
            end_mark = ">}}" if m.group()[2] == "<" else "%}}"
            ending = shortcode_ends.get(end_mark, -2)
            if ending == -1:
                continue  # none is closed after here
            if ending < at:  # the first end after the last searched: the first after here
                ending = shortcode_ends[end_mark] = text.find(end_mark, at)
                if ending < 0:
                    continue
            if paragraph_end < at:
                found = _PARAGRAPH.search(text, at)
                paragraph_end = found.start() if found else len(text)
            if ending > paragraph_end:
                continue
            at = ending + 3
            piece = " " * (at - start)
        elif kind == "comment":
            # an HTML comment ends at the first "-->" (a "<!--" inside opens nothing); one
            # left open hides the rest
            ending = text.find("-->", at)
            at = len(text) if ending < 0 else ending + 3
            piece = " " * (at - start)
        elif kind in ("fence", "fch"):
            fence = m.group("fch")
            lowest, after = unclosed.get(fence[0], (len(text) + 1, len(text)))
            if (start > after and len(fence) >= lowest) or searches >= _FENCE_SEARCHES:
                continue  # no closing fence this long is left
            closing = _closing_fence(fence).search(text, at)
            if closing is None:
                unclosed[fence[0]] = (len(fence), start)
                searches += 1
                continue
            at = closing.end()
            piece = _NOT_NEWLINE.sub(" ", text[start:at])  # a code block: no prose
        elif kind == "bookref":  # ``\\@ref(fig:a)``: the number bookdown puts there
            piece = REF + " " * (at - start - 1)
        elif kind == "escape":  # ``\\ `` a space, ``\\`` at a line's end a line break
            escaped = m.group()[1]
            piece = _GONE + (escaped if escaped in " \r\n" else hide(escaped))
        elif kind == "code" and m.group("raw"):
            piece = " " * (at - start)  # raw LaTeX or HTML: no prose of the document
        elif kind == "code" and _INLINE_CHUNK.match(text, m.end("ticks")):
            piece = _NOT_NEWLINE.sub(" ", m.group())  # a value computed when rendered
        elif kind == "code":
            ticks = len(m.group("ticks"))
            piece = " " * ticks + hide(m.group()[ticks:-ticks]) + " " * ticks
        elif kind == "link" or kind == "text":
            inner = m.group("text")
            lead = m.start("text") - start
            piece = " " * lead + _link_text(inner) + " " * (at - m.end("text"))
        else:
            opener = m.group("math")
            if failed[opener] > start or (opener == "$" and text[at : at + 1].isspace()):
                continue
            closer = _DISPLAY_CLOSE if opener == "$$" else _INLINE_CLOSE
            close = closer.match(text, at)
            if close is None:
                stop = _PARAGRAPH.search(text, at) if opener == "$" else None
                failed[opener] = stop.start() if stop else len(text)
                continue
            source = text[start : close.end()]
            piece = MATH + " " * (len(source) - 1)
            final = _FINAL_STOP.search(source[:-2]) if opener == "$$" else None
            if final is not None:
                k = final.start(1)
                piece = piece[:k] + MATH_STOP + piece[k + 1 :]
            at = close.end()
        parts += (text[pos:start], piece)
        pos = at
    parts.append(text[pos:])
    return "".join(parts)


#: a code span in a link's text
_LINK_CODE = re.compile(r"(?<!`)(`++)([^`]+)\1(?!`)")
_EMPHASIS = str.maketrans("*_", "  ")


def _link_text(inner: str) -> str:
    """The text of a link, an image or a span as shown (offset for offset): its emphasis
    marks and code ticks as spaces (``[*Nature* paper]``, ``[`repo`]``), the rest hidden
    (:func:`hide`)."""
    if "`" not in inner:
        return hide(inner.translate(_EMPHASIS))
    parts: list[str] = []
    pos = 0
    for m in _LINK_CODE.finditer(inner):
        ticks = " " * len(m.group(1))
        parts += (hide(inner[pos : m.start()].translate(_EMPHASIS)), ticks, hide(m.group(2)), ticks)
        pos = m.end()
    parts.append(hide(inner[pos:].translate(_EMPHASIS)))
    return "".join(parts)


def _read_blocks(text: str) -> Blocks:
    """The blocks of ``text`` as the Markdown reader finds them (:func:`read_blocks`); its
    inline reading, which finds the block elements' tags that start blocks in a
    paragraph's text, only when such a tag stands in it (without one the block pass alone
    reads the same blocks)."""
    if any(block_tag_end(text, m.start()) > 0 for m in _TAG_OPEN.finditer(text)):
        return read_blocks(Path(), text)[0]
    return block_structure(Path(), text)


_TAG_OPEN = re.compile(r"<")


def _without_blocks(text: str, whole: bool, source: str | None = None) -> str:
    """``text`` with its YAML metadata blocks (pandoc's: ``---`` after a blank line, a YAML
    mapping up to ``---`` or ``...``), ``<script>``, ``<style>``, ``<pre>`` and
    ``<textarea>`` elements and indented code blocks as spaces, line breaks kept, as
    the Markdown reader finds them in ``source`` (``text`` before its citations were
    blanked: a line that starts with a blanked citation looks indented), with the blocks
    a block element's tag in a paragraph starts (``a <div>`` then an indented line: code);
    a stretch (not ``whole``) starting with ``---`` only when it holds a mapping.  Fenced
    code is masked with the inline markup."""
    blocks = _read_blocks(text if source is None else source)
    indented = set(blocks.indented)
    yaml = {
        start: whole or meta.is_mapping
        for (start, _), meta in zip(blocks.regions, blocks.metadata, strict=True)
    }
    parts: list[str] = []
    pos = 0
    for start, end in blocks.skip:
        content = text.find("\n", start) + 1  # where a metadata block's YAML starts
        if content in yaml:
            hidden = yaml[content]
        else:
            hidden = (start, end) in indented or _VERBATIM.match(text, start) is not None
        if not hidden:
            continue
        end = min(end, len(text))
        parts += (text[pos:start], _NOT_NEWLINE.sub(" ", text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


#: an element whose content is no Markdown (nor prose)
_VERBATIM = re.compile(r" {0,3}<(?:pre|script|style|textarea)(?=[\s/>])", re.I)
_NOTE_MARK = re.compile(r"\[\^[^\]\s]{1,100}\]:?")
#: Markup marks: a block quote's ``>`` and a heading's closing ``#`` where a line starts
#: or ends, emphasis (``*`` or ``_`` not inside a word, a ``*`` not between spaces), stray
#: backticks and table pipes.  A ``>`` or a ``#`` inside a line is text (``(>99%)``, ``C#``).
_MARK = re.compile(
    r"^[ \t]{0,3}>(?:[ \t]{0,4}>)*|[ \t]#+[ \t]*$|[`|]+|(?<!\w)_+|_+(?!\w)|(?<!\s)\*+|\*+(?!\s)",
    re.M,
)
#: strikeout (``~~gone~~``), superscript (``2^10^``) and subscript (``H~2~O``): their text
#: stays, their marks go
_SCRIPTS = re.compile(
    r"~~(?=[^\s~])((?:[^~]|~(?!~)){1,500}?)(?<=[^\s~])~~|\^([^\s^]{1,100})\^"
    r"|(?<!~)~([^\s~]{1,100})~(?!~)"
)
_DROP = str.maketrans({MATH: f" {MATH_SHOWN} ", REF: f" {REF_SHOWN} ", _GONE: None})
#: an HTML entity (named, decimal or hexadecimal) with its closing semicolon
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
#: what an entity must not bring in: controls and the private characters of :func:`hide`
_CONTROLS = {c: " " for c in [*range(0x20), 0x7F, *range(_HIDDEN_BASE, _HIDDEN_BASE + 128)]}


def _closing_fence(fence: str) -> re.Pattern[str]:
    """The line that closes a code block opened by ``fence`` (as long or longer)."""
    return re.compile(f"^[ \\t]{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \\t\\r]*$", re.M)


#: a Quarto cross-reference left in the text (``@fig-plot``, ``?@sec-x``, ``[-@tbl-a]``): in a
#: ``.qmd`` document it is no citation, so no citation's blanking took it away
_CROSSREF = re.compile(r"(?:\[-?)?\??(?<![\w@])@([A-Za-z]+-[\w:.#$%&+?<>~/-]*\w)(?:\])?")


#: raw TeX inline (pandoc's ``raw_tex``: ``\\textbf{bold}``, ``\\ref{s}``), with its options and
#: arguments, which a PDF typesets as LaTeX does (an HTML page leaves it out)
_RAW_TEX = re.compile(
    r"\\[A-Za-z]+\*?(?:\[[^\[\]\n]{0,200}\])*(?:\{(?:[^{}\n]|\{[^{}\n]{0,200}\}){0,500}\})*"
)


def _raw_tex(m: re.Match[str]) -> str:
    return latex_plain(m.group())


def _crossref(m: re.Match[str]) -> str:
    return f" {REF} " if is_quarto_crossref(m.group(1)) else m.group()


def markdown_plain(text: str) -> str:
    """The words of a masked stretch of Markdown (white space not yet collapsed), hidden
    punctuation still hidden (:func:`shown`)."""
    text = _CROSSREF.sub(_crossref, text) if "@" in text else text
    text = _RAW_TEX.sub(_raw_tex, text) if "\\" in text else text
    text = _NOTE_MARK.sub(" ", text) if "[^" in text else text
    text = _TASK.sub(" ", text, count=1) if "[" in text else text
    text = _ATTRIBUTES.sub(" ", text) if "{" in text else text
    if "~" in text or "^" in text:
        text = _SCRIPTS.sub(lambda m: m.group(m.lastindex or 0), text)
    if "&" in text:  # ``&amp;``, ``&mdash;``, ``&#233;``: the character pandoc writes
        text = _ENTITY.sub(_entity, text)
    return _MARK.sub(" ", text).translate(_DROP)


def _entity(m: re.Match[str]) -> str:
    """The character an HTML entity stands for, hidden (no markup; :func:`shown`)."""
    return hide(html.unescape(m.group()).translate(_CONTROLS))


def shown(text: str) -> str:
    """``text`` with its hidden punctuation (see :func:`hide`) shown again."""
    return text.translate(_SHOW)


#: Blank lines, and lines that are a break as a whole: rules, fences (code and divs), setext
#: underlines, a table's delimiter row, metadata delimiters and reference definitions.
_BREAK = re.compile(
    r"\n[ \t\r]*\n"
    r"|^[ \t]{0,3}(?:-{3,}|\*{3,}|_{3,}|\.{3}|`{3,}|~{3,}|:{3,}|={2,}|[-*_](?:[ \t]*[-*_]){2,}"
    r"|\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?"
    # a reference definition (its label may be a citation, blanked: ``[@tag:x]: doi:...``)
    r"|(?:\[(?!\^)[^\]\n]{1,300}\]|[ ]{3,}):(?:[ \t]|[ \t]*\r?\n[ \t]+\S)[^\n]*)[^\n]*$"
    r"|^[ \t]{0,3}\|",
    re.M,
)
_HEADING = re.compile(r"^(?P<mark>[ \t]{0,3}#{1,6}(?:[ \t]+|(?=\r?$)))[^\n]*$", re.M)
_ROW = re.compile(r"^[^\n|]*\|[^\n]*$", re.M)
#: a block quote's, a list item's (nested ones indented deeper) or a definition's marker
#: a list item's marker: a bullet, a number, pandoc's fancy list markers (a letter, a roman
#: number or ``#``, followed by ``.`` or ``)`` or in parentheses, a capital letter with a full
#: stop before two spaces, as ``A.  item``: one space is an initial) and example list
#: markers (``(@)``, ``(@label)``, ``@.``)
_MARKER = (
    r"(?:[-*+]|(?:\d{1,9}|[a-z]|[ivxlcdm]{1,8}|#|@[\w-]{0,50})[.)]|[A-Z]\)"
    r"|\((?:\d{1,9}|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,8}|#|@[\w-]{0,50})\)|[A-Z]\.(?=[ \t]{2}))"
)
_BLOCK = re.compile(
    r"^(?:[ \t]{0,3}(?P<quote>>)|[ \t]*" + _MARKER + r"(?=[ \t]|\r?$)"
    # bookdown's text reference, its label no word (``(ref:cap) The caption``)
    r"|[ \t]{0,3}\(ref:[^()\s]{1,100}\)(?=[ \t])"
    r"|[ \t]{0,3}(?P<definition>[:~])(?=[ \t]))",
    re.M,
)
#: a task list item's box (``- [ ] to do``, ``- [x] done``)
_TASK = re.compile(r"\A\s*\[[ xX]\](?=\s)")
_DEFINITION_LINE = re.compile(r"[ \t]{0,3}[:~][ \t]")
_ITEM_LINE = re.compile(r"[ \t]*(?:" + _MARKER + r"(?:[ \t]|\r?$)|[ \t]{2,}\S)|[ \t]{4}")
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")


def markdown_breaks(masked: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every break between sentences that is no full stop, in order."""
    rules, joined = _grid_rows(masked) if "+" in masked else ([], set())
    breaks = heapq.merge(
        ((m.start(), m.end()) for m in _BREAK.finditer(masked)),
        _headings(masked),
        ((m.end(), m.end()) for m in _ROW.finditer(masked)),
        _blocks(masked),
        _simple_rows(masked),
        rules,
    )
    return (b for b in breaks if b[0] not in joined) if joined else breaks


#: a grid table's line between its rows (``+------+------+``, ``+======+`` under the header)
_GRID_RULE = re.compile(r"(?:[ \t]{0,3}>)*[ \t]*\+(?:[-=:]+\+)+[ \t]*\r?")
_GRID_LINE = re.compile(r"(?:[ \t]{0,3}>)*[ \t]*\|")


#: One row of a grid table as :func:`_grid_scan` reads it: the rule above it, the lines of
#: its cells, and whether a rule closes it (the table's last line may be a cell line).
_Scanned = tuple[tuple[int, int], list[tuple[int, int]], bool]


def _grid_scan(masked: str) -> Iterator[_Scanned]:
    """Every rule of ``masked``'s grid tables in order, each with the row under it (none
    under a table's last rule, a row of lines up to the table's end if no rule closes it)."""
    at = 0
    while (at := masked.find("+", at)) >= 0:
        line = masked.rfind("\n", 0, at) + 1
        end = masked.find("\n", at)
        end = len(masked) if end < 0 else end
        if not _GRID_RULE.fullmatch(masked, line, end):
            at = end
            continue
        rule, lines = (line, end), list[tuple[int, int]]()
        while end < len(masked):
            line, end = end + 1, masked.find("\n", end + 1)
            end = len(masked) if end < 0 else end
            if _GRID_RULE.fullmatch(masked, line, end):  # a row's end, the next's rule
                yield rule, lines, True
                rule, lines = (line, end), []
            elif _GRID_LINE.match(masked, line):
                lines.append((line, end))
            else:
                end = line - 1  # the table ended on the line before
                break
        yield rule, lines, False
        at = end


def _grid_rows(masked: str) -> tuple[list[tuple[int, int]], set[int]]:
    """The lines between a grid table's rows, breaks, and where the line breaks inside its
    rows start (a line's end, the next line's leading pipe), which are none: a row whose
    cells span lines is a sentence of its own, as a one-line row is."""
    rules: list[tuple[int, int]] = []
    joined: set[int] = set()
    for rule, lines, _ in _grid_scan(masked):
        rules.append(rule)
        joined.update(i for line, _ in lines[1:] for i in (line - 1, line))
    return rules, joined


#: One row of a grid table whose cells span lines: where it starts and ends, and the
#: stretches of its cells' lines in the order a reader reads them (cell by cell).
GridRow = tuple[int, int, tuple[tuple[int, int], ...]]


def grid_cells(masked: str) -> list[GridRow]:
    """The rows of ``masked``'s grid tables that span lines in more than one column, in
    order, each with its cells' stretches read a cell after the other, each cell's lines in
    turn (``| deep | trained |`` over ``| nets | on cats |`` reads ``deep nets trained on
    cats``); a cell spanning columns (no ``|`` under a ``+`` of the rule above) is one."""
    rows: list[GridRow] = []
    for (start, end), lines, closed in _grid_scan(masked):
        if closed and len(lines) > 1:
            rows += _grid_row(masked, masked[start:end].rstrip(" \t\r"), lines)
    return rows


def _grid_row(masked: str, rule: str, lines: list[tuple[int, int]]) -> list[GridRow]:
    """The row of ``lines`` under ``rule`` (:func:`grid_cells`), if it has two cells."""
    edges = [
        i
        for i, c in enumerate(rule)
        if c == "+" and all(masked[a + i : a + i + 1] == "|" for a, _ in lines)
    ]
    if len(edges) < 3:
        return []
    cells = tuple(
        (a + left + 1, min(b, a + right))
        for left, right in pairwise(edges)
        for a, b in lines
        if a + left + 1 < b
    )
    return [(lines[0][0], lines[-1][1], cells)]


#: a simple table's line of dashes under its header (or over its rows): a run for each
#: column, spaces between them
_COLUMNS = re.compile(r"^[ \t]{0,3}-{2,}(?:[ \t]+-{2,})+[ \t]*\r?$", re.M)
#: a line of dashes across a multiline table's top
_TOP = re.compile(r"[ \t]{0,3}-{3,}[ \t]*\r?")
#: the most lines a table's header is looked through for a multiline table's top
_HEADER_LINES = 20


def _header(masked: str, line: int) -> int:
    """Where the header over a table's line of column dashes starting at ``line`` starts (up
    to the line before it), or -1 when a multiline table's top is above it."""
    for _ in range(_HEADER_LINES):  # up the lines of the header to the line before it
        if line <= 0:
            break
        above = masked.rfind("\n", 0, line - 1) + 1
        text = masked[above : line - 1]
        if not text.strip():
            break
        if _TOP.fullmatch(text):
            return -1  # a multiline table's top
        line = above
    return line


def _simple_rows(masked: str) -> Iterator[tuple[int, int]]:
    """The end of each row of a simple table (each line under its columns' dashes, up to a
    blank line): a row is a sentence of its own, as a pipe table's is.  A multiline table's
    rows, which blank lines part, are left as they are."""
    for m in _COLUMNS.finditer(masked):
        if _header(masked, m.start()) < 0:
            continue
        at = m.end() + 1
        while at < len(masked):
            end = masked.find("\n", at)
            end = len(masked) if end < 0 else end
            row = masked[at:end]
            if not row.strip() or _COLUMNS.match(row) or _TOP.fullmatch(row):
                break
            yield end, end
            at = end + 1


_DASHES = re.compile(r"-+")


def _multiline_cells(masked: str) -> Iterator[GridRow]:
    """The rows of ``masked``'s multiline tables (a line of dashes over the header, blank
    lines between the rows) that span lines in more than one column, as :func:`grid_cells`
    gives a grid table's: a column runs from its dashes' start to the next one's."""
    for m in _COLUMNS.finditer(masked):
        if _header(masked, m.start()) >= 0:
            continue  # no multiline table's top over the header
        runs = [d.start() - m.start() for d in _DASHES.finditer(masked, m.start(), m.end())]
        lefts = [0, *runs[1:]]
        lines: list[tuple[int, int]] = []
        at = m.start()
        while at > 0:  # the header's lines, up to the line of dashes over it
            above = masked.rfind("\n", 0, at - 1) + 1
            if _TOP.fullmatch(masked, above, at - 1):
                break
            lines.insert(0, (above, at - 1))
            at = above
        rows = [lines]
        at = m.end() + 1
        while at < len(masked):  # the rows, blank lines between them, up to the dashes under
            end = masked.find("\n", at)
            end = len(masked) if end < 0 else end
            if _TOP.fullmatch(masked, at, end):
                yield from (_cells(row, lefts) for row in rows if len(row) > 1)
                break
            if _COLUMNS.match(masked, at):
                break  # no table: its end is no line of dashes
            if not masked[at:end].strip():
                rows.append([])
            else:
                rows[-1].append((at, end))
            at = end + 1


def _cells(lines: list[tuple[int, int]], lefts: list[int]) -> GridRow:
    """The row of ``lines`` whose columns start ``lefts`` characters into each line."""
    bounds = list(pairwise([*lefts, 1 << 62]))
    cells = tuple((a + x, min(b, a + y)) for x, y in bounds for a, b in lines if a + x < b)
    return lines[0][0], lines[-1][1], cells


def table_cells(masked: str) -> list[GridRow]:
    """The rows of ``masked``'s grid and multiline tables whose cells span lines, in order,
    each with its cells' stretches in the order a reader reads them (:func:`grid_cells`)."""
    grid = grid_cells(masked) if "+" in masked else []
    multiline = list(_multiline_cells(masked)) if "--" in masked else []
    return sorted(grid + multiline) if multiline else grid


def _headings(masked: str) -> Iterator[tuple[int, int]]:
    """An ATX heading's marker, and its line's end: the heading is text of its own."""
    for m in _HEADING.finditer(masked):
        yield m.start(), m.end("mark")
        yield m.end(), m.end()


def _blocks(masked: str) -> Iterator[tuple[int, int]]:
    """List items and block quotes that start a block: after a blank line, an item after an
    item (or its indented continuation), a quote after a line that is none."""
    for m in _BLOCK.finditer(masked):
        line = m.start()
        if line == 0:
            yield line, m.end()
            continue
        prev = masked[masked.rfind("\n", 0, line - 1) + 1 : line - 1]
        if not prev.strip():
            yield line, m.end()
        elif m.group("quote") is not None:
            if _QUOTE_LINE.match(prev) is None:
                yield line, m.end()
        elif m.group("definition") is not None:
            # a definition list's definition, after its term (a line between a blank line
            # and it) or another definition: ``Term`` then ``: Definition``
            at = masked.rfind("\n", 0, line - 1) + 1  # where the line before starts
            earlier = masked[masked.rfind("\n", 0, max(0, at - 1)) + 1 : max(0, at - 1)]
            if not at or not earlier.strip() or _DEFINITION_LINE.match(prev) is not None:
                yield line, m.end()
        elif _ITEM_LINE.match(prev) is not None:
            yield line, m.end()
