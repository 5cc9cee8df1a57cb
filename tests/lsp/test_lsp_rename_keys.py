"""Rename writes a new key every reader reads whole: braced in Markdown where pandoc would
end the bare key early, and refused where LaTeX cannot read it."""

from __future__ import annotations

import pytest
from lsp_editor import wait_for
from lsprotocol import types

from conftest import Harness, Start

FILES = """--- main.tex
\\documentclass{article}
\\begin{document}
\\cite{smith2020}
\\bibliographystyle{plain}
\\bibliography{refs}
\\end{document}
--- paper.md
---
bibliography: refs.bib
nocite: "@smith2020"
---

As @smith2020 shows.
--- refs.bib
@misc{⟦k|smith2020⟧, title={A}, author={X}, year={2000}}
"""


async def rename(h: Harness, new_name: str) -> types.WorkspaceEdit | None:
    at = h.mark("refs.bib", "k").start
    return await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")),
            position=types.Position(line=at.line, character=at.character + 1),
            new_name=new_name,
        )
    )


@pytest.mark.parametrize("new_name", ["smith~2020", "smith%2020", "smith#2020", "smith\\2020"])
async def test_rename_refuses_a_key_latex_cannot_read(start: Start, new_name: str) -> None:
    h = await start(files=FILES)
    h.editor.open("refs.bib")
    with pytest.raises(Exception, match="LaTeX cannot read") as refused:
        await rename(h, new_name)
    assert "not a valid citation key" in str(refused.value)
    assert await rename(h, "smith2021") is not None  # the server stays up


@pytest.mark.parametrize(
    ("new_name", "in_text", "in_nocite"),
    [
        ("smith2020.", "As @{smith2020.} shows.", 'nocite: "@{smith2020.}"'),
        ("smith2020!", "As @{smith2020!} shows.", 'nocite: "@{smith2020!}"'),
        ("smith:2020", "As @smith:2020 shows.", 'nocite: "@smith:2020"'),
    ],
)
async def test_rename_braces_a_markdown_key_pandoc_would_cut(
    start: Start, new_name: str, in_text: str, in_nocite: str
) -> None:
    h = await start(files=FILES)
    h.editor.open("refs.bib")
    h.editor.open("paper.md")
    edit = await rename(h, new_name)
    assert edit is not None
    h.editor.apply(edit)
    assert in_text in h.editor.text("paper.md")
    assert in_nocite in h.editor.text("paper.md")
    assert f"\\cite{{{new_name}}}" in h.editor.text("main.tex")
    assert f"@misc{{{new_name}," in h.editor.text("refs.bib")
    # every citation names the renamed entry (nothing dangles, nothing is left uncited)
    await wait_for(lambda: h.codes("paper.md") == [] and h.codes("refs.bib") == [])
