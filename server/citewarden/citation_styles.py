"""The citation commands of the biblatex styles and packages a LaTeX project loads
(:mod:`citewarden.parsing.cite_styles`), with their files found as LaTeX finds them.

A style file (``chicago-notes.cbx``, ``biblatex-chicago.sty``) is looked for in the folder
LaTeX runs in (the root document's), in the folders ``TEXINPUTS`` names, then in TeX's
trees (:mod:`citewarden.tex_trees`); the files it loads are followed, at most
:data:`MAX_FILES` in all.  A file is read only when it is a regular file of at most
:data:`MAX_STYLE_BYTES`; what it declares is remembered per path, modification time and
size.  A file that is not found or cannot be read declares nothing: its commands are then
read as no citation, as before the style was known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.files import ReadPerVersion, Stamp, file_stamp, read_regular
from citewarden.model import CitationMacro
from citewarden.parsing.cite_styles import StyleCommands, read_style_commands
from citewarden.tex_trees import find_file, searchable

#: The largest style file read, in bytes (biblatex-chicago's largest .cbx has 200 KB).
MAX_STYLE_BYTES = 2 << 20
#: Style files followed at most for one project (a style loads its parents).
MAX_FILES = 32
#: Files remembered at most; past that all are dropped.
MAX_REMEMBERED = 256


def find_style_file(name: str, dirs: Sequence[Path]) -> Path | None:
    """The file ``name`` (``verbose.cbx``) in ``dirs``, else in TeX's trees."""
    if not searchable(name) or "/" in name or "\\" in name:
        return None
    return find_file(name, dirs, name, "tex")


def _read_commands(path: Path) -> StyleCommands:
    try:
        data = read_regular(path, MAX_STYLE_BYTES)
    except (OSError, ValueError):
        return StyleCommands()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_style_commands(text)


#: what each style file declares, per version
_commands = ReadPerVersion(_read_commands, MAX_REMEMBERED)


def _commands_of(path: Path) -> StyleCommands:
    try:
        return _commands(path)
    except (OSError, ValueError):
        return StyleCommands()


@dataclass(frozen=True, slots=True)
class StyleReading:
    """The citation commands of a project's style files, and what they were read from."""

    macros: tuple[CitationMacro, ...]
    #: the folders looked in before TeX's trees
    dirs: tuple[Path, ...]
    #: each file looked for: its name, the file found (None: none) and its modification
    #: time and size then
    files: tuple[tuple[str, Path | None, Stamp | None], ...]


def read_styles(names: Sequence[str], dirs: Sequence[Path]) -> StyleReading:
    """The citation commands the style files ``names`` declare, with the files they load
    (looked for in ``dirs``, then TeX's trees); the first declaration of a name holds."""
    macros: dict[str, CitationMacro] = {}
    files: list[tuple[str, Path | None, Stamp | None]] = []
    queue = list(dict.fromkeys(names))
    seen: set[str] = set()
    while queue and len(seen) < MAX_FILES:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        path = find_style_file(name, dirs)
        files.append((name, path, file_stamp(path) if path is not None else None))
        if path is None:
            continue
        found = _commands_of(path)
        for macro in found.macros:
            macros.setdefault(macro.name, macro)
        queue += [parent for parent in found.requires if parent not in seen]
    return StyleReading(tuple(macros.values()), tuple(dirs), tuple(files))


def style_commands(names: Sequence[str], dirs: Sequence[Path]) -> tuple[CitationMacro, ...]:
    """The citation commands of :func:`read_styles`."""
    return read_styles(names, dirs).macros


def is_current(reading: StyleReading) -> bool:
    """Whether reading the style files again would read the same files, unchanged (a
    stat each; a file not found is looked for in TeX's trees again once the answer of
    ``kpsewhich`` is a minute old)."""
    for name, path, stamp in reading.files:
        if find_style_file(name, reading.dirs) != path:
            return False
        if path is not None and file_stamp(path) != stamp:
            return False
    return True


def style_shape(names: Sequence[str], folder: Path) -> tuple[str, ...]:
    """What of the style files ``names`` may change a project's citation commands, for a
    document in ``folder``: the commands they declare (looked for there, then in TeX's
    trees) and the files not found there, which the project's search may find.  A style
    that declares none of its own (``numeric``) shapes nothing, as no style."""
    if not names:
        return ()
    declared = [macro.name for macro in style_commands(names, (folder,))]
    unfound = [name for name in names if find_style_file(name, (folder,)) is None]
    return (*sorted(declared), *(f"?{name}" for name in unfound))


__all__ = [
    "MAX_FILES",
    "MAX_STYLE_BYTES",
    "StyleReading",
    "find_style_file",
    "is_current",
    "read_styles",
    "style_commands",
    "style_shape",
]
