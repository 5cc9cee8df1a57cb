"""``crossref``/``xdata`` loops that a cited entry leads into (``crossref-loop``).

The one place that decides, for the tools that follow such chains:

* pandoc (Markdown projects), each .bib file on its own: it follows the chain of a cited
  entry, any entry type, with no check for a loop, so ``a`` naming ``b`` and ``b`` naming
  ``a`` (or ``a`` naming itself) makes ``pandoc --citeproc`` run until it is out of memory;
  it never finishes (:mod:`~citewarden.parsing.pandoc_crossref`, which also says which loops
  it really enters);
* biber (biblatex projects), over all of a project's .bib files: a ``crossref`` loop is
  "Circular inheritance", an ``xdata`` loop among ``@xdata`` entries (the only ones it
  follows) "Circular XDATA inheritance", an error after which biber writes no entry, so no
  citation of the document is resolved.

BibTeX follows one ``crossref`` level and no ``xdata``: nothing loops there.  A loop that no
cited entry leads into is harmless for all of them (with ``\\nocite{*}`` / ``nocite: '@*'``
every entry is cited).  One finding per field of the loop, on its value, naming a cited
entry leading into it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.cited import keys_of
from citewarden.checks.defined import commented_entries
from citewarden.checks.units import units_of
from citewarden.model import (
    BibFormat,
    Code,
    DocumentKind,
    Entry,
    Field,
    Finding,
    Location,
    Related,
    quoted,
)
from citewarden.parsing.pandoc_crossref import has_cycle, pandoc_loops
from citewarden.parsing.pandoc_syntax import PandocDialect, dialect_of, pandoc_skipped_entries

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace

#: at most this many entries of a loop are named in a message
_SHOWN = 4
#: a step of a loop: where its entry is, the entry, its field naming the next step's entry
Step = tuple[Path, Entry, Field]


def crossref_loop_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    found: list[Finding] = []
    for project in projects:
        cited = _cited(ws, project, memo)
        if project.kind is DocumentKind.MARKDOWN:
            for path, bib, index in ws.project_bibliographies(project):
                if bib.format is BibFormat.BIBTEX and index.parent_rows:
                    dialect = dialect_of(project.pandoc_version)
                    key: tuple[object, ...] = ("pandoc-loops", Ident(index), cited, dialect)
                    found += memo.get(key, _pandoc, ws, path, index, cited, dialect, memo)
        elif project.kind is DocumentKind.LATEX and not project.casefold_keys:
            bibs = [(p, i) for p, _, i in ws.project_bibliographies(project)]
            if any(index.parent_rows for _, index in bibs):
                key = ("biber-loops", *(Ident(i) for _, i in bibs), cited)
                found += memo.get(key, _biber, ws, bibs, cited, memo)
    return found


def _cited(ws: Workspace, project: Project, memo: Memo) -> frozenset[str] | None:
    """The keys ``project`` cites, None for every one (a ``\\nocite{*}`` citing every
    entry, ``nocite: '@*'``).  In a biblatex refsection with resources of its own, a
    ``\\nocite{*}`` cites the entries of the files the refsection reads; outside them, those
    of the files read there (:meth:`~citewarden.checks.units.Units.nocite_scopes`)."""
    documents = list(ws.project_documents(project))
    docs = [doc for _, doc in documents]
    cited = keys_of(docs, memo)
    if project.kind is not DocumentKind.LATEX or not any(d.refsections for d in docs):
        return None if any(d.nocite_all for d in docs) else cited
    if not any(d.nocite_all_at for d in docs):
        return cited
    found = units_of(ws, project)
    scopes = {scope for path, doc in documents for scope in found.nocite_scopes(path, doc)}
    every = [
        index.by_key.keys()
        for path, _, index in ws.project_bibliographies(project)
        if any(found.reads(scope, path) for scope in scopes)
    ]
    return cited.union(*every)


def _pandoc(
    ws: Workspace,
    path: Path,
    index: BibIndex,
    cited: frozenset[str] | None,
    dialect: PandocDialect,
    memo: Memo,
) -> list[Finding]:
    unread = _unread(ws, path, index, dialect, memo)
    entries = [e for e in index.entries if id(e) not in unread] if unread else index.entries
    return _findings(
        (
            [(path, e, f) for e, f in loop.steps],
            f"a document citing {quoted(base.key)} makes pandoc --citeproc follow it until "
            "it runs out of memory: it never finishes",
        )
        for base, loop in pandoc_loops(entries, cited)
    )


def _biber(
    ws: Workspace, bibs: list[tuple[Path, BibIndex]], cited: frozenset[str] | None, memo: Memo
) -> list[Finding]:
    first: dict[str, tuple[Path, Entry]] = {}
    linked: set[int] = set()  # the entries with a crossref or xdata field, by identity
    for path, index in bibs:
        unread = _unread(ws, path, index, None, memo)
        entries = index.entries
        linked.update(id(entries[row]) for row in index.parent_rows)
        for entry in entries:
            if id(entry) not in unread:
                first.setdefault(entry.key, (path, entry))
        for alias, entry in index.aliases.items():
            if id(entry) not in unread:
                first.setdefault(alias, (path, entry))
    links: dict[str, set[str]] = {}  # every link biber may follow, and more
    for _, index in bibs:
        for row, parents in index.parent_rows.items():
            links.setdefault(index.keys[row], set()).update(
                first[p][1].key if p in first else p for p in parents
            )
    if not has_cycle(links):
        return []  # the usual bibliography: no link comes back
    roots = sorted(first) if cited is None else sorted(k for k in cited if k in first)
    loops: list[tuple[list[Step], str]] = []
    for name, error in (("crossref", "Circular"), ("xdata", "Circular XDATA")):
        seen: set[str] = set()
        for root in roots:
            for loop in _cycles(first[root][1].key, first, linked, name, seen):
                effect = (
                    f"a document citing {quoted(root)} makes biber stop with an error "
                    f'("{error} inheritance") and write no entry: no citation is resolved'
                )
                loops.append((loop, effect))
    return _findings(loops)


def _targets(
    entry: Entry, name: str, first: dict[str, tuple[Path, Entry]], linked: set[int]
) -> list[str]:
    """The keys biber follows from ``entry``'s ``crossref`` or ``xdata`` field."""
    fld = entry.field(name) if id(entry) in linked else None
    if fld is None:
        return []
    if name == "crossref":
        key = fld.text.strip()
        return [key] if key in first else []
    keys = (k.strip() for k in fld.text.split(","))
    return [k for k in keys if k in first and first[k][1].entry_type == "xdata"]


