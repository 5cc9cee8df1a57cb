"""Where BibTeX reads a .bib file otherwise than the reader without a syntax error is
searched for once per version, and after an edit only around it: the answer carried over
equals a search of the whole text, edit after edit, and decides as a whole reading does."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from checking import check
from citewarden.checks.defined import _DIFFERING, bibtex_defined_keys
from citewarden.parsing.bibtex_recovery import bibtex_keys, differing_at
from citewarden.project import Workspace
from differential import _run, missing_tools

_BIB = "".join(
    f"@misc{{k{i}, title = {{Title {i}}}, year = {{20{i % 10}0}}}}\n"
    + ("% an old one: @misc{old" + str(i) + ", title={O}}\n" if i % 7 == 0 else "")
    for i in range(60)
)
_PIECES = ("%", "@", "(", ")", "@@", " ", "\n", "x", "@misc(w)", "% @", "{", "}", ",")


def _project(directory: Path, bib: str) -> Workspace:
    (directory / "refs.bib").write_text(bib, encoding="utf-8")
    (directory / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\nocite{*}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    ws = Workspace(root=directory)
    ws.add_file(directory / "main.tex")
    return ws


@pytest.mark.parametrize("seed", range(4))
def test_the_offsets_carried_over_equal_a_whole_search(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    ws = _project(tmp_path, _BIB)
    path = tmp_path / "refs.bib"
    text = _BIB
    for _ in range(60):
        check(ws)
        index = ws.bib_index(path)
        assert index is not None
        bibtex_defined_keys(ws, path, index)  # computes the offsets of this version
        assert index.rows[_DIFFERING][0] == differing_at(text)
        at = rnd.randrange(len(text) + 1)
        cut = rnd.choice((0, 0, 1, rnd.randrange(30)))
        text = text[:at] + rnd.choice(_PIECES) * rnd.randint(0, 2) + text[at + cut :]
        ws.set_text(path, text)


def test_an_at_sign_after_a_percent_between_entries_is_read_alike(tmp_path: Path) -> None:
    """``% an old one: @misc{old0, ...}`` between entries: BibTeX reads the entry, and so
    does the reader; the keys are those of a whole reading, and agree with BibTeX."""
    missing = missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    ws = _project(tmp_path, _BIB)
    check(ws)
    index = ws.bib_index(tmp_path / "refs.bib")
    assert index is not None
    whole = bibtex_keys(_BIB, index.entries, index.keys)
    defined = bibtex_defined_keys(ws, tmp_path / "refs.bib", index)
    assert defined == (index.by_key.keys() - whole.unread) | whole.added
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    _run(latex, tmp_path)
    _run(["bibtex", "main"], tmp_path)
    bbl = (tmp_path / "main.bbl").read_text(errors="replace")
    assert {
        line.split("{", 1)[1].split("}", 1)[0]
        for line in bbl.splitlines()
        if line.startswith("\\bibitem")
    } == defined
