"""Batch input for ``citewarden check``: paths from list files (``@list.txt``, ``--files-from``).

A list file holds one path per line; blank lines and lines starting with ``#`` are ignored,
surrounding whitespace is stripped; its bytes are read as the system reads a file name (a
byte that is not UTF-8 names the file of that byte).  Relative paths are taken relative to the working
directory, as ``tar -T`` and ``rsync --files-from`` do.  ``--files-from -`` reads standard
input.  A path that itself starts with ``@`` can be given as ``./@name``.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from citewarden.files import read_regular

#: The largest list read, from a file or standard input.
MAX_LIST_BYTES = 256 << 20
#: The most paths a list gives.
MAX_LIST_PATHS = 1_000_000
#: Standard input is read a line at a time, at most this much of a line at once.
_STDIN_PIECE = 1 << 16


class ListFileError(Exception):
    """A list file that cannot be read."""


def read_list(text: str | Iterable[str], name: str = "the list") -> list[str]:
    """The paths listed in a list file's text (or its lines, each ending at ``\n``);
    more than ``MAX_LIST_PATHS`` is a :class:`ListFileError`."""
    lines = _lines(text) if isinstance(text, str) else text
    out: list[str] = []
    for number, raw in enumerate(lines, 1):
        if "\x00" in raw:
            raise ListFileError(f"{name}, line {number}: a NUL byte, which no path can hold")
        for part in raw.split("\r"):
            line = part.strip()
            if line and not line.startswith("#"):
                if len(out) == MAX_LIST_PATHS:
                    raise ListFileError(
                        f"{name} lists more than {MAX_LIST_PATHS:,} paths; it is not read"
                    )
                out.append(line)
    return out


def _lines(text: str) -> Iterable[str]:
    """The lines of ``text`` one at a time (``splitlines`` would hold them all at once)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end == -1:
            end = len(text)
        yield text[start:end]
        start = end + 1


def _stdin_lines(stream: TextIO) -> Iterable[str]:
    """The lines of ``stream``, up to ``MAX_LIST_BYTES`` characters in all; a line longer
    than ``_STDIN_PIECE`` (no path is) is a :class:`ListFileError`."""
    total = 0
    while True:
        line = stream.readline(_STDIN_PIECE)
        if not line:
            return
        total += len(line)
        if total > MAX_LIST_BYTES:
            raise ListFileError(
                f"the list on standard input is larger than {MAX_LIST_BYTES >> 20} MB; "
                "it is not read"
            )
        if len(line) == _STDIN_PIECE and not line.endswith("\n"):
            raise ListFileError(
                f"standard input holds a line of more than {_STDIN_PIECE >> 10} kB, "
                "which is no path; it is not read"
            )
        yield line


def _read_list_file(name: str, cwd: Path, stdin: TextIO | None) -> list[str]:
    if name == "-":
        stream = stdin or sys.stdin
        if stream is None:  # started with it closed (<&-): Python gives None
            raise ListFileError("standard input is closed; there is no list to read")
        return read_list(_stdin_lines(stream), "standard input")
    path = cwd / name
    try:
        data = read_regular(path, MAX_LIST_BYTES)
    except FileNotFoundError:
        raise ListFileError(f"list file not found: {name}") from None
    except OSError as exc:
        raise ListFileError(f"cannot read list file {name}: {exc.strerror}") from None
    return read_list(_decoded(data, name), f"list file {name}")


def _decoded(data: bytes, name: str) -> str:
    """A list file's text: UTF-16 after its byte-order mark (PowerShell's ``>`` writes
    it), else read as a name on the command line or standard input is, a byte that is not
    UTF-8 held as a surrogate, which names the file of that byte (``x\\xfe.tex``)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ListFileError(f"list file {name} is not UTF-16 text after its mark") from None
    return data.decode("utf-8-sig", errors="surrogateescape")


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
