"""A workspace folder of thousands of files is indexed a slice at a time: the open
document and its folder are answered for while the rest is still being checked."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from test_lsp_hostile import RawClient, workspace

__all__ = ["workspace"]  # the small project of the server tests, a fixture

#: Files of the big folder, and seconds a hover may take: checking them all takes several
#: times longer here (about 5 ms a file).
FILES = 3000
PROMPT = 8.0

PARAGRAPH = "Para {j} says *this* [see @k{j}, p. 3; @k{n}] and `code` here.\n\n"


def _big_folder(root: Path, files: int = FILES) -> None:
    body = "".join(PARAGRAPH.format(j=j, n=j + 1) for j in range(120))
    for i in range(files):
        folder = root / "big" / f"p{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"d{i}.md").write_text(f"# Doc {i}\n\n{body}")


def _progress(client: RawClient, kind: str) -> list[dict[str, Any]]:
    return [
        n["params"]["value"]
        for n in client.notifications
        if n["method"] == "$/progress" and n["params"]["value"].get("kind") == kind
    ]


def _last_slice_reported(client: RawClient) -> bool:
    """Whether the indexing progress has said every file was checked ("N of N files")."""
    for report in _progress(client, "report"):
        done, _, total = report.get("message", "").partition(" of ")
        if done and total == f"{done} files":
            return True
    return False


def _wait_for_end(client: RawClient, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while not _progress(client, "end"):
        assert time.time() < deadline, "the indexing did not end"
        client._pump(min(deadline, time.time() + 0.2))
        client._sort()


def _open(client: RawClient, path: Path) -> None:
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": path.as_uri(),
                    "languageId": "latex",
                    "version": 1,
                    "text": path.read_text(),
                }
            },
        }
    )


def _initialize(client: RawClient, root: Path, folders: list[Path], **options: Any) -> None:
    msg_id = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "capabilities": {
                "window": {"workDoneProgress": True},
                "workspace": {"workspaceFolders": True},
            },
            "workspaceFolders": [{"uri": f.as_uri(), "name": f.name} for f in folders],
            "initializationOptions": {"verify": {"enabled": False}, **options},
        },
    )
    assert "result" in client.response(msg_id)
    client.send({"method": "initialized", "params": {}})


def _hover_is_prompt(client: RawClient) -> None:
    started = time.time()
    hover = client.hover("main.tex", 0, 7, timeout=PROMPT)
    assert "`@misc{a}` in refs.bib" in str(hover["result"]), hover
    assert time.time() - started < PROMPT
    assert not _progress(client, "end"), "the big folder was indexed already"


def test_hover_is_answered_while_a_big_folder_is_indexed(workspace: Path, tmp_path: Path) -> None:
    root = workspace
    _big_folder(root)
    client = RawClient(root, tmp_path / "cache")
    try:
        _initialize(client, root, [root])
        _open(client, root / "main.tex")
        _hover_is_prompt(client)
        assert any("files" in r.get("message", "") for r in _progress(client, "report"))
    finally:
        client.close()


def test_hover_is_answered_while_an_added_big_folder_is_indexed(
    workspace: Path, tmp_path: Path
) -> None:
    root = workspace
    big = tmp_path / "big"
    big.mkdir()
    _big_folder(big)
    client = RawClient(root, tmp_path / "cache")
    try:
        _initialize(client, root, [root])
        _open(client, root / "main.tex")
        assert "`@misc{a}` in refs.bib" in str(client.hover("main.tex", 0, 7)["result"])
        _wait_for_end(client)
        ended = len(_progress(client, "end"))
        client.send(
            {
                "method": "workspace/didChangeWorkspaceFolders",
                "params": {
                    "event": {"added": [{"uri": big.as_uri(), "name": "big"}], "removed": []}
                },
            }
        )
        # an edit of the open document, checked before the hover answers
        client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": (root / "main.tex").as_uri(), "version": 2},
                    "contentChanges": [{"text": "\\cite{a}\n\\bibliography{refs}\n%\n"}],
                },
            }
        )
        time.sleep(1.0)  # the walk of the added folder is under way
        started = time.time()
        hover = client.hover("main.tex", 0, 7, timeout=PROMPT)
        assert "`@misc{a}` in refs.bib" in str(hover["result"]), hover
        assert time.time() - started < PROMPT
        assert len(_progress(client, "end")) == ended, "the added folder was indexed already"
    finally:
        client.close()


def test_files_past_the_cap_are_left_out_and_said_so_once(workspace: Path) -> None:
    for i in range(120):
        # after main.tex and refs.bib in the walk, each citing a key refs.bib lacks
        (workspace / f"x{i:03}.tex").write_text(f"\\cite{{missing{i}}}\n\\bibliography{{refs}}\n")
    client = RawClient(workspace, workspace.parent / "cache")
    try:
        _initialize(client, workspace, [workspace], max_workspace_files=50)
        _wait_for_end(client)
        assert "`@misc{a}` in refs.bib" in str(client.hover("main.tex", 0, 7)["result"])
        published = {
            n["params"]["uri"]
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics" and n["params"]["diagnostics"]
        }
        assert 30 <= len(published) <= 50, sorted(published)
        said = [
            n["params"]["message"]
            for n in client.notifications
            if n["method"] == "window/showMessage"
            and "max_workspace_files" in n["params"]["message"]
        ]
        assert said == [
            "citewarden: the workspace folders hold more than 50 files to check; only 50 are "
            "indexed (setting max_workspace_files)"
        ]
    finally:
        client.close()


def test_rename_and_quick_fixes_wait_for_every_file_of_a_big_folder(
    workspace: Path, tmp_path: Path
) -> None:
    """Rename was answered once the first slice was checked, from the files read so far: a
    citation of the key in a file of a later slice was left with the old name."""
    root = workspace
    _big_folder(root)
    late = root / "big" / "p29" / "late.tex"
    late.write_text("\\cite{a}\n\\bibliography{../../refs}\n")
    client = RawClient(root, tmp_path / "cache")
    try:
        _initialize(client, root, [root])
        _open(client, root / "main.tex")
        _hover_is_prompt(client)
        msg_id = client.request(
            "textDocument/rename",
            {
                "textDocument": {"uri": (root / "main.tex").as_uri()},
                "position": {"line": 0, "character": 7},
                "newName": "b",
            },
        )
        edit = client.response(msg_id, timeout=120)["result"]
        # the last slice's report precedes the answer (the end of the progress may follow it)
        assert _last_slice_reported(client), "answered before the folder was indexed"
        changed = set(edit.get("changes") or {}) | {
            c["textDocument"]["uri"] for c in edit.get("documentChanges") or []
        }
        assert late.as_uri() in changed, sorted(changed)
    finally:
        client.close()


def _orphans_of(client: RawClient, uri: str) -> list[list[str]]:
    """Every list of orphan messages published for ``uri``, in order."""
    return [
        [d["message"] for d in n["params"]["diagnostics"] if d.get("code") == "orphan-entry"]
        for n in client.notifications
        if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
    ]


def test_no_orphan_is_shown_for_an_entry_cited_in_a_file_not_yet_read(
    workspace: Path, tmp_path: Path
) -> None:
    """An entry cited only in a file of a later slice was shown as never cited until that
    slice was read; entries no file cites are shown once every file is read."""
    root = workspace
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n@misc{late, title = {L}}\n@misc{z}\n")
    _big_folder(root)
    (root / "big" / "p29" / "late.tex").write_text("\\cite{late}\n\\bibliography{../../refs}\n")
    client = RawClient(root, tmp_path / "cache")
    try:
        _initialize(client, root, [root])
        _open(client, root / "main.tex")
        _wait_for_end(client, timeout=120)
        deadline = time.time() + 30
        uri = (root / "refs.bib").as_uri()
        while not any("'z'" in " ".join(o) for o in _orphans_of(client, uri)):
            assert time.time() < deadline, _orphans_of(client, uri)
            client._pump(min(deadline, time.time() + 0.2))
            client._sort()
        shown = _orphans_of(client, uri)
        assert not any("'late'" in m for o in shown for m in o), shown
        assert len(shown[-1]) == 1 and "'z'" in shown[-1][0], shown
    finally:
        client.close()
