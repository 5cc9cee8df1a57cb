"""multibib's ``\\nocitesw{*}`` in a chapter the root ``\\input``s, compared with pdflatex
and BibTeX: it cites every entry of the ``\\bibliographysw`` files only, as it does in the
file whose ``\\newcites`` defines the list, so the main list's uncited entries stay
orphans."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_real_tools import _BBL_BIBITEM, _require_tools, run_latex


def _entries(keys: str) -> str:
    return "".join(
        f"@misc{{{k}, title={{T}}, author={{A, B}}, year={{2000}}}}\n" for k in keys.split()
    )


@pytest.mark.parametrize("where", ["main.tex", "chapter.tex"])
def test_a_list_star_cites_the_list_files_only(tmp_path: Path, where: str) -> None:
    _require_tools()
    (tmp_path / "refs.bib").write_text(_entries("m1 m2 m3"), encoding="utf-8")
    (tmp_path / "sw.bib").write_text(_entries("s1 s2"), encoding="utf-8")
    star = "\\nocitesw{*}\n"
    (tmp_path / "chapter.tex").write_text(
        "y \\cite{m1}\n" + (star if where == "chapter.tex" else ""), encoding="utf-8"
    )
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\usepackage{multibib}\n\\newcites{sw}{Software}\n"
        "\\begin{document}\n\\input{chapter}\n"
        + (star if where == "main.tex" else "")
        + "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
        "\\bibliographystylesw{plain}\n\\bibliographysw{sw}\n\\end{document}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "bibtex")
    subprocess_run_sw(tmp_path)
    listed = set()
    for bbl in ("main.bbl", "sw.bbl"):
        listed |= {k.strip() for k in _BBL_BIBITEM.findall((tmp_path / bbl).read_text())}
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = check(ws)
    orphans = {
        f.data["key"]
        for bib in ("refs.bib", "sw.bib")
        for f in found.get(tmp_path / bib, [])
        if f.code is Code.ORPHAN
    }
    assert {"m1", "m2", "m3", "s1", "s2"} - listed == orphans == {"m2", "m3"}


def subprocess_run_sw(directory: Path) -> None:
    """BibTeX on multibib's list .aux, then LaTeX again."""
    import subprocess

    subprocess.run(["bibtex", "sw"], cwd=directory, capture_output=True, check=False)


@pytest.mark.parametrize("command", ["citesw", "citepsw", "citetsw", "citealpsw", "citealtsw"])
def test_each_natbib_command_of_a_list_cites_in_the_list(tmp_path: Path, command: str) -> None:
    """multibib's ``\\newcites{sw}`` defines ``\\citepsw``, ``\\citetsw``, ``\\citealpsw``
    and ``\\citealtsw`` beside ``\\citesw`` (its ``\\@mb@citenamelist``): with natbib they
    write the key to sw.aux, so BibTeX lists the entry there.  They were read as no
    citation, and the entry was an orphan."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(_entries("m1 m2"), encoding="utf-8")
    (tmp_path / "sw.bib").write_text(_entries("s1 s2"), encoding="utf-8")
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\usepackage{natbib}\n\\usepackage{multibib}\n"
        "\\newcites{sw}{Software}\n\\begin{document}\n"
        f"x \\citep{{m1}} \\{command}{{s1}}\n"
        "\\bibliographystyle{plainnat}\n\\bibliography{refs}\n"
        "\\bibliographystylesw{plainnat}\n\\bibliographysw{sw}\n\\end{document}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "bibtex")
    subprocess_run_sw(tmp_path)
    listed = {k.strip() for k in _BBL_BIBITEM.findall((tmp_path / "sw.bbl").read_text())}
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = check(ws)
    orphans = {
        f.data["key"]
        for bib in ("refs.bib", "sw.bib")
        for f in found.get(tmp_path / bib, [])
        if f.code is Code.ORPHAN
    }
    assert listed == {"s1"}
    assert orphans == {"m2", "s2"}
