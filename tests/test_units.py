"""Units with their own bibliography (biblatex refsections with resources of their own,
environments and ``\\newrefsection``, chapterbib chapters), checked against the real tools:
pdflatex + biber say which keys each refsection could not find (the .blg) and which entries
made it into a bibliography (the .bbl); pdflatex + BibTeX on each chapter's .aux which
citations stay undefined."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings

#: each project: file name -> text
PROJECTS: dict[str, dict[str, str]] = {
    "a refsection reads its own resource, the rest of the document the global one": {
        "main.tex": r"""\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{c} \cite{d}
\begin{refsection}[ch1.bib]
\cite{a} \cite{b} \cite{f}
\printbibliography
\end{refsection}
\printbibliography
\end{document}
""",
        "main.bib": "@misc{b, title={B}}\n@misc{c, title={C}}\n@misc{f, title={F}}\n",
        "ch1.bib": "@misc{a, title={A}}\n@misc{d, title={D}}\n@misc{e, title={E}}\n",
    },
    "two refsections sharing a file, a global resource, a nocite{*} in one section": {
        "main.tex": r"""\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addglobalbib{global.bib}
\begin{document}
\begin{refsection}[one.bib,shared.bib]
\cite{g1} \cite{s1} \cite{t1}
\printbibliography
\end{refsection}
\begin{refsection}[two.bib,shared]
\cite{t2} \cite{o1}
\printbibliography
\end{refsection}
\begin{refsection}[three.bib]
\nocite{*}
\printbibliography
\end{refsection}
\end{document}
""",
        "global.bib": "@misc{g1, title={G1}}\n@misc{g2, title={G2}}\n",
        "one.bib": "@misc{o1, title={O1}}\n@misc{o2, title={O2}}\n",
        "two.bib": "@misc{t1, title={T1}}\n@misc{t2, title={T2}}\n",
        "shared.bib": "@misc{s1, title={S1}}\n@misc{s2, title={S2}}\n",
        "three.bib": "@misc{h1, title={H1}}\n",
    },
    "a newrefsection reads its own resources up to the next section": {
        "main.tex": r"""\documentclass{article}\usepackage[backend=biber]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{a}\printbibliography
\newrefsection[sec]
\cite{s1} \cite{b}\printbibliography
\end{document}
""",
        "refs.bib": "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{c, title={C}}\n",
        "sec.bib": "@misc{s1, title={S1}}\n",
    },
    "newrefsection with and without resources, endrefsection, refsection, nocite{*}": {
        "main.tex": r"""\documentclass{article}\usepackage[backend=biber]{biblatex}
\addbibresource{refs.bib}\addglobalbib{glob.bib}
\begin{document}
\cite{a} \cite{s1}
\newrefsection[sec]
\cite{s1} \cite{b} \cite{g1}
\newrefsection
\cite{a} \cite{s2}
\newrefsection[other.bib,sec]
\cite{o1} \cite{s1} \cite{c}
\endrefsection
\cite{b} \cite{o2}
\refsection[other]
\cite{o1} \cite{a}
\endrefsection
\newrefsection[sec]
\cite{s4}
\newrefsection[three]
\nocite{*}
\end{document}
""",
        "refs.bib": "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{c, title={C}}\n",
        "sec.bib": "@misc{s1, title={S1}}\n@misc{s2, title={S2}}\n@misc{s3, title={S3}}\n"
        "@misc{s4, title={S4}}\n",
        "other.bib": "@misc{o1, title={O1}}\n@misc{o2, title={O2}}\n",
        "glob.bib": "@misc{g1, title={G1}}\n",
        "three.bib": "@misc{t1, title={T1}}\n@misc{t2, title={T2}}\n",
    },
    "a nocite{*} outside the refsections with resources cites the default ones only": {
        "main.tex": r"""\documentclass{article}\usepackage[backend=biber]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\newrefsection[chap]
