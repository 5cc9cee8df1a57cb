"""A citation of a key whose entry the project's reader does not read says so: the entry is
in the file, BibTeX reads past it after a syntax error (or on the last line), biber and
pandoc read it as a comment.  No "did you mean" is looked for (an unclosed brace early in
a large file leaves thousands of such citations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.checks import dangling
from citewarden.model import Code, Finding
from citewarden.project import Workspace

BIBTEX = (
    "\\documentclass{article}\n\\begin{document}\n\\cite{a,b,c,zz}\n"
    "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
)
BIBER = (
    "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
    "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{a,b,c,zz}\n\\end{document}\n"
)
PANDOC = "---\nbibliography: refs.bib\n---\n\nSee [@a; @b; @c; @zz].\n"
#: b is read past by BibTeX (the unclosed brace of new runs on to the end), c too
UNCLOSED = (
    "@misc{a, title={A}}\n@misc{new, title = {A new\n@misc{b, title={B}}\n@misc{c, title={C}}\n"
)
#: b and c commented out for biber and pandoc
COMMENTED = "@misc{a, title={A}}\n% @misc{b, title={B}}\n@comment{@misc{c, title={C}}}\n"


def _dangling(folder: Path, root: str, main: str, bib: str) -> dict[str, Finding]:
    (folder / root).write_text(main, encoding="utf-8")
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    found = check(ws)
    return {str(f.data["key"]): f for fs in found.values() for f in fs if f.code is Code.DANGLING}


@pytest.mark.parametrize(
    ("root", "main", "bib", "says"),
    [
        ("main.tex", BIBTEX, UNCLOSED, "BibTeX reads its entry in 'refs.bib' as part of a syntax"),
        ("main.tex", BIBER, COMMENTED, "commented out for biber"),
        ("paper.md", PANDOC, COMMENTED, "pandoc skips its entry in 'refs.bib' as a comment"),
    ],
)
def test_a_citation_of_an_unread_entry_says_why(
    tmp_path: Path, root: str, main: str, bib: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_for: list[str] = []
    real = dangling._scored

    def scored(key: str, folded: list[str]) -> dangling.Scored:
        looked_for.append(key)
        return real(key, folded)

    monkeypatch.setattr(dangling, "_scored", scored)
    found = _dangling(tmp_path, root, main, bib)
    assert set(found) == {"b", "c", "zz"}
    for key in ("b", "c"):
        assert says in found[key].message, found[key].message
        assert f"citation key '{key}' is not defined for" in found[key].message
        assert found[key].data["suggestions"] == [] and not found[key].fixes
    # a key with no entry anywhere is looked for among the defined ones, as before
    assert "is not defined in any bibliography" in found["zz"].message
    assert looked_for == ["zz"]


def test_bibtex_on_the_last_line_is_told_apart_from_a_syntax_error(tmp_path: Path) -> None:
    found = _dangling(tmp_path, "main.tex", BIBTEX, "@misc{a, title={A}} @misc{b, title={B}}")
    assert "BibTeX does not read its entry in 'refs.bib' (on a file's last line" in (
        found["b"].message
    )


@pytest.mark.parametrize(
    ("root", "main"),
    [("main.tex", BIBTEX), ("main.tex", BIBER), ("paper.md", PANDOC)],
    ids=["bibtex", "biber", "pandoc"],
)
def test_a_bibliography_the_parser_failed_on_leaves_no_citation_dangling(
    tmp_path: Path,
    root: str,
    main: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A .bib file whose parse failed defines keys that cannot be known, as one that cannot
    be read: no citation of its project is dangling (a, in the file, was for biber and
    pandoc; zz, in no file, was for all three), and the file's finding names it."""
    from citewarden.cli import main as cli_main
    from citewarden.parsing import bibtex

    def failing(*args: object) -> None:
        raise RuntimeError("a parser bug")

    monkeypatch.setattr(bibtex, "parse_bibtex", failing)
    (tmp_path / root).write_text(main, encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = cli_main(["check", ".", "--no-verify"])
    out = capsys.readouterr().out
    assert code == 1
    assert "refs.bib:1:1: error file-unreadable could not parse refs.bib: RuntimeError" in out
    assert "dangling-citation" not in out


def test_a_crossref_into_an_unread_bibliography_is_not_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crossref target that may be in a bibliography over max_file_mb is not known to be
    undefined, as a citation of it is not: no missing-crossref, the link's finding says
    why."""
    from citewarden.cli import main as cli_main

    (tmp_path / ".citewarden.toml").write_text("max_file_mb = 0.001\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(BIBTEX.replace("refs", "refs,other"), encoding="utf-8")
    big = "".join(f"@misc{{k{i}, title={{T}}}}\n" for i in range(100))
    (tmp_path / "refs.bib").write_text("@misc{p, title={P}}\n" + big, encoding="utf-8")
    (tmp_path / "other.bib").write_text("@misc{a, crossref={p}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = cli_main(["check", ".", "--no-verify"])
    out = capsys.readouterr().out
    assert code == 1
    assert "main.tex:5:15: error file-unreadable bibliography file 'refs' cannot be read" in out
    assert "missing-crossref" not in out and "dangling-citation" not in out
