"""Agreement with the real tools on example documents TeX Live ships (tests/data/texlive,
see PROVENANCE.md), where bench/texlive_documents.py found citewarden disagreeing.

The oracle is that of tests/test_real_tools.py: LaTeX + BibTeX or biber run in a temporary
copy, the citations left undefined and the keys the tool found no entry for (dangling),
and the entries checkcites calls unused that no .bbl prints (orphans).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_real_tools import (
    _BIBTEX_MISSING,
    _UNDEFINED,
    _require_tools,
    _run,
    citewarden_answer,
    run_latex,
)

TEXLIVE = Path(__file__).parent / "data" / "texlive"


def _installed(name: str) -> Path:
    """A file of the installed TeX Live (the tools read it from there; the copy next to
    the document is what citewarden reads)."""
    found = subprocess.run(["kpsewhich", name], capture_output=True, text=True, check=False)
    if not found.stdout.strip():
        pytest.fail(f"{name} is not installed (scripts/system-deps installs it)", pytrace=False)
    return Path(found.stdout.strip())


@pytest.mark.parametrize(
    ("directory", "root", "backend", "bibs"),
    [
        # bibentry's \nobibliography{bibliography} is \bibliography that prints nothing:
        # BibTeX reads the file, \bibentry{key} cites from it
        ("newcastle-bst", "newcastle-bst.tex", "bibtex", ()),
        # \cite{set} of a biblatex @set entry: biber prints the members its entryset names
        ("biblatex-sets", "30-style-numeric.tex", "biber", ("biblatex-examples.bib",)),
    ],
)
def test_texlive_documents_agree_with_the_tools(
    tmp_path: Path, directory: str, root: str, backend: str, bibs: tuple[str, ...]
) -> None:
    _require_tools()
    folder = tmp_path / directory
    shutil.copytree(TEXLIVE / directory, folder)
    for bib in bibs:
        shutil.copyfile(_installed(bib), folder / bib)
    tools = run_latex(folder, root, backend)
    ours = citewarden_answer([folder / root])
    assert sorted(ours.dangling) == sorted(tools.dangling)
    assert sorted(ours.orphans) == sorted(tools.unused)


def test_the_members_of_a_cited_set_are_printed_and_a_missing_one_is_reported(
    tmp_path: Path,
) -> None:
    """biber prints the members a cited ``@set`` names (not those an ``entryset`` of
    another entry type names), and warns of a member defined nowhere."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "@set{s1,\n  entryset = {a, b, nope},\n}\n"
        + "".join(
            f"@misc{{{k},\n  title = {{{k.upper()}}},\n  author = {{{k}, {k}}},\n"
            f"  year = {2000 + n},{extra}\n}}\n"
            for n, (k, extra) in enumerate(
                [("a", ""), ("b", ""), ("c", ""), ("d", "\n  entryset = {c},")]
            )
        ),
        encoding="utf-8",
    )
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{s1} \\cite{d}\n"
        "\\printbibliography\n\\end{document}\n",
        encoding="utf-8",
    )
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    biber = _run(["biber", "main"], tmp_path).stdout
    missing = "database entry for static set member 'nope' in entry 's1'" in biber
    tools = run_latex(tmp_path, "main.tex", "biber")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    findings = check(ws)[tmp_path / "refs.bib"]
    orphans = {str(f.data["key"]) for f in findings if f.code is Code.ORPHAN}
    targets = {str(f.data["target"]) for f in findings if f.code is Code.MISSING_CROSSREF}
    assert (orphans, missing) == (tools.unused, True)
    assert targets == {"nope"}


