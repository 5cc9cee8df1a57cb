"""The version of pandoc that reads a Markdown project's bibliographies.

The ``pandoc_version`` setting says it; else it is asked of the programs installed here:
``quarto pandoc --version`` for a Quarto project (Quarto runs the pandoc it ships), else
``pandoc --version``.  An answer (a version, or none) is kept :data:`LIFETIME` seconds;
a program that is missing, fails or does not answer within :data:`TIMEOUT` seconds gives
none, and the version is not known.
"""

from __future__ import annotations

import re
import shutil
import threading
import time

from citewarden.programs import program_output

#: Seconds a ``--version`` run may take.
TIMEOUT = 10.0
#: Seconds an answer is kept.
LIFETIME = 60.0

Version = tuple[int, ...]

_VERSION = re.compile(r"^\s*(\d{1,4}(?:\.\d{1,6}){0,4})\s*$")
_FIRST_LINE = re.compile(r"^pandoc(?:\.exe)?\s+(\d{1,4}(?:\.\d{1,6}){0,4})\b")

_lock = threading.Lock()
#: program -> when it was asked (time.monotonic) and its pandoc's version
_answers: dict[str, tuple[float, Version | None]] = {}


def parse_version(text: str) -> Version | None:
    """``"3.6.1"`` -> ``(3, 6, 1)``; None when ``text`` is no version."""
    m = _VERSION.match(text)
    return tuple(int(part) for part in m.group(1).split(".")) if m else None


def installed_version(quarto: bool = False) -> Version | None:
    """The version of the pandoc installed here (``quarto``: of Quarto's, else of the
    ``pandoc`` on the search path); None when there is none or it does not say."""
    program_name = "quarto" if quarto else "pandoc"
    with _lock:
        known = _answers.get(program_name)
    if known is not None and time.monotonic() - known[0] < LIFETIME:
        return known[1]
    found: Version | None = None
    program = shutil.which(program_name)
    if program is not None:
        args = [program, "pandoc", "--version"] if quarto else [program, "--version"]
        out = program_output(args, TIMEOUT)
        m = _FIRST_LINE.match(out[:200]) if out is not None else None
        found = parse_version(m.group(1)) if m else None
    with _lock:
        _answers[program_name] = (time.monotonic(), found)
    return found


def project_version(setting: str, quarto: bool) -> Version | None:
    """The version of pandoc that reads a project: the setting's when given, else the
    installed one's (:func:`installed_version`; a Quarto project's is Quarto's pandoc when
    Quarto is installed, else the ``pandoc`` on the search path)."""
    if setting:
        return parse_version(setting)
    found = installed_version(quarto=True) if quarto else None
    return found if found is not None else installed_version()


__all__ = [
    "LIFETIME",
    "TIMEOUT",
    "Version",
    "installed_version",
    "parse_version",
    "project_version",
]
