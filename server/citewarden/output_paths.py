"""Where a report named by the user goes: one rule for ``check --output`` and the editor's
``citewarden.report`` command (a leading ``~``, a folder that must be there)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def expanded_output(raw: str) -> str:
    """The path of a report ``raw`` names, with a leading ``~`` or ``~user`` made that home
    folder as a shell does: one rule for ``check --output`` (a quoted ``'~/r.html'`` meets
    no shell) and the editor's ``citewarden.report`` command (whose argument never does).

    :raises ValueError: for a ``~user`` of no known user, with the message to show, so that
        no folder named ``~user`` is made in the workspace.
    """
    if not raw.startswith("~"):
        return raw
    expanded = os.path.expanduser(raw)
    if expanded.startswith("~"):
        head = raw.split("/", 1)[0].split(os.sep, 1)[0]
        raise ValueError(f"{head} names the home folder of no known user")
    return expanded


def missing_folder(path: Path, cwd: Path) -> str | None:
    """Why the report ``path`` (relative to ``cwd``) cannot be written for its folder: none
    there, or not a folder; None when it is one (or cannot be looked at: the write then
    says why).  One rule for ``check --output`` and the editor's ``citewarden.report``
    command: no folder is made, as a shell's ``>`` makes none, so that a misspelt one
    (``-o reprots/r.html``) is a message before the run, not a new folder holding the
    report (nor, for ``check``, an error once every entry is verified)."""
    folder = path.parent
    try:
        mode = os.stat(cwd / folder).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return f"the folder {folder} does not exist; create it first (no folder is made)"
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(mode):
        return f"{folder} is not a folder"
    return None
