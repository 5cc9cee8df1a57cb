"""The text of a .bib file that biber and pandoc read as comments, where BibTeX (which has no
comment character, and reads the word ``@comment`` alone) reads entries.

* A ``%`` starts a comment up to the end of its line.  pandoc ends the line at a line feed
  only (``% x\\r@misc{...}`` hides the entry); biber first turns every line break of
  Perl's ``\\R`` (``\\r\\n``, ``\\n``, ``\\r``, ``\\v``, ``\\f``, U+0085, U+2028, U+2029)
  into a line feed (``Biber::Input::file::bibtex::preprocess_file``), so a lone carriage
  return ends its comment (``%c\\r@misc{k,...}`` defines ``k`` for biber).
* ``@comment{...}`` is skipped whole, to its matching brace (``%`` is no comment there);
  biber skips ``@comment(...)`` too, pandoc reads it as the word ``@comment`` and text.

Checked with biber 2.18 and pandoc 2.17 (``tests/test_bib_comments.py`` runs them).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from citewarden.model import Entry

#: a line break for biber (Perl's ``\R``, each turned into a line feed before parsing)
BIBER_BREAK = re.compile("[\n\v\f\r\x85\u2028\u2029]")
#: a line break for pandoc
_LINE_FEED = re.compile("\n")
#: an ``@comment`` opening a group, as biber (btparse) reads it
_COMMENT_OPEN = re.compile(r"@\s*comment\s*([{(])", re.I)
_GROUP_DELIM = re.compile(r"[{}()]")


def on_comment_line(text: str, at: int, biber: bool = False) -> bool:
    """A ``%`` stands before ``at`` on its line (as biber reads lines, with ``biber``;
    else up to a line feed, as pandoc reads them)."""
    start = text.rfind("\n", 0, at) + 1
    if not biber:
        return text.find("%", start, at) >= 0
    percent = text.rfind("%", start, at)
    return percent >= 0 and BIBER_BREAK.search(text, percent, at) is None


def comment_lines(text: str, biber: bool = False) -> list[tuple[int, int]]:
    """The ``[start, end)`` of each ``%`` comment, from its first ``%`` on a line to the
    line break, in order (``biber``: as biber ends lines)."""
    breaks = BIBER_BREAK if biber else _LINE_FEED
    found: list[tuple[int, int]] = []
    percent = text.find("%")
    while percent != -1:
        m = breaks.search(text, percent)
        end = len(text) if m is None else m.start()
        found.append((percent, end))
        percent = text.find("%", end)
    return found


def commented_positions(
    text: str, entries: Sequence[Entry], groups: bool = True, biber: bool = False
) -> list[int]:
    """Positions of the ``entries`` whose ``@`` follows a ``%`` on its line or (``groups``)
    stands inside an ``@comment{...}`` group (``biber``: and an ``@comment(...)`` one, with
    biber's line breaks), in order.  Looks at each comment, not at each entry."""
    regions = comment_lines(text, biber) if "%" in text else []
    if groups:
        regions += comment_groups(text, entries, biber)
    if not regions:
        return []
    found: set[int] = set()
    for start, end in regions:
        found.update(range(_first_after(entries, start), _first_after(entries, end)))
    return sorted(found)


def _first_after(entries: Sequence[Entry], at: int) -> int:
    """The position of the first of the ``entries`` that starts at ``at`` or after it (a
    few entries looked at, not each one)."""
    return bisect.bisect_left(entries, at, key=_start)


def _start(entry: Entry) -> int:
    return entry.span.start


def _keys_of(entries: Sequence[Entry], positions: list[int]) -> frozenset[str]:
    """Keys of the entries at ``positions`` that no other entry defines too."""
    if not positions:
        return frozenset()
    found = {entries[i].key for i in positions}
    inside = set(positions)
    kept = {e.key for i, e in enumerate(entries) if e.key in found and i not in inside}
    return frozenset(found - kept)


def keys_on_comment_lines(
    text: str, entries: Sequence[Entry], biber: bool = False
) -> frozenset[str]:
    """Keys of the ``entries`` whose ``@`` follows a ``%`` on its line (``biber``: as biber
    ends lines).  biber and pandoc read such a line as a comment, so the entry does not
    exist for them; BibTeX reads it (and so does :func:`~citewarden.parsing.bibtex.parse_bibtex`).
    A key also defined by an entry on an ordinary line is not one of them."""
    return _keys_of(entries, commented_positions(text, entries, groups=False, biber=biber))


def keys_in_comments(text: str, entries: Sequence[Entry], biber: bool = True) -> frozenset[str]:
    """Keys of the ``entries`` that biber (``biber``) or pandoc reads as comments: their
    ``@`` follows a ``%`` on its line, or stands inside the group of an ``@comment{...}``,
    on one line or more.  biber and pandoc skip such a group whole, to its matching brace
    (``%`` is no comment there); BibTeX reads nothing after ``@comment`` as its argument,
    so it reads the entries inside (and so does :func:`~citewarden.parsing.bibtex.parse_bibtex`).
    biber reads an ``@comment(...)`` group as one too (pandoc reads only braces), and ends
    a line at any line break, a lone carriage return too (pandoc at a line feed only).
    A key also defined by an entry outside comments is not one of them."""
    return _keys_of(entries, commented_positions(text, entries, groups=True, biber=biber))


def comment_groups(text: str, entries: Sequence[Entry], biber: bool) -> list[tuple[int, int]]:
    """The ``[start, end)`` of the group of each ``@comment`` outside entries and comment
    lines, in file order, that biber (``biber``) or pandoc closes (an unclosed one is a
    syntax error for biber and pandoc, which then read no entry of the file: none is
    listed)."""
    if "omment" not in text and "OMMENT" not in text:
        return []
    groups: list[tuple[int, int]] = []
    pos = 0
    for m in _COMMENT_OPEN.finditer(text):
        at = m.start()
        if at < pos or (m.group(1) == "(" and not biber):
            continue
        i = bisect.bisect_right(entries, at, key=_start) - 1
        if (i >= 0 and entries[i].span.end > at) or on_comment_line(text, at, biber):
            continue
        end = _group_end(text, m.end() - 1)
        if end == -1:
            break
        groups.append((m.end(), end))
        pos = end
    return groups


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
