"""The one reading of a LaTeX text's brace groups answers as a reading from each opening."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citewarden.parsing import tex_closings
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.latex_static import _close_brace, _close_brace_tokens
from citewarden.parsing.tex_closings import Closings, closings


def _openings(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if c == "{"]


def test_each_opening_asked_in_turn_closes_where_a_reading_from_it_closes() -> None:
    """Random texts of braces, escapes, comments and line breaks: every ``{`` asked in text
    order, with look-aheads short and long, gets the answer of the token reader from it,
    or none (an escaped brace, one in a comment), which the caller then reads itself."""
    rng = random.Random(58)
    answered = unanswered = 0
    for _ in range(3000):
        text = "".join(rng.choice("ab{{}}\\%\n ") for _ in range(rng.randint(1, 80)))
        reading = Closings(text, 0)
        for i in _openings(text):
            limit = rng.choice((3, 10, 40, 200))
            answer = reading.close(i, limit)
            if answer is None:
                unanswered += 1
                assert text[i - 1 : i] == "\\" or "%" in text[:i], repr(text)
            else:
                answered += 1
                assert answer == _close_brace_tokens(text, i, limit), (repr(text), i, limit)
    assert answered > 10_000 and unanswered > 1_000


def test_an_opening_before_the_last_one_asked_is_read_again_from_itself() -> None:
    text = "{a{b}c}{d}"
    reading = Closings(text, 0)
    assert reading.close(7, 10) == 10
    assert reading.close(2, 10) is None  # behind the last question: no answer
    fresh = closings(text, 7)
    assert closings(text, 2) is not fresh  # a new reading, from there
    assert _close_brace(text, 2, 10) == 5
    assert _close_brace(text, 0, 10) == 7


def test_a_file_of_definitions_whose_bodies_never_close_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``\\def\\x{`` seven hundred times, then a comment and a ``}``, five times over:
    each body's closing was looked for over the five thousand characters after it (a
    pass of that look-ahead per definition); the definitions' questions now come in text
    order and one reading answers them all."""
    text = ("\\def\\x{" * 700 + "%\n}") * 5 + "\n\\cite{k}\n"
    starts = [i + len("\\def\\x") for i in range(len(text)) if text.startswith("\\def\\x{", i)]
    first = closings(text, starts[0])
    for i in starts:
        assert closings(text, i) is first
        assert _close_brace(text, i, 5000) == _close_brace_tokens(text, i, 5000)

    made: list[int] = []

    class Counted(Closings):
        def __init__(self, text: str, start: int) -> None:
            made.append(start)
            super().__init__(text, start)

    monkeypatch.setattr(tex_closings, "Closings", Counted)
    doc = parse_latex(Path("d.tex"), text)
    assert [c.key for c in doc.citations] == ["k"]
    assert 1 <= len(made) <= 3, made  # one reading a pass, not one a definition


def test_what_the_reading_keeps_is_bounded_by_the_look_ahead() -> None:
    """Two hundred thousand openings that never close, each asked in turn: the reading
    forgets those behind the last question."""
    text = "\\def\\x{" * 200_000
    reading = Closings(text, 6)
    for i in range(6, len(text), 7):
        assert reading.close(i, 700) == -1
    assert len(reading._stack) <= 101  # the openings within the last look-ahead
    assert len(reading._closes) <= 4096 + 101
