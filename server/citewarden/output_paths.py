"""Where a report named by the user goes: one rule for ``check --output`` and the editor's
``citewarden.report`` command."""

from __future__ import annotations

import os


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
