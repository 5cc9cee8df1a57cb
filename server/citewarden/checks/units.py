"""Units with their own bibliography: biblatex ``refsection`` environments with resources,
multibib's ``\\newcites`` lists, and chapterbib chapters (see
:mod:`~citewarden.checks.chapterbib`).

biblatex resolves a citation inside ``\\begin{refsection}[ch1.bib]`` against ``ch1.bib``
(and the ``\\addglobalbib`` resources) only, and one outside every such refsection against
the resources the documents name outside refsections (``\\addbibresource``,
``\\bibliography``).  So a key is dangling when the bibliographies its unit reads do not
define it, and an entry is an orphan only when no unit that reads its file cites it.
Resources are matched to the project's bibliography files by file name, with or without
the ``.bib`` extension.

With multibib, ``\\newcites{sw}{Software}`` makes a list of its own: BibTeX reads
``sw.aux``, which holds the keys of ``\\citesw`` and ``\\nocitesw`` and the files of
``\\bibliographysw``; the other citations and ``\\bibliography`` make the main list.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import chapterbib
from citewarden.checks.defined import bibtex_defined_keys, commented_keys
from citewarden.checks.refsection_flow import Regions, refsection_flow
from citewarden.file_state import fold_key
from citewarden.model import Citation, Code, Finding, LinkKind, Location, ParsedDocument, quoted
from citewarden.parsing import latex_bibunits
from citewarden.parsing.latex_args import LIST_STAR
from citewarden.parsing.latex_bibunit_order import bare_putbib_defaults
from citewarden.parsing.latex_commands import multibib_list
from citewarden.project_links import bib_names

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace

#: link commands of the resources of a unit (a refsection's, a bibunit's), not read by
#: the citations outside units
_UNIT_RESOURCES = frozenset(
    {"refsection", "putbib", "defaultbibliography", latex_bibunits.JOBNAME_DEFAULT}
)
#: the resources a citation reads: a refsection's own, or None for the document-wide ones
Scope = tuple[str, ...] | None
#: a unit: its start, end and resources as written
Unit = tuple[int, int, tuple[str, ...]]


def has_units(ws: Workspace, project: Project) -> bool:
    """The project has a refsection with resources of its own, multibib lists, or
    chapterbib chapters."""
    if project.chapters:
        return True
    return any(doc.refsections or doc.newcites for _, doc in ws.project_documents(project))


def _name(written: str) -> str:
    return written.replace("\\", "/").rsplit("/", 1)[-1]


def _names(path: Path, written: set[str]) -> bool:
    return path.name in written or path.stem in written


class _Sections:
    """A document's units by start, to find the one around an offset in log time."""

    def __init__(self, doc: ParsedDocument) -> None:
        self._units = doc.refsections  # sorted by start
        self._starts = [start for start, _, _ in self._units]
        self._nested = any(
            self._units[i][1] > self._units[i + 1][0] for i in range(len(self._units) - 1)
        )

    def unit(self, offset: int) -> Unit | None:
        """The (outermost) unit around ``offset``: its start, end and resources; or None."""
        if self._nested:  # rare: a unit inside another
            for unit in self._units:
                if unit[0] <= offset < unit[1]:
                    return unit
            return None
        at = bisect.bisect_right(self._starts, offset) - 1
        if at >= 0 and offset < self._units[at][1]:
            return self._units[at]
        return None


