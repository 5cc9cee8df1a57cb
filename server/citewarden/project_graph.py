"""The project graph: which documents form a project, and the bibliographies and metadata
each project uses (see :mod:`citewarden.project` for the rules).

:class:`ProjectGraph` is the half of :class:`~citewarden.project.Workspace` that computes the
projects from the files' parsed summaries; the workspace (the files, their reads and parses)
is the other half.  Where the links lead is :mod:`citewarden.project_links`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.bibtex_styles import BibStyle, bib_style
from citewarden.citation_styles import StyleReading, read_styles
from citewarden.model import (
    BibContext,
    BibFormat,
    DocumentKind,
    LatexContext,
    Link,
    LinkKind,
    ParsedBibliography,
    ParsedDocument,
    Span,
)
from citewarden.pandoc_version import Version, project_version
from citewarden.parsing import (
    YAML_SUFFIXES,
    Parsed,
    books,
    is_bibliography,
    is_csl,
    is_document,
    is_inline_r,
    is_latex,
    is_markdown,
    is_metadata,
    latex_bibdata,
    latex_bibunit_order,
    latex_bibunits,
    latex_order,
)
from citewarden.parsing.bibtex_inheritance import (
    Macros,
    Reading,
    inherited_strings,
    style_strings,
)
from citewarden.parsing.dispatch import Context, out_of_memory, parse_file
from citewarden.parsing.latex_static import TopLevel, context_applies, project_context
from citewarden.parsing.pandoc_syntax import dialect_of
from citewarden.project_links import (
    IF_EXISTS,
    LOAD_SUFFIX,
    LinkResolver,
    MissingLink,
    _is_macro,
    bib_names,
    glob_files,
    is_remote,
    normalize_path,
)
from citewarden.settings import Settings

if TYPE_CHECKING:
    from citewarden.file_state import FileState

#: biblatex backends that match keys as BibTeX does, case-insensitively
_BIBTEX_BACKENDS = frozenset({"bibtex", "bibtex8", "bibtexu"})
#: the commands (and environment) that name biblatex resources, read by biber
_BIBLATEX_RESOURCES = frozenset({"addbibresource", "addglobalbib", "addsectionbib", "refsection"})
#: biblatex resources biber looks up by the name as written (a refsection's list adds .bib)
_EXACT_RESOURCES = _BIBLATEX_RESOURCES - {"refsection"}
#: commands that read a file through ``\\include``, which writes its own .aux
_OWN_AUX = frozenset({"include", "includefrom", "subincludefrom"})
#: the link command of a bibunits ``\\defaultbibliography`` file: the project's only when
#: a bare ``\\putbib`` reads it (:mod:`~citewarden.parsing.latex_bibunit_order`)
_DEFAULT = "defaultbibliography"


@dataclass(frozen=True, slots=True)
class Project:
    """One unit the checks see: documents compiled together and the bibliographies they use."""

    root: Path
    kind: DocumentKind
    #: the root first, then included files in reading order
    documents: tuple[Path, ...]
    #: resolved bibliography files (existing), in the order the documents name them
    bibliographies: tuple[Path, ...] = ()
    #: _quarto.yml / _metadata.yml files contributing bibliography, nocite or references
    metadata: tuple[Path, ...] = ()
    #: links that could not be resolved
    missing: tuple[MissingLink, ...] = ()
    #: bibliography links named by a macro the project does not settle
    #: (``\\addbibresource{\\mybib}`` with ``\\mybib`` defined nowhere): which keys the
    #: project defines cannot be known
    unresolved: tuple[MissingLink, ...] = ()
    #: a LaTeX file that is neither a root nor included by one
    standalone: bool = False
    #: keys match case-insensitively: BibTeX processes the bibliography (no biblatex, or
    #: biblatex with ``backend=bibtex``); biber and pandoc match exactly
    casefold_keys: bool = False
    #: chapterbib units, each with its own .aux: the root's documents first, then each
    #: ``\\include``d file with the files it reads (empty without chapterbib)
    chapters: tuple[tuple[Path, ...], ...] = ()
    #: the targets of links written with macros, expanded: (document, the link's offset,
    #: target) (``\\bibliography{\\bibfile}`` -> ``refs``)
    expanded: tuple[tuple[Path, int, str], ...] = ()
    #: the files each ``\\addbibresource[glob]`` pattern names: (document, the link's
    #: offset, files)
    globbed: tuple[tuple[Path, int, tuple[Path, ...]], ...] = ()
    #: where each included LaTeX document is read: (document, the document including it,
    #: the number of that include link among the includer's)
    placed: tuple[tuple[Path, Path, int], ...] = ()
    #: in a project BibTeX reads through the root's one .aux (no biblatex, no chapterbib):
    #: the ``\\bibliography`` whose ``\\bibdata`` BibTeX obeys, and those it ignores:
    #: those after it and those in the preamble, which write nothing to the .aux
    #: (:mod:`~citewarden.parsing.latex_bibdata`); their files are not read
    bibdata: latex_bibdata.Command | None = None
    ignored: tuple[latex_bibdata.Command, ...] = ()
    #: biblatex resource links (``\\addbibresource``; ``\\bibliography`` under biblatex)
    #: of files read after ``\\begin{document}`` (included in the body): LaTeX stops on
    #: them ("Can be used only in preamble") and biber reads none of their files; (the
    #: document, the link's index in its links)
    late_resources: tuple[tuple[Path, int], ...] = ()
    #: in a project BibTeX reads (no biblatex) that has bibliographies: the style of its
    #: first ``\\bibliographystyle`` (:mod:`~citewarden.bibtex_styles`), whose macros the
    #: .bib files may use; None: no style named
    bib_style: BibStyle | None = None
    #: in a LaTeX project that loads biblatex styles: the reading of their files (the
    #: citation commands they declare; :mod:`~citewarden.citation_styles`)
    cite_styles: StyleReading | None = None
    #: where TeX stops reading the project: an included file (no root) holds
    #: ``\\end{document}``, so each file including it, down from the root, is read up to
    #: that include link alone: (document, the number of the link among its include links)
    ends: tuple[tuple[Path, int], ...] = ()
    #: in a Markdown project: the version of the pandoc that reads it
    #: (:mod:`~citewarden.pandoc_version`); None: not known
    pandoc_version: Version | None = None

    @property
    def unknown_style(self) -> BibStyle | None:
        """The project's style when the macros it defines are not known (its file is not
        found, cannot be read, or is one BibTeX stops on): any name may be one."""
        style = self.bib_style
        return style if style is not None and style.macros is None else None

    def target(self, path: Path, link: Link) -> str:
        """What ``link`` of the document ``path`` names, its macros expanded."""
        if self.expanded and _is_macro(link.target):
            for doc, start, target in self.expanded:
                if start == link.span.start and doc == path:
                    return target
        return link.target

    def glob_matches(self, path: Path, link: Link) -> tuple[Path, ...]:
        """The files the ``glob`` resource ``link`` of the document ``path`` names."""
        for doc, start, files in self.globbed:
            if start == link.span.start and doc == path:
                return files
        return ()

    @property
    def sources(self) -> tuple[Path, ...]:
        """Documents and metadata files: everything whose citations count."""
        return self.documents + self.metadata

    @property
    def has_bibliography_source(self) -> bool:
        """True when the project names any bibliography (found or not)."""
        return bool(self.bibliographies) or any(
            m.link.kind is LinkKind.BIBLIOGRAPHY for m in self.missing
        )

    @property
    def missing_bibliography(self) -> bool:
        return any(m.link.kind is LinkKind.BIBLIOGRAPHY for m in self.missing)

    @property
    def unread_document(self) -> bool:
        """True when an included document is there but could not be read (too large, not
        a regular file, no permission): what it cites is not known."""
        return any(
            m.link.kind is LinkKind.INCLUDE and m.unreadable is not None for m in self.missing
        )


class ProjectGraph(LinkResolver):
    """Computes a workspace's projects from its files' summaries (a base of
    :class:`~citewarden.project.Workspace`, which holds the files and their parses)."""

    settings: Settings
    _known: dict[Path, None]
    _states: dict[Path, FileState]
    #: the context a file not parsed yet is parsed with (the macros a .bib file inherits)
    _first_contexts: dict[Path, BibContext]
    #: memory running out while parsing a file makes the file unreadable (a finding) and
    #: the rest goes on (the language server); else it is raised (the command line ends)
    outlives_memory_errors: bool

    if TYPE_CHECKING:  # provided by Workspace

        def document(self, path: Path | str) -> ParsedDocument | None: ...
        def _state(self, path: Path) -> FileState | None: ...

    def _parse(self, path: Path, text: str, context: Context | None) -> Parsed:
        """:func:`parse_file` under this workspace's settings, as :meth:`_parsing` does."""
        return self._parsing(path, partial(parse_file, path, text, self.settings, context))

    def _parsing(self, path: Path, parse: Callable[[], Parsed]) -> Parsed:
        """``parse()``; memory running out is raised, or :func:`out_of_memory` in a
        workspace that :attr:`outlives_memory_errors`."""
        try:
            return parse()
        except MemoryError:
            if not self.outlives_memory_errors:
                raise
        return out_of_memory(path)  # out of the handler: the parse's memory is let go

    def _read_as_latex(self, path: Path) -> bool:
        """Make ``path``, a file a LaTeX document reads through ``\\input`` or
        ``\\include`` whatever its name (``notes.txt``, ``fig.tikz``), a LaTeX document: its
        kind comes from the link, as TeX reads any file it inputs.  Not a file whose name
        makes it a bibliography, a Markdown document or metadata: it stays what it is (and
        is not read as LaTeX).  Whether it is one now."""
        if is_bibliography(path) or is_csl(path) or is_markdown(path) or is_metadata(path):
            return False
        state = self._state(path)
        if state is None:
            return False
        if not isinstance(state.context, LatexContext):
            parsed = self._parse(path, state.text, LatexContext())
            # a new state: a fork of the workspace may hold the old one
            state = replace(state, parsed=parsed, context=LatexContext(), _bib_index=None)
            self._states[path] = state
        return isinstance(state.parsed, ParsedDocument)

    def _compute_projects(self) -> list[Project]:
        documents = [p for p in self._known if is_document(p)]
        latex_roots: dict[Path, None] = {}
        for path in documents:
            if not is_latex(path):
                continue
            doc = self.document(path)
            if doc is None:
                continue
            target = None
            if doc.magic_root and not _is_macro(doc.magic_root):
                target = self._resolve_magic_root(path, doc.magic_root)
                if target is not None:
                    latex_roots.setdefault(target, None)
                    self._known.setdefault(target, None)
            if doc.is_root and (target is None or not _is_subfile(doc)):
                latex_roots.setdefault(path, None)
        projects: list[Project] = []
        covered: set[Path] = set()
        for root in latex_roots:
            project = self._latex_project(root)
            covered.update(project.documents)
            projects.append(project)
        # files that name a root by a magic comment but are not reached by its includes
        for path in documents:
            doc = self.document(path) if is_latex(path) else None
            if doc is None or path in covered or not doc.magic_root:
                continue
            target = self._resolve_magic_root(path, doc.magic_root)
            for i, pr in enumerate(projects):
                if pr.root == target:
                    sub = self._latex_project(path, base=target.parent, standalone=False)
                    projects[i] = _merge_into(pr, sub)
                    covered.update(sub.documents)
        for path in list(self._known):
            # a package or class file (.sty, .cls) is read by the documents that load it,
            # never compiled on its own
            if (
                is_document(path)
                and is_latex(path)
                and path not in covered
                and self.document(path) is not None
            ):
                project = self._latex_project(path, standalone=True)
                covered.update(project.documents)
                projects.append(project)
        in_books: set[Path] = set()
        for book in self._book_projects(documents):
            projects.append(book)
            in_books.update(book.documents)
        markdown = [
            self._markdown_project(path)
            for path in documents
            if is_markdown(path) and path not in in_books and self.document(path) is not None
        ]
        # a file a Quarto document includes is part of that document's project, not a root
        includers: dict[Path, set[Path]] = {}
        for project in markdown:
            for child in project.documents[1:]:
                includers.setdefault(child, set()).add(project.root)
        projects.extend(
            project
            for project in markdown
            # (one that includes its includer back is kept: Quarto stops at either)
            if not any(r not in project.documents for r in includers.get(project.root, ()))
        )
        self._pass_on_strings(projects)
        self._pass_on_dialects(projects)
        return projects

    def _pass_on_dialects(self, projects: list[Project]) -> None:
        """Parse a Markdown document again, with the reading of the pandoc its project runs
        (a :class:`~citewarden.parsing.pandoc_syntax.PandocDialect`) as its context, when it
        was parsed with another; a document every pandoc reads alike only notes it."""
        for project in projects:
            if project.kind is not DocumentKind.MARKDOWN:
                continue
            # the Markdown reader (and YAML with it) is loaded once a Markdown project is
            # there, not at the server's start
            from citewarden.parsing.markdown import reads_alike

            dialect = dialect_of(project.pandoc_version)
            for path in project.documents:
                state = self._state(path)
                if state is None or state.context == dialect:
                    continue
                if not isinstance(state.parsed, ParsedDocument) or reads_alike(state.text):
                    self._states[path] = replace(state, context=dialect)
                    continue
                parsed = self._parse(path, state.text, dialect)
                # a new state: a fork of the workspace may hold the old one
                self._states[path] = replace(state, parsed=parsed, context=dialect, _extras=None)

    def _pass_on_strings(self, projects: list[Project]) -> None:
        """Parse a .bib file again when the ``@string`` macros it inherits (those every
        project reading it defines before it: its LaTeX projects' BibTeX style and the
        files they read before it, :mod:`~citewarden.parsing.bibtex_inheritance`) differ
        from those it was parsed with; one not parsed yet is parsed with them."""
        readings: list[Reading] = []
        for project in projects:
            if project.kind is not DocumentKind.LATEX:
                readings.append(Reading(project.bibliographies, passes_on=False))
                continue
            style = project.bib_style
            first = style_strings(style.macros if style is not None else None)
            open_style = project.unknown_style is not None
            readings.append(Reading(project.bibliographies, first, open_style=open_style))
        inherited = inherited_strings(readings, self._own_strings)
        for path, state in list(self._states.items()):
            parsed = state.parsed
            if isinstance(parsed, ParsedBibliography) and parsed.format is BibFormat.BIBTEX:
                macros = inherited.get(path)
                context = BibContext(macros) if macros else None
                if context != state.context:
                    parsed = self._parse(path, state.text, context)
                    # a new state: a fork of the workspace may hold the old one
                    self._states[path] = replace(
                        state, parsed=parsed, context=context, _bib_index=None
                    )

    def _own_strings(self, path: Path, inherited: Macros) -> Mapping[str, str] | None:
        """The ``@string`` macros ``path`` defines (None: not a BibTeX file); a file not
        parsed yet is parsed with the macros it ``inherited``."""
        if inherited and path not in self._states:
            self._first_contexts[path] = BibContext(inherited)
        bib = self._bibtex(path)
        self._first_contexts.pop(path, None)
        return bib.strings if bib is not None else None

    def _bibtex(self, path: Path) -> ParsedBibliography | None:
        state = self._state(path)
        if state is None or not isinstance(state.parsed, ParsedBibliography):
            return None
        return state.parsed if state.parsed.format is BibFormat.BIBTEX else None

    def _book_projects(self, documents: list[Path]) -> list[Project]:
        """bookdown and Quarto books among the folders of the Markdown ``documents``: one
        project each, its chapters in book order (see :mod:`citewarden.parsing.books`)."""
        books: list[Project] = []
        for folder in dict.fromkeys(p.parent for p in documents if is_markdown(p)):
            names = self._book_chapters(folder)
            if not names:
                continue
            chapters = [
                normalize_path(folder / name)
                for name in names
                if is_markdown(Path(name)) and self.exists(normalize_path(folder / name))
            ]
            if chapters:
                books.append(self._book_project(list(dict.fromkeys(chapters))))
        return books

    def _book_chapters(self, folder: Path) -> list[str] | None:
        for name in books.QUARTO_CONFIGS:
            config = folder / name
            if os.path.isfile(config):
                read = self._read(normalize_path(config))
                if not isinstance(read, OSError):
                    chapters = books.quarto_chapters(read[0])
                    if chapters is not None:
                        return chapters
        config = folder / books.BOOKDOWN_CONFIG
        if not os.path.isfile(config):
            return None
        read = self._read(normalize_path(config))
        if isinstance(read, OSError):
            return None
        try:
            files = [e.name for e in os.scandir(folder) if e.is_file()]
        except OSError:
            files = []
        return books.bookdown_chapters(read[0], files)

    def _book_project(self, chapters: list[Path]) -> Project:
        """One project for a book: what each chapter's own reading finds, together."""
        bibs: dict[Path, None] = {}
        metadata: dict[Path, None] = {}
        missing: dict[tuple[Path, str], MissingLink] = {}
        unresolved: dict[tuple[Path, int], MissingLink] = {}
        documents: dict[Path, None] = {}
        for chapter in chapters:
            self._known.setdefault(chapter, None)
            documents.setdefault(chapter, None)
            if self.document(chapter) is None:
                continue
            alone = self._markdown_project(chapter)
            documents.update(dict.fromkeys(alone.documents))  # the files it includes
            bibs.update(dict.fromkeys(alone.bibliographies))
            metadata.update(dict.fromkeys(alone.metadata))
            for m in alone.missing:
                missing.setdefault((m.path, m.target), m)
            for m in alone.unresolved:
                unresolved.setdefault((m.path, m.link.span.start), m)
        return Project(
            root=chapters[0],
            kind=DocumentKind.MARKDOWN,
            documents=tuple(documents),
            bibliographies=tuple(bibs),
            metadata=tuple(metadata),
            missing=tuple(missing.values()),
            unresolved=tuple(unresolved.values()),
            pandoc_version=self._pandoc_version(chapters, list(metadata)),
        )

    def _latex_project(
        self,
        root: Path,
        base: Path | None = None,
        standalone: bool = False,
        again: bool = False,
        input_dirs: tuple[Path, ...] = (),
    ) -> Project:
        root_dir = base if base is not None else root.parent
        docs: dict[Path, None] = {}
        bibs: dict[Path, None] = {}
        missing: list[MissingLink] = []
        unresolved: list[MissingLink] = []
        globbed: list[tuple[Path, int, tuple[Path, ...]]] = []
        bibtex_links = biblatex_links = bibtex_backend = biblatex = False
        tex_dirs, bib_dirs = self._search_paths(root_dir)
        # each document with the \include'd file (or the root) whose .aux it writes to
        heads: dict[Path, Path] = {}
        # each included document: (the document including it, number of that include link)
        placed: dict[Path, tuple[Path, int]] = {}
        chapterbib = False
        # (document, its base, its unit, where it is included) or, for a link whose target
        # is written with a macro that the files read so far do not define, (the document
        # naming it, its base, its unit, include number) and the link: resolved when the
        # files read before it in document order have been, as TeX expands it there
        stack: list[tuple[Path, Path, Path, tuple[Path, int] | None, Link | None]] = [
            (root, root_dir, root, None, None)
        ]
        #: plain-text macros of the files read so far (:func:`expand_macros`)
        names: dict[str, set[str]] = {}
        #: bare ``\\putbib`` of files that set no default: read ``\\jobname`` when no
        #: file of the project sets one
        jobname: list[tuple[Path, Link]] = []
        #: biblatex resources named without their .bib extension, with the file that has it
        unextended: list[tuple[Path, Link, str, Path]] = []
        #: each file found, with the links naming it: (document, the link's offset)
        named_by: dict[Path, list[tuple[Path, int]]] = {}

        def bibliography(path: Path, link: Link, written: str) -> None:
            for target in bib_names(link, written):  # a macro may stand for a list
                one_bibliography(path, link, target)

        def one_bibliography(path: Path, link: Link, target: str) -> None:
            if is_remote(target):  # biber downloads it: its keys cannot be known here
                unresolved.append(MissingLink(path, link, target))
                return
            if link.glob:  # biber reads every file the pattern names, from the root's folder
                matches, complete = glob_files(target, root_dir)
                if not complete:  # too wide to follow: which keys it gives is not known
                    unresolved.append(MissingLink(path, link, target))
                elif not matches:
                    missing.append(MissingLink(path, link, target))
                bibs.update(dict.fromkeys(matches))
                globbed.append((path, link.span.start, tuple(matches)))
                return
            self._refused = None
            # BibTeX and biber run in the root's folder: not the including file's, but
            # where \subfix makes the name relative to it
            dirs = (path.parent if link.beside else root_dir, *bib_dirs)
            found = self._resolve_bib(target, dirs)
            if found is None:
                miss = self._missing_link(path, link, target)
                if miss.unreadable is None and normalize_path(path.parent) != root_dir:
                    beside = self._resolve_bib(target, (path.parent,))
                    miss = replace(miss, beside=beside)
                missing.append(miss)
            elif (
                link.command.lstrip("\\") in _EXACT_RESOURCES
                and not target.strip().lower().endswith(".bib")
                and self._resolve_exact(target, dirs) is None
            ):
                # biber looks for the name as written; BibTeX (biblatex's bibtex backend)
                # adds .bib: which reads the project is known once every file is read
                unextended.append((path, link, target, found))
            else:
                bibs.setdefault(found, None)
                named_by.setdefault(found, []).append((path, link.span.start))

        def include(
            path: Path, here: Path, head: Path, includes: int, link: Link
        ) -> tuple[Path, Path, Path, tuple[Path, int], None] | None:
            self._refused = None
            resolved = self._resolve_include(
                link, here, root_dir, path.parent, tex_dirs, input_dirs
            )
            if resolved is None:
                # a package not the project's is the distribution's
                if link.command not in LOAD_SUFFIX and link.command not in IF_EXISTS:
                    missing.append(self._missing_link(path, link, link.target))
                return None
            child, child_base = resolved
            if not is_latex(child) and not self._read_as_latex(child):
                return None
            own_aux = head == root and link.command in _OWN_AUX
            return child, child_base, child if own_aux else head, (path, includes), None

        written_as: dict[tuple[Path, int], str] = {}

        def expanded(link: Link) -> Link | None:
            """``link`` with its macros expanded (itself without any); None: not known."""
            if not _is_macro(link.target) and (link.base is None or not _is_macro(link.base)):
                return link
            target = expand_macros(link.target, names, root.stem)
            folder = link.base
            if folder is not None:
                folder = expand_macros(folder, names, root.stem)
            if target is None or (link.base is not None and folder is None):
                return None
            return replace(link, target=target, base=folder)

        while stack:
            path, here, head, place, pending = stack.pop()
            if pending is not None and pending.kind is LinkKind.BIBLIOGRAPHY:
                if (written := expanded(pending)) is not None:
                    if written.target != pending.target:
                        written_as[path, pending.span.start] = written.target
                    bibliography(path, written, written.target)
                else:
                    # named by a macro the project does not define (or defines in more
                    # than one way): which keys it has cannot be known
                    unresolved.append(MissingLink(path, pending, pending.target))
                continue
            if pending is not None:
                written = expanded(pending)
                includes = place[1] if place is not None else -1
                if written is not None:
                    written_as[path, pending.span.start] = written.target
                if (
                    written is not None
                    and (child := include(path, here, head, includes, written)) is not None
                ):
                    stack.append(child)
                continue
            if path in docs:
                continue
            docs[path] = None
            heads[path] = head
            if place is not None:
                placed[path] = place
            doc = self.document(path)
            if doc is None:
                continue
            chapterbib = chapterbib or doc.chapterbib
            for name, body in doc.text_macros:
                names.setdefault(name, set()).add(body)
            children: list[tuple[Path, Path, Path, tuple[Path, int] | None, Link | None]] = []
            includes = -1
            bibtex_backend = bibtex_backend or doc.bib_backend in _BIBTEX_BACKENDS
            biblatex = biblatex or _loads_biblatex(doc)
            later = False  # a bibliography link waits: those after it wait too (their order)
            for link in doc.links:
                if link.command == latex_bibunits.JOBNAME_DEFAULT:
                    jobname.append((path, link))
                    continue
                if link.command == _DEFAULT:
                    continue  # a bibliography when a bare \\putbib reads it (below)
                if link.kind is LinkKind.BIBLIOGRAPHY:
                    if link.command.lstrip("\\") in _BIBLATEX_RESOURCES:
                        biblatex_links = True
                    else:  # \bibliography, multibib's \bibliographysw, bibunits' \putbib
                        bibtex_links = True
                    written = expanded(link)
                    if later or written is None:  # after the files this one includes before it
                        later = True
                        children.append((path, here, head, None, link))
                        continue
                    if written.target != link.target:
                        written_as[path, link.span.start] = written.target
                    bibliography(path, written, written.target)
                    continue
                includes += link.kind is LinkKind.INCLUDE
                if (written := expanded(link)) is None:
                    children.append((path, here, head, (path, includes), link))
                    continue
                if written is not link:
                    written_as[path, link.span.start] = written.target
                if (child := include(path, here, head, includes, written)) is not None:
                    children.append(child)
            stack.extend(reversed(children))
        read = list(docs)
        ends = self._document_ends(root, docs, placed)
        cut = self._links_after_end(read, docs, ends)
        for path, link, target, found in unextended:
            if bibtex_backend:
                bibs.setdefault(found, None)
            else:
                missing.append(MissingLink(path, link, target, extended=found))
        where = tuple((child, parent, index) for child, (parent, index) in placed.items())
        for default in self._defaults_read(root, list(docs), where):
            # the defaults some bare \\putbib reads, in document order (BibTeX reads no other)
            bibtex_links = True
            for name, a, b in default.items:
                if "#" in name:
                    continue
                link = Link(LinkKind.BIBLIOGRAPHY, name, Span(a, b), _DEFAULT)
                if (written := expanded(link)) is None:
                    unresolved.append(MissingLink(default.path, link, name))
                    continue
                if written.target != name:
                    written_as[default.path, a] = written.target
                bibliography(default.path, written, written.target)
        if jobname and not any(
            (doc := self.document(path)) is not None and doc.default_bibliography for path in docs
        ):
            bibtex_links = True
            for path, link in jobname:
                written_as[path, link.span.start] = root.stem
            path, link = jobname[0]  # one file for all: one finding when it is missing
            bibliography(path, replace(link, target=root.stem), root.stem)
        for path in docs:
            self._known.setdefault(path, None)
        # \def\input@path{{chapters/}}: LaTeX's \input looks there after TEXINPUTS
        set_dirs = tuple(
            dict.fromkeys(
                normalize_path(root_dir / entry)
                for path in docs
                if (doc := self.document(path)) is not None
                for entry in doc.input_path
            )
        )
        if set_dirs != input_dirs and not input_dirs:
            return self._latex_project(root, base, standalone, again, set_dirs)
        links_before = {path: doc.links for path in docs if (doc := self.document(path))}
        cite_styles = self._pass_on_definitions(list(docs), placed, (root_dir, *tex_dirs))
        if not again and any(
            (doc := self.document(path)) is not None and doc.links != links
            for path, links in links_before.items()
        ):
            # a section names a resource another file labels: its links are known now
            return self._latex_project(root, base, standalone, True, input_dirs)
        chapters = _chapter_units(heads, root) if chapterbib else ()
        # biblatex is loaded where it names resources (by a class or package not read here)
        biblatex = biblatex or biblatex_links
        bibdata, ignored = (None, []) if biblatex or chapterbib else self._bibdata(root, where, cut)
        late = self._late_resources(root, where, biblatex)
        if ignored or late or cut:  # BibTeX or biber reads none of their files
            skipped = self._link_offsets(ignored) | cut
            skipped.update((path, self._link_start(path, i)) for path, i in late)
            for found, naming in named_by.items():
                if all(at in skipped for at in naming):
                    del bibs[found]
            missing = [m for m in missing if (m.path, m.link.span.start) not in skipped]
            unresolved = [m for m in unresolved if (m.path, m.link.span.start) not in skipped]
        for path in bibs:
            self._known.setdefault(path, None)
        style = None if biblatex or not bibs else self._bib_style(root, root_dir, where, names)
        return Project(
            casefold_keys=bibtex_backend or (bibtex_links and not biblatex),
            root=root,
            kind=DocumentKind.LATEX,
            documents=tuple(docs),
            bibliographies=tuple(bibs),
            missing=tuple(missing),
            unresolved=tuple(unresolved),
            standalone=standalone,
            chapters=chapters,
            expanded=tuple((doc, at, target) for (doc, at), target in written_as.items()),
            globbed=tuple(globbed),
            placed=where,
            bibdata=bibdata,
            ignored=tuple(ignored),
            late_resources=late,
            bib_style=style,
            cite_styles=cite_styles,
            ends=ends,
        )

    def _document_ends(
        self, root: Path, docs: dict[Path, None], placed: dict[Path, tuple[Path, int]]
    ) -> tuple[tuple[Path, int], ...]:
        """:attr:`Project.ends` of the project of ``root``, whose ``docs`` are in reading
        order (each included one ``placed``), and drop from ``docs`` those read after its
        end.  An included file that is a document of its own (``\\documentclass``: a
        subfile, a standalone figure) ends nothing: the packages reading it skip its end."""
        order = list(docs)
        for i, path in enumerate(order):
            doc = self.document(path) if path != root else None
            if doc is None or doc.document_end < 0 or doc.is_root or path not in placed:
                continue
            ends: list[tuple[Path, int]] = []
            child = path
            while child in placed and child != root:
                parent, number = placed[child]
                ends.append((parent, number))
                child = parent
            for later in order[i + 1 :]:
                del docs[later]
                placed.pop(later, None)
            return tuple(ends)
        return ()

    def _links_after_end(
        self, read: list[Path], docs: dict[Path, None], ends: tuple[tuple[Path, int], ...]
    ) -> set[tuple[Path, int]]:
        """(document, offset) of each bibliography link TeX never reads, standing after
        the project's end (:attr:`Project.ends`): in a file of ``read`` left out of
        ``docs``, or after the include link at which a file including the end stops."""
        cut: set[tuple[Path, int]] = set()
        stops = dict(ends)
        for path in read:
            doc = self.document(path)
            if doc is None or (path in docs and path not in stops):
                continue
            end = -1
            if path in docs:
                includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
                if stops[path] >= len(includes):
                    continue
                end = includes[stops[path]].span.end
            cut.update(
                (path, link.span.start)
                for link in doc.links
                if link.kind is LinkKind.BIBLIOGRAPHY and link.span.start >= end
            )
        return cut

    def _bib_style(
        self,
        root: Path,
        root_dir: Path,
        placed: tuple[tuple[Path, Path, int], ...],
        names: Mapping[str, set[str]],
    ) -> BibStyle | None:
        """The style of the first ``\\bibliographystyle`` of the project of ``root`` (run
        in ``root_dir``; ``placed``: :attr:`Project.placed`; ``names``: the project's
        plain-text macros), with what its file defines."""
        parsed: dict[Path, ParsedDocument] = {}
        for path in (root, *(child for child, _, _ in placed)):
            doc = self.document(path)
            # a subfile's style is for it alone, as its \bibliography (see _bibdata)
            if doc is not None and not _is_subfile(doc):
                parsed[path] = doc
        first = latex_bibdata.first_style(root, parsed, placed)
        if first is None:
            return None
        path, index = first
        name = parsed[path].bib_styles[index][0]
        if "\\" in name:
            expanded = expand_macros(name, names, root.stem)
            if expanded is None:
                why = "it is named by a macro the project does not define as plain text"
                return BibStyle(name, path, index, unknown=why)
            name = expanded
        dirs = (root_dir, *self._input_dirs(root_dir, ("BSTINPUTS",))[0])
        return bib_style(name, path, index, dirs)

    def _bibdata(
        self,
        root: Path,
        placed: tuple[tuple[Path, Path, int], ...],
        cut: set[tuple[Path, int]],
    ) -> tuple[latex_bibdata.Command | None, list[latex_bibdata.Command]]:
        """The ``\\bibliography`` of the project of ``root`` that BibTeX obeys, and those
        it ignores: those after it and those at the preamble's top level (``placed``:
        :attr:`Project.placed`); those whose links are ``cut`` (after the document's end)
        are never read: neither."""
        parsed: dict[Path, ParsedDocument] = {}
        texts: dict[Path, str] = {}
        for path in (root, *(child for child, _, _ in placed)):
            doc, state = self.document(path), self._state(path)
            # a subfile's \bibliography is most often for it alone (under
            # \ifSubfilesClassLoaded, which is not read): it is left out
            if doc is not None and state is not None and not _is_subfile(doc):
                parsed[path], texts[path] = doc, state.text
        commands = [
            command
            for command in latex_bibdata.commands_in_order(root, parsed, texts, placed)
            if not command.links or not self._link_offsets([command]) <= cut
        ]
        if any(doc.bibunits for doc in parsed.values()) or not any(
            doc.bib_styles for doc in parsed.values()
        ):
            # bibunits reads a \bibliography as its default bibliography; without a
            # \bibliographystyle, biblatex may be loaded by a class or package not read
            # here (its \bibliography belongs in the preamble): left as they were
            commands = [command for command in commands if not command.preamble]
        body = [command for command in commands if not command.preamble]
        preamble = [command for command in commands if command.preamble]
        # one in the preamble writes nothing to the .aux: BibTeX reads none of its files
        return (body[0], body[1:] + preamble) if body else (None, preamble)

    def _late_resources(
        self, root: Path, placed: tuple[tuple[Path, Path, int], ...], biblatex: bool
    ) -> tuple[tuple[Path, int], ...]:
        """The biblatex resource links of the files of the project of ``root`` included
        after ``\\begin{document}`` (``placed``: :attr:`Project.placed`; ``biblatex``: the
        project loads it, so a ``\\bibliography`` is one too).  The root's own are left
        out of its links as it is parsed; a subfile's preamble is not read as a body."""
        parent_of = {child: (parent, index) for child, parent, index in placed}
        in_body: dict[Path, bool] = {root: False}

        def body(path: Path) -> bool:
            if path in in_body:
                return in_body[path]
            in_body[path] = False  # (a cycle reads nothing more)
            parent, index = parent_of[path]
            doc = self.document(parent)
            includes = (
                [] if doc is None else [link for link in doc.links if link.kind is LinkKind.INCLUDE]
            )
            at = includes[index].span.start if index < len(includes) else -1
            in_body[path] = body(parent) or (doc is not None and 0 <= doc.body_start <= at)
            return in_body[path]

        late: list[tuple[Path, int]] = []
        for child, _, _ in placed:
            doc = self.document(child)
            if doc is None or _is_subfile(doc) or not body(child):
                continue
            for i, link in enumerate(doc.links):
                command = link.command.lstrip("\\")
                if link.kind is LinkKind.BIBLIOGRAPHY and (
                    command in _EXACT_RESOURCES or (biblatex and command == "bibliography")
                ):
                    late.append((child, i))
        return tuple(late)

    def _link_start(self, path: Path, index: int) -> int:
        """The offset of the link ``index`` of the document ``path`` (-1: not there)."""
        doc = self.document(path)
        return doc.links[index].span.start if doc is not None and index < len(doc.links) else -1

    def _link_offsets(self, commands: list[latex_bibdata.Command]) -> set[tuple[Path, int]]:
        """(document, offset) of each link of ``commands``."""
        found: set[tuple[Path, int]] = set()
        for command in commands:
            doc = self.document(command.path)
            if doc is not None:
                found.update((command.path, doc.links[i].span.start) for i in command.links)
        return found

    def _defaults_read(
        self, root: Path, documents: list[Path], placed: tuple[tuple[Path, Path, int], ...]
    ) -> list[latex_bibunit_order.Default]:
        """The bibunits defaults that a bare ``\\putbib`` reads (in document order), each
        once."""
        parsed: dict[Path, ParsedDocument] = {}
        for path in documents:
            doc = self.document(path)
            if doc is not None:
                parsed[path] = doc
        if not any(doc.bare_putbibs for doc in parsed.values()):
            return []
        read = latex_bibunit_order.bare_putbib_defaults(root, parsed, placed)
        return list(dict.fromkeys(read.values()))

    def _lost_nocite_files(
        self,
        states: list[tuple[Path, FileState, ParsedDocument]],
        placed: Mapping[Path, tuple[Path, int]],
    ) -> dict[Path, str]:
        """The files read at the root's preamble's top level after a package whose
        ``\\nocite`` writes at once (natbib, cite, harvard), included there by the root or
        by such a file at its own top level, each with the package: their ``\\nocite``
        at their top level cites nothing."""
        by_path = {path: (state, doc) for path, state, doc in states}
        known: dict[Path, str] = {}  # each file's package ("": its \\nocite counts)

        def through(path: Path, package: str) -> str:
            """The package for ``path`` whose parent's is ``package`` (the root's: "")."""
            parent, index = placed[path]
            state, doc = by_path[parent]
            includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
            if index >= len(includes):
                return ""
            # the include command's backslash (the link's span is its argument)
            at = max(state.text.rfind("\\", 0, includes[index].span.start), 0)
            if doc.is_root:
                loaded_at, package = doc.nocite_now_at
                if not 0 <= loaded_at < at < doc.body_start:
                    return ""
            if not package or not TopLevel(state.text).at(at):
                return ""
            return package

        for path, _, _ in states:
            chain: list[Path] = []  # the files up to one known or the top, the last first
            in_chain: set[Path] = set()
            here = path
            while here not in known and here not in in_chain:
                chain.append(here)
                in_chain.add(here)
                if here not in placed or placed[here][0] not in by_path:
                    break
                here = placed[here][0]
            package = known.get(here, "")
            for file in reversed(chain):
                if file in placed and placed[file][0] in by_path and file not in known:
                    package = through(file, package)
                else:
                    package = ""
                known[file] = package
        return {path: package for path, package in known.items() if package}

    def _pass_on_definitions(
        self,
        documents: list[Path],
        placed: dict[Path, tuple[Path, int]],
        style_dirs: Sequence[Path] = (),
    ) -> StyleReading | None:
        """Parse the documents of a LaTeX project again when what they inherit from the
        project (its citation macros and flags) differs from what they were parsed with;
        -> the reading of its style files (None: it names none).

        Every document knows the macros of every document of the project, each applying
        from its definition in document order (``placed``: where each document is
        included, see :mod:`~citewarden.parsing.latex_order`), and the citation commands
        of the biblatex styles the project loads (looked for in ``style_dirs``, then in
        TeX's trees; :mod:`~citewarden.citation_styles`), everywhere.  A wrapper of a
        wrapper defined in another file may need a second round."""
        states: list[tuple[Path, FileState, ParsedDocument]] = []
        for path in documents:
            state = self._state(path)
            if state is not None and isinstance(state.parsed, ParsedDocument):
                states.append((path, state, state.parsed))
        braced = any(doc.braced_keys for _, _, doc in states) and any(
            doc.key_braces for _, _, doc in states
        )
        # a star read as every entry (\cite{*}, \nocite*{f}) in a project that loads biblatex
        # or bibunits, whose files read it otherwise
        starred = any(doc.nocite_all_at for _, _, doc in states) and any(
            doc.key_braces == "biblatex" or doc.bibunits for _, _, doc in states
        )
        files = [name for _, _, doc in states for name in doc.style_files]
        reading = read_styles(files, style_dirs) if files else None
        from_styles = reading.macros if reading is not None else ()
        lost = self._lost_nocite_files(states, placed)
        if (
            not braced
            and not starred
            and not from_styles
            and not lost
            and not any(doc.macro_keys for _, _, doc in states)
            and all(st.context is None and not _defines_for_others(doc) for _, st, doc in states)
        ):
            return reading  # nothing to pass on, nothing passed on before
        for _ in range(3):
            shared = project_context([(doc, st.text) for _, st, doc in states])
            # the styles' commands apply everywhere; a document's own definition wins
            own = {macro.name for macro in shared.macros}
            added = tuple(m for m in from_styles if m.name not in own)
            shared = replace(shared, macros=shared.macros + added)
            everywhere = tuple((macro.name, -1) for macro in added)
            starts = latex_order.macro_starts(
                documents, placed, {path: doc.macro_links for path, _, doc in states}
            )
            text_starts = latex_order.macro_starts(
                documents, placed, {path: doc.text_macro_links for path, _, doc in states}
            )
            silenced = latex_order.silencing(
                documents,
                placed,
                {path: doc.silenced for path, _, doc in states},
                {path: doc.grouped_includes for path, _, doc in states},
            )
            changed = False
            for i, (path, state, doc) in enumerate(states):
                context = replace(
                    shared,
                    starts=starts.get(path, ()) + everywhere,
                    lost_nocite=lost.get(path, ""),
                    silenced=silenced.get(path, ()),
                    text_macro_starts=text_starts.get(path, ()),
                )
                before = (
                    state.context if isinstance(state.context, LatexContext) else LatexContext()
                )
                if context != before and not (
                    context_applies(state.text, doc, context)
                    or context_applies(state.text, doc, before)
                ):
                    # neither context touches the file: its parse stays, the context is noted
                    state = replace(state, context=context)
                    self._states[path] = state
                    states[i] = (path, state, doc)
                elif context != before:
                    parsed = self._parse(path, state.text, context)
                    # a new state: a fork of the workspace may hold the old one
                    state = replace(state, parsed=parsed, context=context, _extras=None)
                    self._states[path] = state
                    if isinstance(parsed, ParsedDocument):
                        changed = (
                            changed
                            or parsed.citation_macros != doc.citation_macros
                            or parsed.flags != doc.flags
                            or parsed.silenced != doc.silenced
                            or parsed.grouped_includes != doc.grouped_includes
                        )
                        states[i] = (path, state, parsed)
            if not changed:
                break
        return reading

    def _markdown_project(self, path: Path) -> Project:
        metadata = self._with_metadata_files(path, self._metadata_chain(path))
        bibs: dict[Path, None] = {}
        missing: list[MissingLink] = []
        unresolved: list[MissingLink] = []
        used_metadata: list[Path] = []
        included = self._included(path, metadata, missing)
        for source in [*metadata, path, *included]:
            doc = self.document(source)
            if doc is None:
                continue
            links = [lk for lk in doc.links if lk.kind is LinkKind.BIBLIOGRAPHY]
            # a project metadata file counts even where it names no citation data: its
            # filters (pandoc-crossref) and its making the document a Quarto one apply
            if source != path and (
                source in metadata or links or doc.citations or doc.nocite_all or doc.bibitems
            ):
                used_metadata.append(source)
                self._known.setdefault(source, None)
            for link in links:
                target = link.target
                if (
                    (_is_macro(target) and "\\" in target)
                    or is_remote(target)
                    or is_inline_r(target)
                ):
                    # a TeX macro, a URL pandoc downloads, R code R Markdown runs: its keys
                    # cannot be known here
                    unresolved.append(MissingLink(source, link, link.target))
                    continue
                self._refused = None
                found = self._resolve_csl_or_bib(link.target, source.parent)
                if found is None:
                    missing.append(self._missing_link(source, link, link.target))
                else:
                    bibs.setdefault(found, None)
        for bib in bibs:
            self._known.setdefault(bib, None)
        return Project(
            root=path,
            kind=DocumentKind.MARKDOWN,
            documents=(path, *included),
            bibliographies=tuple(bibs),
            metadata=tuple(used_metadata),
            missing=tuple(missing),
            unresolved=tuple(unresolved),
            pandoc_version=self._pandoc_version([path], metadata),
        )

    def _with_metadata_files(self, path: Path, chain: list[Path]) -> list[Path]:
        """The metadata files of the Markdown document ``path``: its project's ``chain``
        and, in a Quarto project (a .qmd, or a ``_quarto.yml`` in ``chain``), the YAML files
        each of them and then ``path``'s front matter name in ``metadata-files:``, named
        relative to the file naming them, in the order Quarto merges them into the
        document's metadata (before the front matter's own fields)."""
        if path.suffix.lower() != ".qmd" and not any(
            m.name.lower().startswith("_quarto") for m in chain
        ):
            return chain
        found: list[Path] = []
        for source in [*chain, path]:
            doc = self.document(source)
            if source != path:
                found.append(source)
            for link in doc.links if doc is not None else ():
                if link.kind is LinkKind.INCLUDE and link.command == "metadata-files":
                    target = normalize_path(source.parent / link.target.strip())
                    if target not in found and self._read_as_metadata(target):
                        found.append(target)
        return found

    def _read_as_metadata(self, path: Path) -> bool:
        """Make the YAML file ``path`` a ``metadata-files:`` entry names project metadata
        (a ``_quarto.yml`` is), whatever its name, where its name made it a CSL-YAML
        bibliography.  Whether it is metadata now."""
        if path.suffix.lower() not in YAML_SUFFIXES:
            return False
        state = self._state(path)
        if state is None:
            return False
        if not isinstance(state.parsed, ParsedDocument):
            from citewarden.parsing.markdown import parse_metadata_yaml  # imports yaml

            parsed = self._parsing(path, partial(parse_metadata_yaml, path, state.text))
            self._states[path] = replace(
                state, parsed=parsed, _bib_index=None, _references=None, _extras=None
            )
        return True

    def _included(self, path: Path, metadata: list[Path], missing: list[MissingLink]) -> list[Path]:
        """The files the ``{{< include >}}`` shortcodes of the Quarto document ``path`` (a
        .qmd, or any in a Quarto project: ``metadata`` holds a ``_quarto.yml``) and the
        child chunks of an R Markdown or Quarto one (knitr's ``{r, child = "a.Rmd"}``)
        bring in, and those of theirs; each named relative to the file naming it (an
        include's ``/``: the project's folder).  One that is not there is a ``missing`` link."""
        quartos = [m for m in metadata if m.name.startswith("_quarto")]
        follow = set()
        if path.suffix.lower() == ".qmd" or quartos:
            follow.add("include")
        if path.suffix.lower() in (".qmd", ".rmd"):
            follow.add("child")
        if not follow:
            return []
        top = quartos[-1].parent if quartos else path.parent
        seen = {path}
        found: list[Path] = []
        stack = [(path, iter(self._include_links(path, follow)))]
        while stack:  # depth first, in document order
            source, links = stack[-1]
            link = next(links, None)
            if link is None:
                stack.pop()
                continue
            target = link.target
            if target.startswith("/") and link.command == "include":
                child = normalize_path(top / target.lstrip("/"))
            else:  # (an absolute child path is the file system's)
                child = normalize_path(source.parent / target)
            if not self.exists(child):
                missing.append(MissingLink(source, link, target))
            elif is_markdown(child) and child not in seen:
                seen.add(child)
                self._known.setdefault(child, None)
                found.append(child)
                stack.append((child, iter(self._include_links(child, follow))))
        return found

    def _include_links(self, path: Path, commands: set[str]) -> list[Link]:
        """The include links of the Markdown document ``path`` made by ``commands``."""
        doc = self.document(path)
        if doc is None:
            return []
        return [lk for lk in doc.links if lk.kind is LinkKind.INCLUDE and lk.command in commands]

    def _pandoc_version(self, documents: list[Path], metadata: list[Path]) -> Version | None:
        """The version of the pandoc that reads a Markdown project: the setting's, else the
        one installed here (Quarto's own for a Quarto project: a .qmd document, or a
        ``_quarto.yml`` among its metadata files)."""
        quarto = any(p.suffix.lower() == ".qmd" for p in documents) or any(
            p.name.startswith("_quarto") for p in metadata
        )
        return project_version(self.settings.pandoc_version, quarto)


