"""Checking a test's workspace the way the language server does: one checker per
workspace, kept between checks, so a check after an edit reuses the previous results."""

from __future__ import annotations

from pathlib import Path
from weakref import WeakKeyDictionary

from citewarden.checks import Checker
from citewarden.model import Finding
from citewarden.project import Workspace

_CHECKERS: WeakKeyDictionary[Workspace, Checker] = WeakKeyDictionary()


def check(ws: Workspace) -> dict[Path, list[Finding]]:
    """Every finding of ``ws`` by file, from the checker that checked it before."""
    checker = _CHECKERS.get(ws)
    if checker is None:
        checker = _CHECKERS[ws] = Checker()
    return checker.check(ws)
