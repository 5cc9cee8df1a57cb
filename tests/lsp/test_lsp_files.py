"""Files that are not open (watched on disk), closing documents, and pull diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_editor import wait_for
from lsprotocol import types
from pytest_lsp import client_capabilities

from citewarden.model import Code
from conftest import Harness, Start


def codes(h: Harness, name: str) -> list[str]:
    return h.codes(name)


def changed(h: Harness, name: str, kind: types.FileChangeType) -> None:
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=h.uri(name), type=kind)])
    )


async def test_watchers_registered_when_the_client_allows(start: Start, client_name: str) -> None:
    h = await start()  # registration happens before indexing starts, so it is done now
    methods = [r.method for r in h.registrations]
    watched = types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods
    # VS Code allows dynamic registration of file watching; Neovim 0.11's set does not
    assert watched == (client_name == "visual-studio-code")


async def test_change_on_disk_of_a_file_that_is_not_open(start: Start) -> None:
    h = await start()
    await wait_for(lambda: Code.ORPHAN.value in codes(h, "refs.bib"))
    bib = h.root / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text.replace("@article{unused2001", "@article{knuht1984"), encoding="utf-8")
    changed(h, "refs.bib", types.FileChangeType.Changed)
    # the chapter's dangling key is now defined, and the orphan is gone
    await wait_for(lambda: Code.DANGLING.value not in codes(h, "chapters/intro.tex"))
    assert Code.ORPHAN.value not in codes(h, "refs.bib")


async def test_deleted_chapter_and_new_file(start: Start) -> None:
    h = await start()
    await wait_for(lambda: Code.DANGLING.value in codes(h, "chapters/intro.tex"))
    (h.root / "chapters" / "intro.tex").unlink()
    changed(h, "chapters/intro.tex", types.FileChangeType.Deleted)
    # the include is now missing, and the deleted file's diagnostics are cleared
    await wait_for(lambda: Code.MISSING_INCLUDE.value in codes(h, "main.tex"))
    await wait_for(lambda: codes(h, "chapters/intro.tex") == [])
    (h.root / "chapters" / "intro.tex").write_text("\\cite{lamport1994}\n", encoding="utf-8")
    changed(h, "chapters/intro.tex", types.FileChangeType.Created)
    await wait_for(lambda: Code.MISSING_INCLUDE.value not in codes(h, "main.tex"))


async def test_a_file_created_on_disk_is_checked_though_nothing_links_to_it(
    start: Start,
) -> None:
    """A paper written into the workspace by another program (a pull, a script) is checked
    as one found at the start: it was only read if something linked to it."""
    h = await start()
    await wait_for(lambda: Code.ORPHAN.value in codes(h, "refs.bib"))
    (h.root / "notes").mkdir()
    (h.root / "notes" / "extra.tex").write_text(
        "\\cite{unused2001,ghost}\n\\bibliography{../refs}\n", encoding="utf-8"
    )
    (h.root / "node_modules").mkdir()
    (h.root / "node_modules" / "skipped.md").write_text("@ghost\n", encoding="utf-8")
    for name in ("notes/extra.tex", "node_modules/skipped.md"):
        changed(h, name, types.FileChangeType.Created)
    await wait_for(lambda: codes(h, "notes/extra.tex") == [Code.DANGLING.value])
    await wait_for(lambda: Code.ORPHAN.value not in codes(h, "refs.bib"))
    assert h.uri("node_modules/skipped.md") not in h.client.diagnostics  # a skipped folder
    (h.root / "notes" / "extra.tex").unlink()
    changed(h, "notes/extra.tex", types.FileChangeType.Deleted)
    await wait_for(lambda: codes(h, "notes/extra.tex") == [])
    await wait_for(lambda: Code.ORPHAN.value in codes(h, "refs.bib"))


async def test_open_buffer_wins_over_disk_and_close_returns_to_disk(start: Start) -> None:
    h = await start()
    name = "chapters/intro.tex"
    h.editor.open(name)
    h.editor.replace(name, "knuht1984", "knuth1984")
    await wait_for(lambda: codes(h, name) == [])
    # a change on disk of an open file does not override the buffer
    changed(h, name, types.FileChangeType.Changed)
    h.editor.close(name)
    # closed without saving: the file on disk applies again
    await wait_for(lambda: codes(h, name) == [Code.DANGLING.value])
    last = [p for p in h.published if p.uri == h.uri(name)][-1]
    assert last.version is None


LOCAL_PACKAGE = r"""
--- main.tex
\documentclass{article}
\usepackage{shorthands}
\begin{document}\seeref{knuth1984} \cite{lamport1994}\end{document}
--- shorthands.sty
\newcommand{\seeref}[1]{(see \cite{#1})}
\bibliography{refs}
--- refs.bib
@book{knuth1984, title={The TeXbook}}
@book{lamport1994, title={LaTeX}}
@book{unused2001, title={Unused}}
"""


def keys(h: Harness, name: str) -> list[str]:
    """The keys of the findings on ``name`` ("code key")."""
    return sorted(f"{d.code} {d.message.split(chr(39))[1]}" for d in h.diagnostics(name))


async def test_an_edit_of_the_projects_own_package_rechecks_its_documents(start: Start) -> None:
    h = await start(files=LOCAL_PACKAGE)
    # the package's bibliography and shorthand count: only the unused entry is reported
    await wait_for(lambda: keys(h, "refs.bib") == ["orphan-entry unused2001"])
    assert codes(h, "main.tex") == []
    # the shorthand no longer cites: knuth1984 is unused too
    h.editor.open("shorthands.sty")
    h.editor.replace("shorthands.sty", "(see \\cite{#1})", "(see #1)")
    await wait_for(lambda: "orphan-entry knuth1984" in keys(h, "refs.bib"))
    # closed without saving; then the bibliography goes from the file on disk
    h.editor.close("shorthands.sty")
    await wait_for(lambda: keys(h, "refs.bib") == ["orphan-entry unused2001"])
    sty = h.root / "shorthands.sty"
    sty.write_text(sty.read_text().replace("\\bibliography{refs}", ""), encoding="utf-8")
    changed(h, "shorthands.sty", types.FileChangeType.Changed)
    await wait_for(lambda: Code.DANGLING.value in codes(h, "main.tex"))


def pull_capabilities() -> types.ClientCapabilities:
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=False
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def pull(h: Harness, name: str, previous: str | None = None) -> object:
    return await h.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)),
            previous_result_id=previous,
        )
    )


@pytest.mark.parametrize("client_name", ["visual-studio-code+pull"])
async def test_pull_diagnostics_for_open_documents(start: Start) -> None:
    h = await start(capabilities=pull_capabilities())
    assert h.result.capabilities.diagnostic_provider is not None
    name = "chapters/intro.tex"
    # not open: pushed
    await wait_for(lambda: Code.DANGLING.value in codes(h, name))
    h.editor.open(name)
    # open: the pushed list is cleared, the client pulls
    await wait_for(lambda: codes(h, name) == [])
    report = await pull(h, name)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == [Code.DANGLING.value]
    assert h.editor.slice(name, report.items[0].range) == "knuht1984"
    same = await pull(h, name, report.result_id)
    assert isinstance(same, types.RelatedUnchangedDocumentDiagnosticReport)
    h.editor.replace(name, "knuht1984", "knuth1984")
    report = await pull(h, name, report.result_id)  # a pull right after the edit sees it
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert list(report.items) == []
    # a change in another file that affects an open one asks the client to pull again
    h.editor.open("refs.bib")
    report = await pull(h, "refs.bib")
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert Code.ORPHAN.value in [d.code for d in report.items]
    refreshes = h.client.diagnostic_refresh_count
    h.editor.replace("chapters/intro.tex", "knuth1984", "unused2001")
    await wait_for(lambda: h.client.diagnostic_refresh_count > refreshes)
    report = await pull(h, "refs.bib")
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert Code.ORPHAN.value not in [d.code for d in report.items]


async def test_workspace_folder_added_and_removed(start: Start) -> None:
    h = await start()
    other = h.root.parent / "other"
    other.mkdir()
    (other / "notes.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{ghost}\n\\end{document}\n",
        encoding="utf-8",
    )
    uri = (other / "notes.tex").as_uri()
    folder = types.WorkspaceFolder(uri=other.as_uri(), name="other")
    h.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])
        )
    )
    await wait_for(lambda: h.client.diagnostics.get(uri))
    assert {d.code for d in h.client.diagnostics[uri]} >= {Code.DANGLING.value}
    h.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])
        )
    )
    await wait_for(
        lambda: h.client.diagnostics.get(uri) == [] or h.client.diagnostics.get(uri) == ()
    )
    # the first folder is untouched
    assert Code.DANGLING.value in codes(h, "chapters/intro.tex")


async def test_an_open_bibliography_keeps_the_decoding_problems_of_its_file(start: Start) -> None:
    """A .bib that is not UTF-8 on disk stays so while the editor holds it (whatever the
    editor decoded it as): the file-encoding error stays, as check reports it, until the
    file on disk is UTF-8.  It went away as soon as the file was opened."""
    h = await start()
    bib = h.root / "refs.bib"
    text = bib.read_text(encoding="utf-8").replace("title", "note = {Caf\u00e9}, title", 1)
    bib.write_bytes(text.encode("cp1252"))
    changed(h, "refs.bib", types.FileChangeType.Changed)
    await wait_for(lambda: Code.FILE_ENCODING.value in codes(h, "refs.bib"))
    for decoded in (text, text.replace("\u00e9", "\ufffd")):  # as cp1252, or UTF-8 lossy
        h.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=h.uri("refs.bib"), language_id="bibtex", version=1, text=decoded
                )
            )
        )
        await wait_for(
            lambda: any(p.version == 1 for p in h.published if p.uri == h.uri("refs.bib"))
        )
        await wait_for(lambda: Code.FILE_ENCODING.value in codes(h, "refs.bib"))
        h.published.clear()
    # saved as UTF-8: the file on disk is fine now, and so is the open buffer
    bib.write_bytes(text.encode("utf-8"))
    changed(h, "refs.bib", types.FileChangeType.Changed)
    await wait_for(lambda: Code.FILE_ENCODING.value not in codes(h, "refs.bib"))
    # written back in Windows-1252 and saved: a client watching no files says so by didSave
    bib.write_bytes(text.encode("cp1252"))
    h.client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib"))
        )
    )
    await wait_for(lambda: Code.FILE_ENCODING.value in codes(h, "refs.bib"))


LINKED = r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a,b}\bibliography{link}\end{document}
--- paper.md
---
bibliography: lib/refs.bib
---
As @a and @c say.
--- lib/refs.bib
@book{a, title={A}}
"""


async def test_both_names_of_a_linked_bibliography_stay_in_step(
    start: Start, tmp_path: Path
) -> None:
    """A project reads the bibliography through a symbolic link, another by its own name:
    an edit, a close and a change on disk under either name count for both."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link.bib").symlink_to(Path("lib", "refs.bib"))
    h = await start(files=LINKED)
    await wait_for(lambda: codes(h, "main.tex") == [Code.DANGLING.value])
    await wait_for(lambda: codes(h, "paper.md") == [Code.DANGLING.value])
    # the buffer of the file's own name: the project reading it through the link sees it
    h.editor.open("lib/refs.bib")
    h.editor.replace("lib/refs.bib", "@book{a", "@book{b, title={B}}\n@book{a")
    await wait_for(lambda: codes(h, "main.tex") == [])
    h.editor.close("lib/refs.bib")
    await wait_for(lambda: codes(h, "main.tex") == [Code.DANGLING.value])
    # the buffer of the link: the project naming the file itself sees it
    h.editor.open("link.bib")
    h.editor.replace("link.bib", "@book{a", "@book{c, title={C}}\n@book{a")
    await wait_for(lambda: codes(h, "paper.md") == [])
    h.editor.close("link.bib")
    await wait_for(lambda: codes(h, "paper.md") == [Code.DANGLING.value])
    # a change on disk reported under the file's own name reaches the link's readers
    (h.root / "lib" / "refs.bib").write_text(
        "@book{a, title={A}}\n@book{b, title={B}}\n", encoding="utf-8"
    )
    changed(h, "lib/refs.bib", types.FileChangeType.Changed)
    await wait_for(lambda: codes(h, "main.tex") == [])


def folders_event(
    h: Harness, added: list[types.WorkspaceFolder], removed: list[types.WorkspaceFolder]
) -> None:
    h.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=added, removed=removed)
        )
    )


def folder_with_ghost(h: Harness, name: str) -> tuple[types.WorkspaceFolder, str]:
    """A folder beside the workspace holding a document that cites an undefined key."""
    other = h.root.parent / name
    other.mkdir()
    (other / "notes.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{ghost}\n\\end{document}\n",
        encoding="utf-8",
    )
    return types.WorkspaceFolder(uri=other.as_uri(), name=name), (other / "notes.tex").as_uri()


async def test_a_folder_added_twice_stays_until_removed_twice(start: Start) -> None:
    """Each addition of a folder counts: removed once of twice, it is still open."""
    h = await start()
    folder, uri = folder_with_ghost(h, "other")
    folders_event(h, [folder], [])
    folders_event(h, [folder], [])
    await wait_for(lambda: h.client.diagnostics.get(uri))
    folders_event(h, [], [folder])
    # a third folder's diagnostics come after the removal has been handled
    third, third_uri = folder_with_ghost(h, "third")
    folders_event(h, [third], [])
    await wait_for(lambda: h.client.diagnostics.get(third_uri))
    assert [d.code for d in h.client.diagnostics[uri]] == [Code.DANGLING.value]
    assert all(p.diagnostics for p in h.published if p.uri == uri)
    folders_event(h, [], [folder])
    await wait_for(lambda: not h.client.diagnostics.get(uri))
    # removed and added again in one event: still open
    folders_event(h, [third], [third])
    folders_event(h, [folder], [])
    await wait_for(lambda: h.client.diagnostics.get(uri))
    assert [d.code for d in h.client.diagnostics[third_uri]] == [Code.DANGLING.value]
