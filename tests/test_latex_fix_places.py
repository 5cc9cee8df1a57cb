"""Where the LaTeX fixes write: ``\\nocite`` before the ``\\end{document}`` LaTeX reads, a
preamble ``\\nocite`` after the ``\\begin{document}`` it reads, and no fix writing a key
LaTeX cannot read."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding, Fix
from citewarden.project import Workspace, normalize_path
from markers import write_project

BIB = "@misc{used, title={Used}}\n@misc{spare, title={Spare}}\n"


def findings(root: Path, files: str) -> dict[str, list[Finding]]:
    write_project(root, files)
    ws = Workspace(root=root)
    ws.add_folder(root)
    return {p.relative_to(normalize_path(root)).as_posix(): fs for p, fs in check(ws).items()}


def apply(text: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def fix_titled(found: list[Finding], code: Code, title: str) -> Fix:
    (fix,) = [x for f in found if f.code is code for x in f.fixes if x.title.startswith(title)]
    return fix


BODY = "\\documentclass{article}\n\\begin{document}\n\\cite{used}\n\\bibliography{refs}\n"


#: ``@@`` marks where the ``\\end{document}`` LaTeX reads stands
@pytest.mark.parametrize(
    "marked",
    [
        BODY + "@@\\end{document}\n\nOld notes, not read:\n\\end{document}\n",
        BODY + "% \\end{document} in a comment\n@@\\end{document}\nNotes \\end{document}\n",
        BODY + "\\begin{verbatim}\n\\end{document}\n\\end{verbatim}\n@@\\end{document}\n",
        BODY + "\\iffalse\n\\end{document}\n\\fi\n@@\\end{document}\n",
        BODY + "\\verb|\\end{document}| and \\\\end{document}\n@@\\end{document}\n",
    ],
)
def test_nocite_goes_before_the_end_of_document_latex_reads(tmp_path: Path, marked: str) -> None:
    main = marked.replace("@@", "")
    found = findings(tmp_path, f"--- main.tex\n{main}--- refs.bib\n{BIB}")
    fix = fix_titled(found["refs.bib"], Code.ORPHAN, "Add \\nocite{spare}")
    fixed = apply(main, fix)
    assert fixed == marked.replace("@@", "\\nocite{spare}\n")
    found = findings(tmp_path / "again", f"--- main.tex\n{fixed}--- refs.bib\n{BIB}")
    assert [f.code for f in found.get("refs.bib", [])] == []  # LaTeX reads the \nocite


PREAMBLE = "\\documentclass{article}\n\\usepackage{natbib}\n"
REST = "Text \\cite{used}.\n\\bibliography{refs}\n\\end{document}\n"


#: (the file, the file once the \nocite is moved)
@pytest.mark.parametrize(
    ("main", "moved"),
    [
        (
            PREAMBLE
            + "\\nocite{spare}\n\\newcommand\\x{\\begin{document}}\n\\begin{document}\n"
            + REST,
            PREAMBLE
            + "\n\\newcommand\\x{\\begin{document}}\n\\begin{document}\n\\nocite{spare}\n"
            + REST,
        ),
        (
            PREAMBLE
            + "\\newcommand\\x{\\begin{document}}\n\\nocite{spare}\n\\begin{document}\n"
            + REST,
            PREAMBLE
            + "\\newcommand\\x{\\begin{document}}\n\n\\begin{document}\n\\nocite{spare}\n"
            + REST,
        ),
        (
            PREAMBLE + "\\nocite{spare}\n% \\begin{document} below\n\\begin {document}\n" + REST,
            PREAMBLE + "\n% \\begin{document} below\n\\begin {document}\n\\nocite{spare}\n" + REST,
        ),
    ],
)
def test_a_preamble_nocite_moves_after_the_begin_document_latex_reads(
    tmp_path: Path, main: str, moved: str
) -> None:
    found = findings(tmp_path, f"--- main.tex\n{main}--- refs.bib\n{BIB}")
    fix = fix_titled(found["main.tex"], Code.NOCITE_IN_PREAMBLE, "Move it after")
    assert apply(main, fix) == moved
    found = findings(tmp_path / "again", f"--- main.tex\n{moved}--- refs.bib\n{BIB}")
    assert [f.code for fs in found.values() for f in fs] == []


@pytest.mark.parametrize("key", ["x%y", "p#q", "b\\c", "t~u"])
def test_no_fix_writes_a_key_latex_cannot_read(tmp_path: Path, key: str) -> None:
    bib = f"@misc{{used, title={{Used}}}}\n@misc{{{key}, title={{Spare}}}}\n"
    main = BODY.replace("\\cite{used}", "\\cite{used} \\cite{" + key[0] + key[2] + "}")
    found = findings(tmp_path, f"--- main.tex\n{main}\\end{{document}}\n--- refs.bib\n{bib}")
    (orphan,) = [f for f in found["refs.bib"] if f.code is Code.ORPHAN]
    assert [fix.title for fix in orphan.fixes] == ["Remove entry"]
    (dangling,) = [f for f in found["main.tex"] if f.code is Code.DANGLING]
    assert dangling.data["suggestions"] == [key]  # suggested, but not written into LaTeX
    assert dangling.fixes == ()


def test_a_key_latex_cannot_read_is_still_written_into_markdown(tmp_path: Path) -> None:
    bib = "@misc{x%y, title={Spare}}\n"
    paper = "---\nbibliography: refs.bib\n---\n\nAs @xy says.\n"
    found = findings(tmp_path, f"--- paper.md\n{paper}--- refs.bib\n{bib}")
    (dangling,) = found["paper.md"]
    (change,) = dangling.fixes
    assert apply(paper, change).endswith("As @x%y says.\n")  # pandoc reads it whole
