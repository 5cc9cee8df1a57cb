"""Which bibliography files a LaTeX project's tool reads, and how it matches keys: a subfile
reads its main file's preamble; BibTeX obeys the first ``\\bibliography`` of the .aux only;
keys match as the backend processing the bibliography matches them, whichever command
named the files.  Every finding (code, file, marked span) of a fixture is listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding
from citewarden.project import Workspace, normalize_path
from markers import Marked, found_set, write_project

Expected = list[tuple[str, Code, str]]  # (file, code, marker name)


def _run(
    tmp_path: Path, fixture: str, opened: str | None = None
) -> tuple[dict[str, Marked], dict[str, list[Finding]], Workspace]:
    """Check the fixture's files (all of them, or only ``opened``)."""
    marks = write_project(tmp_path, fixture)
    ws = Workspace(root=tmp_path)
    if opened is None:
        ws.add_folder(tmp_path)
    else:
        ws.add_file(tmp_path / opened)
    top = normalize_path(tmp_path)
    by_file = {p.relative_to(top).as_posix(): fs for p, fs in check(ws).items()}
    return marks, by_file, ws


# ---------------------------------------------------------------------------------------
# subfiles
# ---------------------------------------------------------------------------------------

_MAIN_BIBLATEX = r"""
--- main.tex
\documentclass{article}
\usepackage{subfiles}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{a}
\subfile{ch/sub}
\printbibliography
\end{document}
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{⟦o|c⟧, title={C}}
"""
_SUBFILE = r"""
--- ch/sub.tex
\documentclass[../main.tex]{subfiles}
\begin{document}
\cite{b} \cite{⟦d|nope⟧}
\end{document}
"""


@pytest.mark.parametrize("opened", [None, "ch/sub.tex"])
def test_a_subfile_reads_the_bibliography_of_its_main_file(
    tmp_path: Path, opened: str | None
) -> None:
    """The subfiles class reads the main file's preamble: compiled alone or as part of the
    main file, the subfile's citations see the main file's resources."""
    marks, by_file, ws = _run(tmp_path, _MAIN_BIBLATEX + _SUBFILE, opened)
    assert found_set(marks, by_file) == {
        ("ch/sub.tex", Code.DANGLING, "d"),
        ("refs.bib", Code.ORPHAN, "o"),
    }
    roots = [p.root.name for p in ws.projects_of(tmp_path / "ch" / "sub.tex")]
    assert roots == ["main.tex"]


def test_a_subfile_its_main_file_does_not_include_is_still_part_of_it(tmp_path: Path) -> None:
    fixture = _MAIN_BIBLATEX.replace("\\subfile{ch/sub}\n", "") + _SUBFILE
    marks, by_file, ws = _run(tmp_path, fixture)
    assert found_set(marks, by_file) == {
        ("ch/sub.tex", Code.DANGLING, "d"),
        ("refs.bib", Code.ORPHAN, "o"),
    }
    assert [p.root.name for p in ws.projects_of(tmp_path / "ch" / "sub.tex")] == ["main.tex"]


def test_a_subfile_whose_main_file_is_missing_is_a_root_of_its_own(tmp_path: Path) -> None:
    _, _, ws = _run(tmp_path, _SUBFILE.replace("⟦d|nope⟧", "nope"))
    [project] = ws.projects_of(tmp_path / "ch" / "sub.tex")
    assert project.root == normalize_path(tmp_path / "ch" / "sub.tex")


def test_a_subfile_with_its_own_bibliography_is_no_second_bibdata(tmp_path: Path) -> None:
    """The subfiles idiom ``\\ifSubfilesClassLoaded{\\bibliography{...}}{}`` names the
    bibliography for the subfile compiled alone: no second ``\\bibdata`` of the main file."""
    marks, by_file, _ = _run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\usepackage{subfiles}
\begin{document}
\subfile{ch/sub}
\bibliography{refs}
\end{document}
--- ch/sub.tex
\documentclass[../main.tex]{subfiles}
\begin{document}
\cite{a} \cite{⟦d|nope⟧}
\ifSubfilesClassLoaded{\bibliography{\subfix{../refs}}}{}
\end{document}
--- refs.bib
@misc{a, title={A}}
""",
    )
    assert found_set(marks, by_file) == {("ch/sub.tex", Code.DANGLING, "d")}


# ---------------------------------------------------------------------------------------
# BibTeX obeys the first \bibdata
# ---------------------------------------------------------------------------------------

_ONE_TWO = r"""
--- one.bib
@misc{a, title={A}}
--- two.bib
@misc{x, title={X}}
@misc{y, title={Y}}
"""

BIBDATA_CASES: dict[str, tuple[str, Expected]] = {
    "a second \\bibliography is ignored: its keys are dangling": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a} \cite{⟦d|x⟧}
\bibliographystyle{plain}
\bibliography{one}
\bibliography{⟦w|two⟧}
\end{document}
""",
        [("main.tex", Code.DANGLING, "d"), ("main.tex", Code.BIBLIOGRAPHY_IGNORED, "w")],
    ),
    "the first in document order is an included file's": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{⟦d|a⟧} \cite{x}
