"""LaTeX's own ``\\cite`` reads one optional argument, then its key list as an undelimited
argument: ``\\cite[see][]{a}`` cites ``[`` (and ``a`` is text), where natbib's and
biblatex's read two.  The keys citewarden reads are those pdflatex writes to the .aux."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace, normalize_path

BODY = r"X\cite[see][]{a} Y\cite[p.~1]{b} Z\cite[x] [y]{c} W\cite{e}"
_CITATION = re.compile(r"\\citation\{([^}]*)\}")


def _main(preamble: str) -> str:
    return (
        f"\\documentclass[11pt]{{article}}\n{preamble}\n\\begin{{document}}\n{BODY}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )


def _aux_citations(folder: Path) -> list[str]:
    subprocess.run(
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        cwd=folder,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return _CITATION.findall((folder / "main.aux").read_text(errors="replace"))


@pytest.mark.parametrize(
    "preamble", ["", "\\usepackage{hyperref}", "\\usepackage{cite}", "\\usepackage{natbib}"]
)
def test_the_keys_of_cite_with_two_optional_arguments_are_latexs(
    tmp_path: Path, preamble: str
) -> None:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    (tmp_path / "main.tex").write_text(_main(preamble), encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    doc = ws.document(normalize_path(tmp_path / "main.tex"))
    assert doc is not None
    assert [c.key for c in doc.citations] == _aux_citations(tmp_path)


def test_a_preamble_read_from_another_file_keeps_two_optional_arguments(tmp_path: Path) -> None:
    """A preamble file may load natbib: ``\\cite[see][]{a}`` is read as natbib reads it."""
    (tmp_path / "main.tex").write_text(_main("\\input{preamble}"), encoding="utf-8")
    (tmp_path / "preamble.tex").write_text("\\usepackage{natbib}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    doc = ws.document(normalize_path(tmp_path / "main.tex"))
    assert doc is not None
    assert [c.key for c in doc.citations] == ["a", "b", "c", "e"]


@pytest.mark.parametrize(
    ("command", "preamble"),
    [("input", ""), ("include", ""), ("input", "\\usepackage{natbib}")],
)
def test_a_chapter_reads_cite_as_its_root_body_does(
    tmp_path: Path, command: str, preamble: str
) -> None:
    """A file read through ``\\input`` or ``\\include`` in the body is read with the root's
    ``\\cite``: LaTeX's own cites ``[`` there too."""
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    main = _main(preamble).replace(BODY, f"\\{command}{{chap}}")
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    (tmp_path / "chap.tex").write_text(BODY + "\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    ws.projects()
    doc = ws.document(normalize_path(tmp_path / "chap.tex"))
    assert doc is not None
    cited = _aux_citations(tmp_path)
    if command == "include":  # \include writes to the chapter's own .aux
        cited = _CITATION.findall((tmp_path / "chap.aux").read_text(errors="replace"))
    assert [c.key for c in doc.citations] == cited


@pytest.mark.parametrize(
    ("preamble", "style", "body"),
    [
        ("", "plain", "X\\cite*{a} Z\\cite{b}"),
        ("", "plain", "Y\\nocite*{f} Z\\cite{b}"),
        ("\\usepackage{cite}", "plain", "X\\cite*{a} Y\\nocite*{f} Z\\cite{b}"),
        ("", "plain", "\\input{chap}"),
    ],
)
def test_a_star_read_as_the_key_list_cites_every_entry(
    tmp_path: Path, preamble: str, style: str, body: str
) -> None:
    """LaTeX's own ``\\cite*{a}`` and ``\\nocite*{f}`` (the cite package's too) write
    ``\\citation{*}``: BibTeX lists every entry, none is an orphan."""
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.fail("pdflatex and bibtex are needed", pytrace=False)
    main = _main(preamble).replace(BODY, body).replace("{plain}", "{" + style + "}")
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    if "chap" in body:
        (tmp_path / "chap.tex").write_text("Y\\nocite*{f} Z\\cite{b}\n", encoding="utf-8")
    keys = ["a", "b", "c", "f"]
    bib = "".join(f"@misc{{{k}, author={{X {k}}}, title={{T}}, year=2000}}\n" for k in keys)
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    assert "*" in _aux_citations(tmp_path)
    subprocess.run(["bibtex", "main"], cwd=tmp_path, capture_output=True, timeout=120, check=False)
    listed = re.findall(r"\\bibitem(?:\[[^\]]*\])?\{([^}]*)\}", (tmp_path / "main.bbl").read_text())
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    orphans = [f for fs in check(ws).values() for f in fs if f.code is Code.ORPHAN]
    assert sorted(listed) == keys
    assert orphans == []
