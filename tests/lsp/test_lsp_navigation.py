"""Navigation end to end on the multi-file project: completion, hover, definition,
references, rename, document and workspace symbols."""

from __future__ import annotations

import asyncio

from lsp_editor import file_edits, wait_for
from lsprotocol import types

from citewarden.model import Code, Span
from conftest import Harness, Start


def doc(h: Harness, name: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=h.uri(name))


async def complete(h: Harness, name: str, offset: int) -> types.CompletionList:
    result = await h.client.text_document_completion_async(
        types.CompletionParams(text_document=doc(h, name), position=h.editor.position(name, offset))
    )
    assert isinstance(result, types.CompletionList)
    return result


async def test_completion_in_latex_citation(start: Start) -> None:
    h = await start()
    name = "main.tex"
    uri = h.editor.open(name)
    # type a new citation (the editor closed the brace): the live buffer is used, before
    # any debounce has run
    at = h.editor.find(name, "\\input")
    h.editor.edit(
        uri,
        [types.TextEdit(range=h.editor.range(name, Span(at, at)), new_text="\\citep[p.~3]{la}\n")],
    )
    offset = at + len("\\citep[p.~3]{la")
    result = await complete(h, name, offset)
    labels = [i.label for i in result.items]
    assert labels[0] == "lamport1994"
    assert "knuth1984" not in labels  # does not contain "la"
    item = result.items[0]
    assert item.detail is not None and "Lamport" in item.detail and "1994" in item.detail
    assert item.detail == "Lamport (1994) LaTeX: A Document Preparation System"
    resolved = await h.client.completion_item_resolve_async(item)
    assert isinstance(resolved.documentation, types.MarkupContent)
    assert "A Document Preparation System" in resolved.documentation.value
    assert "Lamport, Leslie" in resolved.documentation.value
    assert item.text_edit is not None and isinstance(item.text_edit, types.TextEdit)
    assert h.editor.slice(name, item.text_edit.range) == "la"


async def test_completion_after_comma_lists_every_key(start: Start) -> None:
    h = await start()
    name = "main.tex"
    h.editor.open(name)
    offset = h.editor.find(name, "\\cite{knuth1984}", within=len("\\cite{knuth1984"))
    uri = h.uri(name)
    h.editor.edit(
        uri, [types.TextEdit(range=h.editor.range(name, Span(offset, offset)), new_text=",")]
    )
    result = await complete(h, name, offset + 1)
    assert {"knuth1984", "lamport1994", "unused2001", "dup2000"} <= {i.label for i in result.items}


async def test_completion_in_markdown_after_at(start: Start) -> None:
    h = await start()
    name = "paper.md"
    uri = h.editor.open(name)
    end = len(h.editor.text(name))
    h.editor.edit(
        uri, [types.TextEdit(range=h.editor.range(name, Span(end, end)), new_text="\nAlso [@kn")]
    )
    result = await complete(h, name, len(h.editor.text(name)))
    assert [i.label for i in result.items] == ["knuth1984"]


MARKDOWN_KEYS = r"""
--- paper.md
---
bibliography: refs.bib
---
See [@x], [@x], [@x], [@x] and @{x_y}.
--- refs.bib
@misc{x;y, title = {Semicolon}}
@misc{x.y., title = {Periods}}
@misc{x:, title = {Colon}}
@misc{x_y, title = {Plain}}
"""


async def test_completion_in_markdown_braces_a_key_pandoc_would_cut(start: Start) -> None:
    """After a bare '@' a key pandoc would not read whole is inserted braced (it was
    inserted bare: '@x;y' cites 'x'); inside '@{' it goes as it is."""
    h = await start(files=MARKDOWN_KEYS)
    name = "paper.md"
    h.editor.open(name)
    bare = await complete(h, name, h.editor.find(name, "[@x]", within=3))
    assert {i.label: i.text_edit.new_text for i in bare.items if i.text_edit} == {
        "x;y": "{x;y}",
        "x.y.": "{x.y.}",
        "x:": "{x:}",
        "x_y": "x_y",
    }
    braced = await complete(h, name, h.editor.find(name, "@{x", within=3))
    assert {i.label: i.text_edit.new_text for i in braced.items if i.text_edit} == {
        k: k for k in ("x;y", "x.y.", "x:", "x_y")
    }
    # each key chosen after '@' cites its entry
    for key in ("x;y", "x.y.", "x:", "x_y"):
        listed = await complete(h, name, h.editor.find(name, "[@x]", within=3))
        [edit] = [i.text_edit for i in listed.items if i.label == key]
        assert isinstance(edit, types.TextEdit)
        h.editor.edit(h.uri(name), [edit])
    await wait_for(lambda: h.codes("refs.bib") == [] and h.codes(name) == [])