@dataclass(frozen=True, slots=True)
class Units:
    """Which bibliography files each scope of a project reads."""

    #: file names of the ``\\addglobalbib`` resources (read by every unit)
    global_names: frozenset[str]
    #: file names of the resources named outside refsections
    plain_names: frozenset[str]
    #: multibib lists: the file names of each suffix's ``\\bibliography<suffix>``
    lists: tuple[tuple[str, frozenset[str]], ...] = ()
    #: which citations of a bibunit go to the main list too (see
    #: :func:`~citewarden.parsing.latex_bibunits.copied`)
    copies: str = ""
    #: the default bibliography of a bare ``\\putbib`` whose file sets none
    default: tuple[str, ...] = ()
    #: what each bare ``\\putbib`` reads, by (document, the unit's start), in document
    #: order (see :mod:`~citewarden.parsing.latex_bibunit_order`)
    bare: dict[tuple[Path, int], tuple[str, ...]] = field(default_factory=dict)
    #: the unit around the include link that reads each document, if any, found through
    #: the links leading to it: (the document holding the unit, the unit, its bibunits)
    outer: dict[Path, tuple[Path, Unit, bool]] = field(default_factory=dict)
    #: biblatex's refsections followed through the project in reading order (a section
    #: begun in an included file runs on after it), by document; a document missing here
    #: (all of them in a project with bibunits) is read with :attr:`outer`
    flow: dict[Path, Regions] = field(default_factory=dict)
    #: each document's units, indexed on first use (by id; the document is kept with it)
    _sections: dict[int, tuple[ParsedDocument, _Sections]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def _unit(self, doc: ParsedDocument, offset: int) -> Unit | None:
        if not doc.refsections:
            return None
        sections = self._sections.get(id(doc))
        if sections is None or sections[0] is not doc:
            sections = self._sections[id(doc)] = (doc, _Sections(doc))
        return sections[1].unit(offset)

    def scope(self, path: Path, doc: ParsedDocument, cit: Citation) -> Scope:
        """The resources ``cit`` (of the document ``path``) reads: its multibib list's, its
        refsection's or bibunit's, or None."""
        if self.lists:
            command = cit.command.rstrip("*")
            for suffix, names in self.lists:
                if multibib_list(command, (suffix,)) is not None:
                    return tuple(sorted(names))
        regions = self.flow.get(path)
        if regions is not None:
            state = regions.at(cit.span.start)
            return None if state is None else state[1][2]
        unit = self._unit(doc, cit.span.start)
        if unit is None:
            return self.outer_scope(path)
        scope = self.bare.get((path, unit[0]), unit[2])
        return self.default if scope == latex_bibunits.FROM_PROJECT else scope

    def outer_scope(self, path: Path) -> tuple[str, ...] | None:
        """The resources of the unit the included document ``path`` is read in, or None
        when it is read outside units."""
        outer = self.outer.get(path)
        if outer is None:
            return None
        parent, unit, _ = outer
        scope = self.bare.get((parent, unit[0]), unit[2])
        return self.default if scope == latex_bibunits.FROM_PROJECT else scope

    def nocite_scopes(self, path: Path, doc: ParsedDocument) -> list[Scope]:
        """The resources each ``\\nocite{*}`` of the document ``path`` cites every entry
        of: its refsection's or multibib list's, or None for the document-wide ones."""
        regions = self.flow.get(path)
        if regions is not None:
            states = [regions.at(at) for at in doc.nocite_all_at]
            return [None if state is None else state[1][2] for state in states]
        scopes: list[Scope] = [self.outer_scope(path)] if doc.nocite_all else []
        own = tuple(name for name in doc.nocite_all_in if not name.startswith(LIST_STAR))
        scopes += [own] if own else []
        lists = dict(self.lists)
        for name in doc.nocite_all_in:  # \nocitesw{*}: the files of \bibliographysw
            if name.startswith(LIST_STAR):
                scopes.append(tuple(sorted(lists.get(name[len(LIST_STAR) :], ()))))
        return scopes

    def copied(self, doc: ParsedDocument, cit: Citation, scope: Scope) -> bool:
        """bibunits copies ``cit``, in a unit (``scope``), to the main list too."""
        if scope is None or not doc.bibunits or not self.copies:
            return False
        return self.copies == latex_bibunits.ALL or cit.command in ("cite*", "nocite*")

    def where(
        self, path: Path, doc: ParsedDocument, cit: Citation, scope: Scope, copy: bool = False
    ) -> str:
        """Which unit ``cit`` (of the document ``path``) is in (``copy``: its copy in the
        main list), for a message."""
        outer = self.outer.get(path)
        if outer is not None and self._unit(doc, cit.span.start) is None:
            bibunits = outer[2]
        else:
            bibunits = bool(doc.bibunits)
        if copy:
            return "the main list (bibunits copies the citation there)"
        command = cit.command.rstrip("*")
        for suffix, _ in self.lists:
            if multibib_list(command, (suffix,)) is not None:
                return f"its \\newcites list ({quoted(suffix)})"
        if scope is not None:
            return "its bibunit" if bibunits else "its refsection"
        if self.lists:
            return "the main list"
        return "the document outside bibunits" if bibunits else "the document outside refsections"

    def reads(self, scope: Scope, bib: Path) -> bool:
        if _names(bib, set(self.global_names)):
            return True
        if scope is None:
            return _names(bib, set(self.plain_names))
        return _names(bib, {_name(n) for n in scope})


def units_of(ws: Workspace, project: Project) -> Units:
    global_: set[str] = set()
    plain: set[str] = set()
    documents = list(ws.project_documents(project))
    suffixes = {s for _, doc in documents for s in doc.newcites}
    lists: dict[str, set[str]] = {s: set() for s in sorted(suffixes)}
    for path, doc in documents:
        for link in doc.links:
            if link.kind is not LinkKind.BIBLIOGRAPHY or link.command in _UNIT_RESOURCES:
                continue
            if link.glob:  # a pattern: the files it names
                named = {f.name for f in project.glob_matches(path, link)}
            else:  # a macro may stand for a list (\\bibliography{\\bibs})
                named = {_name(n) for n in bib_names(link, project.target(path, link))}
            suffix = link.command.removeprefix("bibliography")
            if suffix in lists and link.command != suffix:
                lists[suffix].update(named)
            else:
                (global_ if link.command == "addglobalbib" else plain).update(named)
    own = tuple((s, frozenset(names)) for s, names in lists.items())
    copies = ""
    if any(doc.bibunits for _, doc in documents):
        copies = latex_bibunits.copied({doc.cite_copy for _, doc in documents})
    default = _project_default(documents, project.root.stem)
    bare = {
        unit: read.names
        for unit, read in bare_putbib_defaults(
            project.root, dict(documents), project.placed
        ).items()
    }
    outer = _outer_units(dict(documents), project.placed)
    flow: dict[Path, Regions] = {}
    if any(doc.refsections for _, doc in documents) and not any(
        doc.bibunits for _, doc in documents
    ):
        flow = refsection_flow(project.root, dict(documents), project.placed)
    return Units(frozenset(global_), frozenset(plain), own, copies, default, bare, outer, flow)


def resource_order(ws: Workspace, project: Project, paths: list[Path]) -> list[int]:
    """The positions of ``paths`` (bibliographies of ``project``) in the order its documents
    name them outside refsections (biblatex's default and global resources, as biber reads
    them), the documents in the project's order; the others after them, in their order."""
    order: dict[int, None] = {}
    for _, doc in ws.project_documents(project):
        for link in doc.links:
            if link.kind is not LinkKind.BIBLIOGRAPHY or link.command in _UNIT_RESOURCES:
                continue
            name = _name(link.target)
            order.update((n, None) for n, path in enumerate(paths) if _names(path, {name}))
    order.update((n, None) for n in range(len(paths)))
    return list(order)


def include_sites(
    documents: dict[Path, ParsedDocument], placed: Iterable[tuple[Path, Path, int]]
) -> dict[Path, tuple[Path, int]]:
    """Where each included document is read: (the including document, the offset of its
    include link), from :attr:`~citewarden.project_graph.Project.placed`."""
    sites: dict[Path, tuple[Path, int]] = {}
    for child, parent, index in placed:
        doc = documents.get(parent)
        includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE] if doc else []
        if index < len(includes):
            sites[child] = (parent, includes[index].span.start)
    return sites


