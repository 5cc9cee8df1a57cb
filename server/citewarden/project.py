"""The workspace model: files, their parsed summaries, the project graph and the key index.

A :class:`Workspace` knows a set of files (found under folders, named on the command line,
or opened in an editor).  Each file is parsed once per version of its text; everything
cross-file (which documents form a project, which bibliographies a project uses, which keys
are cited and defined) is recomputed from those cached summaries on demand, which is cheap.
The project graph is kept after an edit that changes none of a file's links, roots or
definitions (:func:`_graph_facts`); the links it holds (missing, unresolved, written with
macros or patterns) are then moved to where the edit put them, each known by its place
among its document's links (:func:`~citewarden.project_graph.moved_links`).  A file that
becomes unreadable (an editor buffer over ``max_file_mb``) is no longer a link's target:
the graph is computed again.

Projects:

* A LaTeX *root* is a document with ``\\documentclass`` (not a subfile's, below) or one
  named by a ``% !TEX root = ...`` comment.  Its project holds the root and every file
  reached through ``\\input``/``\\include``/``\\subfile`` (relative to the root's
  directory, ``.tex`` added when missing, then relative to the including file),
  ``\\import{dir}{file}`` (``dir`` relative to the root's directory) and
  ``\\subimport{dir}{file}`` (``dir`` relative to the importing file's base).  A chapter
  included by several roots belongs to each.  The project's own ``.cls`` / ``.sty`` files
  loaded by ``\\documentclass``, ``\\LoadClass``, ``\\usepackage`` or
  ``\\RequirePackage`` (in the root's directory or on ``TEXINPUTS``) are part of it, read
  where they are loaded; the distribution's are not looked for.
  Bibliographies resolve relative to the root's directory (``.bib`` added when missing),
  then through each directory of ``BIBINPUTS`` (colon separated), then relative to the
  document that names them.
* A subfile (``\\documentclass[../main.tex]{subfiles}``) is part of the project of the
  main file it names, whose preamble the subfiles class reads; it is a root of its own only
  when that file is not there.
* A LaTeX file that is neither a root nor included by one is a *standalone* project
  (a ``.sty`` / ``.cls`` file never is).
* Each Markdown document (.md/.qmd/.Rmd) is a project with its front matter plus the
  ``_quarto.yml``/``_metadata.yml`` files in its directory and each parent directory up to
  the workspace folder; their bibliographies resolve relative to the file that names them.

Only the workspace (this module and :mod:`citewarden.project_graph`) reads files, and only
through the ``reader`` function.

The project graph itself is computed in :mod:`citewarden.project_graph`, the look-ups over it
(entries, citations, keys at an offset) in :mod:`citewarden.project_queries` (the bases of
:class:`Workspace`), the per-file indexes in :mod:`citewarden.file_state`; :class:`Project`
and :func:`normalize_path` are importable from here.
"""

from __future__ import annotations

import codecs
import copy
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from citewarden.bibtex_styles import is_current
from citewarden.citation_styles import is_current as styles_are_current
from citewarden.citation_styles import style_shape
from citewarden.file_state import (
    BibIndex,
    DocumentExtras,
    FileState,
    changed_region,
    update_bib_index,
)
from citewarden.files import DEFAULT_MAX_FILE_MB, read_regular, too_large, utf8_size
from citewarden.model import (
    BibContext,
    DocumentKind,
    Finding,
    ParsedBibliography,
    ParsedDocument,
    Span,
)
from citewarden.parsing import (
    METADATA_NAMES,
    PROJECT_SUFFIXES,
    Parsed,
    is_document,
    is_latex,
    latex_bibdata,
    latex_bibunit_order,
)
from citewarden.parsing.dispatch import reparse_file
from citewarden.project_graph import Project as Project
from citewarden.project_graph import moved_links
from citewarden.project_graph import normalize_path as normalize_path
from citewarden.project_queries import ProjectQueries
from citewarden.settings import Settings, is_ignored
from citewarden.text import LineIndex

