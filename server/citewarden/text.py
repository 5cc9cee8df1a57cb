"""Offset <-> line/column conversion.

Offsets and columns are code points (Python ``str`` indices).  UTF-16 and UTF-8 columns are
computed here on demand for the LSP edge, so the core never thinks in encodings.

Lines end where the Language Server Protocol says they do: at ``\\r\\n``, ``\\n`` or a lone
``\\r`` (old Mac files), and nowhere else (``str.splitlines`` also splits at form feeds,
``\\x85``, ``\\u2028`` and others, so it is never used for positions).  The helpers below
count and find line breaks with ``str.count``/``str.find``, which run at C speed.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from enum import StrEnum
from itertools import accumulate, repeat
from operator import add


class Encoding(StrEnum):
    UTF8 = "utf-8"
    UTF16 = "utf-16"
    UTF32 = "utf-32"  # == code points


@dataclass(frozen=True, slots=True)
class Position:
    """0-based line and column (column units depend on who asks)."""

    line: int
    column: int


def _unit_len(ch: str, encoding: Encoding) -> int:
    cp = ord(ch)
    if encoding is Encoding.UTF32:
        return 1
    if encoding is Encoding.UTF16:
        return 2 if cp > 0xFFFF else 1
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if cp < 0x10000:
        return 3
    return 4


#: One line break: ``\r\n``, a lone ``\r`` or ``\n``.
LINE_BREAK = re.compile(r"\r\n?|\n")
_LINES = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")
#: the first character of a line break (its search ends at the first one found)
_BREAK_CHAR = re.compile(r"[\r\n]")


def has_lone_cr(text: str, start: int = 0, end: int | None = None) -> bool:
    """True when ``text[start:end]`` holds a ``\\r`` that no ``\\n`` follows (looked for at
    ``end`` too).  Without one, the lines end exactly after each ``\\n``, as in most files,
    CRLF ones included."""
    if end is None:
        if "\r" not in text:  # one fast scan, the usual answer
            return False
        end = len(text)
    crs = text.count("\r", start, end)
    return crs > 0 and crs != text.count("\r\n", start, end + 1)


def count_line_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """Line breaks whose last character is in ``text[start:end]``: a ``\\r\\n`` counts once,
    where its ``\\n`` is (so the number of lines starting in ``(start, end]``)."""
    if end is None:
        end = len(text)
    count = text.count("\n", start, end)
    crs = text.count("\r", start, end)
    if crs:
        count += crs - text.count("\r\n", start, end + 1)
    return count


def line_start_before(text: str, offset: int, floor: int = 0) -> int:
    """Start of the line holding ``offset``: just after the last line break that ends before
    ``offset``, and no earlier than ``floor`` (a line start at or before it)."""
    nl = text.rfind("\n", floor, offset)
    lo = nl + 1 if nl >= 0 else floor
    cr = text.rfind("\r", lo, offset)
    if cr >= 0 and text.startswith("\n", cr + 1):  # offset sits inside this \r\n
        cr = text.rfind("\r", lo, cr)
    last = cr if cr >= 0 else nl
    return last + 1 if last >= 0 else floor


def next_line_start(text: str, pos: int) -> int:
    """Offset just after the first line break whose last character is at or after ``pos``
    (-1 when there is none)."""
    m = _BREAK_CHAR.search(text, pos)
    if m is None:
        return -1
    at = m.start()
    return at + 2 if text.startswith("\r\n", at) else at + 1


def line_content_end(text: str, start: int) -> int:
    """Where the line starting at ``start`` ends, before its line break."""
    m = _BREAK_CHAR.search(text, start)
    return m.start() if m is not None else len(text)


def line_ending(text: str, default: str = "\n") -> str:
    """The line break ``text`` uses (its first one), for new lines written into it;
    ``default`` when it has none."""
    m = _BREAK_CHAR.search(text)
    if m is None:
        return default
    return "\n" if m.group() == "\n" else "\r\n" if text.startswith("\r\n", m.start()) else "\r"


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break (``\\r\\n``, ``\\r`` or ``\\n``)."""
    return _LINES.findall(text)


#: Characters counted at once when a column is turned into an offset.
_CHUNK = 1024


def units(text: str, encoding: Encoding) -> int:
    """The length of ``text`` in ``encoding`` units (a lone surrogate is one UTF-16 unit,
    three UTF-8 bytes, as :func:`_unit_len` counts it), counted by the codec."""
    if encoding is Encoding.UTF32 or text.isascii():
        return len(text)
    if encoding is Encoding.UTF16:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text.encode("utf-8", "surrogatepass"))


def column_offset(text: str, start: int, end: int, column: int, encoding: Encoding) -> int:
    """The offset of ``column`` (in ``encoding`` units) of the line ``text[start:end]``,
    clamped to it; a column within a character is past it.  Whole chunks are counted by
    the codec, only the chunk the column falls in a character at a time."""
    done = 0
    i = start
    while end - i > _CHUNK:
        size = units(text[i : i + _CHUNK], encoding)
        if done + size > column:
            break
        done += size
        i += _CHUNK
    while i < end and done < column:
        done += _unit_len(text[i], encoding)
        i += 1
    return i


class LineIndex:
    """Line starts of one text; converts offsets to positions and back in any encoding."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # 8 bytes a line (a list of ints takes 36): a file of blank lines has a line a byte
        if has_lone_cr(text):
            self._starts = array("q", (0, *(m.end() for m in LINE_BREAK.finditer(text))))
            return
        starts = array("q", [0])
        lines = text.split("\n")
        lines.pop()  # the text after the last break starts a line, ends none
        starts.extend(accumulate(map(add, map(len, lines), repeat(1))))
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        line = max(0, min(line, len(self._starts) - 1))
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``, excluding its line break."""
        end = self._starts[line + 1] - 1 if line + 1 < len(self._starts) else len(self.text)
        if end > self.line_start(line) and self.text[end - 1 : end] == "\r":
            end -= 1
        return end

    def line_of(self, offset: int) -> int:
        offset = max(0, min(offset, len(self.text)))
        return bisect_right(self._starts, offset) - 1

    def position(self, offset: int, encoding: Encoding = Encoding.UTF32) -> Position:
        """Offset -> 0-based (line, column) with the column in ``encoding`` units."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        start = self._starts[line]
        if encoding is Encoding.UTF32:
            return Position(line, offset - start)
        return Position(line, units(self.text[start:offset], encoding))

    def offset(self, position: Position, encoding: Encoding = Encoding.UTF32) -> int:
        """0-based (line, column in ``encoding`` units) -> offset, clamped to the line."""
        if position.line >= len(self._starts):
            return len(self.text)
        if position.line < 0:
            return 0
        start = self._starts[position.line]
        end = self.line_end(position.line)
        if encoding is Encoding.UTF32:
            return min(start + max(position.column, 0), end)
        return column_offset(self.text, start, end, position.column, encoding)


def line_col_1based(index: LineIndex, offset: int) -> tuple[int, int]:
    """Human/JSON report position: 1-based line and 1-based code-point column."""
    pos = index.position(offset)
    return pos.line + 1, pos.column + 1
