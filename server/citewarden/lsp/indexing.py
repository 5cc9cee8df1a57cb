"""Indexing of workspace folders in slices.

A folder's walk only lists its files; they are made known to the project model
:data:`SLICE` at a time, each slice checked and published before the next, the files in
the folders of the open documents first.  Between two slices the check cycle's lane is
free, so an edit or a request waiting for its document's check waits for one slice, never
for the whole folder (the home folder or ``/`` holds thousands of files).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.lsp.progress import WorkProgress
from citewarden.project import Workspace

if TYPE_CHECKING:
    from citewarden.lsp.session import Session

log = logging.getLogger(__name__)

#: Files made known to the project model per check while a folder is indexed.
SLICE = 200


async def walk(session: Session, roots: Sequence[Path], progress: WorkProgress) -> list[Path]:
    """Make ``roots`` folders of the project model and list the files their walks find,
    without making them known."""
    found: list[Path] = []
    for n, root in enumerate(roots, 1):
        progress.report(f"{root.name} ({n} of {len(roots)})", 0)
        try:
            found += await session.cycle.change(Workspace.add_folder, root, None, False)
        except Exception:
            log.exception("indexing %s failed", root)
    return found


def nearest_first(files: Iterable[Path], open_paths: Iterable[Path]) -> list[Path]:
    """``files``, those in the folder of an open document (or below it) first."""
    near = {p.parent for p in open_paths}
    return sorted(files, key=lambda p: not any(p.is_relative_to(f) for f in near))


def _add(work: Workspace, files: Sequence[Path], dirty: Callable[[Iterable[Path]], None]) -> int:
    """Make ``files`` known, those of folders ``work`` still has, as long as it knows fewer
    than ``max_workspace_files``.  -> how many were left out for that cap (lane thread)."""
    folders = work.folders
    kept = [p for p in files if any(p.is_relative_to(f) for f in folders)]
    room = max(0, work.settings.max_workspace_files - len(work.known_files()))
    dirty([work.add_file(p) for p in kept[:room]])
    return len(kept[room:])


def capped_message(cap: int) -> str:
    return (
        f"citewarden: the workspace folders hold more than {cap} files to check; only "
        f"{cap} are indexed (setting max_workspace_files)"
    )


async def index(session: Session, files: Sequence[Path], progress: WorkProgress) -> None:
    """Make ``files`` known and check them a slice at a time, the open documents' folders
    first; the session is ready (requests answered) once the first slice is checked, and
    :attr:`~.session.Session.indexed_all` once the last is.  Files past the cap are left out, and the editor told so once."""
    files = nearest_first(files, session.open)
    done = 0
    while True:
        part = files[done : done + SLICE]
        left_out = await session.cycle.change(_add, part, session.cycle.mark_dirty)
        done += len(part)
        progress.report(f"{done} of {len(files)} files", done * 95 // max(1, len(files)))
        await session.refresh(None)
        if left_out or done >= len(files):
            session.indexed_all.set()  # before ready: nothing is answered between the two
            await session.republish()  # the orphans, held back until now
        session.ready.set()
        if left_out:
            session.say_once(capped_message(session.settings.max_workspace_files))
        if left_out or done >= len(files):
            return
