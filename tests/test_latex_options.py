"""A ``[`` argument read on from the kept reading of an unclosed one closes where a
reading from itself closes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citewarden.parsing import latex_options
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.latex_options import _read, close_delimited


def _alone(text: str, i: int, nest: bool) -> int:
    """The reading from ``text[i]`` with nothing kept."""
    end = min(len(text), i + latex_options.MAX_OPTIONAL)
    return _read(text, i, end, 0, nest, None)


@pytest.mark.parametrize("limit", [6, 15, 60])
def test_every_argument_asked_closes_where_its_own_reading_closes(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """Random texts of brackets, braces, escapes, comments and line breaks, with short
    length limits (so that readings stop at them and are read on): each ``[``, ``(`` and
    ``<`` asked in text order, and some asked again out of order, with and without
    nesting, gets the answer of a reading from itself."""
    monkeypatch.setattr(latex_options, "MAX_OPTIONAL", limit)
    rng = random.Random(limit)
    closed = unclosed = 0
    for _ in range(2000):
        text = "".join(rng.choice("ab[[]{}\\%\n (<") for _ in range(rng.randint(1, 90)))
        openings = [i for i, c in enumerate(text) if c in "[(<"]
        asked = openings + rng.sample(openings, min(3, len(openings)))
        for i in asked:
            nest = rng.random() < 0.2
            want = _alone(text, i, nest)
            assert close_delimited(text, i, nest) == want, (repr(text), i, nest)
            closed += want >= 0
            unclosed += want < 0
    assert closed > 1000 and unclosed > 1000


def test_a_long_paragraph_of_unclosed_options_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``\\cite[`` thirty thousand times in one paragraph, then a citation: each option
    was read over the 2 000 characters after it; now the options' readings go on from
    the one kept, which a counted reading shows (a token read about once, not once per
    option whose reading it falls in)."""
    text = "\\cite[" * 30_000 + "]\n\n\\cite{k}\n"
    reads: list[int] = []
    real = latex_options._read

    def counted(text: str, start: int, end: int, *args: object, **kw: object) -> int:
        reads.append(min(end, len(text)) - start)
        return real(text, start, end, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(latex_options, "_read", counted)
    doc = parse_latex(Path("d.tex"), text)
    assert [c.key for c in doc.citations] == ["k"]
    assert len(reads) >= 30_000
    assert sum(reads) < 20 * len(text), sum(reads)  # 2 000 characters each: 60 million
