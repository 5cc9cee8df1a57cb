"""The text of a .bib file that biber and pandoc read as comments, where BibTeX (which has no
comment character, and reads the word ``@comment`` alone) reads entries.

* A ``%`` between blocks starts a comment up to the end of its line (in an entry that is
  read, an ``@string``, an ``@preamble`` or a group it is text: ``@misc{a, title={50%}}
  @misc{k, ...}`` defines ``k``); for biber only where a token starts, at a line's start,
  after white space or right after a block (``x50% @misc{k, ...}`` defines ``k`` for
  biber, not for pandoc).  pandoc ends the line at a line feed only (``% x\\r@misc{...}``
  hides the entry); biber first turns every line break of Perl's ``\\R`` (``\\r\\n``,
  ``\\n``, ``\\r``, ``\\v``, ``\\f``, U+0085, U+2028, U+2029) into a line feed
  (``Biber::Input::file::bibtex::preprocess_file``), so a lone carriage return ends its
  comment (``%c\\r@misc{k,...}`` defines ``k`` for biber).
* ``@comment{...}`` is skipped whole, to its matching brace (``%`` is no comment there);
  biber skips ``@comment(...)`` too, pandoc reads it as the word ``@comment`` and text.
  btparse, biber's reader, skips white space, a ``%`` comment and an apostrophe or a
  backslash with the (ASCII) character after it between the ``@``, the word and the
  opener, so ``@comment'x{...}`` is a group for biber (BibTeX reads the entries in it).

Checked with biber 2.18 and pandoc 2.17 (``tests/test_bib_comments.py`` runs them).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar, overload

from citewarden.model import Entry

#: a line break for biber (Perl's ``\R``, each turned into a line feed before parsing)
BIBER_BREAK = re.compile("[\n\v\f\r\x85\u2028\u2029]")
#: a line break for pandoc
_LINE_FEED = re.compile("\n")
#: what is read at top level: a ``%``, or the opening of a block that holds no entry
_TOP_MARK = re.compile(r"%|@\s*(comment|string|preamble)\s*([{(])", re.I)
#: what btparse skips between an ``@``, the block's type and its opener: white space, an
#: apostrophe or a backslash with the (ASCII) character after it (``@comment'x{`` opens a
#: comment), and ``%`` comments to their line break (:func:`_gap_end`)
_BTPARSE_GAP = re.compile(r"(?:[ \t\n\v\f\r\x85\u2028\u2029]|['\\][\x00-\x7f])*+")
_BLOCK_TYPE = re.compile("comment|string|preamble", re.I)
#: what biber reads at top level: a ``%``, or an ``@`` that may open a block (read whole
#: by :func:`_biber_block`)
_BIBER_TOP_MARK = re.compile(
    r"%|@(?=" + _BTPARSE_GAP.pattern + "(?:%|comment|string|preamble))", re.I
)
#: the word of the blocks that hold no entry, in any case
_BLOCK_WORD = re.compile("comment", re.I)
#: what may stand before a ``%`` that starts a comment for biber (where a token starts)
_TOKEN_BEFORE = frozenset(" \t\n\v\f\r\x85\u2028\u2029")
_GROUP_DELIM = re.compile(r"[{}()]")

T = TypeVar("T")


class EntryBounds(NamedTuple):
    """Where the entries of a parsed bibliography are, in file order (parallel to them):
    what the readings here look up, many times per ``%`` (a list of numbers, bisected at C
    speed, rather than an entry made and asked for its span at each look-up).  A
    bibliography's index keeps them per version
    (:meth:`~citewarden.file_state.BibIndex.bounds`)."""

    #: ``entries[i].span.start``
    starts: Sequence[int]
    #: ``entries[i].span.end``
    ends: Sequence[int]
    #: ``entries[i].key``
    keys: Sequence[str]


class _Column(Sequence[T]):
    """``get(entries[i])`` for each entry, looked up when asked for (the bounds of entries
    no index was given for: a few look-ups per comment, never the whole file)."""

    __slots__ = ("_entries", "_get")

    def __init__(self, entries: Sequence[Entry], get: Callable[[Entry], T]) -> None:
        self._entries = entries
        self._get = get

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: int | slice) -> T | Sequence[T]:
        if isinstance(i, slice):
            return [self._get(e) for e in self._entries[i]]
        return self._get(self._entries[i])


def _start(entry: Entry) -> int:
    return entry.span.start


def _end(entry: Entry) -> int:
    return entry.span.end


def _key(entry: Entry) -> str:
    return entry.key


def lazy_bounds(entries: Sequence[Entry]) -> EntryBounds:
    """The :class:`EntryBounds` of ``entries``, each looked up in its entry when asked for."""
    return EntryBounds(_Column(entries, _start), _Column(entries, _end), _Column(entries, _key))


def on_comment_line(text: str, at: int, biber: bool = False) -> bool:
    """A ``%`` stands before ``at`` on its line (as biber reads lines, with ``biber``;
    else up to a line feed, as pandoc reads them)."""
    start = text.rfind("\n", 0, at) + 1
    if not biber:
        return text.find("%", start, at) >= 0
    percent = text.rfind("%", start, at)
    return percent >= 0 and BIBER_BREAK.search(text, percent, at) is None


def skipped_regions(
    text: str, entries: Sequence[Entry], biber: bool = False, bounds: EntryBounds | None = None
) -> list[tuple[int, int, bool]]:
    """The ``[start, end)`` of the text biber (``biber``) or pandoc skips, in order, with
    whether it is an ``@comment`` group (else a ``%`` comment, up to its line break).

    Read at top level only: a ``%`` or an ``@comment`` in an entry that is read, in an
    ``@string`` or ``@preamble`` block or in a group is text (``@misc{a, title={50%}}
    @misc{k, ...}`` defines ``k``).  For biber a ``%`` starts a comment only where a token
    starts: at a line's start, after white space or right after a block (``x50%
    @misc{k, ...}`` is junk, then ``k``); for pandoc anywhere.  An entry that starts in a
    comment is none: the text after the comment is read at top level again.  The reading
    stops at an ``@comment`` group that is never closed (biber and pandoc then read no
    entry of the file).  Looks at each ``%`` and block, not at each entry; ``bounds``, the
    :class:`EntryBounds` of ``entries``, when the caller has them."""
    if "%" not in text and _BLOCK_WORD.search(text) is None:
        return []
    starts, ends, _ = bounds or lazy_bounds(entries)
    breaks = BIBER_BREAK if biber else _LINE_FEED
    marks = _BIBER_TOP_MARK if biber else _TOP_MARK
    line_ends = _LineEnds(text)
    regions: list[tuple[int, int, bool]] = []
    block_end = -1  # the end of the last block passed over
    pos = 0
    i, end = -1, -1  # the last entry that starts before the mark, and its end
    while (m := marks.search(text, pos)) is not None:
        at = m.start()
        i, end = _entry_before(starts, ends, at, i, end)
        if end > at and not _in_comment(regions, starts[i]):
            pos = block_end = end  # in an entry that is read
            continue
        if m.group() == "%":
            after_block = at == block_end or (i >= 0 and end == at)
            if biber and at > 0 and text[at - 1] not in _TOKEN_BEFORE and not after_block:
                pos = at + 1  # in junk, where no token starts
                continue
            brk = breaks.search(text, at)
            pos = len(text) if brk is None else brk.start()
            regions.append((at, pos, False))
            continue
        if biber:
            block = _biber_block(text, at, line_ends)
            if block is None:
                pos = at + 1
                continue
            word, opener = block
        else:
            word, opener = m.group(1).lower(), m.end() - 1
            if m.group(2) == "(":
                pos = m.end()  # pandoc reads @comment( as a word, and then text
                continue
        end = _group_end(text, opener)
        if end == -1:
            if word == "comment":
                break
            pos = opener + 1
            continue
        if word == "comment":
            regions.append((m.end(), end, True))
        pos = block_end = end
    return regions


class _LineEnds:
    """Where the line biber reads from a position ends, remembered for the last line asked
    for, so that the ``%`` comments of many ``@`` on one line are read to its end once."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._start = self._end = -1

    def after(self, pos: int) -> int:
        """The first line break at or after ``pos`` (the text's end: none)."""
        if not self._start <= pos <= self._end:
            brk = BIBER_BREAK.search(self._text, pos)
            self._start, self._end = pos, len(self._text) if brk is None else brk.start()
        return self._end