#: Reads one file: returns its decoded text and any decoding problems; raises OSError.
Reader = Callable[[Path], tuple[str, Sequence[Finding]]]

#: Files :meth:`Workspace.add_folder` picks up.
DISCOVER_SUFFIXES = PROJECT_SUFFIXES
#: Directories never descended into.
SKIP_DIRS = frozenset({"node_modules", ".venv", "venv", "__pycache__", "_build", "_site"})


def skipped_dir(name: str) -> bool:
    """Whether :meth:`Workspace.add_folder` never descends into a folder named ``name``
    (hidden ones, :data:`SKIP_DIRS`)."""
    return name.startswith(".") or name in SKIP_DIRS


def walks_into(root: Path, folder: Path) -> bool:
    """Whether the walk of ``root`` (:meth:`Workspace.add_folder`) reaches ``folder``: it is
    ``root`` or under it through no folder the walk skips (:func:`skipped_dir`)."""
    return folder.is_relative_to(root) and not any(
        skipped_dir(part) for part in folder.relative_to(root).parts
    )


def _through_link(root: Path, folder: Path) -> bool:
    """Whether ``folder``, under ``root``, is a symbolic link or lies under one: the walk
    (``os.walk``) does not follow links to folders, which may lead back up (``ln -s . x``)."""
    while folder != root and folder.is_relative_to(root):
        if folder.is_symlink():
            return True
        folder = folder.parent
    return False


def default_reader(
    path: Path, limit: int = int(DEFAULT_MAX_FILE_MB * (1 << 20))
) -> tuple[str, Sequence[Finding]]:
    """Read bytes from disk and decode them (encoding problems become findings); only a
    regular file of at most ``limit`` bytes is read (see :mod:`citewarden.files`)."""
    from citewarden.parsing.encoding import decode_bytes

    data = read_regular(path, limit)
    text = _plain_utf8(data)
    if text is not None:
        return text, ()
    text, problems = decode_bytes(path, data)
    return text, tuple(problems)