def _outer_units(
    documents: dict[Path, ParsedDocument], placed: Iterable[tuple[Path, Path, int]]
) -> dict[Path, tuple[Path, Unit, bool]]:
    """The unit each included document is read in: the one around its include link, or
    else the one its includer is read in (a file \\input in a refsection is in it, as the
    citations of ``\\include`` and ``\\input`` files go to the section open there)."""
    if not any(doc.refsections for doc in documents.values()):
        return {}
    sites = include_sites(documents, placed)
    found: dict[Path, tuple[Path, Unit, bool] | None] = {}

    def outer(path: Path, seen: frozenset[Path]) -> tuple[Path, Unit, bool] | None:
        if path in found:
            return found[path]
        site = sites.get(path)
        answer: tuple[Path, Unit, bool] | None = None
        if site is not None and site[0] not in seen:
            parent, offset = site
            doc = documents[parent]
            unit = _Sections(doc).unit(offset) if doc.refsections else None
            if unit is not None:
                answer = (parent, unit, bool(doc.bibunits))
            else:
                answer = outer(parent, seen | {path})
        found[path] = answer
        return answer

    result = {path: outer(path, frozenset()) for path in sites}
    return {path: unit for path, unit in result.items() if unit is not None}


def _project_default(documents: list[tuple[Path, ParsedDocument]], jobname: str) -> tuple[str, ...]:
    """The default bibliography the next run starts with: the last one set in the body of
    a document (each is written to the .aux), else a preamble's, else ``\\jobname``."""
    body = [doc.default_bibliography for _, doc in documents if doc.default_in_body]
    if body:
        return body[-1]
    set_ = (doc.default_bibliography for _, doc in documents if doc.default_bibliography)
    return next(set_, (jobname,))


