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


OWN = """--- paper.md
---
bibliography: refs.bib
references:
- id: ⟦own|doe2019⟧
  title: Own
- id: 'quoted'
  title: Quoted
---

As @doe2019 and @quoted show, after @smith2020.
--- refs.bib
@misc{smith2020, title={A}, author={X}, year={2000}}
"""


async def test_keys_a_document_defines_in_its_references_are_navigated_and_renamed(
    start: Start,
) -> None:
    """The ids of a Markdown document's own ``references:`` are keys like the entries of
    its bibliography: hover shows the item, definition goes to the id, completion offers it,
    and rename edits the id with the citations (the hover said the key was defined
    nowhere, nothing was offered, and rename left the id, so the citations dangled)."""
    h = await start(files=OWN)
    name = "paper.md"
    uri = h.editor.open(name)
    doc = types.TextDocumentIdentifier(uri=uri)
    cited = h.editor.position(name, h.editor.find(name, "@doe2019", within=1))
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=cited)
    )
    assert hover is not None and "**Own**" in str(hover.contents)
    found = await h.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=cited)
    )
    assert [(d.uri, d.range) for d in found or []] == [(uri, h.mark(name, "own"))]
    h.editor.replace(name, "after @smith2020", "after @smith2020 and @d")
    listed = await h.client.text_document_completion_async(
        types.CompletionParams(
            text_document=doc,
            position=h.editor.position(name, h.editor.find(name, "and @d", within=6)),
        )
    )
    assert isinstance(listed, types.CompletionList)
    assert [i.label for i in listed.items] == ["doe2019", "quoted"]  # starts, contains
    h.editor.replace(name, " and @d", "")
    with pytest.raises(Exception, match=r"already the key of an entry in refs\.bib"):
        await h.client.text_document_rename_async(
            types.RenameParams(text_document=doc, position=cited, new_name="smith2020")
        )
    for at, new_name in (("@doe2019", "true"), ("@quoted", "2020")):
        position = h.editor.position(name, h.editor.find(name, at, within=1))
        edit = await h.client.text_document_rename_async(
            types.RenameParams(text_document=doc, position=position, new_name=new_name)
        )
        assert edit is not None
        h.editor.apply(edit)
    text = h.editor.text(name)
    assert '- id: "true"\n' in text and "- id: '2020'\n" in text
    assert "As @true and @2020 show" in text
    await wait_for(lambda: h.codes(name) == [] and h.codes("refs.bib") == [])


CSL_YAML = """--- paper.md
---
bibliography: refs.yaml
---

As @doe and @roe show.
--- refs.yaml
references:
- id: doe
  title: Doe
- id: "roe"
  title: Roe
"""


async def test_rename_writes_an_id_of_a_csl_yaml_bibliography_as_yaml_reads_it(
    start: Start,
) -> None:
    """A key renamed to 'true' in a CSL-YAML bibliography is quoted (written bare, YAML
    read a boolean, which defines no key: every citation dangled); within quotes it goes
    as it is."""
    h = await start(files=CSL_YAML)
    name = "paper.md"
    uri = h.editor.open(name)
    for at, new_name in (("@doe", "true"), ("@roe", "x:y")):
        position = h.editor.position(name, h.editor.find(name, at, within=1))
        edit = await h.client.text_document_rename_async(
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position,
                new_name=new_name,
            )
        )
        assert edit is not None
        h.editor.apply(edit)
    assert '- id: "true"\n' in h.editor.text("refs.yaml")
    assert '- id: "x:y"\n' in h.editor.text("refs.yaml")
    assert "As @true and @x:y show." in h.editor.text(name)
    await wait_for(lambda: h.codes(name) == [] and h.codes("refs.yaml") == [])


PANDOC_ONLY = """--- paper.md
---
bibliography: refs.bib
---

As @smith2020 shows.
--- refs.bib
@misc{⟦k|smith2020⟧, title={A}, author={X}, year={2000}}
"""


async def rename_in_paper(h: Harness, new_name: str) -> types.WorkspaceEdit | None:
    uri = h.editor.open("paper.md")
    return await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=h.editor.position("paper.md", h.editor.find("paper.md", "@smith", within=1)),
            new_name=new_name,
        )
    )


@pytest.mark.parametrize(("new_name", "why"), [("smith~2020", "'~' in a key"), ("a{b", "'{'")])
async def test_a_pandoc_project_refuses_a_key_in_pandocs_words(
    start: Start, new_name: str, why: str
) -> None:
    """A Markdown project's refusal names pandoc, which reads its BibTeX bibliography, not
    LaTeX, which reads nothing of it; a name from outside is shown on one line."""
    h = await start(files=PANDOC_ONLY)
    with pytest.raises(Exception, match="not a valid citation key") as refused:
        await rename_in_paper(h, new_name)
    message = str(refused.value)
    assert "pandoc cannot read it in a BibTeX bibliography" in message and why in message
    assert "LaTeX" not in message and "BibTeX does not take" not in message
    with pytest.raises(Exception, match=r"'smith\\u202e2020' is not") as shown:
        await rename_in_paper(h, "smith\u202e2020")
    assert "\u202e" not in str(shown.value)


async def test_a_pandoc_project_with_a_csl_bibliography_takes_a_key_latex_cannot_read(
    start: Start,
) -> None:
    """pandoc reads '~' in a key of a CSL-YAML bibliography and of a citation: nothing
    refuses it there (LaTeX's rule refused it)."""
    h = await start(files=CSL_YAML)
    uri = h.editor.open("paper.md")
    position = h.editor.position("paper.md", h.editor.find("paper.md", "@doe", within=1))
    edit = await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position,
            new_name="doe~2020",
        )
    )
    assert edit is not None
    h.editor.apply(edit)
    assert "As @doe~2020 and @roe show." in h.editor.text("paper.md")
    await wait_for(lambda: h.codes("paper.md") == [] and h.codes("refs.yaml") == [])
