"""Diagnostics end to end: on the exact span, with code links, tags and related information;
cleared when fixed; nothing published for an old document version."""

from __future__ import annotations

from lsp_editor import wait_for
from lsprotocol import types

from citewarden.model import Code, Span, code_doc_url
from conftest import Harness, Start, progress_kinds


def by_code(h: Harness, name: str, code: Code) -> list[types.Diagnostic]:
    return [d for d in h.diagnostics(name) if d.code == code.value]


async def test_workspace_diagnostics_on_exact_spans(start: Start) -> None:
    h = await start()
    await wait_for(lambda: by_code(h, "chapters/intro.tex", Code.DANGLING))
    # the dangling key in a chapter that is not open: read from disk, found through the root
    [dangling] = by_code(h, "chapters/intro.tex", Code.DANGLING)
    assert dangling.range == h.mark("chapters/intro.tex", "dangling")
    assert "knuht1984" in dangling.message
    assert dangling.source == "citewarden"
    assert dangling.severity == types.DiagnosticSeverity.Error
    assert dangling.code_description is not None
    assert dangling.code_description.href == code_doc_url(Code.DANGLING)

    await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    [orphan] = by_code(h, "refs.bib", Code.ORPHAN)
    assert orphan.range == h.mark("refs.bib", "orphan")
    assert list(orphan.tags or []) == [types.DiagnosticTag.Unnecessary]

    [dup] = by_code(h, "refs.bib", Code.DUPLICATE_KEY)
    assert dup.range == h.mark("refs.bib", "dup")
    assert dup.related_information, "the duplicate points at the other definition"
    other = dup.related_information[0].location
    assert other.uri == h.uri("refs.bib")
    assert h.editor.slice("refs.bib", other.range) == "dup2000"
    assert other.range.start.line < dup.range.start.line


async def test_diagnostic_clears_when_fixed_and_returns(start: Start) -> None:
    h = await start()
    uri = h.editor.open("chapters/intro.tex")
    await wait_for(lambda: by_code(h, "chapters/intro.tex", Code.DANGLING))
    h.editor.replace("chapters/intro.tex", "knuht1984", "knuth1984")
    await wait_for(lambda: not h.diagnostics("chapters/intro.tex"))
    last = [p for p in h.published if p.uri == uri][-1]
    assert last.version == h.editor.versions[uri]
    h.editor.replace("chapters/intro.tex", "lamport1994", "lamprot1994")
    await wait_for(lambda: by_code(h, "chapters/intro.tex", Code.DANGLING))
    [d] = by_code(h, "chapters/intro.tex", Code.DANGLING)
    assert h.editor.slice("chapters/intro.tex", d.range) == "lamprot1994"


async def test_orphan_clears_when_cited_elsewhere(start: Start) -> None:
    """A cross-file effect: citing the orphan in the chapter clears it in the .bib."""
    h = await start()
    await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    h.editor.open("chapters/intro.tex")
    h.editor.replace("chapters/intro.tex", "knuht1984", "unused2001")
    await wait_for(lambda: not by_code(h, "refs.bib", Code.ORPHAN))
    assert not h.diagnostics("chapters/intro.tex")


async def test_nothing_published_for_an_old_version(start: Start) -> None:
    h = await start(config={"debounce_ms": 200})
    name = "chapters/intro.tex"
    uri = h.editor.open(name)
    await wait_for(lambda: [p for p in h.published if p.uri == uri and p.version == 1])
    line_start = h.editor.find(name, "Café")
    for _ in range(5):  # each edit moves the dangling key: every version has new diagnostics
        h.editor.edit(
            uri,
            [
                types.TextEdit(
                    range=h.editor.range(name, Span(line_start, line_start)), new_text="x"
                )
            ],
        )
    final = h.editor.versions[uri]
    await wait_for(lambda: [p for p in h.published if p.uri == uri and p.version == final])
    versions = [p.version for p in h.published if p.uri == uri]
    # every intermediate version was superseded within the debounce: none was published
    assert versions == [None, 1, final]  # None: the file on disk, before it was opened
    [d] = by_code(h, name, Code.DANGLING)
    assert h.editor.slice(name, d.range) == "knuht1984"


