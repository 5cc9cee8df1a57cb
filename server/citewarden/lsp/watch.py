"""Files that are not open: watched through workspace/didChangeWatchedFiles.

The watchers are registered dynamically when the client allows it.  A change to a file that
is open in the editor is ignored (the editor's text wins); anything else is re-read from disk.
A change to ``.citewarden.toml`` reloads the settings.  A bibliography changed on disk is
verified again, as when it is saved in the editor.  The files the TeX tools read from disk
whatever the editor holds (:data:`DISK_FILES`: a BibTeX style, latexmk's settings) are
re-read when they change on disk or are saved, open or not: the project graph is computed
again, and with it the style's macros and the search paths.

A folder deleted or created is one event for the folder (VS Code reports nothing for the
files in it), so every path is watched for creation and deletion too; such an event counts
only for a folder that holds files of the project (deleted: the files known under it,
no longer known once gone from disk; created: the project files found in it), or for a
file the project knows.  A file created in a workspace folder is known from then on, as
the first walk of the folder would have found it.
"""

from __future__ import annotations

import logging
import os
from fnmatch import fnmatch, fnmatchcase
from pathlib import Path

from lsprotocol import types

from citewarden.lsp.client_answers import NoAnswer, answer
from citewarden.lsp.convert import path_of
from citewarden.lsp.session import WORKSPACE, Session
from citewarden.parsing import (
    BIBTEX_SUFFIXES,
    CSL_JSON_SUFFIXES,
    PACKAGE_SUFFIXES,
    PROJECT_SUFFIXES,
    YAML_SUFFIXES,
)
from citewarden.project import Workspace, walks_into
from citewarden.settings import CONFIG_FILE, config_dirs_above

log = logging.getLogger(__name__)

REGISTRATION_ID = "citewarden-watch"
#: The registration of the settings files above the first workspace folder.
SETTINGS_REGISTRATION_ID = "citewarden-watch-settings"

#: Files that can hold bibliography entries.
BIBLIOGRAPHY_SUFFIXES = BIBTEX_SUFFIXES | CSL_JSON_SUFFIXES | YAML_SUFFIXES

#: Every extension of a file a project can consist of, in lower case and matched in any
#: case: those the walk of a folder takes (:data:`citewarden.parsing.PROJECT_SUFFIXES`)
#: and the LaTeX packages and classes a document loads.
WATCHED_SUFFIXES = PROJECT_SUFFIXES | PACKAGE_SUFFIXES

#: Files the TeX tools read from disk, never from an editor buffer: BibTeX styles (their
#: ``MACRO``s, :mod:`citewarden.bibtex_styles`) and latexmk's settings (``BSTINPUTS``,
#: ``BIBINPUTS``, ``TEXINPUTS``, :mod:`citewarden.search_paths`).
DISK_FILES = ("*.bst", ".latexmkrc")


def any_case(suffix: str) -> str:
    """The glob pattern of the file names ending in ``suffix`` in any case (``.bib``:
    ``**/*.[bB][iI][bB]``): LSP glob patterns match case, and a file system may not."""
    letters = "".join(f"[{c.lower()}{c.upper()}]" if c.lower() != c.upper() else c for c in suffix)
    return f"**/*{letters}"


#: Everything a project can consist of.
PATTERNS = (
    *(any_case(suffix) for suffix in sorted(WATCHED_SUFFIXES)),
    *(f"**/{name}" for name in DISK_FILES),
    f"**/{CONFIG_FILE}",
)


#: Every path, for folders created and deleted (files' own events come through
#: :data:`PATTERNS`).
FOLDERS = "**/*"


def watched_name(path: Path) -> bool:
    """Whether ``path``'s name is one :data:`PATTERNS` watches."""
    if path.suffix.lower() in WATCHED_SUFFIXES:
        return True
    return path.name == CONFIG_FILE or any(fnmatchcase(path.name, n) for n in DISK_FILES)