def _gap_end(text: str, pos: int, line_ends: _LineEnds) -> int:
    """Where what btparse skips from ``pos`` on (:data:`_BTPARSE_GAP`, ``%`` comments) ends."""
    while True:
        pos = _BTPARSE_GAP.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith("%", pos):
            return pos
        pos = line_ends.after(pos)


def _biber_block(text: str, at: int, line_ends: _LineEnds) -> tuple[str, int] | None:
    """The block the ``@`` at ``at`` opens for biber: its type (lower case) and where its
    opener stands, or None (no ``@comment``, ``@string`` or ``@preamble`` with an opener)."""
    m = _BLOCK_TYPE.match(text, _gap_end(text, at + 1, line_ends))
    if m is None:
        return None
    opener = _gap_end(text, m.end(), line_ends)
    if text.startswith(("{", "("), opener):
        return m.group().lower(), opener
    return None


def _entry_before(
    starts: Sequence[int], ends: Sequence[int], at: int, last: int, end: int
) -> tuple[int, int]:
    """The position and end of the last entry (of ``starts`` and ``ends``) that starts at
    or before ``at``, at or after ``last`` (the one found before, which ends at ``end``;
    -1 and -1 for none): the next one first, so that a file whose entries hold many ``%``
    (URLs with ``%20``) is read in one pass over them."""
    nxt = last + 1
    if nxt >= len(starts) or starts[nxt] > at:
        return last, end
    following = ends[nxt]
    if following > at:
        return nxt, following
    i = bisect.bisect_right(starts, at, lo=nxt) - 1
    return i, ends[i]


