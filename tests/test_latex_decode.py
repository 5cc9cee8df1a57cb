"""Lazy LaTeX decoding of single bibliography values: the TeX family logos."""

from __future__ import annotations

import pytest

from citewarden.parsing import latex_decode
from citewarden.parsing.latex_decode import decode_latex
from citewarden.parsing.latex_encode import latex_text


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        (r"The {\TeX}book", "The TeXbook"),
        (r"The \TeX book", "The TeXbook"),
        (r"The \TeX{} book", "The TeX book"),
        (r"{\LaTeX}: A Document Preparation System", "LaTeX: A Document Preparation System"),
        (r"\LaTeXe", "LaTeX2e"),
        (r"\BibTeX", "BibTeX"),
        (r"Using \LaTeX, {\BibTeX} and \LuaTeX.", "Using LaTeX, BibTeX and LuaTeX."),
        (r"G{\"o}del and \TeX", "Gödel and TeX"),
    ],
)
def test_decode_latex_spells_out_tex_logos(raw: str, decoded: str) -> None:
    assert decode_latex(raw) == decoded


def test_unknown_macros_are_still_dropped() -> None:
    # only the logos are spelled out; other unknown control words keep decoding to nothing
    assert decode_latex(r"\TeXtra{}word") == "word"


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        # pylatexenc parses these but drops them with their argument
        (
            r"\texttt{RNeXML}: A package for reading and writing richly annotated "
            r"phylogenetic, character, and trait data in \texttt{R}",
            "RNeXML: A package for reading and writing richly annotated phylogenetic, "
            "character, and trait data in R",
        ),
        (r"\textsf{BEAST} 2.5", "BEAST 2.5"),
        (
            r"\mbox{Pre-training} of deep bidirectional transformers",
            "Pre-training of deep bidirectional transformers",
        ),
        (r"\textup{in vivo} and \textmd{in vitro}", "in vivo and in vitro"),
        # the argument typeset, not the ones saying how
        (r"The \href{https://www.r-project.org}{R} project", "The R project"),
        (r"\foreignlanguage{german}{Über} die Grundlagen", "Über die Grundlagen"),
        (r"\makebox[2cm][l]{Boxed}", "Boxed"),
        (r"\texorpdfstring{$\alpha$}{alpha}-decay", "α-decay"),
        # a .bib's sorting macros typeset nothing
        (r"{\noopsort{1973b}}1973", "1973"),
        (r"\sortnoop{Knuth}Knuth", "Knuth"),
    ],
)
def test_text_macros_keep_the_argument_they_typeset(raw: str, decoded: str) -> None:
    """``\\texttt{RNeXML}`` decoded to nothing, so the correct title of a real record got
    "title-mismatch" and a correction."""
    assert decode_latex(raw) == decoded


def test_a_value_beyond_the_decoder_limit_is_stripped_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record's name repeated to 700 000 characters (a broken or hostile source) took
    pylatexenc 26 s; a value over ``MAX_DECODED`` has its markup stripped instead."""
    parsed: list[int] = []
    real = latex_decode._converter

    class Counting:
        def latex_to_text(self, value: str, **flags: object) -> str:
            parsed.append(len(value))
            return real()[0].latex_to_text(value, **flags)

    monkeypatch.setattr(latex_decode, "_converter", lambda: (Counting(), real()[1]))
    short = 'Schr\\"{o}dinger \\emph{and} \\TeX'
    assert latex_decode.decode_latex.__wrapped__(short) == "Schrödinger and TeX"
    huge = "{\\relax Name} " * (latex_decode.MAX_DECODED // 10)
    assert len(huge) > latex_decode.MAX_DECODED
    assert latex_decode.decode_latex.__wrapped__(huge) == " ".join(["Name"] * (len(huge) // 14))
    assert parsed == [len(short)]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Computational Statistics & Data Analysis", "Computational Statistics \\& Data Analysis"),
        ("95% of C# and snake_case", "95\\% of C\\# and snake\\_case"),
        ("costs $5 and $10", "costs \\$5 and \\$10"),  # no math: a digit after the dollar
        ("$\\alpha$-stable laws in $\\mathbb{R}^n$", "$\\alpha$-stable laws in $\\mathbb{R}^n$"),
        ("Caf\\'e \\& co", "Caf\\'e \\& co"),  # TeX as arXiv writes it: kept
        ("10^6 cells ~ 1 mm", "10\\textasciicircum{}6 cells \\textasciitilde{} 1 mm"),
        ("a trailing \\", "a trailing \\textbackslash{}"),
    ],
)
def test_a_records_text_is_written_as_latex_typesets_it(text: str, written: str) -> None:
    """What ``--fix`` and add-reference write: LaTeX's special characters escaped outside
    math, so that the bibliography still builds; read back, it is the record's text."""
    assert latex_text(text) == written
    assert latex_text(written) == written  # written twice, escaped once
    if "\\" not in text and "^" not in text:
        assert decode_latex(written) == text


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("On \\input{/etc/passwd}", "On \\textbackslash{}input{/etc/passwd}"),
        ("\\csname input\\endcsname", "\\textbackslash{}csname input\\textbackslash{}endcsname"),
        ("$\\write18{rm -rf x}$", "\\$\\textbackslash{}write18{rm -rf x}\\$"),
        ("$x^^5cinput{f}$", "\\$x\\textasciicircum{}\\textasciicircum{}5cinput{f}\\$"),
        ('$\\mathbb{R}^n$ and \\emph{Schr\\"odinger} in \\LaTeX', None),
        ("$\\frac{1}{2}\\leq \\sqrt{\\alpha}$ \\c{c}a \\ss", None),
    ],
)
def test_a_records_commands_are_kept_only_when_they_typeset_text(
    text: str, written: str | None
) -> None:
    """A record's title can say anything, and LaTeX runs what the .bib hands it: a command
    that does more than typeset (reading a file, running a program) is written as text,
    math holding one is escaped whole; accents, symbols and fonts stay (None: as written)."""
    assert latex_text(text) == (text if written is None else written)
    assert latex_text(latex_text(text)) == latex_text(text)
