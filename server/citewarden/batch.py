"""Batch input for ``citewarden check``: paths from list files (``@list.txt``, ``--files-from``).

A list file holds one path per line; blank lines and lines starting with ``#`` are ignored,
surrounding whitespace is stripped.  Relative paths are taken relative to the working
directory, as ``tar -T`` and ``rsync --files-from`` do.  ``--files-from -`` reads standard
input.  A path that itself starts with ``@`` can be given as ``./@name``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from citewarden.files import read_regular

#: The largest list file read (a million paths).
MAX_LIST_BYTES = 256 << 20


class ListFileError(Exception):
    """A list file that cannot be read."""


def read_list(text: str) -> list[str]:
    """The paths listed in the text of a list file."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _read_list_file(name: str, cwd: Path, stdin: TextIO | None) -> list[str]:
    if name == "-":
        return read_list((stdin or sys.stdin).read())
    path = cwd / name
    try:
        data = read_regular(path, MAX_LIST_BYTES)
    except FileNotFoundError:
        raise ListFileError(f"list file not found: {name}") from None
    except OSError as exc:
        raise ListFileError(f"cannot read list file {name}: {exc.strerror}") from None
    try:
        return read_list(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ListFileError(f"list file {name} is not UTF-8 text") from None


def expand_inputs(
    paths: Iterable[str],
    files_from: Sequence[str] = (),
    *,
    cwd: Path | None = None,
    stdin: TextIO | None = None,
) -> list[str]:
    """Paths given on the command line with ``@list`` arguments and ``--files-from`` files
    replaced by the paths they list; duplicates dropped, first occurrence kept."""
    base = cwd or Path.cwd()
    out: list[str] = []
    for raw in paths:
        if raw.startswith("@") and len(raw) > 1:
            out += _read_list_file(raw[1:], base, stdin)
        else:
            out.append(raw)
    for name in files_from:
        out += _read_list_file(name, base, stdin)
    seen: set[str] = set()
    unique = []
    for p in out:
        if p not in seen:
            seen.add(p)
            unique.append(p)
    return unique
