"""The table of where raw TeX arguments close (:mod:`citewarden.parsing.tex_brackets`)
answers as a reading from each argument's opening does, and, read once, leaves no
command of a long text without its arguments."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citewarden.parsing import markdown_inline
from citewarden.parsing.markdown import parse_markdown
from citewarden.parsing.pandoc_syntax import PANDOC_2, PANDOC_3, PandocDialect
from citewarden.parsing.tex_brackets import TexBrackets

P = Path("doc.md")
#: what raw TeX arguments are made of, with more of what opens and closes them
PIECES = ["{", "}", "[", "]", "\\a", "\\b ", "\\", "%", "\n", " ", "x", "\\{", "\\]", "{}"]


def _ends(text: str, table: bool, cut: int = -1) -> list[int]:
    """Where each command of ``text`` ends, read with the table or from each opening
    (with no budget: every argument read)."""
    raw = markdown_inline._RawTex(text, table=table)
    if not table:
        raw._budget = 10**12
    ends = []
    i = text.find("\\")
    while i >= 0:
        ends.append(raw.end(i, cut))
        i = text.find("\\", i + 1)
    return ends


@pytest.mark.parametrize("seed", range(40))
def test_the_table_answers_as_a_reading_from_each_opening(seed: int) -> None:
    """Random texts of braces, brackets, escapes and comments, with the commands asked
    in order, from the middle of the text too (the table's reading then starts there),
    and with the text cut short: every command ends where a reading from each of its
    arguments' openings ends it."""
    rng = random.Random(seed)
    for _ in range(25):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 120)))
        part = text[rng.randint(0, len(text)) :]
        cut = rng.choice([-1, rng.randint(0, len(part))])
        assert _ends(part, True, cut) == _ends(part, False, cut), part
        assert _ends(text, True) == _ends(text, False), text


def test_an_opening_the_reading_passed_over_is_not_answered() -> None:
    """The table's reading took ``{`` after ``%`` as part of a comment and ``[`` after a
    backslash as an escape: it does not answer for them (the caller reads them)."""
    text = "{a} 50% {b}\n\\[c] {d}"
    table = TexBrackets(text, 1000)
    assert table.group(0, len(text)) == 3
    assert table.group(text.index("{b}"), len(text)) is None
    assert table.option(text.index("[c]"), len(text)) is None
    assert table.group(text.index("{d}"), len(text)) == len(text)


def test_a_closing_past_the_span_or_the_cut_is_none() -> None:
    text = "{" + "x" * 50 + "} [" + "y" * 50 + "]"
    table = TexBrackets(text, 40)
    assert table.group(0, len(text)) == -1  # past the span
    assert TexBrackets(text, 100).group(0, 30) == -1  # past the cut
    assert TexBrackets(text, 100).group(0, len(text)) == 52
    assert TexBrackets(text, 100).option(53, len(text)) == len(text)


@pytest.mark.parametrize("syntax", [PANDOC_2, PANDOC_3], ids=["pandoc 2", "pandoc 3"])
def test_many_unclosed_arguments_leave_a_later_command_its_argument(
    syntax: PandocDialect,
) -> None:
    """Six thousand commands whose braces never close, then ``\\emph{@k}``: pandoc reads
    the last command with its argument (raw TeX, no citation) and cites only ``j``
    (checked with pandoc 2.17 and 3.x).  Read from each opening, the unclosed ones used
    the reading's budget up and ``\\emph`` was read without its argument, citing ``k``."""
    text = "\\a{ " * 6000 + " \\emph{@k} and @j\n"
    doc = parse_markdown(P, text, syntax)
    assert [c.key for c in doc.citations] == ["j"]