def _plain_utf8(data: bytes) -> str | None:
    """``data`` decoded when it is UTF-8 with nothing to report (no byte-order mark, no NUL),
    the usual case, else None.  Looks for NUL among the bytes (one C scan), not in the text,
    where the search is slower for text beyond Latin-1."""
    if b"\x00" in data or data.startswith(codecs.BOM_UTF8):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Workspace(ProjectQueries):
    """Files, their cached parses, the project graph and the key index (see module doc)."""

    def __init__(
        self,
        settings: Settings | None = None,
        reader: Reader | None = None,
        root: Path | None = None,
        outlives_memory_errors: bool = False,
    ) -> None:
        self.settings = settings or Settings()
        self.outlives_memory_errors = outlives_memory_errors
        #: a reader given by the caller; None: the disk, under this workspace's settings
        #: (a bound method would keep reading under the settings of the workspace a fork
        #: was copied from)
        self._reader = reader
        self._folders: list[Path] = []
        if root is not None:
            self._folders.append(normalize_path(root))
        self._known: dict[Path, None] = {}
        self._overlay: dict[Path, str] = {}
        #: path -> (text before, prefix, suffix): what an editor said of the buffer's
        #: changes since its text was last read (see :meth:`set_text`)
        self._edit_hints: dict[Path, tuple[str, int, int]] = {}
        #: path -> (buffer, its size in UTF-8): measured once a buffer may be over
        #: ``max_file_mb``, then kept up to date along the editor's changes
        self._buffer_sizes: dict[Path, tuple[str, int]] = {}
        #: disk reads: text and problems, or the OSError raised
        self._disk: dict[Path, tuple[str, tuple[Finding, ...]] | OSError] = {}
        #: the decoding problems of the file on disk of each editor buffer (a file that is
        #: not UTF-8 stays so, whatever the editor made of it, until it is saved otherwise)
        self._disk_problems: dict[Path, tuple[Finding, ...]] = {}
        self._states: dict[Path, FileState] = {}
        self._first_contexts: dict[Path, BibContext] = {}
        self._projects: list[Project] | None = None
        #: documents whose text changed since the graph was computed
        self._dirty: set[Path] = set()
        self._norm_cache: dict[Path | str, Path] = {}
        #: the last candidate of a link resolution that is there but could not be read
        self._refused: OSError | None = None
        #: path -> (device, inode) of the file it named when last read, and each such file
        #: -> the paths read as it (a symbolic or hard link and its target): what the
        #: file system says, shared with forks (values are replaced, never changed)
        self._file_ids: dict[Path, tuple[int, int]] = {}
        self._names: dict[tuple[int, int], tuple[Path, ...]] = {}

    # ---- file set ---------------------------------------------------------------------

    @property
    def folders(self) -> tuple[Path, ...]:
        return tuple(self._folders)

    def _norm(self, path: Path | str) -> Path:
        """:func:`normalize_path`, remembered for absolute paths (the common case) without
        ``..`` (whose answer depends on the folders on disk, which may change)."""
        found = self._norm_cache.get(path)
        if found is None:
            found = normalize_path(path)
            if os.path.isabs(path) and ".." not in os.fspath(path):
                if len(self._norm_cache) > 100_000:
                    self._norm_cache.clear()
                self._norm_cache[path] = found
        return found

    def add_file(self, path: Path | str) -> Path:
        """Make ``path`` known (it is checked and reported even when nothing links to it)."""
        p = self._norm(path)
        if p not in self._known:
            self._known[p] = None
            self._projects = None
        return p

    def add_folder(
        self, root: Path | str, under: Path | None = None, known: bool = True
    ) -> list[Path]:
        """Discover documents and bibliographies under ``root``; return the files found.
        Given ``under``, a folder in ``root``, only that folder is walked, by the rules of
        the walk of ``root`` (nothing when that walk skips it, :func:`walks_into`).  With
        ``known`` False the files are only listed (the caller adds them, :meth:`add_file`)."""
        folder = normalize_path(root)
        if folder not in self._folders:
            self._folders.append(folder)
        top = folder if under is None else normalize_path(under)
        if not walks_into(folder, top) or _through_link(folder, top):
            return []
        found: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not skipped_dir(d))
            for name in sorted(filenames):
                path = Path(dirpath, name)
                if self._walk_takes(path, folder):
                    found.append(self.add_file(path) if known else self._norm(path))
        return found

    def add_created(self, root: Path | str, path: Path | str) -> list[Path]:
        """A file created on disk: made known when the walk of the workspace folder
        ``root`` would find it (:meth:`add_folder`).  -> [the file] or []."""
        folder, p = normalize_path(root), normalize_path(path)
        if not walks_into(folder, p.parent) or not self._walk_takes(p, folder):
            return []
        if _through_link(folder, p.parent):
            return []
        if not p.is_file():
            return []
        return [self.add_file(p)]

    def _walk_takes(self, path: Path, folder: Path) -> bool:
        """Whether the walk of ``folder`` takes the file ``path`` it comes across."""
        if path.name.startswith(".") and path.name not in METADATA_NAMES:
            return False
        return path.suffix.lower() in DISCOVER_SUFFIXES and not self._ignored(path, folder)

    def remove_folder(self, root: Path | str) -> None:
        """``root`` is no workspace folder any more.  Its files stay known: the caller
        removes those that no remaining folder holds (:meth:`remove`)."""
        folder = normalize_path(root)
        if folder in self._folders:
            self._folders.remove(folder)
            self._projects = None

    def _ignored(self, path: Path, folder: Path) -> bool:
        return is_ignored(self.settings, path, (folder,))

    def known_files(self) -> list[Path]:
        return list(self._known)

    def fork(self) -> Workspace:
        """A copy to change and check while this one goes on answering look-ups.

        The copy has its own tables; the parsed files are shared, and neither copy changes
        a parse the other holds (a new text or context gets a new one), so a thread may
        read this workspace while another changes and checks the fork."""
        twin = copy.copy(self)
        twin._folders = list(self._folders)
        twin._known = dict(self._known)
        twin._overlay = dict(self._overlay)
        twin._edit_hints = dict(self._edit_hints)
        twin._buffer_sizes = dict(self._buffer_sizes)
        twin._disk = dict(self._disk)
        twin._disk_problems = dict(self._disk_problems)
        twin._states = dict(self._states)
        twin._projects = list(self._projects) if self._projects is not None else None
        twin._dirty = set(self._dirty)
        twin._refused = None
        twin._documents_of = None  # a check of this one running meanwhile is not the twin's
        return twin

    def set_settings(self, settings: Settings) -> list[Path]:
        """Replace the settings; LaTeX files are re-parsed when citation commands change.
        When the ignore patterns change, the folders are walked again: the files no pattern
        names now are known from then on, and those a pattern names now are not (an editor
        buffer aside), as the first walk would have found them (a file something links to
        is still read through the link).  -> the files found so."""
        rewalk = (settings.ignore, settings.ignore_base) != (
            self.settings.ignore,
            self.settings.ignore_base,
        )
        if settings.citation_commands != self.settings.citation_commands:
            for path in [p for p in self._states if is_latex(p)]:
                del self._states[path]
        if settings.pandoc_version != self.settings.pandoc_version:
            # read under the new version's rules at the next look-up, not only once the
            # project graph passes its pandoc on
            for path in [p for p, s in self._states.items() if _read_as_markdown(s)]:
                del self._states[path]
        if settings.max_file_bytes != self.settings.max_file_bytes and self._reader is None:
            self._disk.clear()  # what was read, or refused, under the old limit
            self._states.clear()
        self.settings = settings
        self._projects = None
        if not rewalk:
            return []
        for path in [p for p in self._known if p not in self._overlay and self._walk_skips(p)]:
            del self._known[path]
        known = set(self._known)
        found = [p for folder in list(self._folders) for p in self.add_folder(folder)]
        return [p for p in found if p not in known]

    def _walk_skips(self, path: Path) -> bool:
        """Whether a workspace folder's walk reaches ``path``'s folder and the ignore patterns
        name ``path`` (the walk leaves it out)."""
        return any(
            walks_into(folder, path.parent) and self._ignored(path, folder)
            for folder in self._folders
        )

    def set_text(
        self, path: Path | str, text: str, unchanged: tuple[int, int] | None = None
    ) -> Path:
        """Use ``text`` (an editor buffer) instead of the file on disk.

        ``unchanged``, when the caller knows it (an editor's change events), is
        ``(prefix, suffix)``: ``text`` equals the previous buffer in its first ``prefix``
        and last ``suffix`` characters, so that the difference need not be searched for.
        """
        p = self.add_file(path)
        before = self._overlay.get(p)
        if before is not text and (before is None or unchanged is not None or before != text):
            was_over = before is not None and self._over_cap(p, before) is not None
            self._resize_buffer(p, before, text, unchanged)
            hint = self._edit_hints.pop(p, None)
            if before is None:  # the text read from disk until now
                self._note_name(p)
                disk = self._disk.get(p)
                before = disk[0] if isinstance(disk, tuple) else None
                if isinstance(disk, tuple):
                    self._disk_problems[p] = disk[1]
            if unchanged is not None and before is not None:
                base = before
                if hint is not None:  # the previous buffer was not read since: extend it
                    base = hint[0]
                    unchanged = (min(unchanged[0], hint[1]), min(unchanged[1], hint[2]))
                self._edit_hints[p] = (base, *unchanged)
            self._overlay[p] = text
            self._dirty.update(self.names(p))  # the file's other names read the buffer
            if not was_over and self._over_cap(p, text) is not None:
                self._projects = None  # not read (:meth:`_read`): the links to it are broken
            # the disk version is read again when the buffer closes; until then it is
            # never looked at, and a large file's text should not be held twice
            self._disk.pop(p, None)
        return p

    def _resize_buffer(
        self, path: Path, before: str | None, text: str, unchanged: tuple[int, int] | None
    ) -> None:
        """Carry the measured size of the buffer ``before`` over to ``text``, which equals it
        in its first and last ``unchanged`` characters, by measuring only what changed."""
        known = self._buffer_sizes.pop(path, None)
        if known is None or before is None or known[0] is not before or unchanged is None:
            return
        prefix, suffix = unchanged
        if prefix < 0 or suffix < 0 or prefix + suffix > min(len(before), len(text)):
            return
        removed = before[prefix : len(before) - suffix]
        added = text[prefix : len(text) - suffix]
        self._buffer_sizes[path] = (text, known[1] - utf8_size(removed) + utf8_size(added))

    def _over_cap(self, path: Path, text: str) -> int | None:
        """The size in bytes of the buffer ``text`` of ``path`` when it is over
        ``max_file_mb``, else None: a buffer is measured as the file holding it would be,
        in UTF-8 (a size in characters let through a buffer the file on disk is refused
        for), without encoding it when its length alone tells."""
        cap = self.settings.max_file_bytes
        n = len(text)
        if n * 4 <= cap or (n <= cap and text.isascii()):
            return None  # at most 4 bytes a character
        known = self._buffer_sizes.get(path)
        if known is not None and known[0] is text:
            size = known[1]
        else:
            size = utf8_size(text)
            self._buffer_sizes[path] = (text, size)
        return size if size > cap else None

    def buffer(self, path: Path | str) -> str | None:
        """The editor buffer used for ``path`` (None: the file on disk); nothing is parsed."""
        return self._overlay.get(self._norm(path))

    def close(self, path: Path | str) -> None:
        """Forget the editor buffer of ``path``; the disk version applies again."""
        p = self._norm(path)
        self._edit_hints.pop(p, None)
        self._buffer_sizes.pop(p, None)
        self._disk_problems.pop(p, None)
        if self._overlay.pop(p, None) is not None:
            for name in self.names(p):  # another name of the file read the buffer until now
                self._disk.pop(name, None)
            self._projects = None
            if isinstance(self._read(p), OSError):  # not on disk: its parse goes too
                self._states.pop(p, None)

    def disk_changed_under_buffer(self, path: Path | str) -> None:
        """The file under an editor buffer changed on disk (saved, say): its decoding
        problems are read again; the buffer's text stays what the editor holds (under
        each of the file's names, :meth:`names`)."""
        for name in self.names(self._norm(path)):
            self._disk_problems.pop(name, None)

    def invalidate(self, path: Path | str) -> None:
        """The file changed (or appeared, or vanished) on disk: under each of its names
        (:meth:`names`, a link's target changed is the link's change too)."""
        p = self._norm(path)
        before = self.names(p)
        self._note_name(p)
        for name in dict.fromkeys((*before, *self.names(p))):
            self._disk.pop(name, None)
            self._disk_problems.pop(name, None)
        self._projects = None

    def names(self, path: Path) -> tuple[Path, ...]:
        """Every path the workspace read the file ``path`` names as (``path`` first): a
        symbolic link and its target, hard links (by device and inode, as last read)."""
        file_id = self._file_ids.get(path)
        names = self._names.get(file_id) if file_id is not None else None
        if not names or len(names) == 1:
            return (path,)
        return (path, *(n for n in names if n != path))

    def _note_name(self, path: Path) -> None:
        """Record which file ``path`` names now (see :meth:`names`)."""
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            file_id = None
        else:
            file_id = (st.st_dev, st.st_ino)
        if self._file_ids.get(path) == file_id:
            return
        self._drop_name(path)
        if file_id is not None:
            self._file_ids[path] = file_id
            self._names[file_id] = (*self._names.get(file_id, ()), path)

    def _drop_name(self, path: Path) -> None:
        """``path`` names no file known any more (see :meth:`names`)."""
        file_id = self._file_ids.pop(path, None)
        if file_id is None:
            return
        rest = tuple(n for n in self._names.get(file_id, ()) if n != path)
        if rest:
            self._names[file_id] = rest
        else:
            self._names.pop(file_id, None)

    def _buffer_named_otherwise(self, path: Path) -> Path | None:
        """The editor buffer of the file ``path`` names, open under another of its names."""
        for name in self.names(path)[1:]:
            if name in self._overlay:
                return name
        return None

    def remove(self, path: Path | str) -> None:
        """Forget a file entirely (deleted from the workspace)."""
        p = self._norm(path)
        self._known.pop(p, None)
        self._edit_hints.pop(p, None)
        self._buffer_sizes.pop(p, None)
        self._overlay.pop(p, None)
        self._disk.pop(p, None)
        self._disk_problems.pop(p, None)
        self._states.pop(p, None)
        self._projects = None
        self._drop_name(p)

    # ---- reading and parsing ------------------------------------------------------------

    def _read_disk(self, path: Path) -> tuple[str, Sequence[Finding]]:
        return default_reader(path, self.settings.max_file_bytes)

    def _read(self, path: Path) -> tuple[str, tuple[Finding, ...]] | OSError:
        if path in self._overlay:
            text = self._overlay[path]
            size = self._over_cap(path, text)  # an editor buffer, same cap
            if size is not None:
                return too_large(path, size, self.settings.max_file_bytes)
            return text, self._buffer_problems(path, text)
        if self._overlay:
            shared = self._buffer_named_otherwise(path)
            if shared is not None:  # both names of one file read the same text
                return self._read(shared)
        cached = self._disk.get(path)
        if cached is None:
            self._note_name(path)
            shared = self._buffer_named_otherwise(path) if self._overlay else None
            if shared is not None:
                return self._read(shared)
            try:
                reader = self._reader or self._read_disk
                text, problems = reader(path)
                cached = (text, tuple(problems))
            except OSError as exc:
                cached = exc
            except ValueError as exc:  # a reader that refuses the content
                cached = OSError(str(exc))
            self._disk[path] = cached
        return cached

    def _buffer_problems(self, path: Path, text: str) -> tuple[Finding, ...]:
        """The decoding problems of the file on disk under the editor buffer ``text``, read
        once (the text let go), placed within the buffer."""
        problems = self._disk_problems.get(path)
        if problems is None:
            try:
                problems = tuple((self._reader or self._read_disk)(path)[1])
            except (OSError, ValueError):
                problems = ()  # not on disk (a new file), or refused: no decoding to report
            self._disk_problems[path] = problems
        if all(f.location.span.end <= len(text) for f in problems):
            return problems
        end = len(text)
        return tuple(
            replace(
                f, location=replace(f.location, span=Span(min(f.location.span.start, end), end))
            )
            if f.location.span.end > end
            else f
            for f in problems
        )

    def exists(self, path: Path) -> bool:
        """True when ``path`` can be read; a file that is there but cannot be read is
        remembered for :meth:`_missing_link`."""
        read = self._read(path)
        if not isinstance(read, OSError):
            return True
        if not isinstance(read, FileNotFoundError | NotADirectoryError):
            self._refused = read
        return False

    def read_error(self, path: Path | str) -> OSError | None:
        """The error reading ``path`` raised, if it could not be read."""
        result = self._read(self._norm(path))
        return result if isinstance(result, OSError) else None

    def _state(self, path: Path) -> FileState | None:
        """The parsed summary of the current text of ``path`` (None: unreadable)."""
        read = self._read(path)
        if isinstance(read, OSError):
            # e.g. a closed buffer of a file not on disk, or a buffer grown too large: the
            # links to a file read until now no longer lead to it
            if self._states.pop(path, None) is not None:
                self._projects = None
            return None
        text, problems = read
        state = self._states.get(path)
        if state is not None and (state.text is text or state.text == text):
            # equal but another object (a buffer opened unchanged): hold the caller's, so
            # the next look-up is an identity test, not a comparison of the whole text
            state.text = text
            if state.read_problems != problems:
                state.read_problems = problems
            return state
        old = state
        changed: tuple[int, int, int] | None = None
        if old is not None:
            if isinstance(old.parsed, ParsedBibliography):
                changed = self._hinted_region(path, old.text, text)
                if changed is None:
                    changed = changed_region(old.text, text)  # found once, used twice
            reparse = partial(
                reparse_file, path, old.parsed, old.text, text, self.settings, changed, old.context
            )
            parsed = self._parsing(path, reparse)
            context = old.context
        else:
            context = self._first_contexts.get(path)
            parsed = self._parse(path, text, context)
        state = FileState(text, problems, parsed, context)
        if old is None or _graph_facts(old.parsed, old.text) != _graph_facts(parsed, text):
            self._projects = None
        elif (
            self._projects is not None
            and isinstance(old.parsed, ParsedDocument)
            and isinstance(parsed, ParsedDocument)
        ):
            # the same links: the graph is kept, with the links moved where they now are
            self._projects = moved_links(self._projects, path, old.parsed, parsed)
        if (
            old is not None
            and old._bib_index is not None
            and isinstance(parsed, ParsedBibliography)
            and isinstance(old.parsed, ParsedBibliography)
        ):
            state._bib_index = update_bib_index(old._bib_index, parsed, old.text, text, changed)
        self._states[path] = state
        return state

    def _hinted_region(self, path: Path, old: str, new: str) -> tuple[int, int, int] | None:
        """The changed region of ``old`` -> ``new`` as the editor described it, if it did."""
        hint = self._edit_hints.pop(path, None)
        if hint is None or hint[0] is not old:
            return None
        prefix, suffix = hint[1], hint[2]
        old_end, new_end = len(old) - suffix, len(new) - suffix
        if not (0 <= prefix <= old_end and prefix <= new_end):
            return None  # the prefix and suffix overlap: compare the texts instead
        return prefix, old_end, new_end

    def text(self, path: Path | str) -> str | None:
        state = self._state(self._norm(path))
        return state.text if state else None

    def line_index(self, path: Path | str) -> LineIndex | None:
        state = self._state(self._norm(path))
        return state.line_index if state else None

    def parsed(self, path: Path | str) -> Parsed | None:
        state = self._state(self._norm(path))
        return state.parsed if state else None

    def document(self, path: Path | str) -> ParsedDocument | None:
        parsed = self.parsed(path)
        return parsed if isinstance(parsed, ParsedDocument) else None

    def bibliography(self, path: Path | str) -> ParsedBibliography | None:
        p = self._norm(path)
        if is_document(p):
            return None
        parsed = self.parsed(p)
        return parsed if isinstance(parsed, ParsedBibliography) else None

    def bib_index(self, path: Path) -> BibIndex | None:
        state = self._state(path)
        if state is None or not isinstance(state.parsed, ParsedBibliography):
            return None
        return state.bib_index

    def inline_references(self, path: Path) -> ParsedBibliography | None:
        """The ``references:`` items a Markdown document or metadata file defines itself,
        as a CSL-YAML bibliography (None: it defines none)."""
        state = self._state(path)
        if state is None or not state.defines_references:
            return None
        return state.references

    def extras(self, path: Path) -> DocumentExtras:
        state = self._state(path)
        if state is None or not isinstance(state.parsed, ParsedDocument):
            return DocumentExtras()
        return state.extras

    def removal_span(self, path: Path, span: Span) -> Span:
        """``span`` widened over trailing blanks and one line break (deleting an entry)."""
        return Span(span.start, removal_end(self.text(path) or "", span.end))

    def read_problems(self, path: Path) -> tuple[Finding, ...]:
        state = self._state(path)
        return state.read_problems if state else ()

    # ---- the project graph --------------------------------------------------------------

    def projects(self) -> list[Project]:
        """All projects (recomputed after any change; cached until the next one)."""
        if self._dirty:
            dirty, self._dirty = self._dirty, set()
            for path in dirty:
                self._state(path)  # a changed link, root or magic comment resets the graph
        if self._projects is None:
            self._projects = self._compute_projects()
        return self._projects

    def recheck_styles(self) -> None:
        """Compute the project graph again when a project's BibTeX style file or biblatex
        style file changed on disk, or one not found may be there now
        (:func:`~citewarden.bibtex_styles.is_current`,
        :func:`~citewarden.citation_styles.is_current`): nothing tells of a change outside
        the workspace, or to a client watching no files."""
        if self._projects is not None and not all(
            (project.bib_style is None or is_current(project.bib_style))
            and (project.cite_styles is None or styles_are_current(project.cite_styles))
            for project in self._projects
        ):
            self._projects = None

    def projects_of(self, path: Path | str) -> list[Project]:
        """Projects that contain ``path`` as a document, metadata file or bibliography."""
        p = self._norm(path)
        return [
            pr
            for pr in self.projects()
            if p in pr.documents or p in pr.bibliographies or p in pr.metadata
        ]


