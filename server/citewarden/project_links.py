"""Where a project's links lead: includes, bibliographies, magic roots and metadata files
resolved to files on the search paths (see :mod:`citewarden.project` for the rules).

:class:`LinkResolver` is the base of :class:`~citewarden.project_graph.ProjectGraph` that
finds the files; the graph decides which of them form a project.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden import search_paths
from citewarden.model import Finding, Link
from citewarden.parsing import METADATA_NAMES

_INCLUDE_FROM_ROOT = frozenset({"import", "inputfrom", "includefrom"})
_INCLUDE_FROM_HERE = frozenset({"subimport", "subinputfrom", "subincludefrom"})
_ALWAYS_TEX = frozenset({"include", "subfile"})
#: commands that read a file only if there is one (no error when there is none)
IF_EXISTS = frozenset({"InputIfFileExists"})
#: commands that load a package or a class, by the suffix of its file
LOAD_SUFFIX = {
    "usepackage": ".sty",
    "RequirePackage": ".sty",
    "RequirePackageWithOptions": ".sty",
    "documentclass": ".cls",
    "LoadClass": ".cls",
    "LoadClassWithOptions": ".cls",
}


#: A resource biber downloads (its own test, ``Biber::Utils::glob_data_file``).
_REMOTE = re.compile(r"\A(?:http|ftp)s?://", re.IGNORECASE)
#: The most files one ``\\addbibresource[glob]`` pattern is read as.
MAX_GLOBBED = 256
#: One ``{a,b}`` alternative group of a pattern (no nesting).
_BRACES = re.compile(r"\{([^{},]*,[^{}]*)\}")  # the first comma ends the first repeat


#: the biblatex commands that name one resource each (a refsection's option is a list)
_ONE_RESOURCE = frozenset({"addbibresource", "addglobalbib", "addsectionbib"})


def bib_names(link: Link, target: str) -> list[str]:
    """The files a bibliography link names: BibTeX's ``\\bibliography{a,b}`` and a
    refsection's ``[a.bib,b.bib]`` are lists; biblatex's ``\\addbibresource{...}`` is one
    resource, commas and all (biber then looks for a file of that name)."""
    if link.command.lstrip("\\") in _ONE_RESOURCE:
        return [target.strip()]
    return [t.strip() for t in target.split(",") if t.strip()] or [target]


def is_remote(target: str) -> bool:
    """Is ``target`` a URL, which biber fetches instead of reading a file?"""
    return _REMOTE.match(target.strip()) is not None


def _alternatives(pattern: str, limit: int = 64) -> list[str]:
    """``pattern`` with its ``{a,b}`` groups expanded, as a shell glob reads them (at most
    ``limit`` patterns; past that the rest are left as written)."""
    done: list[str] = []
    todo = [pattern]
    while todo and len(done) + len(todo) < limit:
        head = todo.pop(0)
        m = _BRACES.search(head)
        if m is None:
            done.append(head)
            continue
        todo += [f"{head[: m.start()]}{alt}{head[m.end() :]}" for alt in m.group(1).split(",")]
    return done + todo


#: The most directory entries one pattern's expansion looks at: a pattern such as
#: ``/*/*/*/*.bib`` would otherwise walk the whole disk.
MAX_GLOB_ENTRIES = 20_000
_MAGIC = re.compile(r"[*?\[]")


def glob_files(pattern: str, folder: Path) -> tuple[list[Path], bool]:
    """The files ``pattern`` names relative to ``folder`` (``*``, ``?``, ``[...]`` and
    ``{a,b}``, as biber expands a ``glob`` resource; names starting with a dot only when
    the pattern's part does), sorted, and whether that is all of them: not when they are
    more than :data:`MAX_GLOBBED`, or more than :data:`MAX_GLOB_ENTRIES` directory entries
    had to be looked at."""
    found: dict[Path, None] = {}
    budget = [MAX_GLOB_ENTRIES]
    for alternative in _alternatives(pattern.strip()):
        start = Path("/") if alternative.startswith("/") else folder
        for path in _expand(start, [p for p in alternative.split("/") if p], budget):
            if os.path.isfile(path):
                found.setdefault(normalize_path(path), None)
            if len(found) > MAX_GLOBBED:
                return sorted(found)[:MAX_GLOBBED], False
    return sorted(found), budget[0] >= 0


def _expand(base: Path, parts: list[str], budget: list[int]) -> Iterator[Path]:
    """The paths under ``base`` that the pattern parts ``parts`` name, each directory
    entry looked at taken from ``budget[0]``."""
    if not parts:
        yield base
        return
    head, rest = parts[0], parts[1:]
    if _MAGIC.search(head) is None:
        yield from _expand(base / head, rest, budget)
        return
    try:
        with os.scandir(base) as entries:
            names = []
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0:
                    break
                names.append(entry.name)
    except OSError:
        return
    for name in sorted(names):
        if name.startswith(".") and not head.startswith("."):
            continue
        if fnmatch.fnmatchcase(name, head):
            yield from _expand(base / name, rest, budget)


def normalize_path(path: Path | str) -> Path:
    """Absolute, lexically normalised path (symlinks are kept, so editors' URIs match).

    A ``..`` is resolved as the system (and so TeX) resolves it when that differs: after a
    folder that does not exist there is no such file (``x/../a.tex`` is kept as written,
    so it is not found), and after a symbolic link it goes up from the link's target
    (``link/../a.tex``)."""
    raw = os.fspath(path)
    if not os.path.isabs(raw):
        raw = os.path.join(os.getcwd(), raw)
    lexical = os.path.normpath(raw)
    if ".." not in raw or ".." not in raw.split(os.sep):
        return Path(lexical)
    head, tail = os.path.split(raw)
    try:
        physical = os.path.realpath(head, strict=True)
    except (OSError, ValueError):
        return Path(raw)  # a folder on the way is missing: no such file, as the system says
    if os.path.realpath(os.path.dirname(lexical)) == physical:
        return Path(lexical)  # the same folder either way: keep the path the editor knows
    return Path(os.path.join(physical, tail))


@dataclass(frozen=True, slots=True)
class MissingLink:
    """A link whose target was not found: the document naming it, the link, the target
    (one name of a ``\\bibliography{a,b}`` list)."""

    path: Path
    link: Link
    target: str
    #: why a file that is there could not be read (permission, not a regular file, too
    #: large); None: no such file
    unreadable: str | None = None
    #: the file the target names with ``.bib`` added, which biber does not look for
    #: (``\\addbibresource{refs}``: biber reads resources by their full name)
    extended: Path | None = None
    #: the file the target names from the folder of the file naming it, where BibTeX and
    #: biber do not look (they run in the root document's folder)
    beside: Path | None = None


def _is_macro(target: str) -> bool:
    return "\\" in target or "#" in target or not target.strip()


def _bibinputs() -> list[Path]:
    """The folders the environment's ``BIBINPUTS`` names (a ``dir//`` entry: ``dir``,
    its subfolders being inside it)."""
    tops = (entry.rstrip("/") for entry in search_paths.environment_entries("BIBINPUTS"))
    return [Path(top) for top in tops if top and top != "."]


class LinkResolver:
    """Resolves the links of a workspace's documents to files (a base of
    :class:`~citewarden.project_graph.ProjectGraph`)."""

    _folders: list[Path]
    #: the last candidate of a link resolution that is there but could not be read
    _refused: OSError | None

    if TYPE_CHECKING:  # provided by Workspace

        def exists(self, path: Path) -> bool: ...
        def buffer(self, path: Path | str) -> str | None: ...
        def _read(self, path: Path) -> tuple[str, tuple[Finding, ...]] | OSError: ...

    def _missing_link(self, path: Path, link: Link, target: str) -> MissingLink:
        """A link that did not resolve, saying whether a candidate was there but unreadable
        (call after one resolution that started with ``self._refused = None``)."""
        refused, self._refused = self._refused, None
        reason = (refused.strerror or str(refused)) if refused is not None else None
        return MissingLink(path, link, target, reason)

    def _resolve_magic_root(self, path: Path, target: str) -> Path | None:
        base = path.parent / target.strip()
        for cand in (base, base.with_name(base.name + ".tex")):
            cand = normalize_path(cand)
            if cand.suffix.lower() in (".tex", ".ltx") and self.exists(cand):
                return cand
        return None

    def _search_paths(self, root_dir: Path) -> tuple[list[Path], list[Path]]:
        """The TEXINPUTS and BIBINPUTS folders of a project run in ``root_dir``: the
        environment's, then its .latexmkrc's (see :mod:`citewarden.search_paths`)."""
        found = self._input_dirs(root_dir, ("TEXINPUTS", "BIBINPUTS"))
        return found[0], found[1]

    def _input_dirs(self, root_dir: Path, variables: Sequence[str]) -> list[list[Path]]:
        """The folders each of ``variables`` names for a project run in ``root_dir``."""
        rc_entries: dict[str, list[str]] = {}
        rc = root_dir / ".latexmkrc"
        if os.path.isfile(rc):  # a build setting, never an editor buffer
            read = self._read(rc)
            if not isinstance(read, OSError):
                rc_entries = search_paths.latexmkrc_paths(read[0])
        found: list[list[Path]] = []
        for variable in variables:
            entries = search_paths.environment_entries(variable) + rc_entries.get(variable, [])
            found.append(search_paths.directories(entries, root_dir) if entries else [])
        return found

    def _resolve_include(
        self,
        link: Link,
        here: Path,
        root_dir: Path,
        doc_dir: Path,
        tex_dirs: Sequence[Path] = (),
        input_dirs: Sequence[Path] = (),
    ) -> tuple[Path, Path] | None:
        """-> (file, base directory for the file's own includes); ``input_dirs``: the
        folders of LaTeX's ``\\input@path``, where ``\\input``, ``\\include`` and
        ``\\usepackage`` look after TEXINPUTS."""
        # TeX drops the double quotes of a file name (\input{"my chapter"})
        target = link.target.strip().replace('"', "")
        command = link.command.lstrip("\\").rstrip("*")
        if command in LOAD_SUFFIX:
            # TeX looks in the folder it runs in, then TEXINPUTS, then the distribution:
            # most packages are the distribution's, so nothing is read for a name the
            # project has no file (or editor buffer) of
            name = target + LOAD_SUFFIX[command]
            for folder in (root_dir, *tex_dirs, *input_dirs):
                cand = normalize_path(folder / name)
                if (self.buffer(cand) is not None or os.path.isfile(cand)) and self.exists(cand):
                    return cand, here
            return None
        if command in _INCLUDE_FROM_ROOT and link.base is not None:
            bases = [normalize_path(root_dir / link.base)]
        elif command in _INCLUDE_FROM_HERE and link.base is not None:
            bases = [normalize_path(here / link.base), normalize_path(doc_dir / link.base)]
        elif command == "subfile" or link.beside:
            bases = [here, doc_dir, *tex_dirs]
        else:
            # TeX looks in the folder it runs in (or, in a file \import or \subfile
            # reads, the folder that sets), then TEXINPUTS: not the including file's
            inputs = command in ("input", "include") or command in IF_EXISTS
            bases = [here, *tex_dirs, *(input_dirs if inputs else ())]
        names = [target + ".tex"] if command in _ALWAYS_TEX and not target.endswith(".tex") else []
        if not names:  # as kpathsea: name.tex first unless the name ends in .tex
            names = [target] if target.endswith(".tex") else [target + ".tex", target]
        found = self._first_existing(bases, names)
        if found is None:
            return None
        cand, base = found
        if command == "subfile":  # subfiles reads it by \import from its own folder
            return cand, cand.parent
        return cand, base if link.base is not None else here

    def _resolve_bib(self, target: str, dirs: Iterable[Path]) -> Path | None:
        target = target.strip()
        names = [target] if target.lower().endswith(".bib") else [target + ".bib", target]
        search = list(dirs)
        if Path(target).is_absolute():
            search = [Path("/")]
        found = self._first_existing(search, names)
        return found[0] if found is not None else None

    def _resolve_exact(self, target: str, dirs: Iterable[Path]) -> Path | None:
        """``target`` as written, with no extension added (as biber looks a resource up)."""
        target = target.strip()
        search = [Path("/")] if Path(target).is_absolute() else list(dirs)
        found = self._first_existing(search, [target])
        return found[0] if found is not None else None

    def _first_existing(
        self, dirs: Iterable[Path], names: Sequence[str]
    ) -> tuple[Path, Path] | None:
        """The first ``dir / name`` that exists (each directory tried with every name before
        the next directory), with the directory it was found in."""
        seen: set[Path] = set()
        for d in dirs:
            for name in names:
                cand = normalize_path(d / name)
                if cand in seen:
                    continue
                seen.add(cand)
                if self.exists(cand):
                    return cand, d
        return None

    def _resolve_csl_or_bib(self, target: str, base: Path) -> Path | None:
        cand = normalize_path(base / target.strip())
        if self.exists(cand):
            return cand
        for folder in self._folders:
            alt = normalize_path(folder / target.strip())
            if self.exists(alt):
                return alt
        return None

    def _folder_of(self, path: Path) -> Path | None:
        best: Path | None = None
        for folder in self._folders:
            if path.is_relative_to(folder) and (
                best is None or len(folder.parts) > len(best.parts)
            ):
                best = folder
        return best

    def _metadata_chain(self, path: Path) -> list[Path]:
        """_quarto.yml / _metadata.yml from the workspace folder down to ``path``'s dir."""
        top = self._folder_of(path) or path.parent
        dirs: list[Path] = []
        d = path.parent
        while True:
            dirs.append(d)
            if d == top or d.parent == d:
                break
            d = d.parent
        found: list[Path] = []
        for d in reversed(dirs):
            for name in sorted(METADATA_NAMES):
                cand = d / name
                if self.exists(cand):
                    found.append(cand)
        return found
