"""pdflatex_text: what a character beyond pdflatex's default setup is written as."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from citewarden.parsing.latex_encode import BEYOND_PDFLATEX, pdflatex_text
from citewarden.parsing.pdflatex_spellings import PDFLATEX_SPELLINGS


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("x ≠ y", "x {\\ensuremath{\\neq}} y"),
        ("a ∉ B", "a {\\ensuremath{\\notin}} B"),
        ("a ≮ b", "a {\\ensuremath{\\not<}} b"),
        ("∄ x", "{\\ensuremath{\\not\\exists}} x"),
        ("A ⊄ B", "A {\\ensuremath{\\not\\subset}} B"),
        ("a ≢ b", "a {\\ensuremath{\\not\\equiv}} b"),
        ("x\u0338 and y", "x\u0338 and y"),  # no precomposed character: kept as written
        (
            "Ἀλέξανδρος",  # the breathing: no command
            "Ἀ{\\ensuremath{\\lambda}}{\\ensuremath{\\acute\\epsilon}}{\\ensuremath{\\xi}}"
            "{\\ensuremath{\\alpha}}{\\ensuremath{\\nu}}{\\ensuremath{\\delta}}"
            "{\\ensuremath{\\rho}}{o}{\\ensuremath{\\varsigma}}",
        ),
        ("ą", "ą"),  # \k is T1's only
        ("tiếng", "ti{\\'{\\^{e}}}ng"),
        ("a 😀 b ❤️", "a b"),
    ],
)
def test_a_mark_is_never_left_off(text: str, written: str) -> None:
    assert pdflatex_text(text) == written


@pytest.mark.parametrize(
    "char", ["ℝ", "ŋ", "đ", "⅓", "ŉ", "ð", "Þ", "ё", "Ж", "√", "ħ", "Ŀ", "ĸ", "中"]
)
def test_a_character_no_verified_spelling_has_is_kept(char: str) -> None:
    assert pdflatex_text(f"a {char} b") == f"a {char} b"


def _accents(written: str) -> int:
    return written.count("\\")


def test_every_character_is_spelt_whole_kept_or_an_emoji() -> None:
    """Each character is its spelling, its letter under as many accents as it has marks,
    kept as it is, or (an emoji, a space) dropped: nothing is left off a character."""
    for code in range(0x80, sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) == "Cs":
            continue
        nfc = unicodedata.normalize("NFC", char)
        written = pdflatex_text(char)
        if not BEYOND_PDFLATEX.search(nfc) or written == nfc:
            continue
        if nfc in PDFLATEX_SPELLINGS:
            assert written == "{" + PDFLATEX_SPELLINGS[nfc] + "}", char
        elif written:
            base, *marks = unicodedata.normalize("NFD", nfc)
            assert written.endswith("{" + base + "}" * (len(marks) + 1)), char
            assert written.count("\\") == len(marks), char
        else:
            assert unicodedata.category(nfc)[0] in "SCZ", char
            assert unicodedata.category(nfc) != "Sm", char