def test_an_example_document_in_an_ltxexample_environment_is_not_read(tmp_path: Path) -> None:
    """biblatex-iso690's documentation (class ltxdockit) shows whole documents in
    ``ltxexample``, a listings environment: their ``\\end{document}`` does not end the
    document, and its ``\\nocite{*}`` after them cites every entry.  ltxdockit is not
    installed by scripts/system-deps, so the document defines the environment as
    ltxdockit.sty does (``\\lstnewenvironment{ltxexample}[1][]``)."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "".join(
            f"@misc{{{k},\n  title = {{{k.upper()}}},\n  author = {{{k}, {k}}},\n"
            f"  year = {2000 + n},\n}}\n"
            for n, k in enumerate(["used", "spare"])
        ),
        encoding="utf-8",
    )
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{listings}\n"
        "\\lstnewenvironment{ltxexample}[1][]{}{}\n"
        "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n"
        "\\begin{document}\nA minimal example:\n\\begin{ltxexample}\n"
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        "\\begin{document}\n\\cite{nowhere}\n\\printbibliography\n\\end{document}\n"
        "\\end{ltxexample}\nSee \\parencite{used}.\n\\nocite{*}\n\\printbibliography\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    tools = run_latex(tmp_path, "doc.tex", "biber")
    ours = citewarden_answer([tmp_path / "doc.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused) == (set(), set())


def test_bibtopic_sections_name_the_bibliographies_their_keys_come_from(tmp_path: Path) -> None:
    """bibtopic's ``\\begin{btSect}[style]{books}`` (its sample.tex in TeX Live, and
    jurabib's jbtestbt.tex) names the files of a section, which BibTeX reads from an .aux of
    its own (``\\citation{*}``); a citation anywhere is looked up in every section, and
    ``\\btPrintNotCited`` prints the entries no one cites."""
    _require_tools()
    entries = {"books": ["knuth84", "lamport94"], "articles": ["cited96", "spare97"]}
    for name, keys in entries.items():
        (tmp_path / f"{name}.bib").write_text(
            "".join(
                f"@misc{{{k},\n  title = {{{k.upper()}}},\n  author = {{{k}, {k}}},\n"
                f"  year = {{19{k[-2:]}}},\n}}\n"
                for k in keys
            ),
            encoding="utf-8",
        )
    (tmp_path / "topics.tex").write_text(
        "\\documentclass{article}\n\\usepackage{bibtopic}\n\\begin{document}\n"
        "\\bibliographystyle{alpha}\n"
        "Books \\cite{knuth84} and \\cite{lamport94}, an article \\cite{cited96} and no "
        "entry \\cite{nowhere}.\n"
        "\\begin{btSect}{books}\n\\section{Books}\n\\btPrintCited\n\\end{btSect}\n"
        "\\begin{btSect}[plain]{articles}\n\\section{Articles}\n\\btPrintCited\n"
        "\\section{Articles not cited}\n\\btPrintNotCited\n\\end{btSect}\n\\end{document}\n",
        encoding="utf-8",
    )
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "topics.tex"]
    _run(latex, tmp_path)
    units = sorted(p.stem for p in tmp_path.glob("topics*.aux") if "\\bibdata" in p.read_text())
    assert units == ["topics1", "topics2"]
    missing = set()
    for unit in units:
        _run(["bibtex", unit], tmp_path)
        missing |= set(_BIBTEX_MISSING.findall((tmp_path / f"{unit}.blg").read_text()))
    _run(latex, tmp_path)
    _run(latex, tmp_path)
    undefined = set(_UNDEFINED.findall((tmp_path / "topics.log").read_text()))
    ours = citewarden_answer([tmp_path / "topics.tex"])
    # every entry is printed: the cited ones, and spare97 by \btPrintNotCited
    assert (ours.dangling, ours.orphans) == (undefined | missing, set()) == ({"nowhere"}, set())


def test_short_verbatim_text_cites_nothing(tmp_path: Path) -> None:
    """biblatex-musuos's manual (class ltxdoc) writes ``|\\quotecite(Vgl.)()[7]{nuss83}|``
    after ``\\MakeShortVerb{\\|}``: text between two ``|`` on a line is verbatim, until
    ``\\DeleteShortVerb{\\|}``."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "".join(
            f"@misc{{{k},\n  title = {{{k.upper()}}},\n  author = {{{k}, {k}}},\n"
            f"  year = {{200{n}}},\n}}\n"
            for n, k in enumerate(["real", "spare"])
        ),
        encoding="utf-8",
    )
    # real is cited only on the line with |%|: that % is verbatim, it starts no comment
    (tmp_path / "manual.tex").write_text(
        "\\documentclass{article}\n\\usepackage{shortvrb}\n\\MakeShortVerb{\\|}\n"
        "\\begin{document}\nWrite |\\cite{ghost}| to cite; a bar \\| and % |\n"
        "two |\\cite[p.~1]{ghost2}| and |x| on a line.\n"
        "a |%| sign, then |\\cite{ghost3}| and \\cite{real} on its line.\n"
        "\\DeleteShortVerb{\\|}\nNow $a|b$ \\cite{late}.\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    tools = run_latex(tmp_path, "manual.tex", "bibtex")
    ours = citewarden_answer([tmp_path / "manual.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused)
    assert (tools.dangling, tools.unused) == ({"late"}, {"spare"})


def test_the_ltxdoc_class_makes_the_bar_short_verbatim(tmp_path: Path) -> None:
    """jurabib's manuals (class ltxdoc) write ``|\\cite[45]{<key>}|``: ltxdoc says
    ``\\AtBeginDocument{\\MakeShortVerb{\\|}}``."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "@misc{real,\n  title = {Real},\n  author = {Real, R.},\n  year = {2000},\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "guide.tex").write_text(
        "\\documentclass{ltxdoc}\n\\begin{document}\n"
        "Write |\\cite[45]{<key>}| to cite \\cite{real} and \\cite{nowhere}.\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    tools = run_latex(tmp_path, "guide.tex", "bibtex")
    ours = citewarden_answer([tmp_path / "guide.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused) == ({"nowhere"}, set())
