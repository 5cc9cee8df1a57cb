"""What pandoc's BibTeX reader rejects in a .bib file, and the entries it skips.

pandoc (``pandoc --citeproc`` with ``bibliography: refs.bib``, as Quarto and R Markdown run
it) reads a .bib file with a strict parser of its own: one construct it cannot read stops
it with an error ("Error reading bibliography file"), so no citation of the document is
resolved.  Found by running pandoc 2.17 on each case (``pandoc -f bibtex -t csljson`` gives
the same verdicts, except that it drops carriage returns and ends the text with a line feed
first, so the two ``%`` cases below without a line feed pass there); what later versions
read otherwise is a :class:`PandocDialect`:

* an entry, ``@string`` or ``@preamble`` in parentheses (``@article(key, ...)``);
  ``@comment(...)`` is read as the word ``@comment`` followed by text;
* an entry type of anything but letters (``@misc1{``, ``@my_type{``);
* a key holding anything but letters, digits and ``.:;?!`'()$/*@_+=-[]&``: ``"#%,<>\\^{|}~``,
  white space, a combining accent (``Mu\\u0308ller``); an empty key; no comma after the key
  (``@misc{key}``: an entry without fields needs ``key,``);
* a field name with anything but letters, digits and ``-_:+`` (``title.x``); a value
  without braces or quotes with anything but those (``url = http://x``, ``year = 20.5``);
  a ``#`` with no value after it; two commas in a row; a ``@string`` of more than one field;
* a ``{`` never closed: ``\\{`` and ``\\}`` are characters, not braces
  (``title = {\\}}``);
* a ``%`` in a quoted value (``title = "50% off"``), for pandoc 2: it starts a comment up
  to the end of the line, hiding the closing ``"``, so the value runs on into the next
  lines (``\\%`` is a character; ``%`` in braces, even inside quotes, is one too); pandoc 3
  reads it as text;
* a ``%`` comment with no line feed after it: the last line of a file with no line break
  at its end, any comment in a file whose lines end with a lone carriage return;
* an ``@`` outside the entries that starts none: ``jane.doe@example.org`` or ``foo @ bar``
  on a line between entries, ``@@article{``; outside entries a ``%`` starts a comment
  anywhere on a line (``50% jane@example.org`` is read), and ``@comment`` is skipped with
  the text after it up to the next ``@`` or ``%``;
* a ``@comment{`` never closed; from pandoc 3.9 on, an ``@comment`` not followed by ``{``.

No error for pandoc: ``@misc{k, title = {X},}``, ``@misc{k,}``, ``title =`` with no
value, keys such as ``k=e``, ``d'Aspremont``, ``k(p)``, ``k$y`` or ``Müller``,
``@comment(...)``, ``@comment`` without braces, ``@string{foo = "a" # "b"}``, duplicate
keys, a byte-order mark, CRLF line ends, a NUL character.  A file that is not UTF-8 stops
``pandoc --citeproc`` too ("Cannot decode byte"): its ``file-encoding`` error says so in a
Markdown project (:func:`~citewarden.checks.pandoc.pandoc_encoding`).

Entries pandoc skips while reading the rest: those after a ``%`` on their line (up to a
line feed: ``% x\r@misc{...}`` hides the entry) and inside an ``@comment{...}`` group
(:func:`~citewarden.parsing.bibtex.keys_in_comments`), and an entry whose type starts with
the word ``comment`` (``@commentary{key, ...}``, a biblatex type): pandoc before 3.9 takes it for
``@comment`` and skips it up to the next ``@`` (:func:`pandoc_skips`).  ``@xdata`` entries
are read but cannot be cited.  pandoc never finishes when a cited entry's ``crossref`` or
``xdata`` chain loops (``a`` -> ``b`` -> ``a``): :mod:`~citewarden.parsing.pandoc_crossref`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from citewarden.model import Entry, ParsedBibliography, Span, quoted

#: white space as Haskell's ``isSpace`` has it (Latin-1 spaces and the Zs characters)
_SPACES = re.compile("[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u202f\u205f\u3000]*")
_SKIP = re.compile(r"[^@%]*")
_LETTERS = re.compile(r"[^\W\d_]+")
_KEY = re.compile(r"[\w.:;?!`'()$/*@+=\-\[\]&]+")
_NAME = re.compile(r"[\w\-:+]+")
_BRACE_STOP = re.compile(r"[{}\\]")
#: the common entry, read by one match: ASCII white space, no ``%`` comment, values in
#: braces (two levels deep, no ``\\{`` or ``\\}``), quotes (no ``%``, brace or backslash)
#: or bare; anything else is read step by step
_WS = r"[ \t\r\n]*+"
_GROUP = r"\{(?:[^{}\\]++|\\(?![{}]))*+\}"
_BRACED = rf"\{{(?:[^{{}}\\]++|\\(?![{{}}])|{_GROUP})*+\}}"
_VALUE = rf'(?:{_BRACED}|"[^"{{}}\\%]*+"|[\w\-:+]++)'
_FIELD = rf"[\w\-:+]++{_WS}={_WS}{_VALUE}(?:{_WS}#{_WS}{_VALUE})*+{_WS}"
_COMMON_ENTRY = re.compile(
    rf"@[A-Za-z]++{_WS}\{{{_WS}[\w.:;?!`'()$/*@+=\-\[\]&]++{_WS},{_WS}"
    rf"(?:{_FIELD}(?:,{_WS}{_FIELD})*+,?+)?+{_WS}\}}"
)
#: entry types pandoc reads as something else
_SPECIAL = ("comment", "preamble", "string")
_QUOTE_STOP = re.compile(r'["{\\%]')
_QUOTE_STOP_NO_COMMENT = re.compile(r'["{\\]')


@dataclass(frozen=True, slots=True)
class PandocDialect:
    """What of pandoc's reading changed between its versions: of a .bib or CSL-JSON file,
    and of the citations of a Markdown document (each checked by running pandoc 2.17,
    2.19.2, 3.5, 3.6.1, 3.8.2.1 and 3.9 on the same files; CSL-JSON 2.17, 3.6.1 and 3.9)."""

    #: the versions that read so, as messages name them
    name: str
    #: a ``%`` in a quoted value starts a comment (pandoc 2; from pandoc 3 on it is text)
    quoted_comments: bool
    #: ``@comment`` is read only before ``{`` (``@comment(...)``, ``@comment text`` and a
    #: last ``@comment`` are errors), and ``@commentary{...}`` is an entry (pandoc 3.9 on;
    #: before, ``@comment`` was skipped with the text after it up to the next ``@``)
    braced_comments: bool
    #: Markdown: a citation group ``[...]`` is read only up to the ``]`` that balances its
    #: ``[``, brackets inside a braced key counted (pandoc 3 before 3.8: ``[@{a]b}]`` is no
    #: citation, ``[@{a[b}]; @c]`` cites only ``a[b``); pandoc 2 and 3.8 on read a braced
    #: key whole
    counted_brackets: bool = False
    #: Markdown: ``-@key`` outside brackets suppresses the author (pandoc 3); pandoc 2 reads
    #: the ``-`` as text and cites the key in the text
    bare_suppress_author: bool = True
    #: Markdown: an HTML comment opened in a list item's text goes on over the items after
    #: it up to its ``-->`` (pandoc 2 and 3 before 3.9, whose list reader reads a comment
    #: whole with the line it opens on: 2.17 and 3.6.1 checked; 3.8 not run); pandoc 3.9
    #: ends it at the next item, where its ``<!--`` is text
    list_comments: bool = False
    #: Markdown: a line that starts with a definition's marker (``: x``, ``~ x``) and is
    #: not indented as far as a list item's text ends the item (pandoc 3.9: the line is a
    #: paragraph's after the list); before 3.9 it goes on in the item, lazily (2.17 and
    #: 3.6.1 checked; 3.8 not run)
    definitions_end_items: bool = True
    #: Markdown: a definition's marker may stand alone on its line (``:`` or ``~``, then
    #: the line's end: pandoc 3.9); before 3.9 white space must follow it (2.17 and 3.6.1
    #: checked; 3.8 not run)
    bare_definition_markers: bool = True
    #: Markdown: a fenced div's opening fence that no fence closes is text (pandoc 2;
    #: pandoc 3 reads it as a div's, its class word not as text)
    closed_divs: bool = False
    #: Markdown: ``[^a b]: url``, a label with white space after ``^`` (no note's marker),
    #: is a link reference definition (pandoc 3: 3.6.1 and 3.9 checked); pandoc 2 reads
    #: no label starting with ``^`` as one (2.17: the line is a paragraph's)
    caret_references: bool = True
    #: Markdown: a ``[`` whose balancing ``]`` stands in a later paragraph drops the text
    #: from the first blank line after it up to that ``]`` (pandoc 2: 2.17 checked; 3.6.1
    #: and 3.9 read the paragraphs between as text)
    brackets_across_paragraphs: bool = False
    #: Markdown: ``@`` is a letter of a raw TeX command's name (pandoc 2: ``\\foo@a`` is one
    #: command); pandoc 3 ends the name before it, and the ``@`` may start a citation right
    #: after the command (2.17, 3.6.1 and 3.9 checked)
    tex_at_letters: bool = False
    #: Markdown: ``\\expandafter`` followed by white space and a word of letters reads the
    #: word as raw TeX (pandoc 3.9: ``\\expandafter x@b`` cites ``b``); pandoc 2 and 3
    #: before 3.9 read ``\\expandafter`` there as text, the word after it too (2.17 and
    #: 3.6.1 checked; 3.8 not run)
    tex_expandafter_words: bool = True
    #: Markdown: a citation group may be followed by a ``[`` no ``]`` balances in its
    #: paragraph or a ``{`` that opens no attribute set (pandoc 3: ``[@c][ x`` cites ``c``
    #: in a group; 3.6.1 and 3.9 checked); pandoc 2 reads no group before a ``[`` or ``{``
    groups_before_text: bool = True
    #: a CSL-JSON bibliography may be an object whose ``"items"`` are the array of items
    #: (pandoc 3: 3.6.1 and 3.9 checked); pandoc 2 (2.17) stops with an error at it
    csl_items_object: bool = True
    #: a CSL-YAML bibliography may be a bare list of items, without ``references:`` (pandoc
    #: 3: 3.6.1 and 3.9 checked); pandoc 2 (2.17) reads no entry from it, without an error
    csl_yaml_bare_list: bool = True


#: pandoc 2 (2.17 and 2.19.2 checked)
PANDOC_2 = PandocDialect(
    "pandoc 2",
    quoted_comments=True,
    braced_comments=False,
    bare_suppress_author=False,
    list_comments=True,
    definitions_end_items=False,
    bare_definition_markers=False,
    closed_divs=True,
    caret_references=False,
    brackets_across_paragraphs=True,
    tex_at_letters=True,
    tex_expandafter_words=False,
    groups_before_text=False,
    csl_items_object=False,
    csl_yaml_bare_list=False,
)
#: pandoc 3 before 3.8 (3.5 and 3.6.1 checked), which Quarto 1.5-1.8 ships
PANDOC_3 = PandocDialect(
    "pandoc 3.0-3.7",
    quoted_comments=False,
    braced_comments=False,
    counted_brackets=True,
    list_comments=True,
    definitions_end_items=False,
    bare_definition_markers=False,
    tex_expandafter_words=False,
)
#: pandoc 3.8 (3.8.2.1 checked)
PANDOC_3_8 = PandocDialect(
    "pandoc 3.8",
    quoted_comments=False,
    braced_comments=False,
    list_comments=True,
    definitions_end_items=False,
    bare_definition_markers=False,
    tex_expandafter_words=False,
)
#: pandoc 3.9 and later
PANDOC_3_9 = PandocDialect("pandoc 3.9 and later", quoted_comments=False, braced_comments=True)


def dialect_of(version: tuple[int, ...] | None) -> PandocDialect:
    """The reading of the pandoc ``version``; an unknown version reads as pandoc 3 before
    3.8 does, the pandoc Quarto and RStudio ship."""
    if version is None:
        return PANDOC_3
    if version < (3,):
        return PANDOC_2
    if version < (3, 8):
        return PANDOC_3
    return PANDOC_3_8 if version < (3, 9) else PANDOC_3_9


class _Reject(Exception):
    """pandoc stops at ``span`` (internal: caught where a block starts)."""

    def __init__(self, span: Span, why: str, unbalanced: bool = False) -> None:
        super().__init__(why)
        self.span = span
        self.why = why
        #: how far the block was read when pandoc stopped (an error reported before it)
        self.reach = span.end
        #: the braces around it may not match: a ``\\{`` or ``\\}`` before it is to blame
        self.unbalanced = unbalanced


@dataclass(frozen=True, slots=True)
class PandocReading:
    """How pandoc reads a .bib file: where it stops with an error (each place, resuming
    at the next entry after one) and where it skips text that holds entries."""

    #: ``(place, why, block)`` of each construct pandoc rejects, in order (``block``: where
    #: pandoc began the block it rejects, or the junk before it)
    rejections: tuple[tuple[Span, str, int], ...]
    #: ``(start, end, place, why)`` of each ``@comment...`` word whose text pandoc skips
    skips: tuple[tuple[int, int, Span, str], ...]
    #: where each top-level block was begun (pandoc's whole state there is the offset)
    blocks: tuple[int, ...] = ()
    #: how far the block of each rejection was read (past the next block, at times)
    reach: tuple[int, ...] = ()


#: how far past the end of a block its reading may look (the words quoted in a message)
_LOOKAHEAD = 64


def read_as_pandoc(
    text: str,
    entries: Sequence[Entry],
    since: tuple[PandocReading, int, int, int] | None = None,
    dialect: PandocDialect = PANDOC_2,
) -> PandocReading:
    """Read ``text`` as pandoc's BibTeX reader (of ``dialect``) does (linear in its
    length).  ``entries`` (as :func:`~citewarden.parsing.bibtex.parse_bibtex` reads them)
    give the places to resume at after an error.

    ``since``: ``(reading, before, after, delta)``, the reading of the text before an edit
    that kept its first ``before`` characters and moved those from ``after`` on (in the new
    text) by ``delta``, with the entries there: only the blocks around the edit are read
    again, the same as a whole reading."""
    reader = _Reader(text, dialect)
    blocks: list[int] = []
    pos = 0
    old: PandocReading | None = None
    after = delta = 0
    if since is not None:
        old, before, after, delta = since
        limit = before - _LOOKAHEAD
        j = bisect.bisect_right(old.blocks, limit) - 1
        if j >= 0:
            pos = old.blocks[j]
            for (_, _, block), reach in zip(old.rejections, old.reach, strict=True):
                if block < pos and reach >= limit:  # its reading saw the edit
                    pos = block
                    break
            blocks += old.blocks[: bisect.bisect_left(old.blocks, pos)]
            kept = [i for i, r in enumerate(old.rejections) if r[2] < pos]
            reader.rejections += (old.rejections[i] for i in kept)
            reader.reach += (old.reach[i] for i in kept)
            reader.skips += (s for s in old.skips if s[0] < pos)
    starts: list[int] | None = None
    while pos < len(text):
        if old is not None and pos >= after:
            k = bisect.bisect_left(old.blocks, pos - delta)
            if k < len(old.blocks) and old.blocks[k] == pos - delta:
                return _joined(reader, blocks, old, k, delta)
        blocks.append(pos)
        try:
            pos = reader.top(pos)
        except _Reject as reject:
            reader.rejections.append((reject.span, reject.why, pos))
            reader.reach.append(max(reject.reach, reject.span.end) + _LOOKAHEAD)
            if starts is None:
                starts = [entry.span.start for entry in entries]
            i = bisect.bisect_right(starts, max(reject.span.end, reader.reached) - 1)
            pos = starts[i] if i < len(starts) else len(text)
    return reader.reading(blocks)


def read_again(
    text: str,
    bib: ParsedBibliography,
    last: tuple[Sequence[Entry], int, PandocReading] | None,
    dialect: PandocDialect = PANDOC_2,
) -> PandocReading:
    """:func:`read_as_pandoc` of ``text`` and ``bib``'s entries, reading again only around
    the edit when ``last`` (``(entries, length, reading)`` of an earlier text, read with
    the same ``dialect``) is of the parse ``bib`` was re-read from
    (:attr:`~citewarden.model.ParsedBibliography.reused`)."""
    entries = bib.entries
    if last is None or bib.reused is None or id(last[0]) != bib.reused[0]:
        return read_as_pandoc(text, entries, dialect=dialect)
    _, length, reading = last
    _, head, tail = bib.reused
    before = entries[head - 1].span.end if head else 0
    after = entries[len(entries) - tail].span.start if tail else len(text)
    since = (reading, before, after, len(text) - length)
    return read_as_pandoc(text, entries, since, dialect)


def _joined(
    reader: _Reader, blocks: list[int], old: PandocReading, k: int, delta: int
) -> PandocReading:
    """The reading so far followed by ``old``'s from its ``k``-th block on, moved by
    ``delta``."""
    at = old.blocks[k]
    blocks += (b + delta for b in old.blocks[k:])
    for (s, why, b), reach in zip(old.rejections, old.reach, strict=True):
        if b >= at:
            reader.rejections.append((Span(s.start + delta, s.end + delta), why, b + delta))
            reader.reach.append(reach + delta)
    reader.skips += (
        (a + delta, e + delta, Span(p.start + delta, p.end + delta), why)
        for a, e, p, why in old.skips
        if a >= at
    )
    return reader.reading(blocks)


#: an entry type starting with the word comment (``@commentary``), which pandoc skips
_COMMENT_TYPE = re.compile(r"@[cC][oO][mM][mM][eE][nN][tT][^\s{}(),=#%\"@]")


def pandoc_skipped_entries(
    text: str, entries: Sequence[Entry], dialect: PandocDialect = PANDOC_2
) -> list[Entry]:
    """The ``entries`` that pandoc (of ``dialect``) skips (:func:`pandoc_skips`), in
    order."""
    if dialect.braced_comments or _COMMENT_TYPE.search(text) is None:
        return []
    return [
        entry
        for entry, _, _ in pandoc_skips(read_as_pandoc(text, entries, dialect=dialect), entries)
    ]


def pandoc_skipped_keys(
    text: str, entries: Sequence[Entry], dialect: PandocDialect = PANDOC_2
) -> frozenset[str]:
    """Keys of the ``entries`` that pandoc (of ``dialect``) skips (:func:`pandoc_skips`)
    and no other entry defines."""
    skipped = pandoc_skipped_entries(text, entries, dialect)
    if not skipped:
        return frozenset()
    gone = {id(entry) for entry in skipped}
    kept = {entry.key for entry in entries if id(entry) not in gone}
    return frozenset(entry.key for entry in skipped if entry.key not in kept)


def pandoc_skips(reading: PandocReading, entries: Sequence[Entry]) -> list[tuple[Entry, Span, str]]:
    """The ``entries`` that pandoc skips as part of an ``@comment``, with the place and why."""
    if not reading.skips:
        return []
    starts = [s for s, _, _, _ in reading.skips]
    found: list[tuple[Entry, Span, str]] = []
    for entry in entries:
        at = entry.span.start
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < reading.skips[i][1]:
            _, _, place, why = reading.skips[i]
            found.append((entry, place, why))
    return found


class _Reader:
    """pandoc's BibTeX grammar (of one :class:`PandocDialect`), one top-level block at a
    time."""

    def __init__(self, text: str, dialect: PandocDialect = PANDOC_2) -> None:
        self.text = text
        self.dialect = dialect
        self._quote_stop = _QUOTE_STOP if dialect.quoted_comments else _QUOTE_STOP_NO_COMMENT
        self.rejections: list[tuple[Span, str, int]] = []
        self.reach: list[int] = []
        self.skips: list[tuple[int, int, Span, str]] = []
        #: the furthest offset read (where to resume after an error)
        self.reached = 0
        #: a ``%`` that hid the closing quote of a value in the current block
        self.hidden_quote: int | None = None
        #: the first ``\\{`` or ``\\}`` in a braced value of the current block
        self.escaped: int | None = None

    def reading(self, blocks: list[int]) -> PandocReading:
        return PandocReading(
            tuple(self.rejections), tuple(self.skips), tuple(blocks), tuple(self.reach)
        )

    # -- top level ----------------------------------------------------------------------

    def top(self, pos: int) -> int:
        """Read from ``pos`` at top level to the end of the next block."""
        text = self.text
        pos = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            return pos
        if text[pos] == "%":
            return self.comment(pos)
        common = _COMMON_ENTRY.match(text, pos)
        if common is not None and not text[pos + 1 : pos + 9].lower().startswith(_SPECIAL):
            self.reached = common.end()
            return common.end()
        self.hidden_quote = self.escaped = None
        failed: _Reject | None = None
        try:
            special = self.special(pos)
        except _Reject as reject:  # pandoc backtracks and reads an entry there
            special, failed = None, reject
        if special is not None:
            return special
        try:
            return self.entry(pos)
        except _Reject as reject:
            reach = max(reject.span.end, failed.span.end if failed is not None else 0)
            if self.hidden_quote is not None:
                blamed = _hidden(self.hidden_quote)
            elif failed is not None:
                blamed = failed
            elif reject.unbalanced and self.escaped is not None:
                blamed = _escaped(self.text, self.escaped)
            else:
                blamed = reject
            blamed.reach = reach
            raise blamed from None

    def comment(self, pos: int) -> int:
        """After the ``%`` comment at ``pos`` (up to and with its line feed)."""
        text = self.text
        end = text.find("\n", pos)
        if end == -1:
            self.reached = len(text)
            how = (
                "this file's lines end with a carriage return alone"
                if "\r" in text[pos:]
                else "the file ends first"
            )
            raise _Reject(
                Span(pos, pos + 1),
                f"a '%' comment with no line feed after it: pandoc reads a comment up to a "
                f"line feed, and {how}",
            )
        return end + 1

    def sp(self, pos: int) -> int:
        """After white space and ``%`` comments from ``pos``."""
        text = self.text
        while True:
            pos = _SPACES.match(text, pos).end()  # type: ignore[union-attr]
            if pos < len(text) and text[pos] == "%":
                pos = self.comment(pos)
            else:
                return pos

    def special(self, at: int) -> int | None:
        """After the ``@comment``, ``@preamble`` or ``@string`` at ``at``; None if none."""
        text = self.text
        if self.dialect.braced_comments:
            if _word_is(text, at + 1, "comment") and len(_letters(text, at + 1)) == 7:
                return self.braced_comment(at)
        elif _word_is(text, at + 1, "comment"):
            pos = self.sp(at + 8)
            if pos < len(text) and text[pos] == "{":
                try:
                    return self.braces(pos)
                except _Reject:
                    raise _Reject(
                        Span(at, pos + 1), "@comment never closed: pandoc reads no entry after it"
                    ) from None
            end = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
            word = _word(text, at + 1)  # the entry type, as citewarden's reader has it
            if len(word) > 7:
                why = (
                    f"it reads {quoted('@' + word)} as the word @comment and "
                    "skips the text after it up to the next '@'"
                )
                self.skips.append((at, end, Span(at, at + 1 + len(word)), why))
            return end
        if _word_is(text, at + 1, "preamble"):
            pos = self.sp(at + 9)
            if pos >= len(text) or text[pos] != "{":
                raise _Reject(Span(at, pos + 1), _braces_only("@preamble" + text[pos : pos + 1]))
            return self.braces(pos)
        if _word_is(text, at + 1, "string"):
            pos = self.sp(at + 7)
            if pos < len(text) and text[pos] == "(":
                raise _Reject(Span(at, pos + 1), _braces_only("@string("))
            if pos >= len(text) or text[pos] != "{":
                return None
            pos = self.field(self.sp(pos + 1))
            c = text[pos : pos + 1]
            if c != "}":
                why = (
                    "pandoc reads one field in a @string"
                    if c == ","
                    else _expected("'}' to close the @string", c)
                )
                raise _Reject(Span(pos, pos + len(c)), why)
            return pos + 1
        return None

    def braced_comment(self, at: int) -> int:
        """After the ``@comment{...}`` at ``at``, read as pandoc 3.9 and later do."""
        text = self.text
        pos = self.sp(at + 8)
        if pos < len(text) and text[pos] == "{":
            try:
                return self.braces(pos)
            except _Reject:
                why = "@comment never closed: pandoc reads no entry after it"
                raise _Reject(Span(at, pos + 1), why) from None
        c = text[pos : pos + 1]
        why = (
            f"'@comment' followed by {_char(c)}: {self.dialect.name} read a comment only "
            "in braces, @comment{...}"
        )
        raise _Reject(Span(at, at + 8), why)

    # -- entries ------------------------------------------------------------------------

    def entry(self, at: int) -> int:
        """After the entry at ``at`` (its ``@``)."""
        text = self.text
        kind = _letters(text, at + 1)
        word = "@" + _word(text, at + 1)
        if not kind:
            what = "none" if word == "@" else quoted(word[1:])
            raise _Reject(
                Span(at, at + 1),
                f"'@' outside an entry: pandoc reads an entry type after it, and finds {what}",
            )
        end = at + 1 + len(kind)
        brace = self.sp(end)
        c = text[brace : brace + 1]
        if c != "{":
            if c == "(":
                raise _Reject(Span(at, brace + 1), _braces_only("@" + kind + "("))
            if brace == end and (c.isalnum() or c in ("_", "-")):
                why = f"pandoc reads only letters in an entry type: {quoted(word)}"
                raise _Reject(Span(at, at + len(word)), why)
            why = (
                f"'@' outside an entry: pandoc reads {quoted(word)} as the start of an entry, "
                "with no '{' after it"
            )
            raise _Reject(Span(at, at + 1), why)
        pos = self.sp(brace + 1)
        key = _KEY.match(text, pos)
        if key is None:
            c = text[pos : pos + 1]
            if c in (",", "}"):
                raise _Reject(Span(at, brace + 1), "an entry without a key")
            raise _Reject(Span(pos, pos + len(c)), f"{_char(c)} in a key")
        after = self.after_key(key.end())
        if after >= len(text) or text[after] != ",":
            c = text[after : after + 1]
            if c == "}":
                why = (
                    f"no comma after the key {quoted(key.group())}: pandoc needs one, also "
                    "in an entry without fields"
                )
            elif after == key.end():
                why = f"{_char(c)} in a key"
            else:
                why = _expected(f"',' after the key {quoted(key.group())}", c)
            raise _Reject(Span(after, after + len(c)), why)
        pos = self.sp(after + 1)
        while _NAME.match(text, pos) is not None:
            pos = self.field(pos)
            if pos >= len(text) or text[pos] != ",":
                break
            pos = self.sp(pos + 1)
        pos = self.sp(pos)
        if pos >= len(text) or text[pos] != "}":
            c = text[pos : pos + 1]
            if c == ",":
                raise _Reject(Span(pos, pos + 1), "two commas in a row")
            raise _Reject(Span(pos, pos + len(c)), _expected("',' or '}'", c), unbalanced=True)
        self.reached = max(self.reached, pos + 1)
        return pos + 1

    def after_key(self, pos: int) -> int:
        """After white space and comments after a key: a ``%`` right after it is one."""
        text = self.text
        end = self.sp(pos)
        if pos < len(text) and text[pos] == "%" and (end >= len(text) or text[end] != ","):
            why = "'%' in a key: pandoc reads the rest of the line as a comment"
            raise _Reject(Span(pos, pos + 1), why)
        return end

    def field(self, pos: int) -> int:
        """After the field ``name = value # ...`` at ``pos`` and the space after it."""
        text = self.text
        name = _NAME.match(text, pos)
        if name is None:
            c = text[pos : pos + 1]
            raise _Reject(Span(pos, pos + len(c)), _expected("a field name", c))
        pos = self.sp(name.end())
        if pos >= len(text) or text[pos] != "=":
            c = text[pos : pos + 1]
            if pos == name.end() and c and not c.isspace() and c not in ",}":
                why = f"{_char(c)} in a field name"
            else:
                why = _expected(f"'=' after the field name {quoted(name.group())}", c)
            raise _Reject(Span(pos, pos + len(c)), why)
        pos = self.sp(pos + 1)
        end = self.value(pos)
        if end is None:  # no value at all: pandoc reads an empty one
            return pos
        while True:
            bare = text[pos : pos + 1] not in ("{", '"')
            after = self.sp(end)
            if after >= len(text) or text[after] != "#":
                break
            pos = self.sp(after + 1)
            end = self.value(pos)
            if end is None:
                raise _Reject(Span(after, after + 1), "'#' with no value after it")
        c = text[end : end + 1]
        if bare and c and c not in ",}%#" and not c.isspace():
            word = text[pos:end] + _word(text, end)
            why = (
                "pandoc reads a value without braces or quotes only as letters, digits and "
                f"'-_:+', not {_char(c)}: {quoted(word)}"
            )
            raise _Reject(Span(end, end + 1), why)
        return after

    def value(self, pos: int) -> int | None:
        """After the value (one part of a concatenation) at ``pos``; None if none."""
        text = self.text
        c = text[pos : pos + 1]
        if c == "{":
            return self.braces(pos)
        if c == '"':
            return self.quotes(pos)
        m = _NAME.match(text, pos)
        return None if m is None else m.end()

    def braces(self, pos: int) -> int:
        """After the braced group at ``pos`` (``\\{`` and ``\\}`` are no braces)."""
        text = self.text
        depth = 0
        i = pos
        while True:
            m = _BRACE_STOP.search(text, i)
            if m is None:
                self.reached = len(text)
                raise _Reject(Span(pos, pos + 1), "'{' never closed", unbalanced=True)
            i = m.end()
            c = m.group()
            if c == "\\":
                if text[i : i + 1] in ("{", "}"):
                    if self.escaped is None:
                        self.escaped = i - 1
                    i += 1
            elif c == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return i

    def quotes(self, pos: int) -> int:
        """After the quoted value at ``pos``: a ``%`` starts a comment in it."""
        text = self.text
        i = pos + 1
        while True:
            m = self._quote_stop.search(text, i)
            if m is None or m.end() > len(text) - (m.group() == "\\"):
                self.reached = len(text)
                if self.hidden_quote is not None:
                    raise _hidden(self.hidden_quote)
                raise _Reject(Span(pos, pos + 1), "'\"' never closed")
            c = m.group()
            at = m.start()
            if c == '"':
                return at + 1
            if c == "{":
                i = self.braces(at)
            elif c == "\\":
                i = at + 2
            else:
                i = self.comment(at)
                if self.hidden_quote is None and '"' in text[at:i]:
                    self.hidden_quote = at