def read_from_disk(path: Path) -> bool:
    """Whether the tools read ``path`` from disk whatever the editor holds."""
    return any(fnmatch(path.name, name) for name in DISK_FILES)


def dynamic_registration_supported(session: Session) -> bool:
    ws = session.server.client_capabilities.workspace
    watched = ws.did_change_watched_files if ws is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def _register_watchers(
    session: Session,
    registration_id: str,
    options: types.DidChangeWatchedFilesRegistrationOptions,
    what: str,
) -> None:
    """Ask the client to watch files under ``registration_id``; raises NoAnswer (logged)
    when it does not answer, or what its refusal raises."""
    params = types.RegistrationParams(
        registrations=[
            types.Registration(
                id=registration_id,
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
        ]
    )
    await answer(
        session.server.client_register_capability_async(params),
        f"client/registerCapability ({what})",
    )


async def register(session: Session) -> bool:
    """Ask the client to watch project files; False when it cannot."""
    if not dynamic_registration_supported(session):
        return False
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[
            *(types.FileSystemWatcher(glob_pattern=p) for p in PATTERNS),
            types.FileSystemWatcher(
                glob_pattern=FOLDERS, kind=types.WatchKind.Create | types.WatchKind.Delete
            ),
        ]
    )
    try:
        await _register_watchers(session, REGISTRATION_ID, options, "file watching")
    except NoAnswer:
        return False  # logged
    except Exception:
        log.warning("client refused file watching", exc_info=True)
        return False
    return True


def _settings_watchers(session: Session) -> list[types.FileSystemWatcher]:
    """A watcher of each settings file above the first workspace folder that the server
    would read (a client's glob patterns cover only the workspace folders)."""
    root = session.config.root
    if root is None:
        return []
    ws = session.server.client_capabilities.workspace
    watched = ws.did_change_watched_files if ws is not None else None
    relative = bool(watched is not None and watched.relative_pattern_support)
    return [
        types.FileSystemWatcher(
            glob_pattern=types.RelativePattern(base_uri=folder.as_uri(), pattern=CONFIG_FILE)
            if relative
            else (folder / CONFIG_FILE).as_posix()
        )
        for folder in config_dirs_above(root)
    ]


async def watch_settings_above(session: Session) -> None:
    """Register watchers of the settings files above the first workspace folder, anew
    when that folder changed (those registered before are given up)."""
    if not dynamic_registration_supported(session):
        return
    watchers = _settings_watchers(session)
    if watchers == session.settings_watchers:
        return
    server = session.server
    try:
        if session.settings_watchers:
            await answer(
                server.client_unregister_capability_async(
                    types.UnregistrationParams(
                        unregisterations=[
                            types.Unregistration(
                                id=SETTINGS_REGISTRATION_ID,
                                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            )
                        ]
                    )
                ),
                "client/unregisterCapability (settings files)",
            )
        session.settings_watchers = []
        if watchers:
            options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
            await _register_watchers(session, SETTINGS_REGISTRATION_ID, options, "settings files")
        session.settings_watchers = watchers
    except NoAnswer:
        pass  # logged; registered anew when the first folder changes
    except Exception:
        log.warning("client refused watching the settings files above", exc_info=True)