\input{ch}
\bibliography{⟦w|one⟧}
\end{document}
--- ch.tex
\bibliographystyle{plain}
\bibliography{two}
--- two.bib
@misc{x, title={X}}
@misc{⟦o|y⟧, title={Y}}
""",
        [
            ("main.tex", Code.DANGLING, "d"),
            ("main.tex", Code.BIBLIOGRAPHY_IGNORED, "w"),
            ("two.bib", Code.ORPHAN, "o"),
        ],
    ),
    "a list of names, a comment among them, is one \\bibliography": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a} \cite{x} \nocite{y}
\bibliography{one,% the other
  two}
\end{document}
""",
        [],
    ),
    "a \\bibliography in the preamble writes nothing: the body's is the first": (
        r"""
--- main.tex
\documentclass{article}
\bibliography{⟦w|one⟧}
\begin{document}
\cite{⟦d|a⟧} \cite{x} \nocite{y}
\bibliographystyle{plain}
\bibliography{two}
\end{document}
""",
        [("main.tex", Code.DANGLING, "d"), ("main.tex", Code.BIBLIOGRAPHY_IGNORED, "w")],
    ),
    "a \\bibliography in the preamble alone: BibTeX finds no \\bibdata": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{natbib}
\bibliography{⟦w|one⟧}
\begin{document}
\cite{⟦d|a⟧}
\bibliographystyle{plainnat}
\end{document}
""",
        [("main.tex", Code.DANGLING, "d"), ("main.tex", Code.BIBLIOGRAPHY_IGNORED, "w")],
    ),
    "without a \\bibliographystyle biblatex may be loaded by a class: read as it was": (
        r"""
--- main.tex
\documentclass{thesis-with-biblatex}
\bibliography{one}
\begin{document}
\cite{a}
\end{document}
""",
        [],
    ),
    "a preamble file's \\bibliography writes nothing either": (
        r"""
--- main.tex
\documentclass{article}
\input{setup}
\begin{document}
\cite{⟦d|a⟧}
\bibliographystyle{plain}
\end{document}
--- setup.tex
\bibliography{⟦w|one⟧}
""",
        [("main.tex", Code.DANGLING, "d"), ("setup.tex", Code.BIBLIOGRAPHY_IGNORED, "w")],
    ),
    "one run at \\begin{document} or defined in the preamble writes to the .aux": (
        r"""
--- main.tex
\documentclass{article}
\AtBeginDocument{\bibliography{one}}
\newcommand{\refs}{\bibliography{two}}
\begin{document}
\cite{a} \cite{x} \nocite{y}
\end{document}
""",
        [],
    ),
    "biblatex: a preamble file's resources count, a body file's are ignored": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\input{setup}
\begin{document}
\cite{a} \cite{⟦d|x⟧}
\input{ch}
\printbibliography
\end{document}
--- setup.tex
\addbibresource{one.bib}
--- ch.tex
\addbibresource{⟦w|two.bib⟧}
""",
        [("main.tex", Code.DANGLING, "d"), ("ch.tex", Code.BIBLIOGRAPHY_IGNORED, "w")],
    ),
    "biblatex's \\bibliography adds resources, several allowed": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\bibliography{one}
\bibliography{two}
\begin{document}
\cite{a} \cite{x} \nocite{y}
\printbibliography
\end{document}
""",
        [],
    ),
    "chapterbib: each chapter's .aux has its own \\bibdata": (
        r"""
--- main.tex
\documentclass{book}
\usepackage{chapterbib}
\begin{document}
\include{c1}
\include{c2}
\end{document}
--- c1.tex
\cite{a}
\bibliography{one}
--- c2.tex
\cite{x} \cite{y}
\bibliography{two}
""",
        [],
    ),
    "multibib's \\bibliographysw writes to its own .aux": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{multibib}
\newcites{sw}{Software}
\begin{document}
\cite{a} \citesw{x} \nocitesw{y}
\bibliography{one}
\bibliographysw{two}
\end{document}
""",
        [],
    ),
}


@pytest.mark.parametrize("name", list(BIBDATA_CASES))
def test_bibtex_reads_the_first_bibdata(tmp_path: Path, name: str) -> None:
    fixture, expected = BIBDATA_CASES[name]
    shared = "".join(
        f"--- {part}"
        for part in _ONE_TWO.split("--- ")[1:]
        if f"--- {part.split()[0]}" not in fixture
    )
    marks, by_file, _ = _run(tmp_path, fixture + "\n" + shared)
    assert found_set(marks, by_file) == set(expected)