def _letters(text: str, pos: int) -> str:
    """The letters at ``pos`` (Haskell's ``isLetter``, as Python's ``isalpha``)."""
    m = _LETTERS.match(text, pos)
    if m is None:
        return ""
    word = m.group()
    if word.isalpha():
        return word
    n = 0
    while word[n].isalpha():
        n += 1
    return word[:n]


def _word_is(text: str, pos: int, word: str) -> bool:
    """``text`` has ``word`` at ``pos``, ignoring the case of ASCII letters."""
    got = text[pos : pos + len(word)]
    return got.isascii() and got.lower() == word


def _hidden(at: int) -> _Reject:
    return _Reject(
        Span(at, at + 1),
        "'%' in a quoted value: pandoc 2 reads the rest of the line as a comment, hiding the "
        "closing '\"' (write \\% or put the value in braces; pandoc 3 reads it as text)",
    )


def _escaped(text: str, at: int) -> _Reject:
    return _Reject(
        Span(at, at + 2),
        f"pandoc reads {quoted(text[at : at + 2])} as a character, not a brace, so the "
        "braces around it do not match",
    )


def _braces_only(opening: str) -> str:
    return f"{quoted(opening)}: pandoc reads an entry, @string and @preamble only in braces"


def _expected(what: str, c: str) -> str:
    return f"expected {what}, found {_char(c)}"


def _char(c: str) -> str:
    """``c`` for a message (the end of the file when empty)."""
    if not c:
        return "the end of the file"
    if c.isspace():
        return f"white space ({c!r})"
    return quoted(c)


_WORD = re.compile(r"[^\s{}(),=#%\"@]*")


def _word(text: str, pos: int) -> str:
    return _WORD.match(text, pos, min(len(text), pos + 60)).group()  # type: ignore[union-attr]


__all__ = [
    "PANDOC_2",
    "PANDOC_3",
    "PANDOC_3_8",
    "PANDOC_3_9",
    "PandocDialect",
    "PandocReading",
    "dialect_of",
    "pandoc_skipped_entries",
    "pandoc_skipped_keys",
    "pandoc_skips",
    "read_again",
    "read_as_pandoc",
]