LATEX_KEYS = r"""
--- main.tex
\cite{x}
\bibliography{refs}
--- refs.bib
@misc{x_y, title = {Plain}}
@misc{x%y, title = {Percent}}
@misc{x#y, title = {Hash}}
@misc{x~y, title = {Tilde}}
"""


async def test_completion_in_latex_leaves_out_keys_latex_cannot_read(start: Start) -> None:
    """A key LaTeX cannot read in a citation is not offered ('%' made the rest of the line
    a comment), as rename refuses such a name."""
    h = await start(files=LATEX_KEYS)
    h.editor.open("main.tex")
    result = await complete(h, "main.tex", h.editor.find("main.tex", "\\cite{x", within=7))
    assert [i.label for i in result.items] == ["x_y"]


BIBITEMS = r"""
--- main.tex
\documentclass{article}
\begin{document}
See \cite{k1} and \cite{k2}.
\input{refs}
\end{document}
--- refs.tex
\begin{thebibliography}{9}
\bibitem{⟦k1|k1⟧} A. Author. A title.
\end{thebibliography}
"""


async def test_a_key_a_bibitem_defines_is_hovered_and_found(start: Start) -> None:
    """A key ``\\bibitem`` defines (no dangling diagnostic): the hover says where, and
    definition goes to it; the hover said the key was defined in no bibliography."""
    h = await start(files=BIBITEMS)
    uri = h.editor.open("main.tex")
    await wait_for(lambda: h.codes("main.tex") == [Code.DANGLING.value])
    at = h.editor.position("main.tex", h.editor.find("main.tex", "\\cite{k1", within=7))
    doc = types.TextDocumentIdentifier(uri=uri)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=at)
    )
    assert isinstance(hover, types.Hover) and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value == "`k1` is defined by `\\bibitem` in `refs.tex`."
    found = await h.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=at)
    )
    assert [(d.uri, d.range) for d in found or []] == [
        (h.uri("refs.tex"), h.mark("refs.tex", "k1"))
    ]


async def test_no_completion_outside_citations(start: Start) -> None:
    h = await start()
    name = "main.tex"
    h.editor.open(name)
    result = await h.client.text_document_completion_async(
        types.CompletionParams(
            text_document=doc(h, name), position=h.editor.position(name, h.editor.find(name, "See"))
        )
    )
    assert result is None or not getattr(result, "items", result)


async def test_hover_on_citation_and_entry(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    await wait_for(lambda: h.diagnostics(name))
    at = h.editor.find(name, "lamport1994", within=3)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "A Document Preparation System" in hover.contents.value
    assert "Lamport" in hover.contents.value
    assert hover.range is not None and h.editor.slice(name, hover.range) == "lamport1994"

    bib_at = h.editor.find("refs.bib", "knuth1984", within=2)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=doc(h, "refs.bib"), position=h.editor.position("refs.bib", bib_at)
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Cited 2 times" in hover.contents.value  # main.tex and paper.md

    dangling = h.editor.find(name, "knuht1984", within=1)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, dangling))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "not defined" in hover.contents.value


HOSTILE_KEYS = """
--- main.tex
\\documentclass{article}
\\begin{document}
See \\cite{x`[click](https://evil.example/)`y} and \\cite{rtl\u202eoof\u202c} and \\cite{k}.
\\bibliography{refs}
\\end{document}
--- refs.bib
@book{k,
  title = {T},
  journal = {J},
  year = {<b>1},
}
"""