def _defines_for_others(doc: ParsedDocument) -> bool:
    """The document defines what the project's other files inherit (:class:`LatexContext`):
    citation macros, flags, verbatim-like environments, resource labels, short verbatim,
    multibib lists, jurabib's reading of ``\\citefield``, citation commands silenced,
    environments whose begin code silences one."""
    return bool(
        doc.citation_macros
        or doc.flags
        or doc.verbatim_envs
        or doc.resource_labels
        or doc.short_verbs
        or doc.plain_cite
        or doc.newcites
        or doc.jurabib
        or doc.silenced
        or doc.environment_codes
    )


def _is_subfile(doc: ParsedDocument) -> bool:
    """The document's class is subfiles': compiled alone it reads the preamble of the main
    file it names, so it is part of that file's project, not a root of its own."""
    return any(
        link.command == "documentclass" and link.target.strip() == "subfiles" for link in doc.links
    )


def _loads_biblatex(doc: ParsedDocument) -> bool:
    """The document loads biblatex (its ``\\bibliography`` is then ``\\addbibresource``)."""
    return doc.key_braces == "biblatex" or doc.bib_backend is not None


def _chapter_units(heads: dict[Path, Path], root: Path) -> tuple[tuple[Path, ...], ...]:
    """:attr:`Project.chapters` from each document's unit head, in reading order."""
    units: dict[Path, list[Path]] = {root: []}
    for path, head in heads.items():
        units.setdefault(head, []).append(path)
    return tuple(tuple(paths) for paths in units.values())


