"""Files found in TeX's trees, as kpathsea finds them: ``kpsewhich -format=FORMAT NAME``.

A file found is kept while it is there (no ``kpsewhich`` run on the editor's typing path
once a minute); an answer of none is kept :data:`KPSEWHICH_LIFETIME` seconds, so that a
file installed meanwhile is found; without ``kpsewhich``, or without an answer within
:data:`KPSEWHICH_TIMEOUT` seconds, the file is not there.  ``kpsewhich`` runs from the file
system's root: the folder TeX runs in is the caller's to search first.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from citewarden.programs import program_output

#: Seconds ``kpsewhich`` may take to answer for one file.
KPSEWHICH_TIMEOUT = 10.0
#: Seconds an answer of ``kpsewhich`` is kept.
KPSEWHICH_LIFETIME = 60.0
#: Answers remembered at most; past that all are dropped.
MAX_REMEMBERED = 256

_lock = threading.Lock()
#: (format, name) -> when kpsewhich was asked (time.monotonic) and the file it found
_answers: dict[tuple[str, str], tuple[float, Path | None]] = {}


def searchable(name: str) -> bool:
    """Whether ``name`` can be asked of ``kpsewhich`` (not empty, no option, no NUL)."""
    return bool(name) and not name.startswith("-") and "\x00" not in name


def find_in_trees(name: str, file_format: str) -> Path | None:
    """The file ``name`` of ``file_format`` (``bst``, ``tex``) in TeX's trees, or None."""
    if not searchable(name):
        return None
    with _lock:
        known = _answers.get((file_format, name))
    if known is not None:
        if time.monotonic() - known[0] < KPSEWHICH_LIFETIME:
            return known[1]
        if known[1] is not None and known[1].is_file():
            return known[1]  # still there: a copy put earlier in the search is not looked for
    found: Path | None = None
    program = shutil.which("kpsewhich")
    if program is not None:
        top = os.path.abspath(os.sep)
        args = [program, f"-format={file_format}", "--", name]
        out = program_output(args, KPSEWHICH_TIMEOUT, cwd=top)
        lines = out.splitlines() if out is not None else []
        if lines and lines[0].strip():
            found = Path(top) / lines[0].strip()
    with _lock:
        if len(_answers) >= MAX_REMEMBERED:
            _answers.clear()
        _answers[file_format, name] = (time.monotonic(), found)
    return found


def find_file(wanted: str, dirs: Sequence[Path], name: str, file_format: str) -> Path | None:
    """The file ``wanted`` in the first of ``dirs`` (the folder TeX runs in, then the
    folders an input variable names) that has it, else ``name`` of ``file_format`` in TeX's
    trees (:func:`find_in_trees`)."""
    for folder in dirs:
        candidate = folder / wanted
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):
            continue
    return find_in_trees(name, file_format)


def answer_is_fresh(name: str, file_format: str) -> bool:
    """Whether an answer for ``name`` is kept: younger than :data:`KPSEWHICH_LIFETIME`, or a
    file that is still there."""
    with _lock:
        known = _answers.get((file_format, name))
    if known is None:
        return False
    return time.monotonic() - known[0] < KPSEWHICH_LIFETIME or (
        known[1] is not None and known[1].is_file()
    )


__all__ = [
    "KPSEWHICH_LIFETIME",
    "KPSEWHICH_TIMEOUT",
    "answer_is_fresh",
    "find_file",
    "find_in_trees",
    "searchable",
]
