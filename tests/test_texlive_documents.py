"""Agreement with the real tools on example documents TeX Live ships (tests/data/texlive,
see PROVENANCE.md), where bench/texlive_documents.py found citewarden disagreeing.

The oracle is that of tests/test_real_tools.py: LaTeX + BibTeX or biber run in a temporary
copy, the citations left undefined and the keys the tool found no entry for (dangling),
and the entries checkcites calls unused that no .bbl prints (orphans).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_real_tools import _require_tools, citewarden_answer, run_latex

TEXLIVE = Path(__file__).parent / "data" / "texlive"


@pytest.mark.parametrize(
    ("directory", "root", "backend"),
    [
        # bibentry's \nobibliography{bibliography} is \bibliography that prints nothing:
        # BibTeX reads the file, \bibentry{key} cites from it
        ("newcastle-bst", "newcastle-bst.tex", "bibtex"),
    ],
)
def test_texlive_documents_agree_with_the_tools(
    tmp_path: Path, directory: str, root: str, backend: str
) -> None:
    _require_tools()
    folder = tmp_path / directory
    shutil.copytree(TEXLIVE / directory, folder)
    tools = run_latex(folder, root, backend)
    ours = citewarden_answer([folder / root])
    assert sorted(ours.dangling) == sorted(tools.dangling)
    assert sorted(ours.orphans) == sorted(tools.unused)
