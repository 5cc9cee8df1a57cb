"""Offset <-> line/column conversion.

Offsets and columns are code points (Python ``str`` indices).  UTF-16 and UTF-8 columns are
computed here on demand for the LSP edge, so the core never thinks in encodings.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from enum import StrEnum


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


class LineIndex:
    """Line starts of one text; converts offsets to positions and back in any encoding."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        line = max(0, min(line, len(self._starts) - 1))
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``, excluding its newline (and a preceding CR)."""
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
        segment = self.text[start:offset]
        if segment.isascii():
            return Position(line, len(segment))
        return Position(line, sum(_unit_len(c, encoding) for c in segment))

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
        units = 0
        i = start
        while i < end and units < position.column:
            units += _unit_len(self.text[i], encoding)
            i += 1
        return i


def line_col_1based(index: LineIndex, offset: int) -> tuple[int, int]:
    """Human/JSON report position: 1-based line and 1-based code-point column."""
    pos = index.position(offset)
    return pos.line + 1, pos.column + 1
