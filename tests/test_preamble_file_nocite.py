"""A ``\\nocite`` in a file ``\\input`` in the root's preamble, compared with pdflatex and
BibTeX or biber: LaTeX's own ``\\nocite`` and biblatex's keep it for ``\\begin{document}``,
natbib's writes it to an .aux not open yet, so BibTeX never sees it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_real_tools import _BBL_BIBITEM, _require_tools, run_latex

_KEYS = [f"k{i}" for i in range(1, 7)]


@pytest.mark.parametrize("keys", ["*", "k2"])
@pytest.mark.parametrize("package", ["natbib", "", "biblatex"])
def test_a_nocite_in_a_preamble_file_cites_what_the_tools_read(
    tmp_path: Path, package: str, keys: str
) -> None:
    """The entries BibTeX or biber lists are those citewarden counts as cited, and natbib's
    lost ``\\nocite`` in the preamble file gets a warning."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{{k}, title={{T}}, author={{A, B}}, year={{2000}}}}\n" for k in _KEYS),
        encoding="utf-8",
    )
    (tmp_path / "pre.tex").write_text(f"\\nocite{{{keys}}}\n", encoding="utf-8")
    if package == "biblatex":
        head = "\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        tail = "\\printbibliography\n"
    else:
        head = f"\\usepackage{{{package}}}\n" if package else ""
        tail = "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n{head}\\input{{pre}}\n\\begin{{document}}\n"
        f"x \\cite{{k1}}\n{tail}\\end{{document}}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "biber" if package == "biblatex" else "bibtex")
    bbl = (tmp_path / "main.bbl").read_text(errors="replace")
    if package == "biblatex":
        listed = set(re.findall(r"\\entry\{([^}]*)\}", bbl))
    else:
        listed = {k.strip() for k in _BBL_BIBITEM.findall(bbl)}
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = check(ws)
    orphans = {f.data["key"] for f in found.get(tmp_path / "refs.bib", []) if f.code is Code.ORPHAN}
    assert set(_KEYS) - listed == orphans
    lost = [f for f in found.get(tmp_path / "pre.tex", []) if f.code is Code.NOCITE_IN_PREAMBLE]
    assert len(lost) == (package == "natbib")
    # natbib loses the \\nocite; LaTeX's own and biblatex's keep it for the body
    kept = set() if keys == "*" else {"k3", "k4", "k5", "k6"}
    assert orphans == ({"k2", "k3", "k4", "k5", "k6"} if package == "natbib" else kept)
