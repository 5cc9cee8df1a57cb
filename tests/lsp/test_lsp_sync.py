"""Document sync beyond the usual editor: documents opened again, versions repeated, one file
open under two URIs, nested workspace folders, folders deleted on disk, and code actions
that edit other open files."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsp_editor import wait_for
from lsprotocol import types

from conftest import Harness, Start

PAPER = r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{a, title = {A}}
"""


def paper(key: str) -> str:
    return f"\\documentclass{{article}}\n\\begin{{document}}\n\\cite{{{key}}}\n" + (
        "\\bibliography{refs}\n\\end{document}\n"
    )


def keys(h: Harness, uri: str) -> list[str]:
    """The keys the findings on ``uri`` name ("code key")."""
    found = h.client.diagnostics.get(uri) or []
    return sorted(f"{d.code} {d.message.split(chr(39))[1]}" for d in found)


def send_open(h: Harness, uri: str, text: str, version: int) -> None:
    h.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="latex", version=version, text=text
            )
        )
    )


def send_change(h: Harness, uri: str, text: str, version: int) -> None:
    h.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def test_a_document_opened_again_with_the_same_version_is_checked(start: Start) -> None:
    h = await start(files=PAPER)
    uri = h.uri("main.tex")
    send_open(h, uri, paper("zzz"), 1)
    await wait_for(lambda: keys(h, uri) == ["dangling-citation zzz"])
    send_open(h, uri, paper("yyy"), 1)
    await wait_for(lambda: keys(h, uri) == ["dangling-citation yyy"])


async def test_a_change_that_repeats_the_version_is_checked(start: Start) -> None:
    h = await start(files=PAPER)
    uri = h.uri("main.tex")
    send_open(h, uri, paper("a"), 0)
    send_change(h, uri, paper("xxx"), 0)
    await wait_for(lambda: keys(h, uri) == ["dangling-citation xxx"])
    send_change(h, uri, paper("a"), 0)
    await wait_for(lambda: keys(h, uri) == [])


async def test_closing_one_of_two_uris_of_a_file_keeps_the_other_buffer(start: Start) -> None:
    h = await start(files=PAPER)
    uri = h.uri("main.tex")
    other = uri.replace("main.tex", "%6Dain.tex")  # the same file
    send_open(h, uri, paper("zzz"), 1)
    await wait_for(lambda: keys(h, uri) == ["dangling-citation zzz"])
    send_open(h, other, paper("yyy"), 1)
    await wait_for(lambda: keys(h, other) == ["dangling-citation yyy"])
    h.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=other))
    )
    # the first buffer is still open: its text is checked, not the file on disk
    send_change(h, uri, paper("www"), 2)
    await wait_for(lambda: keys(h, uri) == ["dangling-citation www"])
    assert keys(h, other) == []


async def test_closing_a_file_opened_under_another_spelling_clears_that_uri(
    start: Start,
) -> None:
    """A file opened only under another spelling of its URI: once closed, its diagnostics
    go to its own URI, and none stay under the spelling (they did for good)."""
    h = await start(files=PAPER)
    for spelling in ("%6Dain.tex", "./main.tex", "../ws/main.tex"):
        uri = h.uri("main.tex")
        other = uri.replace("main.tex", spelling)
        assert other != uri
        send_open(h, other, paper("zzz"), 1)
        await wait_for(lambda o=other: keys(h, o) == ["dangling-citation zzz"])
        h.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=other))
        )
        await wait_for(lambda o=other: keys(h, o) == [])
        assert other in h.client.diagnostics  # an empty list was published to it


NESTED = r"""
--- main.tex
\cite{a}
\bibliography{refs}
--- refs.bib
@misc{a, title = {A}}
--- sub/notes.tex
\cite{ghost,a}
\bibliography{../refs}
"""


def change_folders(h: Harness, added: list[Path], removed: list[Path]) -> None:
    def folders(paths: list[Path]) -> list[types.WorkspaceFolder]:
        return [types.WorkspaceFolder(uri=p.as_uri(), name=p.name) for p in paths]

    h.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=folders(added), removed=folders(removed))
        )
    )


async def test_removing_a_nested_folder_keeps_its_files_in_the_outer_one(start: Start) -> None:
    h = await start(files=NESTED)
    notes = h.uri("sub/notes.tex")
    await wait_for(lambda: keys(h, notes) == ["dangling-citation ghost"])
    change_folders(h, [h.root / "sub"], [])
    change_folders(h, [], [h.root / "sub"])
    # a folder added after the removal: once it is checked, the removal is done
    other = h.root.parent / "other"
    other.mkdir()
    (other / "other.tex").write_text(paper("nowhere"), encoding="utf-8")
    change_folders(h, [other], [])
    await wait_for(lambda: keys(h, (other / "other.tex").as_uri()))
    assert keys(h, notes) == ["dangling-citation ghost"]
    refs = await h.client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")),
            position=types.Position(line=0, character=6),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert sorted(r.uri for r in refs or []) == [h.uri("main.tex"), notes]


ORPHAN = r"""
--- main.tex
\documentclass{article}
\begin{document}

\cite{a}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{a, title = {A}}
@misc{orph, title = {O}}
"""