async def files_changed(session: Session, params: types.DidChangeWatchedFilesParams) -> None:
    """Re-read changed files that are not open; reload settings if the config changed."""
    paths: list[Path] = []
    others: list[tuple[Path, types.FileChangeType]] = []
    under_buffers: list[Path] = []  # open files that changed on disk
    created: list[Path] = []  # files of watched names created (a pull, a script)
    config_changed = False
    for change in params.changes:
        path = path_of(change.uri)
        if path is None:
            continue
        if path.name == CONFIG_FILE:
            config_changed = True
        elif not watched_name(path):
            others.append((path, change.type))  # a folder, perhaps
        elif not (path in session.open and not read_from_disk(path)):
            paths.append(path)
            if change.type == types.FileChangeType.Created:
                created.append(path)
        else:
            under_buffers.append(path)
    if others:
        found = await session.change(_project_files_under, session, others)
        paths += [p for p in found if p not in paths]
    if created:
        await session.change(_add_created, session, created)
    if paths:
        await session.change(_invalidate_all, session, paths)
    if under_buffers:
        await session.change(_disk_changed_under_buffers, session, under_buffers)
    if config_changed:
        await session.settings_changed(None)
    elif paths or under_buffers:
        session.tasks.debounce(WORKSPACE, "watched", 0, lambda: session.refresh(None))
    # a bibliography rewritten on disk (a script, a pull) is verified again like a saved one
    for path in paths:
        if path.suffix.lower() in BIBLIOGRAPHY_SUFFIXES:
            await session.features.saved(path)


async def saved(session: Session, uri: str) -> None:
    """A file the tools read from disk was saved in the editor: re-read, as a watched
    change (a client may watch no files, and a change to an open file is not reported);
    the settings file saved reloads the settings."""
    path = path_of(uri)
    if path is None:
        return
    if path.name == CONFIG_FILE:  # read from disk too, as a change on disk reloads it
        await session.settings_changed(None)
        return
    if not read_from_disk(path):  # the buffer counts; the file's encoding may have changed
        await session.change(_disk_changed_under_buffers, session, [path])
        session.tasks.debounce(WORKSPACE, "watched", 0, lambda: session.refresh(None))
        return
    await session.change(_invalidate_all, session, [path])
    session.tasks.debounce(WORKSPACE, "watched", 0, lambda: session.refresh(None))


def _disk_changed_under_buffers(work: Workspace, session: Session, paths: list[Path]) -> None:
    for path in paths:
        work.disk_changed_under_buffer(path)
    session.mark_dirty(paths)


def _add_created(work: Workspace, session: Session, paths: list[Path]) -> None:
    """Files created on disk that the walk of a workspace folder finds are known from now
    on: checked and reported though nothing links to them, as if there at the start."""
    for path in paths:
        for root in session.roots:
            work.add_created(root, path)


def _invalidate_all(work: Workspace, session: Session, paths: list[Path]) -> None:
    for path in paths:
        work.invalidate(path)
    session.mark_dirty(paths)


def _project_files_under(
    work: Workspace, session: Session, events: list[tuple[Path, types.FileChangeType]]
) -> list[Path]:
    """The project files at or under the paths of ``events`` (folders created or
    deleted, or files named otherwise than the watched ones), open ones aside (lane)."""
    known = dict.fromkeys(work.known_files())
    folders = {path.parent for path in known}  # fewer than the files: their parents once
    holders = {parent for folder in folders for parent in (folder, *folder.parents)}
    found: list[Path] = []
    for path, kind in events:
        if path in holders:
            under = [p for p in known if p.is_relative_to(path)]
            if kind == types.FileChangeType.Deleted:
                _forget_gone(work, session, under)
            found += under
        elif path in known:
            found.append(path)
        if kind == types.FileChangeType.Created:
            found += _discover(work, session, path)
    return [p for p in dict.fromkeys(found) if p not in session.open or read_from_disk(p)]


def _forget_gone(work: Workspace, session: Session, paths: list[Path]) -> None:
    """The files of a deleted folder that are gone from disk, open ones aside, are no
    longer known: a file that something links to is found (or missed) by the link."""
    for path in paths:
        if path not in session.open and not os.path.lexists(path):
            work.remove(path)


def _discover(work: Workspace, session: Session, folder: Path) -> list[Path]:
    """The project files in a folder created in a workspace folder, made known: the folder
    alone is walked, by the rules of its workspace folder's walk; one that walk skips (in
    ``.git``, ``node_modules``...) costs nothing."""
    roots = [root for root in session.roots if walks_into(root, folder)]
    if not roots or not folder.is_dir():
        return []
    return [p for root in roots for p in work.add_folder(root, under=folder)]