#: a control word and the spaces (or ``{}``) TeX reads with it
_CONTROL_WORD = re.compile(r"\\([A-Za-z@]+)(?:\s+|\{\})?")
#: longest file name an expansion may give (a path longer than this names no file)
MAX_EXPANDED = 4096


def expand_macros(target: str, names: Mapping[str, set[str]], jobname: str) -> str | None:
    """``target`` with each macro replaced by its plain-text body (``\\jobname``: the
    root's name without its suffix), or None when one has no single such body in the
    project (undefined, defined with commands, or defined in more than one way) or the
    name it gives is longer than :data:`MAX_EXPANDED`."""
    unknown = False

    def body(m: re.Match[str]) -> str:
        nonlocal unknown
        name = m.group(1)
        if name == "jobname":
            return jobname
        bodies = names.get(name, ())
        if len(bodies) != 1:
            unknown = True
            return ""
        return next(iter(bodies))

    out = _CONTROL_WORD.sub(body, target).strip()
    if unknown or not out or _is_macro(out) or len(out) > MAX_EXPANDED:
        return None
    return out


class _Unpaired(Exception):
    """A link of the projects has no place in the new parse (:func:`moved_links`)."""


def moved_links(
    projects: list[Project], path: Path, old: ParsedDocument, new: ParsedDocument
) -> list[Project] | None:
    """``projects`` with the links of the document ``path`` where they are in its new parse
    ``new``: an edit that changes no link keeps the projects, but moves the links after it.

    A link is known by its place among the document's links (a bibunits default's file,
    which a bare ``\\putbib`` may read, by its place among the defaults' files), as in
    ``old``, the parse the projects were computed from.  None: the links do not pair up
    (compute the projects again)."""
    held = [
        any(m.path == path for m in (*project.missing, *project.unresolved))
        or any(doc == path for doc, _, _ in (*project.expanded, *project.globbed))
        for project in projects
    ]
    if not any(held):
        return projects  # no link of the document is held (most edits)
    if len(old.links) != len(new.links) or len(old.bibunit_defaults) != len(new.bibunit_defaults):
        return None
    pairs = [(a.span, b.span) for a, b in zip(old.links, new.links, strict=True)]
    for (_, a_items, _), (_, b_items, _) in zip(
        old.bibunit_defaults, new.bibunit_defaults, strict=True
    ):
        if len(a_items) != len(b_items):
            return None
        pairs += [
            (Span(a, b), Span(c, d)) for (_, a, b), (_, c, d) in zip(a_items, b_items, strict=True)
        ]
    if all(a == b for a, b in pairs):
        return projects
    spans: dict[Span, Span] = {}
    starts: dict[int, int] = {}
    for a, b in pairs:
        if spans.setdefault(a, b) != b or starts.setdefault(a.start, b.start) != b.start:
            return None  # two links where one was: which is which is not known

    def link(m: MissingLink) -> MissingLink:
        if m.path != path:
            return m
        if (span := spans.get(m.link.span)) is None:
            raise _Unpaired
        return replace(m, link=replace(m.link, span=span))

    def start(doc: Path, at: int) -> int:
        if doc != path:
            return at
        if (moved := starts.get(at)) is None:
            raise _Unpaired
        return moved

    found: list[Project] = []
    try:
        for project, moves in zip(projects, held, strict=True):
            found.append(
                replace(
                    project,
                    missing=tuple(map(link, project.missing)),
                    unresolved=tuple(map(link, project.unresolved)),
                    expanded=tuple((d, start(d, at), t) for d, at, t in project.expanded),
                    globbed=tuple((d, start(d, at), f) for d, at, f in project.globbed),
                )
                if moves
                else project
            )
    except _Unpaired:
        return None
    return found


def _merge_into(project: Project, sub: Project) -> Project:
    docs = dict.fromkeys(project.documents)
    docs.update(dict.fromkeys(sub.documents))
    bibs = dict.fromkeys(project.bibliographies)
    bibs.update(dict.fromkeys(sub.bibliographies))
    return Project(
        root=project.root,
        kind=project.kind,
        documents=tuple(docs),
        bibliographies=tuple(bibs),
        metadata=project.metadata,
        missing=project.missing + sub.missing,
        unresolved=project.unresolved + sub.unresolved,
        standalone=project.standalone,
        casefold_keys=project.casefold_keys,
        chapters=project.chapters,
        expanded=project.expanded + sub.expanded,
        globbed=project.globbed + sub.globbed,
        bib_style=project.bib_style,
    )