def _cycles(
    start: str,
    first: dict[str, tuple[Path, Entry]],
    linked: set[int],
    name: str,
    seen: set[str],
) -> Iterator[list[Step]]:
    """The loops of ``name`` links reachable from ``start`` and not from an entry already
    ``seen`` (depth first, on an explicit stack)."""
    if start in seen:
        return
    seen.add(start)
    path: list[str] = [start]
    on_path = {start: 0}
    todo: list[Iterator[str]] = [iter(_targets(first[start][1], name, first, linked))]
    while todo:
        nxt = next(todo[-1], None)
        if nxt is None:
            todo.pop()
            del on_path[path.pop()]
            continue
        if nxt in on_path:
            keys = path[on_path[nxt] :]
            yield [_step(k, name, first) for k in keys]
            continue
        if nxt in seen:
            continue
        seen.add(nxt)
        on_path[nxt] = len(path)
        path.append(nxt)
        todo.append(iter(_targets(first[nxt][1], name, first, linked)))


def _unread(
    ws: Workspace, path: Path, index: BibIndex, dialect: PandocDialect | None, memo: Memo
) -> frozenset[int]:
    """The entries (by identity) that biber (``dialect`` None) or pandoc of ``dialect``
    reads as comments or skips, each by its place: another entry may have its key (one
    answer per version of the file and reader)."""
    key = ("unread-entries", Ident(index), dialect)
    return memo.get(key, _unread_entries, ws, path, index, dialect)


def _unread_entries(
    ws: Workspace, path: Path, index: BibIndex, dialect: PandocDialect | None
) -> frozenset[int]:
    text = ws.text(path) or ""
    entries = index.entries
    biber = dialect is None
    found = {id(entries[i]) for i in commented_entries(ws, path, index, biber)}
    if dialect is not None:  # pandoc before 3.9 skips @commentary{...} (and what follows)
        found.update(id(entry) for entry in pandoc_skipped_entries(text, entries, dialect))
    return frozenset(found)


def _step(key: str, name: str, first: dict[str, tuple[Path, Entry]]) -> Step:
    path, entry = first[key]
    fld = entry.field(name)
    assert fld is not None
    return path, entry, fld


def _findings(loops: Iterable[tuple[list[Step], str]]) -> list[Finding]:
    """One finding per field of the loops (each with what it makes the tool do), from the
    first loop it is part of."""
    found: list[Finding] = []
    placed: set[tuple[Path, int]] = set()
    for steps, effect in loops:
        names = sorted({f.name for _, _, f in steps})
        what = " and ".join(names)
        for n, (path, entry, fld) in enumerate(steps):
            if (path, fld.value_span.start) in placed:
                continue
            placed.add((path, fld.value_span.start))
            # the loop from this step on
            turn = [steps[(n + i) % len(steps)] for i in range(min(len(steps), _SHOWN))]
            keys = [quoted(e.key) for _, e, _ in turn]
            if len(steps) > _SHOWN:
                keys.append(f"... ({len(steps)} entries)")
            chain = " -> ".join([*keys, quoted(entry.key)])
            related = tuple(
                Related(Location(p, f.value_span), f"{quoted(e.key)} names the next entry here")
                for p, e, f in turn[1:2]
            )
            found.append(
                Finding(
                    Code.CROSSREF_LOOP,
                    Location(path, fld.value_span),
                    f"{what} loop {chain}: {effect}",
                    related=related,
                    data=MappingProxyType({"key": entry.key, "target": fld.text.strip()}),
                )
            )
    return found


__all__ = ["crossref_loop_findings"]