def _read_as_markdown(state: FileState) -> bool:
    """Whether ``state`` is that of a document read as Markdown (under a pandoc's rules)."""
    parsed = state.parsed
    return isinstance(parsed, ParsedDocument) and parsed.kind is DocumentKind.MARKDOWN


def removal_end(text: str, end: int) -> int:
    """End of a deletion that starts at an entry and ends at ``end``: trailing blanks and one
    line break go too (when the line ends there)."""
    return removal_extent(text, end)[0]


def removal_extent(text: str, end: int) -> tuple[int, int]:
    """:func:`removal_end`, and how far it read ``text``: the answer holds while
    ``text[:read]`` is unchanged (``read`` is past the end of ``text`` when the end of the
    text decided it)."""
    stop = end
    n = len(text)
    while stop < n and text[stop] in " \t":
        stop += 1
    if stop == n:
        return stop, n + 1
    if text.startswith("\r\n", stop):
        return stop + 2, stop + 2
    if text[stop] == "\r":
        return stop + 1, stop + 2  # a lone \r: what follows it (or the end) was read
    if text[stop] == "\n":
        return stop + 1, stop + 1
    return end, stop + 1


def _graph_facts(parsed: Parsed, text: str) -> object:
    """What of a file's summary (and ``text``) shapes the project graph (links, roots),
    without spans; of a .bib file, the ``@string`` macros the files read after it inherit."""
    if isinstance(parsed, ParsedBibliography):
        return tuple(parsed.strings.items()) if parsed.strings else None
    if not isinstance(parsed, ParsedDocument):
        return None
    links = tuple((lk.kind, lk.target, lk.command, lk.base, lk.beside) for lk in parsed.links)
    definitions = (
        parsed.citation_macros,
        parsed.macro_links,
        parsed.flags,
        parsed.bib_backend,
        parsed.chapterbib,
        parsed.text_macros,
        parsed.text_macro_links,
        parsed.macro_keys,
        parsed.jurabib,
        parsed.silenced,
        parsed.grouped_includes,
        parsed.environment_codes,
        parsed.verbatim_envs,
        parsed.resource_labels,
        parsed.input_path,
        parsed.short_verbs,
        latex_bibunit_order.file_order(parsed),
        latex_bibdata.file_shape(parsed, text),
        latex_bibdata.style_shape(parsed),
        style_shape(parsed.style_files, parsed.path.parent),
    )
    defines = bool(parsed.bibitems)  # a metadata file with references: is its project's
    ends = parsed.document_end >= 0  # an included file's end ends its project's reading
    facts = (parsed.is_root, parsed.magic_root, bool(parsed.citations), defines, ends)
    return links, facts, definitions