async def test_an_action_edits_the_current_text_of_another_open_file(start: Start) -> None:
    # the edit below is not checked before the action is asked (debounce: 10 s)
    h = await start(files=ORPHAN, init={"debounce_ms": 10000})
    h.editor.open("main.tex")
    h.editor.open("refs.bib")
    await wait_for(lambda: keys(h, h.uri("refs.bib")) == ["orphan-entry orph"])
    h.editor.replace("main.tex", "\\begin{document}\n\n", "\\begin{document}\n")
    edited = h.editor.text("main.tex")
    [diag] = h.diagnostics("refs.bib")
    result = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    [nocite] = [a for a in result or [] if isinstance(a, types.CodeAction) and "nocite{" in a.title]
    assert nocite.edit is not None
    h.editor.apply(nocite.edit)
    text = h.editor.text("main.tex")
    assert text.endswith("\\end{document}\n")
    assert text.replace("\\nocite{orph}\n", "", 1) == edited


CHAPTERS = r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{chapters/c1}
\cite{a}
\bibliography{refs}
\end{document}
--- chapters/c1.tex
\cite{nokey,a}
--- refs.bib
@misc{a, title = {A}}
"""


def folder_event(h: Harness, name: str, kind: types.FileChangeType) -> None:
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=h.uri(name), type=kind)])
    )


async def test_a_deleted_folder_takes_its_files_along(start: Start) -> None:
    h = await start(files=CHAPTERS)
    chapter, main = h.uri("chapters/c1.tex"), h.uri("main.tex")
    await wait_for(lambda: keys(h, chapter) == ["dangling-citation nokey"])
    saved = (h.root / "chapters" / "c1.tex").read_text(encoding="utf-8")
    shutil.rmtree(h.root / "chapters")
    folder_event(h, "chapters", types.FileChangeType.Deleted)  # the folder only, as VS Code
    await wait_for(lambda: any(c.startswith("missing-include") for c in keys(h, main)))
    await wait_for(lambda: keys(h, chapter) == [])
    (h.root / "chapters").mkdir()
    (h.root / "chapters" / "c1.tex").write_text(saved, encoding="utf-8")
    folder_event(h, "chapters", types.FileChangeType.Created)
    await wait_for(lambda: keys(h, chapter) == ["dangling-citation nokey"])
    assert keys(h, main) == []
    # a folder of new files (moved in): its files join the project
    (h.root / "extra").mkdir()
    (h.root / "extra" / "notes.tex").write_text(paper("ghost"), encoding="utf-8")
    folder_event(h, "extra", types.FileChangeType.Created)
    notes = h.uri("extra/notes.tex")
    await wait_for(lambda: keys(h, notes) == ["missing-bibliography refs"])  # not ../refs


async def test_folders_are_watched_for_creation_and_deletion(
    start: Start, client_name: str
) -> None:
    h = await start(files=CHAPTERS)
    watchers = [
        w
        for r in h.registrations
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        for w in (r.register_options or {}).get("watchers", [])
    ]
    kinds = [w.get("kind") for w in watchers if w.get("globPattern") == "**/*"]
    assert kinds == ([types.WatchKind.Create | types.WatchKind.Delete] if watchers else [])
    assert bool(watchers) == (client_name == "visual-studio-code")


SHARED = r"""
--- main.tex
\cite{a}
\bibliography{../shared/refs}
"""
OUTSIDE = "bibliography-outside-root"


def codes(h: Harness, uri: str) -> list[str]:
    return sorted(str(d.code) for d in h.client.diagnostics.get(uri) or [])


async def test_a_removed_folder_is_no_folder_of_the_workspace(start: Start, tmp_path: Path) -> None:
    """A bibliography in a workspace folder added is inside the root, and outside it again
    once that folder is removed: the folder stayed in the workspace's list for good."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    h = await start(files=SHARED)
    main = h.uri("main.tex")
    await wait_for(lambda: codes(h, main) == [OUTSIDE])
    change_folders(h, [shared], [])
    await wait_for(lambda: codes(h, main) == [])
    change_folders(h, [], [shared])
    await wait_for(lambda: codes(h, main) == [OUTSIDE])


def send_close(h: Harness, uri: str) -> None:
    h.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def test_files_outside_every_folder_go_once_none_of_their_project_is_open(
    start: Start, tmp_path: Path
) -> None:
    """A paper outside the workspace folders, opened and closed: its diagnostics and those
    of its bibliography are cleared once none of its files is open (they stayed for good,
    the files known as if they were in the workspace); while one is, the others still
    count for it."""
    h = await start(files=PAPER)
    away = tmp_path / "elsewhere"
    away.mkdir()
    files = {
        "main.tex": "\\input{chapter}\n\\cite{q}\n\\bibliography{refs2}\n",
        "chapter.tex": "\\cite{q,nope}\n",
        "refs2.bib": "@misc{q, title = {Q}}\n@misc{r, title = {R}}\n",
    }
    for name, text in files.items():
        (away / name).write_text(text, encoding="utf-8")
    main, chapter, bib = ((away / n).as_uri() for n in files)
    send_open(h, main, files["main.tex"], 1)
    send_open(h, chapter, files["chapter.tex"], 1)
    await wait_for(lambda: keys(h, chapter) == ["dangling-citation nope"])
    await wait_for(lambda: keys(h, bib) == ["orphan-entry r"])
    # the chapter, still open, is checked with the paper closed around it
    send_close(h, main)
    send_change(h, chapter, "\\cite{q,nope,later}\n", 2)
    await wait_for(lambda: "dangling-citation later" in keys(h, chapter))
    assert keys(h, chapter) == ["dangling-citation later", "dangling-citation nope"]
    assert keys(h, bib) == ["orphan-entry r"]
    send_close(h, chapter)
    await wait_for(lambda: keys(h, chapter) == [] and keys(h, bib) == [])
    assert keys(h, main) == []
