"""Commenting a bibliography's entry out in the editor, in a biber and a pandoc project:
the citation of it becomes dangling as the edit is typed, and defined again when the edit
is undone, without a change of any key (the check after each edit is incremental)."""

from __future__ import annotations

import pytest
from lsp_editor import wait_for

from citewarden.model import Code
from conftest import Harness, Start

BIBER_PROJECT = r"""
--- main.tex
\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{refs.bib}
\begin{document}\cite{knuth1984} \cite{lamport1994}\printbibliography\end{document}
--- refs.bib
@book{knuth1984, title={The TeXbook}}

@book{lamport1994, title={LaTeX}}
"""

PANDOC_PROJECT = r"""
--- paper.md
---
bibliography: refs.bib
---

See [@knuth1984] and [@lamport1994].
--- refs.bib
@book{knuth1984, title={The TeXbook}}

@book{lamport1994, title={LaTeX}}
"""

#: (old, new) typed into refs.bib one after the other, and whether knuth1984 is then
#: dangling
EDITS = [
    ("@book{knuth1984", "%@book{knuth1984", True),
    ("%@book{knuth1984", "@book{knuth1984", False),
    (
        "@book{knuth1984, title={The TeXbook}}",
        "@comment{@book{knuth1984, title={The TeXbook}}}",
        True,
    ),
    (
        "@comment{@book{knuth1984, title={The TeXbook}}}",
        "@book{knuth1984, title={The TeXbook}}",
        False,
    ),
]


def _dangling(h: Harness, name: str) -> list[str]:
    return sorted(
        d.message.split("'")[1] for d in h.diagnostics(name) if d.code == Code.DANGLING.value
    )


@pytest.mark.parametrize(
    ("files", "root"),
    [(BIBER_PROJECT, "main.tex"), (PANDOC_PROJECT, "paper.md")],
    ids=["biber", "pandoc"],
)
async def test_commenting_an_entry_out_and_in_follows_each_edit(
    start: Start, files: str, root: str
) -> None:
    h = await start(files=files)
    await wait_for(lambda: h.codes(root) == [] and h.codes("refs.bib") == [])
    h.editor.open("refs.bib")
    for old, new, dangling in EDITS:
        h.editor.replace("refs.bib", old, new)
        expected = ["knuth1984"] if dangling else []
        await wait_for(lambda expected=expected: _dangling(h, root) == expected)