async def hover_text(h: Harness, name: str, needle: str) -> str:
    at = h.editor.find(name, needle)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hovers_show_keys_and_years_as_text(start: Start) -> None:
    """An undefined key is shown as code, whatever backticks it holds (no link starts in
    it), with control and bidirectional characters escaped; an entry's year is text."""
    h = await start(files=HOSTILE_KEYS)
    name = "main.tex"
    h.editor.open(name)
    linked = await hover_text(h, name, "evil")
    assert linked.startswith("``x`[click](https://evil.example/)`y`` is not defined")
    turned = await hover_text(h, name, "oof")
    assert "\u202e" not in turned and "`rtl\\u202eoof\\u202c` is not defined" in turned
    year = await hover_text(h, name, "k}.")
    assert "<b>" not in year and "\\<b\\>1" in year


async def test_definition_goes_to_the_entry(start: Start) -> None:
    h = await start()
    name = "paper.md"
    h.editor.open(name)
    at = h.editor.find(name, "@knuth1984", within=4)
    result = await h.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert isinstance(result, list) and len(result) == 1
    [loc] = result
    assert isinstance(loc, types.Location)
    assert loc.uri == h.uri("refs.bib")
    assert loc.range == h.mark("refs.bib", "knuth")


async def test_references_across_tex_and_markdown(start: Start) -> None:
    h = await start()
    at = h.editor.find("refs.bib", "lamport1994", within=1)
    result = await h.client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(h, "refs.bib"),
            position=h.editor.position("refs.bib", at),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert result is not None
    places = sorted((loc.uri, loc.range.start.line) for loc in result)
    uris = [u for u, _ in places]
    assert uris.count(h.uri("chapters/intro.tex")) == 1
    assert uris.count(h.uri("paper.md")) == 1
    assert uris.count(h.uri("refs.bib")) == 1  # the declaration
    for loc in result:
        name = loc.uri.removeprefix(h.root.as_uri() + "/")
        assert h.editor.slice(name, loc.range) == "lamport1994"


async def test_rename_edits_every_file(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    at = h.editor.find(name, "lamport1994", within=2)
    prepared = await h.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "lamport1994"
    assert h.editor.slice(name, prepared.range) == "lamport1994"
    edit = await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=doc(h, name),
            position=h.editor.position(name, at),
            new_name="lamport:latex",
        )
    )
    assert edit is not None
    assert set(file_edits(edit)) == {h.uri(name), h.uri("refs.bib"), h.uri("paper.md")}
    h.editor.apply(edit)
    for file in (name, "refs.bib", "paper.md"):
        assert "lamport1994" not in h.editor.text(file)
        assert "lamport:latex" in h.editor.text(file)
    assert "@book{lamport:latex," in h.editor.text("refs.bib")
    assert "@lamport:latex and" in h.editor.text("paper.md")
    # nothing dangles after the rename (only the pre-existing dangling keys remain)
    await wait_for(
        lambda: (
            [d for d in h.diagnostics("paper.md") if "lamport" in d.message] == []
            and not [d for d in h.diagnostics(name) if "lamport" in d.message]
        )
    )


async def test_rename_refuses_an_invalid_key(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    at = h.editor.find(name, "lamport1994", within=2)
    try:
        await h.client.text_document_rename_async(
            types.RenameParams(
                text_document=doc(h, name), position=h.editor.position(name, at), new_name="a b}"
            )
        )
    except Exception as exc:  # the server answers with an error, and stays up
        assert "not a valid citation key" in str(exc)
    else:
        raise AssertionError("an invalid key must be refused")
    assert await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )


