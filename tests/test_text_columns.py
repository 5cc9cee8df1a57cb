"""Columns in UTF-8, UTF-16 and UTF-32 units, counted by the codec a chunk at a time
(``citewarden.text.units`` / ``column_offset``), against a count a character at a time:
lines longer than a chunk, astral characters astride a chunk's end, lone surrogates."""

from __future__ import annotations

import random

import pytest

from citewarden.lsp.documents import SparseIndex
from citewarden.text import _CHUNK, Encoding, LineIndex, Position, _unit_len

ENCODINGS = (Encoding.UTF8, Encoding.UTF16, Encoding.UTF32)
ALPHABET = ["a", " ", "é", "€", "😀", "𝑥", "\ud800", "\udfff", "\r", "\n", "\r\n", "字"]


def _naive_positions(text: str, encoding: Encoding) -> list[Position]:
    """The position of every offset of ``text``, a character at a time."""
    out = []
    line = column = 0
    for i, ch in enumerate(text):
        out.append(Position(line, column))
        if ch == "\n" or (ch == "\r" and text[i + 1 : i + 2] != "\n"):
            line, column = line + 1, 0
        else:
            column += _unit_len(ch, encoding)
    out.append(Position(line, column))
    return out


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    long_line = "".join(rng.choice(ALPHABET[:8]) for _ in range(3 * _CHUNK + 17))
    # an astral character across the end of the first chunk
    astride = "a" * (_CHUNK - 1) + "😀" + "b" * 10
    mixed = "".join(rng.choice(ALPHABET) for _ in range(400))
    return [long_line, astride, mixed, "x\n" + long_line + "\r\n" + long_line]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_offsets_and_columns_agree_with_a_character_count(seed: int, encoding: Encoding) -> None:
    for text in _texts(seed):
        indexes = (LineIndex(text), SparseIndex(text))
        naive = _naive_positions(text, encoding)
        step = max(1, len(text) // 300)
        offsets = sorted({*range(0, len(text) + 1, step), _CHUNK - 1, _CHUNK, _CHUNK + 1})
        for offset in (o for o in offsets if o <= len(text)):
            want = naive[offset]
            for index in indexes:
                assert index.position(offset, encoding) == want
                # an offset between a CR and its LF is clamped to the line's end
                inside_break = text[offset - 1 : offset + 1] == "\r\n"
                assert index.offset(want, encoding) == offset - inside_break


@pytest.mark.parametrize("encoding", (Encoding.UTF8, Encoding.UTF16))
def test_a_column_within_a_character_or_past_the_line(encoding: Encoding) -> None:
    text = "a" * (_CHUNK - 1) + "😀" + "b" * 5 + "\nnext"
    for index in (LineIndex(text), SparseIndex(text)):
        inside = _CHUNK - 1 + 1  # the first unit of the astral character
        assert index.offset(Position(0, inside), encoding) == _CHUNK  # past it
        assert index.offset(Position(0, 10**9), encoding) == text.index("\n")
        assert index.offset(Position(0, -3), encoding) == 0
