"""WorkspaceEdits name the version of each open document they were made on, where the
client takes ``documentChanges``: the client then refuses an edit made on a text that has
changed since.  A client without them gets plain ``changes``."""

from __future__ import annotations

from lsp_editor import file_edits, wait_for
from lsprotocol import types

from conftest import Harness, Start


async def nocite_action(h: Harness) -> types.CodeAction:
    actions = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")),
            range=h.mark("refs.bib", "orphan"),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    [action] = [
        a
        for a in actions or []
        if isinstance(a, types.CodeAction) and a.title == "Add \\nocite{unused2001}"
    ]
    assert action.edit is not None
    return action


async def test_a_fix_names_the_version_it_was_made_on(start: Start, client_name: str) -> None:
    h = await start()
    main = h.editor.open("main.tex")
    h.editor.open("refs.bib")
    h.editor.replace("main.tex", "See ", "As seen in ")
    h.editor.replace("main.tex", "As seen in ", "See ")  # version 3, the same text
    await wait_for(lambda: "orphan-entry" in h.codes("refs.bib"))
    action = await nocite_action(h)
    assert action.edit is not None
    if client_name == "neovim":  # no documentChanges in its capabilities
        assert action.edit.document_changes is None and action.edit.changes
    else:
        [change] = action.edit.document_changes or []
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == main
        assert change.text_document.version == h.editor.versions[main] == 3
        h.editor.replace("main.tex", "See ", "Look at ")  # typed before the fix is applied
        assert h.editor.stale(action.edit) == [main]  # the client refuses it
    [edit] = file_edits(action.edit)[main]
    assert edit.new_text == "\\nocite{unused2001}\n"


async def test_a_rename_names_the_versions_of_the_open_documents(
    start: Start, client_name: str
) -> None:
    h = await start()
    main = h.editor.open("main.tex")
    h.editor.replace("main.tex", "See ", "Look at ")
    at = h.editor.find("main.tex", "knuth1984", within=1)
    edit = await h.client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=main),
            position=h.editor.position("main.tex", at),
            new_name="knuth84",
        )
    )
    assert edit is not None
    if client_name == "neovim":
        assert edit.document_changes is None
    else:
        versions = {
            d.text_document.uri: d.text_document.version
            for d in edit.document_changes or []
            if isinstance(d, types.TextDocumentEdit)
        }
        assert versions == {main: 2, h.uri("refs.bib"): None, h.uri("paper.md"): None}
    h.editor.apply(edit)
    assert "\\cite{knuth84}" in h.editor.text("main.tex")
    assert "@book{knuth84," in h.editor.text("refs.bib")