#: biblatex with biber: keys match exactly; other entries name a key in crossref, xdata,
#: related and entryset, and ``ids`` gives an entry an alias.
BIBLATEX_LINKS = r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{knuth1984,lamport,rel,oth,s} and \cite{knuth1984}.
\printbibliography
\end{document}
--- refs.bib
@xdata{pub, publisher = {Addison-Wesley}}
@book{knuth1984, title = {The TeXbook}, xdata = {pub}}
@inbook{lamport, title = {L}, crossref = {knuth1984}}
@misc{rel, title = {R}, related = {other, knuth1984}, xdata = {knuth1984,pub}}
@book{other, title = {O}, ids = {oth, o2}}
@set{s, entryset = {knuth1984,other}}
"""


async def rename(h: Harness, name: str, needle: str, new_name: str) -> types.WorkspaceEdit:
    at = h.editor.find(name, needle, within=1)
    prepared = await h.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    edit = await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=doc(h, name), position=h.editor.position(name, at), new_name=new_name
        )
    )
    assert edit is not None
    return edit


async def refused(h: Harness, name: str, needle: str, new_name: str) -> str:
    try:
        await rename(h, name, needle, new_name)
    except Exception as exc:  # an error answer, shown by the editor
        return str(exc)
    raise AssertionError(f"renaming to {new_name} must be refused")


async def test_rename_follows_the_fields_naming_the_key(start: Start) -> None:
    h = await start(files=BIBLATEX_LINKS)
    h.editor.open("main.tex")
    h.editor.apply(await rename(h, "main.tex", "{knuth1984", "knuth84"))
    bib = h.editor.text("refs.bib")
    assert "knuth1984" not in bib
    assert "@book{knuth84, title = {The TeXbook}, xdata = {pub}}" in bib
    assert "crossref = {knuth84}" in bib
    assert "related = {other, knuth84}, xdata = {knuth84,pub}" in bib
    assert "entryset = {knuth84,other}" in bib
    assert "\\cite{knuth84,lamport,rel,oth,s} and \\cite{knuth84}." in h.editor.text("main.tex")
    # an ids alias is renamed in the ids field, and its citations with it
    h.editor.apply(await rename(h, "main.tex", ",oth", "oth2"))
    assert "ids = {oth2, o2}" in h.editor.text("refs.bib")
    assert "\\cite{knuth84,lamport,rel,oth2,s}" in h.editor.text("main.tex")
    await wait_for(
        lambda: (
            not {"dangling-citation", "missing-crossref"} & set(h.codes("main.tex"))
            and not {"missing-crossref", "duplicate-key"} & set(h.codes("refs.bib"))
        )
    )


async def test_rename_refuses_a_name_already_taken(start: Start) -> None:
    h = await start(files=BIBLATEX_LINKS)
    h.editor.open("main.tex")
    before = h.editor.text("refs.bib")
    # another entry's key (compared ignoring case, as duplicate keys are) or alias
    assert "already the key of an entry in refs.bib" in await refused(
        h, "main.tex", "{knuth1984", "other"
    )
    assert "already the key" in await refused(h, "main.tex", "{knuth1984", "Lamport")
    assert "already an alias" in await refused(h, "main.tex", "{knuth1984", "O2")
    h.editor.open("refs.bib")
    assert "already the key" in await refused(h, "refs.bib", "{lamport", "rel")
    assert h.editor.text("refs.bib") == before
    # a change of case only is no collision
    edit = await rename(h, "refs.bib", "{lamport", "Lamport")
    assert set(file_edits(edit)) == {h.uri("refs.bib"), h.uri("main.tex")}


#: plain BibTeX reads main.tex's bibliography (keys match ignoring case); pandoc reads the
#: same file for paper.md (exactly).
BIBTEX_CASE = r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{KNUTH1984} and \cite{Knuth1984}.
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- paper.md
---
bibliography: refs.bib
nocite: |
  @knuth1984
---
Text and [@other; @KNUTH1984].
--- refs.bib
@book{knuth1984, title = {T}}
@book{other, title = {O}}
@inbook{part, title = {P}, crossref = {KNUTH1984}}
"""


async def test_rename_matches_keys_as_bibtex_does(start: Start) -> None:
    h = await start(files=BIBTEX_CASE)
    h.editor.open("refs.bib")
    h.editor.apply(await rename(h, "refs.bib", "{knuth1984", "knuth84"))
    assert "\\cite{knuth84} and \\cite{knuth84}." in h.editor.text("main.tex")
    paper = h.editor.text("paper.md")
    assert "  @knuth84\n" in paper
    assert "@KNUTH1984]" in paper  # pandoc matches exactly: this one never matched
    assert "crossref = {knuth84}" in h.editor.text("refs.bib")
    await wait_for(lambda: "dangling-citation" not in h.codes("main.tex"))
    # from a citation differing in case: the entry it names is renamed too
    h.editor.apply(await rename(h, "main.tex", "{knuth84", "Knuth1984"))
    assert "@book{Knuth1984," in h.editor.text("refs.bib")
    assert "already the key" in await refused(h, "main.tex", "{Knuth1984", "OTHER")


