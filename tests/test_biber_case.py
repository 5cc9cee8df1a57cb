"""Keys of one .bib file that differ in case only, in a biber project: a duplicate-key
warning where biber warns "Possible typo (case mismatch) between datasource keys",
checked against biber itself."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Severity
from citewarden.project import Workspace

MAIN = r"""\documentclass{article}
\usepackage[backend=%s]{biblatex}
\addbibresource{a.bib}
\addbibresource{b.bib}
\begin{document}
\cite{x}%s
\printbibliography
\end{document}
"""
#: (a.bib, b.bib, more citations): biber reads b.bib when a citation is not in a.bib
CASES: list[tuple[str, ...]] = [
    ("@misc{Smith, title={A}}\n@misc{smith, title={B}}\n@misc{x, title={X}}\n", ""),
    ("@misc{Smith, title={A}}\n@misc{x, title={X}}\n@misc{smith, title={B}}\n", ""),
    ("@misc{Smith, title={A}}\n@misc{smith, title={B}}\n@misc{SMITH, title={C}}\n", ""),
    ("@misc{Smith, title={A}}\n@misc{Smith, title={A}}\n@misc{smith, title={B}}\n", ""),
    ("@misc{Smith, title={A}}\n@misc{smith, title={B}}\n@misc{Smith, title={C}}\n", ""),
    ("@misc{Smith, title={A}}\n% @misc{smith, title={B}}\n@misc{x, title={X}}\n", ""),
    ("@misc{Smith, title={A}}\n@misc{x, title={X}}\n", "@misc{smith, title={B}}\n"),
    (
        "@misc{Smith, title={A}}\n@misc{x, title={X}}\n",
        "@misc{smith, title={B}}\n",
        "\\cite{smith}",
    ),
    ("@misc{Smith, title={A}}\n@misc{x, title={X}}\n", "@misc{smith, title={B}}\n", "\\nocite{*}"),
    (
        "@misc{Smith, title={A}}\n@misc{x, title={X}, ids={y}}\n",
        "@misc{smith, title={B}}\n",
        "\\cite{y}",
    ),
    (
        "@misc{Smith, title={A}}\n",
        "@misc{x, title={X}}\n@misc{SMITH, title={B}}\n@misc{smith, title={C}}\n",
    ),
    ("@misc{Smith, title={A}}\n@misc{x, title={X}}\n@misc{Smith, title={A}}\n", ""),
    # biber lower-cases every letter (Perl's lc), not ASCII ones alone
    ("@misc{Äb, title={A}}\n@misc{äb, title={B}}\n@misc{x, title={X}}\n", ""),
    ("@misc{ẞy, title={A}}\n@misc{x, title={X}}\n", "@misc{ßy, title={B}}\n", "\\nocite{*}"),
    ("@misc{ǅx, title={A}}\n@misc{ǆx, title={B}}\n@misc{ǄX, title={C}}\n@misc{x, title={X}}\n", ""),
]
_WARNING = re.compile(r"case mismatch\) between datasource keys: '([^']*)' and '([^']*)'")


def _biber_warnings(folder: Path) -> list[tuple[str, str]]:
    for cmd in (
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        ["biber", "main"],
    ):
        subprocess.run(cmd, cwd=folder, capture_output=True, timeout=120, check=False)
    # biber writes its keys decomposed (NFD)
    log = unicodedata.normalize("NFC", (folder / "main.blg").read_text(errors="replace"))
    return _WARNING.findall(log)


def _findings(folder: Path) -> list[tuple[str, str]]:
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    return [
        (str(f.data["key"]), str(f.data["first"]))
        for fs in check(ws).values()
        for f in fs
        if f.code is Code.DUPLICATE_KEY and f.effective_severity is Severity.WARNING
    ]


@pytest.mark.parametrize("case", CASES)
def test_keys_in_two_spellings_are_reported_where_biber_warns(
    tmp_path: Path, case: tuple[str, ...]
) -> None:
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    a, b, *more = case
    (tmp_path / "main.tex").write_text(MAIN % ("biber", "".join(more)), encoding="utf-8")
    (tmp_path / "a.bib").write_text(a, encoding="utf-8")
    (tmp_path / "b.bib").write_text(b, encoding="utf-8")
    assert _findings(tmp_path) == _biber_warnings(tmp_path)


def test_a_bibtex_project_reports_them_as_duplicate_keys(tmp_path: Path) -> None:
    """BibTeX reads ``smith`` after ``Smith`` as a repeated entry: the error, no warning."""
    (tmp_path / "main.tex").write_text(MAIN % ("bibtex", ""), encoding="utf-8")
    (tmp_path / "a.bib").write_text(CASES[0][0], encoding="utf-8")
    (tmp_path / "b.bib").write_text("", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    found = [f for fs in check(ws).values() for f in fs if f.code is Code.DUPLICATE_KEY]
    assert [f.effective_severity for f in found] == [Severity.ERROR]


SECTIONS = r"""\documentclass{article}
\usepackage{biblatex}
%s
\begin{document}
\begin{refsection}[a.bib]
\cite{x}
\end{refsection}
\begin{refsection}[%s]
\cite{%s}
\end{refsection}
\end{document}
"""


@pytest.mark.parametrize(
    ("preamble", "resources", "cited"),
    [("", "b.bib", "y"), ("\\addbibresource{b.bib}", "b.bib", "y")],
)
def test_biber_compares_keys_for_case_within_a_refsection(
    tmp_path: Path, preamble: str, resources: str, cited: str
) -> None:
    """biber reads each refsection's resources for its own citations: spellings of a key
    in files no one section reads both of get no warning."""
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    main = SECTIONS % (preamble, resources, cited)
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    (tmp_path / "a.bib").write_text("@misc{x, title={X}}\n@misc{Smith, title={A}}\n")
    (tmp_path / "b.bib").write_text("@misc{smith, title={B}}\n@misc{y, title={Y}}\n")
    assert _findings(tmp_path) == _biber_warnings(tmp_path)


#: main.tex's preamble resources and body -> biber reads each file once a run, in the first
#: section (by number) that reads it, and compares its keys with those that section read
#: before in files it read first: a file taken from the cache is compared with nothing
RUNS: dict[str, tuple[str, str, dict[str, str]]] = {
    "a file read again in a later section": (
        "\\addbibresource{a.bib}",
        "\\cite{x}\n\\begin{refsection}[a.bib,b.bib]\n\\cite{y}\n\\end{refsection}\n",
        {},
    ),
    "a section without resources after section 0": (
        "\\addbibresource{a.bib}\\addbibresource{b.bib}",
        "\\cite{x}\n\\begin{refsection}\n\\cite{y}\n\\end{refsection}\n",
        {},
    ),
    "section 0 cited after a section without resources": (
        "\\addbibresource{a.bib}\\addbibresource{b.bib}",
        "\\begin{refsection}\n\\cite{y}\n\\end{refsection}\n\\cite{x}\n",
        {},
    ),
    "a section's resources in its order": (
        "\\addbibresource{a.bib}",
        "\\begin{refsection}[b.bib]\n\\cite{y}\n\\end{refsection}\n"
        "\\begin{refsection}[b.bib,a.bib]\n\\cite{x}\n\\end{refsection}\n",
        {},
    ),
    "a section begun in an included file": (
        "\\addbibresource{c.bib}\\addbibresource{b.bib}",
        "\\input{ch}\n\\cite{y}\n",
        {"ch.tex": "\\newrefsection[a.bib,c.bib]\n\\cite{z}\n\\endrefsection\n"},
    ),
    "the default resources in the order they are declared": (
        "\\addbibresource{b.bib}\\addbibresource{a.bib}\\addglobalbib{c.bib}",
        "\\begin{refsection}[a.bib]\n\\cite{x}\n\\end{refsection}\n\\nocite{*}\n",
        {},
    ),
    "every entry in a later section": (
        "\\addbibresource{a.bib}\\addbibresource{b.bib}\\addbibresource{c.bib}",
        "\\begin{refsection}\n\\cite{x}\n\\end{refsection}\n"
        "\\begin{refsection}\n\\nocite{*}\n\\end{refsection}\n",
        {},
    ),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_biber_compares_keys_for_case_in_the_files_it_reads_first(
    tmp_path: Path, name: str
) -> None:
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    preamble, body, more = RUNS[name]
    main = SECTIONS.split("\\begin{document}")[0] % preamble
    main += f"\\begin{{document}}\n{body}\\end{{document}}\n"
    files = {
        "main.tex": main,
        "a.bib": "@misc{x, title={X}}\n@misc{Smith, title={A}}\n",
        "b.bib": "@misc{smith, title={B}}\n@misc{y, title={Y}}\n",
        "c.bib": "@misc{SMITH, title={C}}\n@misc{z, title={Z}}\n",
        **more,
    }
    for relative, text in files.items():
        (tmp_path / relative).write_text(text, encoding="utf-8")
    assert sorted(_findings(tmp_path)) == sorted(_biber_warnings(tmp_path))