def test_the_fix_names_the_ignored_files_in_the_first_bibliography(tmp_path: Path) -> None:
    source = (
        "\\documentclass{article}\n\\begin{document}\n\\cite{a} \\cite{x}\n"
        "\\bibliography{one}\n\\bibliography{two, one}\n\\end{document}\n"
    )
    _, by_file, _ = _run(tmp_path, _ONE_TWO + "--- main.tex\n" + source)
    [finding] = [f for f in by_file["main.tex"] if f.code is Code.BIBLIOGRAPHY_IGNORED]
    assert "'two' is not read" in finding.message
    [related] = finding.related
    assert source[related.location.span.start : related.location.span.end] == "one"
    [fix] = finding.fixes
    fixed = source
    for edit in sorted(fix.edits, key=lambda e: -e.span.start):
        fixed = fixed[: edit.span.start] + edit.new_text + fixed[edit.span.end :]
    assert "\\bibliography{one,two}\n\n\\end{document}" in fixed
    (tmp_path / "main.tex").write_text(fixed, encoding="utf-8")
    _, by_file, _ = _run(tmp_path, "")
    assert by_file["main.tex"] == []


def test_splitting_one_bibliography_in_two_is_seen_in_an_editor(tmp_path: Path) -> None:
    """The same names, now in two commands: the project is read again."""
    _, by_file, ws = _run(
        tmp_path,
        _ONE_TWO
        + "--- main.tex\n\\documentclass{article}\n\\begin{document}\n\\cite{a} \\cite{x}\n"
        "\\nocite{y}\n\\bibliography{one,two}\n\\end{document}\n",
    )
    assert by_file["main.tex"] == []
    main = tmp_path / "main.tex"
    ws.set_text(main, main.read_text(encoding="utf-8").replace("one,two", "one}\\bibliography{two"))
    codes = sorted(f.code.value for f in check(ws)[normalize_path(main)])
    assert codes == ["bibliography-ignored", "dangling-citation", "dangling-citation"]


# ---------------------------------------------------------------------------------------
# key case: the backend's, not the command's
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("package", "folded"),
    [
        ("\\usepackage[backend=biber]{biblatex}", False),
        ("\\usepackage{biblatex}", False),
        ("\\usepackage[backend=bibtex]{biblatex}", True),
        ("", True),
    ],
)
def test_keys_match_as_the_backend_matches_them_whatever_names_the_file(
    tmp_path: Path, package: str, folded: bool
) -> None:
    """biblatex's ``\\bibliography{refs}`` is ``\\addbibresource{refs.bib}``: biber matches
    keys exactly (it says it "didn't find a database entry for 'A'"); BibTeX ignores case."""
    where_body = "" if package else "\\bibliography{refs}\n"
    where_preamble = "\\bibliography{refs}\n" if package else ""
    ending = "\\printbibliography\n" if package else ""
    marks, by_file, ws = _run(
        tmp_path,
        "--- main.tex\n\\documentclass{article}\n"
        f"{package}\n{where_preamble}\\begin{{document}}\n\\cite{{⟦d|A⟧}} \\cite{{b}}\n"
        f"{where_body}{ending}\\end{{document}}\n"
        "--- refs.bib\n@misc{⟦o|a⟧, title={A}}\n@misc{b, title={B}}\n",
    )
    [project] = ws.projects()
    assert project.casefold_keys is folded
    expected = (
        set() if folded else {("main.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")}
    )
    assert {f for f in found_set(marks, by_file) if f[1] is not Code.KEY_SPACE} == expected


def test_the_fix_moves_a_preamble_bibliography_into_the_document(tmp_path: Path) -> None:
    source = (
        "\\documentclass{article}\n\\bibliography{one}\n\\begin{document}\n\\cite{a}\n"
        "\\bibliographystyle{plain}\n\\end{document}\n"
    )
    _, by_file, _ = _run(tmp_path, _ONE_TWO + "--- main.tex\n" + source)
    [finding] = [f for f in by_file["main.tex"] if f.code is Code.BIBLIOGRAPHY_IGNORED]
    assert "finds no \\bibdata" in finding.message
    [fix] = finding.fixes
    fixed = source
    for edit in sorted(fix.edits, key=lambda e: -e.span.start):
        fixed = fixed[: edit.span.start] + edit.new_text + fixed[edit.span.end :]
    assert fixed.endswith("\\bibliographystyle{plain}\n\\bibliography{one}\n\\end{document}\n")
    (tmp_path / "main.tex").write_text(fixed, encoding="utf-8")
    _, by_file, _ = _run(tmp_path, "")
    assert by_file["main.tex"] == []
