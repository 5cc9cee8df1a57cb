"""Files that are not open: watched through workspace/didChangeWatchedFiles.

The watchers are registered dynamically when the client allows it.  A change to a file that
is open in the editor is ignored (the editor's text wins); anything else is re-read from disk.
A change to ``.citewarden.toml`` reloads the settings.  A bibliography changed on disk is
verified again, as when it is saved in the editor.  The files the TeX tools read from disk
whatever the editor holds (:data:`DISK_FILES`: a BibTeX style, latexmk's settings) are
re-read when they change on disk or are saved, open or not: the project graph is computed
again, and with it the style's macros and the search paths.
"""

from __future__ import annotations

import logging
from fnmatch import fnmatch
from pathlib import Path

from lsprotocol import types

from citewarden.lsp.convert import path_of
from citewarden.lsp.session import WORKSPACE, Session
from citewarden.project import Workspace
from citewarden.settings import CONFIG_FILE

log = logging.getLogger(__name__)

REGISTRATION_ID = "citewarden-watch"

#: Files that can hold bibliography entries.
BIBLIOGRAPHY_SUFFIXES = frozenset({".bib", ".bibtex", ".json", ".yaml", ".yml"})

#: Files the TeX tools read from disk, never from an editor buffer: BibTeX styles (their
#: ``MACRO``s, :mod:`citewarden.bibtex_styles`) and latexmk's settings (``BSTINPUTS``,
#: ``BIBINPUTS``, ``TEXINPUTS``, :mod:`citewarden.search_paths`).
DISK_FILES = ("*.bst", ".latexmkrc")

#: Everything a project can consist of.
PATTERNS = (
    "**/*.{tex,ltx,latex}",
    "**/*.{sty,cls}",
    "**/*.{md,markdown,qmd,Rmd,rmd}",
    "**/*.{bib,bibtex}",
    "**/*.{json,yaml,yml}",
    *(f"**/{name}" for name in DISK_FILES),
    f"**/{CONFIG_FILE}",
)


def read_from_disk(path: Path) -> bool:
    """Whether the tools read ``path`` from disk whatever the editor holds."""
    return any(fnmatch(path.name, name) for name in DISK_FILES)


def dynamic_registration_supported(session: Session) -> bool:
    ws = session.server.client_capabilities.workspace
    watched = ws.did_change_watched_files if ws is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def register(session: Session) -> bool:
    """Ask the client to watch project files; False when it cannot."""
    if not dynamic_registration_supported(session):
        return False
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=p) for p in PATTERNS]
    )
    try:
        await session.server.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id=REGISTRATION_ID,
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception:
        log.warning("client refused file watching", exc_info=True)
        return False
    return True


async def files_changed(session: Session, params: types.DidChangeWatchedFilesParams) -> None:
    """Re-read changed files that are not open; reload settings if the config changed."""
    paths = []
    config_changed = False
    for change in params.changes:
        path = path_of(change.uri)
        if path is None:
            continue
        if path.name == CONFIG_FILE:
            config_changed = True
            continue
        if path in session.open and not read_from_disk(path):
            continue
        paths.append(path)
    if paths:
        await session.change(_invalidate_all, session, paths)
    if config_changed:
        await session.settings_changed(None)
    elif paths:
        session.tasks.debounce(WORKSPACE, "watched", 0, lambda: session.refresh(None))
    # a bibliography rewritten on disk (a script, a pull) is verified again like a saved one
    for path in paths:
        if path.suffix.lower() in BIBLIOGRAPHY_SUFFIXES:
            await session.features.saved(path)


async def saved(session: Session, uri: str) -> None:
    """A file the tools read from disk was saved in the editor: re-read, as a watched
    change (a client may watch no files, and a change to an open file is not reported)."""
    path = path_of(uri)
    if path is None or not read_from_disk(path):
        return
    await session.change(_invalidate_all, session, [path])
    session.tasks.debounce(WORKSPACE, "watched", 0, lambda: session.refresh(None))


def _invalidate_all(work: Workspace, session: Session, paths: list[Path]) -> None:
    for path in paths:
        work.invalidate(path)
    session.mark_dirty(paths)
