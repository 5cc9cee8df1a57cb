"""Lazy LaTeX decoding of single bibliography values: the TeX family logos."""

from __future__ import annotations

import pytest

from citewarden.parsing import latex_decode
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


def test_a_value_beyond_the_decoder_limit_is_stripped_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record's name repeated to 700 000 characters (a broken or hostile source) took
    pylatexenc 26 s; a value over ``MAX_DECODED`` has its markup stripped instead."""
    parsed: list[int] = []
    real = latex_decode._converter

    class Counting:
        def latex_to_text(self, value: str) -> str:
            parsed.append(len(value))
            return real().latex_to_text(value)

    monkeypatch.setattr(latex_decode, "_converter", Counting)
    short = 'Schr\\"{o}dinger \\emph{and} \\TeX'
    assert latex_decode.decode_latex.__wrapped__(short) == "Schrödinger and TeX"
    huge = "{\\relax Name} " * (latex_decode.MAX_DECODED // 10)
    assert len(huge) > latex_decode.MAX_DECODED
    assert latex_decode.decode_latex.__wrapped__(huge) == " ".join(["Name"] * (len(huge) // 14))
    assert parsed == [len(short)]