async def test_document_symbols_for_bib(start: Start) -> None:
    h = await start()
    result = await h.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(h, "refs.bib"))
    )
    assert result is not None
    symbols = [s for s in result if isinstance(s, types.DocumentSymbol)]
    assert [s.name for s in symbols] == [
        "knuth1984",
        "lamport1994",
        "unused2001",
        "dup2000",
        "dup2000",
    ]
    knuth = symbols[0]
    assert knuth.selection_range == h.mark("refs.bib", "knuth")
    assert knuth.children and [c.name for c in knuth.children] == [
        "author",
        "title",
        "publisher",
        "year",
    ]


async def test_workspace_symbols(start: Start) -> None:
    h = await start()
    result = await h.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="lamp"))
    assert result is not None
    assert [s.name for s in result] == ["lamport1994"]
    [sym] = result
    assert isinstance(sym.location, types.Location)
    assert sym.location.uri == h.uri("refs.bib")
    # a word of the title finds the entry too
    result = await h.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="nobody"))
    assert result is not None and [s.name for s in result] == ["unused2001"]


async def test_hover_sees_an_edit_before_the_debounce(start: Start) -> None:
    """Requests see the newest text even when the debounce has not run yet."""
    h = await start(config={"debounce_ms": 5000})
    name = "paper.md"
    h.editor.open(name)
    await wait_for(lambda: [d for d in h.diagnostics(name) if d.code == Code.DANGLING.value])
    h.editor.replace(name, "As shown", "As was shown")
    at = h.editor.find(name, "@lamport1994", within=3)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Lamport" in hover.contents.value


async def test_definitions_and_references_point_into_the_current_text_of_other_open_files(
    start: Start,
) -> None:
    """Lines added above an entry, and above a citation, in other open files whose edits
    are not checked yet (the debounce is 10 s): the locations are in the texts the editor
    holds (they were in the texts last checked, lines off)."""
    h = await start(init={"debounce_ms": 10000})
    h.editor.open("main.tex")
    h.editor.open("refs.bib")
    h.editor.open("paper.md")
    await wait_for(lambda: h.diagnostics("paper.md"))
    h.editor.replace(
        "refs.bib", "@book{lamport1994,", "@misc{new2024, title={N}}\n\n@book{lamport1994,"
    )
    h.editor.replace("paper.md", "As shown", "First.\n\nAs shown")
    cited = h.editor.find("chapters/intro.tex", "lamport1994")
    found = await h.client.text_document_definition_async(
        types.DefinitionParams(
            text_document=doc(h, "chapters/intro.tex"),
            position=h.editor.position("chapters/intro.tex", cited),
        )
    )
    assert [h.editor.slice("refs.bib", d.range) for d in found or []] == ["lamport1994"]
    entry = h.editor.find("refs.bib", "@book{lamport1994", within=6)
    refs = await h.client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(h, "refs.bib"),
            position=h.editor.position("refs.bib", entry),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    names = {h.uri(n): n for n in ("chapters/intro.tex", "paper.md", "refs.bib")}
    found_text = sorted((names[r.uri], h.editor.slice(names[r.uri], r.range)) for r in refs or [])
    assert found_text == [
        ("chapters/intro.tex", "lamport1994"),
        ("paper.md", "lamport1994"),
        ("refs.bib", "lamport1994"),
    ]


