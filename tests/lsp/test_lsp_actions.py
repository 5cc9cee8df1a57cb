"""Code actions end to end: each fix arrives as a WorkspaceEdit, the test applies it like an
editor (didOpen/didChange), and the diagnostic it fixes goes away."""

from __future__ import annotations

from lsp_editor import wait_for
from lsprotocol import types

from citewarden.model import Code
from conftest import Harness, Start


def by_code(h: Harness, name: str, code: Code) -> list[types.Diagnostic]:
    return [d for d in h.diagnostics(name) if d.code == code.value]


async def actions_for(h: Harness, name: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    result = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)),
            range=diag.range,
            context=types.CodeActionContext(
                diagnostics=[diag], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    assert result is not None
    actions = [a for a in result if isinstance(a, types.CodeAction)]
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    return actions


async def test_change_to_closest_key(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    [diag] = await wait_for(lambda: by_code(h, name, Code.DANGLING))
    actions = await actions_for(h, name, diag)
    titles = [a.title for a in actions]
    assert titles[0] == "Change to `knuth1984`", titles
    best = actions[0]
    assert best.is_preferred
    assert best.diagnostics and best.diagnostics[0].code == Code.DANGLING.value
    assert best.edit is not None
    assert h.editor.apply(best.edit) == [h.uri(name)]
    assert "\\cite{lamport1994,knuth1984}" in h.editor.text(name)
    await wait_for(lambda: not by_code(h, name, Code.DANGLING))


async def test_orphan_remove_entry(start: Start) -> None:
    h = await start()
    [diag] = await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    actions = {a.title: a for a in await actions_for(h, "refs.bib", diag)}
    assert {"Remove entry", "Add \\nocite{unused2001}", "Add to nocite"} <= set(actions)
    edit = actions["Remove entry"].edit
    assert edit is not None
    h.editor.apply(edit)  # opens refs.bib, then edits it
    text = h.editor.text("refs.bib")
    assert "unused2001" not in text
    assert "@book{lamport1994" in text and "@misc{dup2000" in text
    await wait_for(lambda: not by_code(h, "refs.bib", Code.ORPHAN))
    assert not by_code(h, "refs.bib", Code.BIB_SYNTAX)


async def test_orphan_add_nocite_in_latex(start: Start) -> None:
    h = await start()
    [diag] = await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    actions = {a.title: a for a in await actions_for(h, "refs.bib", diag)}
    edit = actions["Add \\nocite{unused2001}"].edit
    assert edit is not None
    assert h.editor.apply(edit) == [h.uri("main.tex")]
    assert "\\nocite{unused2001}" in h.editor.text("main.tex")
    await wait_for(lambda: not by_code(h, "refs.bib", Code.ORPHAN))


async def test_orphan_add_to_markdown_nocite(start: Start) -> None:
    h = await start()
    [diag] = await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    actions = {a.title: a for a in await actions_for(h, "refs.bib", diag)}
    edit = actions["Add to nocite"].edit
    assert edit is not None
    assert h.editor.apply(edit) == [h.uri("paper.md")]
    assert "nocite:" in h.editor.text("paper.md")
    await wait_for(lambda: not by_code(h, "refs.bib", Code.ORPHAN))


async def test_remove_duplicate_entry(start: Start) -> None:
    h = await start()
    [diag] = await wait_for(lambda: by_code(h, "refs.bib", Code.DUPLICATE_KEY))
    actions = await actions_for(h, "refs.bib", diag)
    [remove] = [a for a in actions if "duplicate" in a.title.lower()]
    assert remove.edit is not None
    h.editor.apply(remove.edit)
    text = h.editor.text("refs.bib")
    assert text.count("dup2000") == 1 and "First of Two" in text and "Second of Two" not in text
    await wait_for(lambda: not by_code(h, "refs.bib", Code.DUPLICATE_KEY))


async def test_no_actions_away_from_findings(start: Start) -> None:
    h = await start()
    name = "main.tex"
    h.editor.open(name)
    at = h.editor.position(name, 0)
    result = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert result is not None and len(result) == 0


BIDI_KEY = """
--- main.tex
\\documentclass{article}
\\begin{document}
See \\cite{knuth1984}.
\\bibliography{refs}
\\end{document}
--- refs.bib
@book{knuth1984,
  title = {T},
  year = {1984},
}

@book{evil\u202eoof\u202c,
  title = {E},
  year = {1984},
}
"""


async def test_action_titles_show_bidirectional_characters_as_escapes(start: Start) -> None:
    """A title names the key, as the diagnostic does: with its bidirectional overrides
    shown as escapes, never turning the rest of the title around."""
    h = await start(files=BIDI_KEY)
    [diag] = await wait_for(lambda: by_code(h, "refs.bib", Code.ORPHAN))
    assert "evil\\u202eoof\\u202c" in diag.message
    titles = [a.title for a in await actions_for(h, "refs.bib", diag)]
    assert "Add \\nocite{evil\\u202eoof\\u202c}" in titles, titles
    assert not any("\u202e" in t or "\u202c" in t for t in titles)
