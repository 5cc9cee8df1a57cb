"""A ``\\nocite`` in the preamble after a class or package that loads natbib or cite
itself, compared with pdflatex and BibTeX: it is lost as after ``\\usepackage{natbib}``."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.parsing.latex import parse_latex
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_real_tools import _BBL_BIBITEM, _require_tools, run_latex

#: (class, its options, package line): each loads natbib or cite in its own body
_LOADERS = {
    "iagproc class": ("iagproc", "", ""),
    "gbt7714": ("article", "", "\\usepackage{gbt7714}\n"),
    "rsc": ("article", "", "\\usepackage{rsc}\n"),
    "apacite with natbibapa": ("article", "", "\\usepackage[natbibapa]{apacite}\n"),
    "overcite": ("article", "", "\\usepackage{overcite}\n"),
    "cell": ("article", "", "\\usepackage{cell}\n"),
    "article, as a check": ("article", "", ""),
    "article with the amsmath package, as a check": ("article", "", "\\usepackage{amsmath}\n"),
}


@pytest.mark.parametrize("case", sorted(_LOADERS))
def test_a_preamble_nocite_after_a_loader_of_natbib_cites_what_bibtex_reads(
    tmp_path: Path, case: str
) -> None:
    """The entries BibTeX lists are those citewarden counts as cited, and the lost
    ``\\nocite`` gets a warning."""
    _require_tools()
    cls, options, package = _LOADERS[case]
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{{k}, title={{T}}, author={{A, B}}, year={{2000}}}}\n" for k in "ab"),
        encoding="utf-8",
    )
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{options}{{{cls}}}\n{package}\\nocite{{a}}\n\\begin{{document}}\n"
        "x \\cite{b}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "bibtex")
    bbl = (tmp_path / "main.bbl").read_text(errors="replace")
    listed = {k.strip() for k in _BBL_BIBITEM.findall(bbl)}
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = check(ws)
    orphans = {f.data["key"] for f in found.get(tmp_path / "refs.bib", []) if f.code is Code.ORPHAN}
    assert {"a", "b"} - listed == orphans
    lost = [f for f in found.get(main, []) if f.code is Code.NOCITE_IN_PREAMBLE]
    assert bool(lost) == ("check" not in case)
    assert bool(lost) == ("a" not in listed)


@pytest.mark.parametrize(
    ("head", "lost"),
    [
        ("\\documentclass{acmart}", "natbib"),
        ("\\documentclass[sigconf, natbib = False]{acmart}", ""),
        ("\\documentclass[review]{elsarticle}", "natbib"),
        ("\\documentclass[nonatbib]{elsarticle}", ""),
        ("\\documentclass[aps,prl]{revtex4-2}", "natbib"),
        ("\\documentclass{article}\n\\usepackage{apacite}", ""),
    ],
)
def test_the_class_options_that_keep_natbib_out_are_read(head: str, lost: str) -> None:
    """acmart's ``natbib=false`` and elsarticle's ``nonatbib`` keep natbib out, as the
    classes' sources read them, and apacite loads it only with ``natbibapa``."""
    doc = parse_latex(Path("/p/main.tex"), f"{head}\n\\nocite{{a}}\n\\begin{{document}}\nx\n")
    assert [package for _, package in doc.lost_nocites] == ([lost] if lost else [])
    assert [c.key for c in doc.citations] == ([] if lost else ["a"])
