"""Fixes that add a line write the document's own line break: ``\\r\\n`` into a CRLF file,
``\\r`` into a CR-only one, so the file after the edit keeps one kind of line ending."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checking import check
from citewarden.addref.insert import apply, plan_insertion
from citewarden.findings.verdicts import ignore_fix
from citewarden.fix.plan import plan_fix
from citewarden.model import Code, Finding, Fix
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace, normalize_path
from citewarden.verify.records import Person, WorkRecord

NEWLINES = pytest.mark.parametrize("newline", ["\r\n", "\r"])


def _breaks(text: str) -> set[str]:
    """The kinds of line break ``text`` holds."""
    return set(re.findall(r"\r\n|\r|\n", text))


def _applied(text: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def _findings(root: Path, files: dict[str, str], newline: str) -> dict[str, list[Finding]]:
    for name, text in files.items():
        (root / name).write_bytes(text.replace("\n", newline).encode())
    ws = Workspace(root=root)
    ws.add_folder(root)
    return {p.relative_to(normalize_path(root)).as_posix(): fs for p, fs in check(ws).items()}


@NEWLINES
def test_add_nocite_writes_the_documents_line_break(tmp_path: Path, newline: str) -> None:
    main = (
        "\\documentclass{article}\n\\begin{document}\n\\cite{used}\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    refs = "@misc{used, title={Used}}\n@misc{spare, title={Spare}}\n@misc{last, title={L}}\n"
    found = _findings(tmp_path, {"main.tex": main, "refs.bib": refs}, newline)
    (orphan,) = [f for f in found["refs.bib"] if f.data["key"] == "spare"]
    remove, nocite = orphan.fixes
    assert nocite.title == r"Add \nocite{spare}"
    (edit,) = nocite.edits
    assert edit.new_text == "\\nocite{spare}" + newline
    text = (tmp_path / "main.tex").read_bytes().decode()
    after = _applied(text, nocite)
    assert after.endswith(
        f"\\bibliography{{refs}}{newline}\\nocite{{spare}}{newline}\\end{{document}}{newline}"
    )
    assert _breaks(after) == {newline}
    # removing the entry takes its line break with it (a lone \r too)
    bib = (tmp_path / "refs.bib").read_bytes().decode()
    assert _applied(bib, remove) == (
        f"@misc{{used, title={{Used}}}}{newline}@misc{{last, title={{L}}}}{newline}"
    )


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("bibliography: refs.bib\n", 'bibliography: refs.bib\nnocite: "@spare"\n'),
        (
            "bibliography: refs.bib\nnocite: |\n  @other\ntitle: T\n",
            "bibliography: refs.bib\nnocite: |\n  @other\n  @spare\ntitle: T\n",
        ),
    ],
)
def test_add_to_nocite_writes_crlf_into_a_crlf_front_matter(
    tmp_path: Path, front_matter: str, expected: str
) -> None:
    paper = f"---\n{front_matter}---\nText [@used].\n"
    refs = "@misc{used, title={U}}\n@misc{other, title={O}}\n@misc{spare, title={S}}\n"
    found = _findings(tmp_path, {"paper.md": paper, "refs.bib": refs}, "\r\n")
    (orphan,) = [f for f in found["refs.bib"] if f.data["key"] == "spare"]
    fix = next(f for f in orphan.fixes if f.title == "Add to nocite")
    text = (tmp_path / "paper.md").read_bytes().decode()
    after = _applied(text, fix)
    assert after == f"---\n{expected}---\nText [@used].\n".replace("\n", "\r\n")


def test_moving_a_preamble_nocite_writes_crlf_into_a_crlf_file(tmp_path: Path) -> None:
    main = (
        "\\documentclass{article}\n\\usepackage{natbib}\n\\nocite{spare}\n\\begin{document}\n"
        "\\cite{used}\n\\bibliography{refs}\n\\end{document}\n"
    )
    refs = "@misc{used, title={Used}}\n@misc{spare, title={Spare}}\n"
    found = _findings(tmp_path, {"main.tex": main, "refs.bib": refs}, "\r\n")
    (lost,) = [f for f in found["main.tex"] if f.code is Code.NOCITE_IN_PREAMBLE]
    (fix,) = lost.fixes
    after = _applied((tmp_path / "main.tex").read_bytes().decode(), fix)
    assert "\\begin{document}\r\n\\nocite{spare}\r\n\\cite{used}" in after
    assert _breaks(after) == {"\r\n"}


@NEWLINES
def test_ignore_comment_is_written_with_the_files_line_break(newline: str) -> None:
    text = newline.join(["@misc{a, title={A}}", "@misc{b, title={B}}", ""])
    path = Path("/p/refs.bib")
    bib = parse_bibtex(path, text)
    fix = ignore_fix(bib.entries[1], text)
    assert fix is not None
    after = _applied(text, fix)
    assert after == newline.join(
        ["@misc{a, title={A}}", "% citewarden: ignore", "@misc{b, title={B}}", ""]
    )
    again = parse_bibtex(path, after)
    assert again.suppressed_lines == {1, 2}


@NEWLINES
def test_a_field_the_fixer_adds_gets_the_files_line_break(tmp_path: Path, newline: str) -> None:
    """The entry written on one line gave no line break to copy: a bare \\n was written.
    The new field follows the last on its line, as the entry separates its fields."""
    text = newline.join(["@misc{a,", "  title = {A}}", "@misc{k,title={T}}", ""])
    plan = plan_fix(parse_bibtex(tmp_path / "r.bib", text), text.encode(), {"k": {"doi": "10.1/x"}})
    after = plan.new.decode()
    assert after == text.replace("title={T}}", "title={T},doi={10.1/x}}")
    assert _breaks(after) == {newline}
    (change,) = plan.changes
    assert change.line == 3


RECORD = WorkRecord(
    source="crossref",
    title="Deep Residual Learning for Image Recognition",
    authors=(Person("He", "Kaiming"), Person("Zhang", "Xiangyu")),
    year=2016,
    doi="10.1109/cvpr.2016.90",
    venue="CVPR",
    work_type="proceedings-article",
)


@NEWLINES
@pytest.mark.parametrize("suffix", [".bib", ".json", ".yaml"])
def test_an_added_entry_is_written_with_the_files_line_break(newline: str, suffix: str) -> None:
    start = {
        ".bib": "@misc{a,\n  title = {A},\n}\n\n@misc{b,\n  title = {B},\n}\n",
        ".json": '[\n  {\n    "id": "a",\n    "title": "A"\n  }\n]\n',
        ".yaml": "references:\n- id: a\n  title: A\n",
    }[suffix].replace("\n", newline)
    change = plan_insertion(Path("refs" + suffix), start, RECORD, "he2016deep")
    after = apply(start, change)
    assert "he2016deep" in after
    assert _breaks(after) == {newline}
    if suffix == ".bib":
        keys = [e.key for e in parse_bibtex(Path("refs.bib"), after).entries]
        assert keys == ["a", "b", "he2016deep"]
        # one blank line between entries, as the file has
        assert f"}}{newline}{newline}@inproceedings{{he2016deep," in after