async def test_hover_on_a_citation_shows_its_sentence_and_relevance(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    await wait_for(lambda: h.diagnostics(name))
    at = h.editor.find(name, "lamport1994", within=3)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    value = hover.contents.value
    assert "**Citation context:** relevance 0.00" in value  # no word in common with the title
    assert "> Café, 日本語 and 😀 before." in value
    assert "cited work's title" in value
    # an entry's own hover has no citation context
    bib_at = h.editor.find("refs.bib", "knuth1984", within=2)
    hover = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=doc(h, "refs.bib"), position=h.editor.position("refs.bib", bib_at)
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Citation context" not in hover.contents.value


async def test_citation_context_hover_follows_edits_of_the_sentence_and_the_entry(
    start: Start,
) -> None:
    """The context hover is remembered per version of the document, the cited entry and
    the corpus: the same hover twice gives the same text, and an edit of the sentence or
    of the cited entry's title gives a new one."""
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    h.editor.open("refs.bib")
    await wait_for(lambda: h.diagnostics(name))

    async def context() -> str:
        at = h.editor.find(name, "lamport1994", within=3)
        hover = await h.client.text_document_hover_async(
            types.HoverParams(text_document=doc(h, name), position=h.editor.position(name, at))
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        return hover.contents.value.split("**Citation context:**", 1)[1]

    first = await context()
    assert await context() == first
    assert "relevance 0.00" in first and "> Café, 日本語 and 😀 before." in first
    h.editor.replace(name, "Café, 日本語 and 😀 before", "Preparing documents with a system")
    second = await context()
    assert "> Preparing documents with a system." in second
    assert "relevance 0.00" not in second  # words in common with the title now
    h.editor.replace("refs.bib", "A Document Preparation System", "Typesetting Mathematics")
    # the .bib's edit reaches the model with its check (after the debounce)
    deadline = asyncio.get_running_loop().time() + 15
    third = await context()
    while "relevance 0.00" not in third and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
        third = await context()
    assert "> Preparing documents with a system." in third
    assert "relevance 0.00" in third  # the new title shares no word with the sentence
    # the entry's own abstract is compared, and shown with where it comes from
    h.editor.replace(
        "refs.bib",
        "Typesetting Mathematics}",
        "Typesetting Mathematics}, abstract = {A system for preparing documents}",
    )
    deadline = asyncio.get_running_loop().time() + 15
    fourth = await context()
    while "relevance 0.00" in fourth and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
        fourth = await context()
    assert "Abstract (the bibliography entry): A system for preparing documents" in fourth
    assert "title and abstract" in fourth and "relevance 0.00" not in fourth


ODD_OUTLINE = """--- main.tex
\\documentclass{article}
\\begin{document}\\cite{a,b}\\bibliography{refs}\\end{document}
--- refs.bib
@misc{a, title = {A title\u202e reversed
       over two lines}, note = {x\x1b[2Jy}}
--- paper.md
---
bibliography: items.json
---
@b
--- items.json
[{"id": "b", "type": "article\u202e", "title": "B"}]
"""


async def test_the_outline_shows_field_values_on_one_line_escaped(start: Start) -> None:
    """A field's value went to the outline as written: its line breaks, a bidirectional
    override and a terminal control; a CSL item's type likewise."""
    h = await start(files=ODD_OUTLINE)
    found = await h.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(h, "refs.bib"))
    )
    [entry] = [s for s in found or [] if isinstance(s, types.DocumentSymbol)]
    details = [c.detail for c in entry.children or []]
    assert details == ["A title\\u202e reversed over two lines", "x\\x1b[2Jy"]
    items = await h.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(h, "items.json"))
    )
    [item] = [s for s in items or [] if isinstance(s, types.DocumentSymbol)]
    assert item.detail is not None and item.detail.startswith("@article\\u202e ")


async def test_a_completion_label_shows_the_key_escaped(start: Start) -> None:
    """A key with a bidirectional override or a terminal control was listed as it is (the
    text written stays the key itself)."""
    files = (
        "--- main.tex\n\\documentclass{article}\n\\begin{document}\n\\cite{ab}\n"
        "\\bibliography{refs}\n\\end{document}\n"
        "--- refs.bib\n@misc{ab\u202ecd, title={A}}\n@misc{ab\x1bx, title={B}}\n"
    )
    h = await start(files=files)
    h.editor.open("main.tex")
    result = await complete(h, "main.tex", h.editor.find("main.tex", "ab}") + 2)
    assert sorted(i.label for i in result.items) == ["ab\\u202ecd", "ab\\x1bx"]
    written = sorted(
        i.text_edit.new_text for i in result.items if isinstance(i.text_edit, types.TextEdit)
    )
    assert written == ["ab\x1bx", "ab\u202ecd"]