\cite{c1} \cite{a}
\newrefsection
\nocite{*}
\end{document}
""",
        "refs.bib": "@misc{a, title={A}}\n@misc{b, title={B}}\n",
        "chap.bib": "@misc{c1, title={C1}}\n@misc{c2, title={C2}}\n",
    },
    "files read inside a refsection are in it (\\input, \\include, and what they read)": {
        "main.tex": r"""\documentclass{report}\usepackage[backend=biber]{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{m1} \cite{c1}
\begin{refsection}[ch1.bib]
\input{ch1}
\printbibliography
\end{refsection}
\newrefsection[ch2.bib]
\include{ch2}
\printbibliography
\endrefsection
\input{after}
\printbibliography
\end{document}
""",
        "ch1.tex": "\\cite{c1} \\cite{m1}\n\\input{ch1sub}\n",
        "ch1sub.tex": "\\cite{s1} \\nocite{*}\n",
        "ch2.tex": "\\chapter{Two}\n\\cite{c2} \\cite{c1}\n",
        "after.tex": "\\cite{m2} \\cite{c2}\n",
        "main.bib": "@misc{m1, title={M1}}\n@misc{m2, title={M2}}\n@misc{m3, title={M3}}\n",
        "ch1.bib": "@misc{c1, title={C1}}\n@misc{s1, title={S1}}\n@misc{x1, title={X1}}\n",
        "ch2.bib": "@misc{c2, title={C2}}\n@misc{x2, title={X2}}\n",
    },
    "a refsection begun in an included file runs on after it; one ended there stops": {
        "main.tex": r"""\documentclass{report}\usepackage[backend=biber]{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{m1}
\input{one}
\cite{o2} \cite{m2}
\nocite{*}
\printbibliography
\end{refsection}
\cite{m2} \cite{o1}
\newrefsection[two.bib]
\include{two}
\cite{t2} \cite{m1}
\printbibliography
\end{document}
""",
        "one.tex": "\\begin{refsection}[one.bib]\n\\cite{o1}\n",
        "two.tex": "\\chapter{Two}\n\\cite{t1}\n\\endrefsection\n\\cite{m3}\n",
        "main.bib": "@misc{m1, title={M1}}\n@misc{m2, title={M2}}\n@misc{m3, title={M3}}\n"
        "@misc{m4, title={M4}}\n",
        "one.bib": "@misc{o1, title={O1}}\n@misc{o2, title={O2}}\n@misc{o3, title={O3}}\n",
        "two.bib": "@misc{t1, title={T1}}\n@misc{t2, title={T2}}\n@misc{t3, title={T3}}\n",
    },
    "refsection=chapter begins a section at each chapter, in the root and included files": {
        "main.tex": r"""\documentclass{report}
\usepackage[backend=biber,refsection=chapter]{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{m1}
\begin{refsection}[ch.bib]
\cite{c1}
\chapter{One}
\cite{c2} \cite{m2}
\printbibliography
\end{refsection}
\newrefsection[ch.bib]
\include{two}
\cite{c3}
\chapter*{Three}
\nocite{*}
\printbibliography
\end{document}
""",
        "two.tex": "\\cite{c1}\n\\chapter{Two}\n\\cite{m1} \\cite{c4}\n",
        "main.bib": "@misc{m1, title={M1}}\n@misc{m2, title={M2}}\n@misc{m3, title={M3}}\n",
        "ch.bib": "@misc{c1, title={C1}}\n@misc{c2, title={C2}}\n@misc{c3, title={C3}}\n"
        "@misc{c4, title={C4}}\n@misc{c5, title={C5}}\n",
    },
}

_NOT_FOUND = re.compile(r"I didn't find a database entry for '([^']*)'")
_ENTRY = re.compile(r"\\entry\{([^}]*)\}")
_LATEX_MISSING = re.compile(r"Citation '([^']*)' on page \S+ undefined")
_BIB_KEY = re.compile(r"@misc\{([^,]*),")


def _oracle(directory: Path, files: dict[str, str]) -> tuple[set[str], set[str]]:
    """(keys biber could not find in the cited unit, or LaTeX left undefined after it ran,
    entries no unit printed).  (biber does not report the keys it misses in a section that
    has a ``\\nocite{*}``; LaTeX does.)"""
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    for cmd in (latex, ["biber", "main"], latex):
        subprocess.run(cmd, cwd=directory, capture_output=True, timeout=120, check=False)
    blg = (directory / "main.blg").read_text(errors="replace")
    bbl = (directory / "main.bbl").read_text(errors="replace")
    log = (directory / "main.log").read_text(errors="replace")
    defined = {k for name, t in files.items() if name.endswith(".bib") for k in _BIB_KEY.findall(t)}
    missing = set(_NOT_FOUND.findall(blg)) | set(_LATEX_MISSING.findall(log))
    return missing, defined - set(_ENTRY.findall(bbl))


def _ours(directory: Path) -> tuple[set[str], set[str]]:
    ws = Workspace(Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        ws.add_file(path)
    found = [f for findings in check(ws).values() for f in findings]
    dangling = {str(f.data["key"]) for f in found if f.code is Code.DANGLING}
    orphans = {str(f.data["key"]) for f in found if f.code is Code.ORPHAN}
    return dangling, orphans


@pytest.mark.parametrize("name", list(PROJECTS))
def test_units_agree_with_pdflatex_and_biber(tmp_path: Path, name: str) -> None:
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    files = PROJECTS[name]
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    dangling, orphans = _oracle(tmp_path, files)
    assert dangling, "the project should have keys missing from their unit"
    assert orphans, "the project should have entries no unit cites"
    assert _ours(tmp_path) == (dangling, orphans)


#: a chapterbib project: the root's bibliography after the chapters (so BibTeX run on the
#: root obeys the first chapter's), a chapter without one, a chapter reading another file
CHAPTERBIB = {
    "main.tex": r"""\documentclass{article}
\usepackage{chapterbib}
\begin{document}
Root \cite{r1} \cite{c1}.
\include{ch1}
\include{ch2}
\bibliographystyle{plain}
\bibliography{b0}
\end{document}
""",
    "ch1.tex": "One \\cite{c1} \\cite{r1} \\cite{Zz}.\n\\input{ch1sub}\n"
    "\\bibliographystyle{plain}\n\\bibliography{b1}\n",
    "ch1sub.tex": "Sub \\cite{s1}.\n",
    "ch2.tex": "Two \\cite{c1}.\n",
    "b0.bib": "@misc{r1, title={T}}\n@misc{o0, title={T}}\n",
    "b1.bib": "@misc{c1, title={T}}\n@misc{s1, title={T}}\n@misc{o1, title={T}}\n"
    "@misc{zz, title={T}}\n",
}

_LATEX_UNDEFINED = re.compile(r"Citation `([^']*)' in file `[^']*' on page \d+ undefined")
_BIBITEM = re.compile(r"\\bibitem(?:\[[^\]]*\])?\{([^}]*)\}")


def _bibtex_oracle(directory: Path) -> tuple[set[str], set[str]]:
    """(citations left undefined after BibTeX ran on every .aux, entries no .bbl printed;
    casefolded, as BibTeX matches keys)."""
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    subprocess.run(latex, cwd=directory, capture_output=True, timeout=120, check=False)
    printed: set[str] = set()
    for aux in sorted(directory.glob("*.aux")):
        if "\\bibdata{" in aux.read_text(errors="replace"):
            subprocess.run(
                ["bibtex", aux.stem], cwd=directory, capture_output=True, timeout=120, check=False
            )
            bbl = (directory / f"{aux.stem}.bbl").read_text(errors="replace")
            printed.update(k.casefold() for k in _BIBITEM.findall(bbl))
    for _ in range(2):
        subprocess.run(latex, cwd=directory, capture_output=True, timeout=120, check=False)
    log = (directory / "main.log").read_text(errors="replace")
    defined = {k for n, t in CHAPTERBIB.items() if n.endswith(".bib") for k in _BIB_KEY.findall(t)}
    return set(_LATEX_UNDEFINED.findall(log)), defined - printed


def test_chapterbib_chapters_agree_with_pdflatex_and_bibtex(tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.fail("pdflatex and bibtex are needed", pytrace=False)
    for file, text in CHAPTERBIB.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    dangling, orphans = _bibtex_oracle(tmp_path)
    assert dangling == {"r1", "c1"}, "the root and both chapters should each miss a key"
    assert orphans == {"r1", "o0", "o1"}
    assert _ours(tmp_path) == (dangling, orphans)


def test_chapterbib_chapters_match_keys_as_bibtex_folds_them(tmp_path: Path) -> None:
    """BibTeX lower-cases ASCII letters only: a chapter's ``MÜLLER`` is not its
    bibliography's ``müller`` (LaTeX says it is undefined), ``Meier`` is ``meier``."""
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.fail("pdflatex and bibtex are needed", pytrace=False)
    files = {
        "main.tex": "\\documentclass{article}\n\\usepackage{chapterbib}\n\\begin{document}\n"
        "\\include{ch1}\n\\end{document}\n",
        "ch1.tex": "One \\cite{MÜLLER} \\cite{Meier}.\n\\bibliographystyle{plain}\n"
        "\\bibliography{b1}\n",
        "b1.bib": "@misc{müller, title={T}}\n@misc{meier, title={T}}\n",
    }
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    subprocess.run(latex, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    subprocess.run(["bibtex", "ch1"], cwd=tmp_path, capture_output=True, timeout=120, check=False)
    for _ in range(2):
        subprocess.run(latex, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    log = (tmp_path / "main.log").read_text(errors="replace")
    assert set(_LATEX_UNDEFINED.findall(log)) == {"MÜLLER"}
    assert _ours(tmp_path)[0] == {"MÜLLER"}


@pytest.mark.parametrize(
    "preamble",
    [
        "\\usepackage[gather]{chapterbib}",
        "% \\usepackage{chapterbib}",
        "\\usepackage{natbib}",
    ],
)
def test_without_plain_chapterbib_the_project_is_one_unit(tmp_path: Path, preamble: str) -> None:
    for file, text in CHAPTERBIB.items():
        text = text.replace("\\usepackage{chapterbib}", preamble)
        (tmp_path / file).write_text(text, encoding="utf-8")
    # one .aux: BibTeX obeys its first \bibdata, ch1's b1 (ch1.aux is read where ch1 is
    # included), and ignores the root's b0 ("Illegal, another \bibdata command"): r1 is
    # undefined, and of the entries BibTeX reads only o1 is never cited
    assert _ours(tmp_path) == ({"r1"}, {"o1"})


def test_a_refsection_runs_through_a_chain_of_two_thousand_inputs(tmp_path: Path) -> None:
    # main.tex begins a section reading a.bib and inputs f0; each f{i} cites k{i} and
    # inputs f{i+1}; the last one ends the section, which so ends back in main.tex too
    depth = 2000
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{main.bib}\n\\begin{document}\n\\newrefsection[a.bib]\n"
        "\\input{f0}\n\\cite{g} \\cite{k0}\n\\printbibliography\n\\end{document}\n",
        encoding="utf-8",
    )
    for i in range(depth):
        tail = f"\\input{{f{i + 1}}}" if i + 1 < depth else "\\endrefsection"
        (tmp_path / f"f{i}.tex").write_text(f"\\cite{{k{i}}}\n{tail}\n", encoding="utf-8")
    # the section's resource defines the even keys, the default one g and the odd keys
    (tmp_path / "a.bib").write_text(
        "".join(f"@misc{{k{i}, title={{T}}}}\n" for i in range(0, depth, 2)), encoding="utf-8"
    )
    (tmp_path / "main.bib").write_text(
        "@misc{g, title={G}}\n"
        + "".join(f"@misc{{k{i}, title={{T}}}}\n" for i in range(1, depth, 2)),
        encoding="utf-8",
    )
    dangling, orphans = _ours(tmp_path)
    assert dangling == {f"k{i}" for i in range(1, depth, 2)} | {"k0"}
    assert orphans == {f"k{i}" for i in range(1, depth, 2)}
