"""Where TeX looks for the files a document names: ``TEXINPUTS`` (for ``\\input`` and
``\\include``), ``BIBINPUTS`` (for bibliographies) and ``BSTINPUTS`` (for BibTeX styles),
as kpathsea reads them.

A variable comes from the environment or, for a project built with latexmk, from the
project's ``.latexmkrc`` (``$ENV{'TEXINPUTS'} = './sty//:' . $ENV{'TEXINPUTS'};`` or
``ensure_path('TEXINPUTS', './sty//');``).  Entries are separated by ``:`` (``;`` on
Windows); an empty entry stands for TeX's own tree and is skipped; an entry ending in
``//`` is searched with all its subfolders (at most :data:`MAX_DIRECTORIES` of them,
walked breadth first, hidden folders skipped).  Relative entries are relative to the
directory TeX runs in, the root document's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Subfolders searched for one ``dir//`` entry, at most.
MAX_DIRECTORIES = 2000
#: Largest .latexmkrc read, in characters.
MAX_LATEXMKRC = 100_000

_ENV_ASSIGN = re.compile(
    r"""\$ENV\s*\{\s*['"]?(TEXINPUTS|BIBINPUTS|BSTINPUTS)['"]?\s*\}\s*\.?=\s*(['"])(.*?)\2"""
)
_ENSURE_PATH = re.compile(
    r"""ensure_path\s*\(\s*['"](TEXINPUTS|BIBINPUTS|BSTINPUTS)['"]\s*,([^)]*)\)"""
)
_QUOTED = re.compile(r"""(['"])(.*?)\1""")


def latexmkrc_paths(text: str) -> dict[str, list[str]]:
    """The TEXINPUTS / BIBINPUTS / BSTINPUTS entries a .latexmkrc adds, per variable, in
    order."""
    found: dict[str, list[str]] = {}
    text = text[:MAX_LATEXMKRC]
    lines = [line.split("#", 1)[0] for line in text.splitlines()]
    for line in lines:
        for m in _ENV_ASSIGN.finditer(line):
            found.setdefault(m.group(1), []).extend(_entries(m.group(3)))
        for m in _ENSURE_PATH.finditer(line):
            for q in _QUOTED.finditer(m.group(2)):
                found.setdefault(m.group(1), []).extend(_entries(q.group(2)))
    return found


def _entries(raw: str) -> list[str]:
    return [part.strip() for part in re.split(r"[:;]", raw) if part.strip()]


def environment_entries(variable: str) -> list[str]:
    return [p.strip() for p in os.environ.get(variable, "").split(os.pathsep) if p.strip()]


def directories(entries: list[str], base: Path) -> list[Path]:
    """The folders ``entries`` name, ``dir//`` expanded to its subfolders; ``.`` and
    duplicates left out (the caller searches the document's own folder first)."""
    out: dict[Path, None] = {}
    for entry in entries:
        recursive = entry.endswith("//")
        entry = entry.rstrip("/") or "/"
        if entry == "." and not recursive:
            continue
        folder = Path(os.path.expanduser(entry))
        if not folder.is_absolute():
            folder = base / folder
        if recursive:
            out.update(dict.fromkeys(_walk(folder)))
        else:
            out.setdefault(folder, None)
    return list(out)


def _walk(top: Path) -> list[Path]:
    found: list[Path] = []
    queue = [top]
    while queue and len(found) < MAX_DIRECTORIES:
        folder = queue.pop(0)
        found.append(folder)
        try:
            with os.scandir(folder) as it:
                subs = sorted(
                    Path(e.path)
                    for e in it
                    if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
                )
        except OSError:
            continue
        queue.extend(subs)
    return found
