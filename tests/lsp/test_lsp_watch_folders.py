"""Folders created in a workspace (workspace/didChangeWatchedFiles): only the new folder is
walked, by the rules of the walk of its workspace folder; a folder that walk skips (under
``.git``, ``node_modules``) is not walked at all."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from lsprotocol import types

from citewarden import project
from citewarden.lsp.session import Session
from citewarden.lsp.watch import _project_files_under
from citewarden.project import Workspace
from citewarden.settings import Settings

CREATED = types.FileChangeType.Created


def test_a_created_folder_is_walked_alone_and_skipped_ones_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    for chapter in ("ch1", "ch2"):
        (root / chapter).mkdir()
        (root / chapter / "s.tex").write_text("x", encoding="utf-8")
    work = Workspace(Settings(ignore=("new/drafts/*",)), root=root)
    work.add_folder(root)
    session = cast(Session, SimpleNamespace(roots=[root], open={}))
    walked: list[Path] = []
    walk = os.walk

    def counting_walk(top: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        walked.append(Path(top))
        return walk(top, *args, **kwargs)

    monkeypatch.setattr(project.os, "walk", counting_walk)
    skipped = [root / ".git" / "objects" / f"{i:02x}" for i in range(4)]
    skipped += [root / "node_modules" / "pkg", root / "ch1" / "_build"]
    for folder in skipped:
        folder.mkdir(parents=True)
        (folder / "junk.tex").write_text("x", encoding="utf-8")
    found = _project_files_under(work, session, [(f, CREATED) for f in skipped])
    assert (found, walked) == ([], [])

    new = root / "new"
    (new / "drafts").mkdir(parents=True)
    (new / "a.tex").write_text("x", encoding="utf-8")
    (new / "drafts" / "b.tex").write_text("x", encoding="utf-8")  # ignored, from the root
    (new / ".hidden").mkdir()
    (new / ".hidden" / "c.tex").write_text("x", encoding="utf-8")
    (root / "elsewhere.tex").write_text("x", encoding="utf-8")  # not in the new folder
    found = _project_files_under(work, session, [(new, CREATED)])
    assert found == [new / "a.tex"]
    assert walked[0] == new and root not in walked
    assert new / "a.tex" in work.known_files()
    assert root / "elsewhere.tex" not in work.known_files()


def test_the_files_of_a_deleted_folder_are_no_longer_known(tmp_path: Path) -> None:
    """A deleted folder's files gone from disk are forgotten (they stayed known, read as
    missing on every check); one open in the editor, or back on disk, stays."""
    root = tmp_path.resolve()
    (root / "main.tex").write_text("x", encoding="utf-8")
    chapters = root / "chapters"
    chapters.mkdir()
    for name in ("c1.tex", "c2.tex", "open.tex"):
        (chapters / name).write_text("x", encoding="utf-8")
    work = Workspace(Settings(), root=root)
    work.add_folder(root)
    session = cast(Session, SimpleNamespace(roots=[root], open={chapters / "open.tex": "u"}))
    for name in ("c1.tex", "open.tex"):
        (chapters / name).unlink()  # c2.tex is back on disk by the time the event comes
    found = _project_files_under(work, session, [(chapters, types.FileChangeType.Deleted)])
    assert sorted(found) == [chapters / "c1.tex", chapters / "c2.tex"]
    assert sorted(work.known_files()) == [
        chapters / "c2.tex",
        chapters / "open.tex",
        root / "main.tex",
    ]


def test_a_link_to_a_folder_created_is_not_walked_as_the_first_walk_does_not(
    tmp_path: Path,
) -> None:
    """A symbolic link to a folder, created in the workspace (``ln -s . again``): the first
    walk does not follow such links, nor does the walk of the folder created (it walked
    the whole workspace again under the link, every paper checked twice), nor a file
    created under it."""
    root = tmp_path.resolve()
    (root / "main.tex").write_text("x", encoding="utf-8")
    (root / "ch").mkdir()
    (root / "ch" / "c.tex").write_text("x", encoding="utf-8")
    work = Workspace(Settings(), root=root)
    work.add_folder(root)
    known = sorted(work.known_files())
    session = cast(Session, SimpleNamespace(roots=[root], open={}))
    (root / "again").symlink_to(root, target_is_directory=True)
    (root / "ch" / "new.tex").write_text("x", encoding="utf-8")
    found = _project_files_under(work, session, [(root / "again", CREATED)])
    assert found == []
    assert work.add_created(root, root / "again" / "ch" / "new.tex") == []
    assert sorted(work.known_files()) == known
    assert work.add_created(root, root / "ch" / "new.tex") == [root / "ch" / "new.tex"]
