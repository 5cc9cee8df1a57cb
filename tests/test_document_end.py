"""``\\end{document}`` in a file read through ``\\input`` or ``\\include`` ends the whole
document: TeX reads nothing after it, in that file or in the files including it, so
what stands there cites nothing.  The citations are those pdflatex writes to the .aux."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace, normalize_path

MAIN = r"""\documentclass{article}
\begin{document}
\cite{a}
\bibliographystyle{plain}
\bibliography{refs}
\%s{chap}
\cite{c}
\input{later}
\nocite{*}
\end{document}
"""
CHAP = "\\cite{b}\n\\input{inner}\n\\cite{f}\n"
INNER = "\\cite{g}\n\\end{document}\n\\cite{d}\n"
BIB = "".join(f"@misc{{{k}, title={{{k.upper()}}}}}\n" for k in "abcdefgh")
_CITATION = re.compile(r"\\citation\{([^}]*)\}")


def _aux_citations(folder: Path) -> set[str]:
    subprocess.run(
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        cwd=folder,
        capture_output=True,
        timeout=120,
        check=False,
    )
    found: set[str] = set()
    for aux in folder.glob("*.aux"):
        found.update(_CITATION.findall(aux.read_text(errors="replace")))
    return found


def _orphans(ws: Workspace) -> set[str]:
    return {
        str(f.message.split("'")[1])
        for fs in check(ws).values()
        for f in fs
        if f.code is Code.ORPHAN
    }


@pytest.mark.parametrize("command", ["input", "include"])
def test_what_follows_an_included_end_of_document_is_not_cited(
    tmp_path: Path, command: str
) -> None:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    (tmp_path / "main.tex").write_text(MAIN % command, encoding="utf-8")
    (tmp_path / "chap.tex").write_text(CHAP, encoding="utf-8")
    (tmp_path / "inner.tex").write_text(INNER, encoding="utf-8")
    (tmp_path / "later.tex").write_text("\\cite{h}\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    cited = _aux_citations(tmp_path)
    assert cited == {"a", "b", "g"}
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _orphans(ws) == set("abcdefgh") - cited
    # the end removed: every file is read to its end (\\nocite{*} too)
    ws.set_text(normalize_path(tmp_path / "inner.tex"), "\\cite{g}\n")
    assert _orphans(ws) == set()


def test_the_end_of_a_subfile_ends_nothing(tmp_path: Path) -> None:
    """A file with ``\\documentclass`` (a subfile, a standalone figure) is read by a
    package that skips its preamble and its end."""
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{subfiles}\n\\begin{document}\n"
        "\\subfile{chap}\n\\cite{b}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "chap.tex").write_text(
        "\\documentclass[main]{subfiles}\n\\begin{document}\n\\cite{a}\n\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _orphans(ws) == set("cdefgh")


@pytest.mark.parametrize("where", ["root", "later"])
def test_a_bibliography_after_an_included_end_of_document_is_not_read(
    tmp_path: Path, where: str
) -> None:
    """LaTeX writes no ``\\bibdata`` for a ``\\bibliography`` after the end (in the root
    after the include link, or in a file included later): BibTeX reads no file."""
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    bibliography = "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    later = bibliography if where == "later" else ""
    root = bibliography if where == "root" else "\\input{later}\n"
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{a}\n\\input{chap}\n"
        + root
        + "\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "chap.tex").write_text("text\n\\end{document}\n", encoding="utf-8")
    (tmp_path / "later.tex").write_text(later, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    _aux_citations(tmp_path)
    assert "\\bibdata" not in (tmp_path / "main.aux").read_text(encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    main = normalize_path(tmp_path / "main.tex")
    found = check(ws)[main]
    assert [(f.code, f.message.split("'")[1]) for f in found] == [(Code.DANGLING, "a")]
    assert [p.bibliographies for p in ws.projects() if p.root == main] == [()]
