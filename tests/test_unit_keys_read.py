"""What a refsection's bibliographies define is what biber reads in them: an entry commented
out there (``%`` before it, or inside ``@comment{...}``) defines nothing for the section,
though another file defines the key for the rest of the document."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_units import _oracle, _ours

FILES = {
    "main.tex": r"""\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{global.bib}
\begin{document}
Outside \cite{shared}.
\begin{refsection}[section.bib]
Inside \cite{shared} \cite{wrapped} \cite{kept}.
\printbibliography
\end{refsection}
\printbibliography
\end{document}
""",
    "global.bib": "@misc{shared, title={T}}\n@misc{wrapped, title={T}}\n@misc{spare, title={T}}\n",
    "section.bib": "% @misc{shared, title={T}}\n@comment{@misc{wrapped, title={T}}}\n"
    "@misc{kept, title={T}}\n",
}


def test_a_sections_commented_entries_define_nothing_there(tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    dangling, orphans = _oracle(tmp_path, FILES)
    assert dangling == {"shared", "wrapped"}
    assert _ours(tmp_path) == (dangling, orphans)