def _scoped_citations(
    ws: Workspace, project: Project, units: Units
) -> Iterator[tuple[Path, ParsedDocument, Citation, Scope, bool]]:
    """Each citation with the resources it reads; one bibunits copies to the main list
    comes again, with None and True."""
    for path, doc in ws.project_documents(project):
        for cit in doc.citations:
            if cit.key.strip():
                scope = units.scope(path, doc, cit)
                yield path, doc, cit, scope, False
                if units.copied(doc, cit, scope):
                    yield path, doc, cit, None, True


def _keys_read(
    ws: Workspace, project: Project, units: Units, scope: Scope
) -> tuple[set[str], set[str]]:
    """Keys (exact, casefolded) the bibliographies of ``scope`` define, aliases included
    (biber and pandoc)."""
    exact: set[str] = set()
    for bib, _, index in ws.project_bibliographies(project):
        if units.reads(scope, bib):
            if project.casefold_keys:  # BibTeX knows no ids field, reads as BibTeX reads
                exact.update(bibtex_defined_keys(ws, bib, index))
            else:  # biber reads no entry in a comment
                commented = commented_keys(ws, bib, index)
                exact.update(index.by_key.keys() - commented if commented else index.by_key)
                exact.update(a for a, e in index.aliases.items() if e.key not in commented)
    return exact, {fold_key(k) for k in exact}


def unit_dangling(
    ws: Workspace, project: Project, is_defined: Callable[[str], bool]
) -> list[Finding]:
    """Citations of keys the project defines (``is_defined``) but no bibliography their
    unit reads does."""
    if project.chapters:
        return chapterbib.unit_dangling(ws, project, is_defined)
    units = units_of(ws, project)
    fold = project.casefold_keys
    read: dict[Scope, tuple[set[str], set[str]]] = {}
    found: list[Finding] = []
    reported: set[int] = set()  # one finding per citation
    for path, doc, cit, scope, copy in _scoped_citations(ws, project, units):
        if not is_defined(cit.key) or (copy and id(cit) in reported):
            continue  # dangling everywhere: reported by the project-wide check
        if scope not in read:
            read[scope] = _keys_read(ws, project, units, scope)
        exact, folded = read[scope]
        if cit.key in exact or (fold and fold_key(cit.key) in folded):
            continue
        reported.add(id(cit))
        if scope == () and doc.bibunits:
            found.append(_without_list(path, cit))
        else:
            where = units.where(path, doc, cit, scope, copy)
            found.append(chapterbib.unread_key(path, cit, where))
    return found


def _without_list(path: Path, cit: Citation) -> Finding:
    """The dangling finding of a citation in a bibunit without ``\\putbib``: its
    ``bu<n>.aux`` names no bibliography, so BibTeX resolves none of its keys."""
    return Finding(
        Code.DANGLING,
        Location(path, cit.span),
        f"citation key {quoted(cit.key)} is in a bibunit without \\putbib, "
        "for which BibTeX reads no bibliography",
        data=MappingProxyType({"key": cit.key, "suggestions": []}),
    )


def cited_by_readers(
    ws: Workspace, bib: Path, projects: list[Project]
) -> tuple[set[str], set[str]] | None:
    """Keys cited (exact, and casefolded for BibTeX projects) by the units that read
    ``bib``; None when one of them cites every entry (chapterbib ``\\nocite{*}``)."""
    cited: set[str] = set()
    folded: set[str] = set()
    for project in projects:
        if project.chapters:
            keys, everything = chapterbib.cited_by_readers(ws, bib, project)
            if everything:
                return None
            if project.casefold_keys:
                folded.update(fold_key(k) for k in keys)
            else:
                cited.update(keys)
            continue
        units = units_of(ws, project)
        for _, _, cit, scope, _ in _scoped_citations(ws, project, units):
            if units.reads(scope, bib):
                (folded if project.casefold_keys else cited).add(
                    fold_key(cit.key) if project.casefold_keys else cit.key
                )
    return cited, folded


__all__ = ["Units", "cited_by_readers", "has_units", "unit_dangling", "units_of"]