async def test_progress_begins_and_ends(start: Start) -> None:
    h = await start()
    kinds = progress_kinds(h)
    assert kinds, "indexing reports progress"
    assert kinds[0][0] == "begin" and kinds[0][-1] == "end"
    assert all(k == "report" for k in kinds[0][1:-1])


async def test_malformed_bib_does_not_take_the_server_down(start: Start) -> None:
    h = await start()
    uri = h.editor.open("refs.bib")
    at = h.editor.find("refs.bib", "@misc{dup2000")
    h.editor.edit(
        uri,
        [
            types.TextEdit(
                range=h.editor.range("refs.bib", Span(at, at)),
                new_text="@article{broken, title = {x} year = {1}}\n\n",
            )
        ],
    )
    await wait_for(lambda: by_code(h, "refs.bib", Code.BIB_SYNTAX))
    # still answering requests, and the rest of the file is still read
    assert by_code(h, "refs.bib", Code.ORPHAN)
    symbols = await h.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols and "knuth1984" in [s.name for s in symbols]


async def test_edit_between_findings_moves_only_those_after_it(start: Start) -> None:
    """Diagnostics before an edit are kept as they were, those after it move with the text."""
    h = await start()
    name = "refs.bib"
    uri = h.editor.open(name)
    await wait_for(lambda: [p for p in h.published if p.uri == uri and p.version == 1])
    at = h.editor.find(name, "@misc{dup2000")  # after the orphan, before both dup2000
    h.editor.edit(
        uri,
        [types.TextEdit(range=h.editor.range(name, Span(at, at)), new_text="% moved\n\n")],
    )
    await wait_for(lambda: [p for p in h.published if p.uri == uri and p.version == 2])
    [orphan] = by_code(h, name, Code.ORPHAN)
    [dup] = by_code(h, name, Code.DUPLICATE_KEY)
    assert h.editor.slice(name, orphan.range) == "unused2001"
    assert orphan.range == h.mark(name, "orphan")  # before the edit: unchanged
    assert h.editor.slice(name, dup.range) == "dup2000"
    assert dup.range.start.line == h.mark(name, "dup").start.line + 2
    first = dup.related_information[0].location.range if dup.related_information else None
    assert first is not None and h.editor.slice(name, first) == "dup2000"


async def test_document_opened_during_indexing_has_no_false_alarms(start: Start) -> None:
    """Editors open the file at once; it is checked when its bibliography is known."""
    h = await start(wait_ready=False)
    name = "chapters/intro.tex"
    uri = h.editor.open(name)
    await wait_for(lambda: [p for p in h.published if p.uri == uri and p.version == 1])
    for params in (p for p in h.published if p.uri == uri):
        # lamport1994 is defined: only knuht1984 may ever be reported as dangling
        assert [h.editor.slice(name, d.range) for d in params.diagnostics] == ["knuht1984"]


STRINGS_PROJECT = r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a}
\bibliographystyle{plain}
\bibliography{abbrev,refs}
\end{document}
--- abbrev.bib
@string{jmlr = "J. Mach. Learn. Res."}
--- refs.bib
@article{a, title={T}, author={A. B}, journal=⟦use|jmlr⟧, year=2020}
"""


async def test_a_bib_file_knows_the_string_macros_of_the_file_read_before_it(
    start: Start,
) -> None:
    """A cross-file effect: renaming the macro in the file that defines it makes its use in
    the other file undefined, and renaming it back clears that."""
    h = await start(files=STRINGS_PROJECT)
    assert not by_code(h, "refs.bib", Code.UNDEFINED_STRING)
    h.editor.open("abbrev.bib")
    h.editor.replace("abbrev.bib", "{jmlr =", "{jmlrx =")
    await wait_for(lambda: by_code(h, "refs.bib", Code.UNDEFINED_STRING))
    [d] = by_code(h, "refs.bib", Code.UNDEFINED_STRING)
    assert d.range == h.mark("refs.bib", "use")
    h.editor.replace("abbrev.bib", "{jmlrx =", "{jmlr =")
    await wait_for(lambda: not by_code(h, "refs.bib", Code.UNDEFINED_STRING))
