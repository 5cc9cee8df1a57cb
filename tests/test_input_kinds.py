"""A file LaTeX reads through ``\\input`` or ``\\include`` is LaTeX whatever its name
(``notes.txt``, ``fig.tikz``): its kind comes from the link, not from its suffix.  The
citations pdflatex writes to the .aux are those the project cites."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, DocumentKind
from citewarden.project import Workspace, normalize_path

MAIN = r"""\documentclass{article}
\begin{document}
\cite{a}
\input{notes.txt}
\input{fig.tikz}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""
NOTES = "See \\cite{b}.\n% \\cite{c}\n"
FIG = "\\textbf{\\cite{d}}\n"
BIB = "".join(f"@misc{{{k}, title={{{k.upper()}}}}}\n" for k in "abcde")
_CITATION = re.compile(r"\\citation\{([^}]*)\}")


def _aux_citations(folder: Path) -> set[str]:
    subprocess.run(
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        cwd=folder,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return set(_CITATION.findall((folder / "main.aux").read_text(errors="replace")))


def _orphans(ws: Workspace) -> set[str]:
    return {
        str(f.message.split("'")[1])
        for fs in check(ws).values()
        for f in fs
        if f.code is Code.ORPHAN
    }


def test_a_file_read_through_input_is_latex_whatever_its_name(tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    (tmp_path / "main.tex").write_text(MAIN, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    (tmp_path / "fig.tikz").write_text(FIG, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    cited = _aux_citations(tmp_path)
    assert cited == {"a", "b", "d"}
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _orphans(ws) == set("abcde") - cited
    notes = normalize_path(tmp_path / "notes.txt")
    doc = ws.document(notes)
    assert doc is not None and doc.kind is DocumentKind.LATEX
    assert ws.bibliography(notes) is None
    # an edit of the file reads it as LaTeX again
    ws.set_text(notes, "See \\cite{e}.\n")
    assert _orphans(ws) == {"b", "c"}


def test_bibitems_of_a_file_read_through_input_are_the_documents_keys(tmp_path: Path) -> None:
    """``\\bibitem`` keys of ``items.txt`` read through ``\\input`` are LaTeX's: ``a``
    cited, ``b`` an orphan, as LaTeX reads them (not a Markdown ``references:`` list)."""
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{a}\n\\input{items.txt}\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "items.txt").write_text(
        "\\begin{thebibliography}{9}\n\\bibitem{a} A.\n\\bibitem{b} B.\n\\end{thebibliography}\n",
        encoding="utf-8",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    found = [f for fs in check(ws).values() for f in fs]
    assert [(f.code, f.location.path.name) for f in found] == [(Code.ORPHAN, "items.txt")]
    assert "\\bibitem 'b'" in found[0].message