def _in_comment(regions: list[tuple[int, int, bool]], start: int) -> bool:
    """Whether ``start`` is in one of the ``regions`` found so far."""
    if not regions or start >= regions[-1][1]:
        return False
    r = bisect.bisect_right(regions, start, key=_region_start) - 1
    return r >= 0 and start < regions[r][1]


def _region_start(region: tuple[int, int, bool]) -> int:
    return region[0]


def comment_groups(
    text: str,
    entries: Sequence[Entry],
    biber: bool,
    regions: Sequence[tuple[int, int, bool]] | None = None,
) -> list[tuple[int, int]]:
    """The ``[start, end)`` of the group of each ``@comment`` at top level that biber
    (``biber``) or pandoc skips, in order (see :func:`skipped_regions`, whose answer
    ``regions`` is, when the caller has it)."""
    if regions is None:
        regions = skipped_regions(text, entries, biber)
    return [(a, b) for a, b, group in regions if group]


def commented_positions(
    text: str,
    entries: Sequence[Entry],
    groups: bool = True,
    biber: bool = False,
    bounds: EntryBounds | None = None,
    regions: Sequence[tuple[int, int, bool]] | None = None,
) -> list[int]:
    """Positions of the ``entries`` whose ``@`` follows a ``%`` comment on its line or
    (``groups``) stands inside an ``@comment{...}`` group (``biber``: and an
    ``@comment(...)`` one, with biber's line breaks and comments), in order.  ``bounds``
    (the :class:`EntryBounds` of ``entries``) and ``regions`` (:func:`skipped_regions`)
    when the caller has them."""
    if bounds is None:
        bounds = lazy_bounds(entries)
    if regions is None:
        regions = skipped_regions(text, entries, biber, bounds)
    starts = bounds.starts
    found: list[int] = []
    last = 0  # regions are disjoint and in order: so are the entries they hold
    for start, end, group in regions:
        if groups or not group:
            lo = bisect.bisect_left(starts, start, lo=last)
            hi = bisect.bisect_left(starts, end, lo=lo)
            found += range(lo, hi)
            last = hi
    return found


def unique_keys_at(keys: Sequence[str], positions: list[int]) -> frozenset[str]:
    """Keys of the entries at ``positions`` (of ``keys``, every entry's) that no other
    entry defines too."""
    if not positions:
        return frozenset()
    found = {keys[i] for i in positions}
    inside = set(positions)
    kept = {k for i, k in enumerate(keys) if k in found and i not in inside}
    return frozenset(found - kept)


def keys_on_comment_lines(
    text: str, entries: Sequence[Entry], biber: bool = False
) -> frozenset[str]:
    """Keys of the ``entries`` whose ``@`` follows a ``%`` on its line (``biber``: as biber
    ends lines).  biber and pandoc read such a line as a comment, so the entry does not
    exist for them; BibTeX reads it (and so does :func:`~citewarden.parsing.bibtex.parse_bibtex`).
    A key also defined by an entry on an ordinary line is not one of them."""
    bounds = lazy_bounds(entries)
    return unique_keys_at(bounds.keys, commented_positions(text, entries, False, biber, bounds))


def keys_in_comments(
    text: str,
    entries: Sequence[Entry],
    biber: bool = True,
    bounds: EntryBounds | None = None,
    regions: Sequence[tuple[int, int, bool]] | None = None,
) -> frozenset[str]:
    """Keys of the ``entries`` that biber (``biber``) or pandoc reads as comments: their
    ``@`` follows a ``%`` on its line, or stands inside the group of an ``@comment{...}``,
    on one line or more.  biber and pandoc skip such a group whole, to its matching brace
    (``%`` is no comment there); BibTeX reads nothing after ``@comment`` as its argument,
    so it reads the entries inside (and so does :func:`~citewarden.parsing.bibtex.parse_bibtex`).
    biber reads an ``@comment(...)`` group as one too (pandoc reads only braces), and ends
    a line at any line break, a lone carriage return too (pandoc at a line feed only).
    A key also defined by an entry outside comments is not one of them.  ``bounds`` and
    ``regions`` as for :func:`commented_positions`."""
    if bounds is None:
        bounds = lazy_bounds(entries)
    positions = commented_positions(text, entries, True, biber, bounds, regions)
    return unique_keys_at(bounds.keys, positions)


def _group_end(text: str, open_pos: int) -> int:
    """The offset after the delimiter closing the group opened at ``open_pos`` (braces
    nest, and parentheses in a parenthesised group), or -1."""
    closer = "}" if text[open_pos] == "{" else ")"
    depth = 0
    for m in _GROUP_DELIM.finditer(text, open_pos + 1):
        c = m.group()
        if c == closer and depth == 0:
            return m.end()
        if c == "{" or (c == "(" and closer == ")"):
            depth += 1
        elif c == "}" or (c == ")" and closer == ")"):
            depth = max(0, depth - 1)
    return -1
