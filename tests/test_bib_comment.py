"""``@comment`` without braces: BibTeX ignores everything from ``@comment`` to the end of the
line, so such a line is valid and the entries after it are read as usual."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.model import Code, ParsedBibliography
from citewarden.parsing.bibtex import parse_bibtex, reparse_bibtex

PATH = Path("refs.bib")
SYMPY_BIB = Path(__file__).parent / "data" / "documents" / "sympy-paper" / "paper.bib"

BOOK = (
    "@BOOK{Mathematica4,\n"
    "    author = {Stephen Wolfram},\n"
    "    title = {The Mathematica Book},\n"
    "    publisher = {Wolfram Research Inc.},\n"
    "    year = {2000}\n"
    "    }\n"
)


def syntax_findings(bib: ParsedBibliography) -> list[str]:
    return [p.message for p in bib.problems if p.code is Code.BIB_SYNTAX]


@pytest.mark.parametrize(
    "comment",
    [
        "@Comment Taken from http://www.sigsam.org/Resources/Software.html",
        "@comment lower case, with a comma",
        "@COMMENT see (the paper",
        "@Comment Taken from {x",
        "@Comment Taken from x}",
        "@Comment",
    ],
)
def test_comment_to_end_of_line_is_valid(comment: str) -> None:
    text = "@misc{a, title={A}}\n\n" + comment + "\n\n" + BOOK
    bib = parse_bibtex(PATH, text)
    assert syntax_findings(bib) == []
    assert [e.key for e in bib.entries] == ["a", "Mathematica4"]
    book = bib.entries[1]
    assert book.span.start == text.index("@BOOK")
    assert book.span.end == len(text) - 1
    assert book.get("title") == "The Mathematica Book"


def test_comment_line_with_crlf_line_ends() -> None:
    text = "@Comment Taken from http://x.org/a.html\r\n\r\n" + BOOK.replace("\n", "\r\n")
    bib = parse_bibtex(PATH, text)
    assert syntax_findings(bib) == []
    assert [e.key for e in bib.entries] == ["Mathematica4"]
    assert bib.entries[0].span.start == text.index("@BOOK")


def test_editing_the_comment_line_reparses_like_a_full_parse() -> None:
    before = "@misc{a, title={A}}\n\n@Comment Taken from x\n\n" + BOOK
    after = before.replace("Taken from x", "Taken from {x")
    old = parse_bibtex(PATH, before)
    new = reparse_bibtex(old, before, after)
    assert new == parse_bibtex(PATH, after)
    assert syntax_findings(new) == []
    assert [e.key for e in new.entries] == ["a", "Mathematica4"]


def test_real_sympy_bibliography_comments() -> None:
    """The sympy paper's bibliography has two such lines: one before ``@BOOK{Mathematica4``,
    one before a block of @string definitions that later entries use."""
    text = SYMPY_BIB.read_text(encoding="utf-8")
    assert text.count("\n@Comment Taken from ") == 2
    bib = parse_bibtex(SYMPY_BIB, text)
    assert syntax_findings(bib) == []
    keys = [e.key for e in bib.entries]
    # the entry right after each comment line is read
    assert "Mathematica4" in keys
    assert "Harvey2009multipoint" in keys
    assert keys.index("Mathematica4") == keys.index("mathematica104") + 1
    # the @string block after the second comment is read: its macros resolve
    harvey = bib.entries[keys.index("Harvey2009multipoint")]
    assert harvey.get("journal") == "Journal of Symbolic Computation"
    undefined = [p.message for p in bib.problems if p.code is Code.UNDEFINED_STRING]
    assert not any("j:" in message for message in undefined)
