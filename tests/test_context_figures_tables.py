"""Citing sentences around figures and tables a paragraph holds: a subfigure in running text
ends the sentence before it, and a grid table's row reads its cells one after the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.context.sentence import CitingSentence, citing_sentences
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown


def sentences(text: str, markdown: bool = False) -> dict[str, CitingSentence | None]:
    doc = parse_markdown(Path("p.md"), text) if markdown else parse_latex(Path("p.tex"), text)
    found = citing_sentences(text, doc.citations, doc.kind)
    return {c.key: s for c, s in zip(doc.citations, found, strict=True)}


@pytest.mark.parametrize(
    "figure",
    [
        "\\subfloat[Loss of deep nets \\cite{b}]{\\includegraphics{x}}",
        "\\subfloat[Loss]{\\includegraphics{x}}\\hfill\n\\subfloat[Gain]{\\includegraphics{y}}",
        "\\subfigure[Loss of deep nets]{\\includegraphics{x}}",
        "\\subfloat{\\includegraphics{x}}",
    ],
)
def test_a_subfigure_in_a_paragraph_parts_the_prose_around_it(figure: str) -> None:
    """The prose before a subfigure standing in a paragraph and the prose after it are two
    sentences, where they ran on into one (``We train nets Then trees grow.``)."""
    text = f"Intro.\n\nWe train nets \\cite{{a}}\n{figure}\nThen trees grow \\cite{{c}}. Done.\n"
    got = sentences(text)
    a, c = got["a"], got["c"]
    assert a is not None and c is not None
    assert (a.before, a.text, a.after) == ("Intro.", "We train nets", "Then trees grow.")
    assert (c.before, c.text, c.after) == ("We train nets", "Then trees grow.", "Done.")
    if "b" in got:
        b = got["b"]
        assert b is not None and (b.before, b.text, b.after) == ("", "Loss of deep nets", "")


def test_a_command_named_like_a_subfigure_is_no_break() -> None:
    got = sentences("We use \\subfloatstyle nets \\cite{a} here. Done.\n")["a"]
    assert got is not None and got.text == "We use nets here."
