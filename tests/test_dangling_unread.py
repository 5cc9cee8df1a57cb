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
