"""Lazy LaTeX decoding of single bibliography values: the TeX family logos."""

from __future__ import annotations

import pytest

from citewarden.parsing.latex_decode import decode_latex


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
