"""Documents whose lines end with a lone ``\\r`` (classic Mac OS files), read as the real
tools read them: TeX ends an input line at a ``\\r`` (so a ``%`` comment ends there), pandoc
drops the ``\\r``.  Each case is checked against pdflatex + BibTeX or pandoc."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from differential import markdown_oracle, markdown_ours
from test_real_tools import citewarden_answer, run_latex

#: LaTeX lines: a comment hiding a citation, citations after comment lines, a chapter
LATEX = [
    "\\documentclass{article}",
    "\\begin{document}",
    "% a comment line \\cite{hidden}",
    "Text \\cite{a}. % and a comment after \\cite{alsohidden}",
    "\\input{chapter}",
    "\\cite{missing}",
    "\\bibliographystyle{plain}",
    "\\bibliography{refs}",
    "\\end{document}",
]
CHAPTER = ["% the chapter \\cite{hidden2}", "\\cite{b}"]
BIB = "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{unused, title={U}}\n"


def _need(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"], ids=["cr", "crlf", "lf"])
def test_latex_lines_ending_in_cr_are_read_as_tex_reads_them(tmp_path: Path, newline: str) -> None:
    _need("pdflatex", "bibtex", "checkcites")
    (tmp_path / "main.tex").write_bytes((newline.join(LATEX) + newline).encode())
    (tmp_path / "chapter.tex").write_bytes((newline.join(CHAPTER) + newline).encode())
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    answer = citewarden_answer([tmp_path / "main.tex"])
    tex = run_latex(tmp_path, "main.tex", "bibtex")
    assert answer.dangling == tex.dangling == {"missing"}
    assert answer.orphans == tex.unused == {"unused"}


#: Markdown with lone ``\r`` line ends, as pandoc reads it (every ``\r`` dropped)
MARKDOWN = [
    "---\rnocite: '[@n1]'\r---\r\rText [@a] and [@b].\r",
    "Text [@a].\r\r```\r[@incode]\r```\r\rAfter [@c].\r",
    "Text <!--\r[@hidden]\r--> [@d]\r",
    "    [@indented]\r\rplain [@e]\r",
    "# Head [@h]\rpara [@f]\r",
]


@pytest.mark.parametrize("text", MARKDOWN)
def test_markdown_lines_ending_in_cr_are_read_as_pandoc_reads_them(
    tmp_path: Path, text: str
) -> None:
    """pandoc drops a lone ``\\r`` (it ends no line for it): the keys read are those of
    the ``Cite`` nodes of ``pandoc -t json``."""
    _need("pandoc")
    assert markdown_ours(text) == markdown_oracle(text, tmp_path)
