"""Citation checks: dangling citations, orphan entries, empty keys, missing files, crossref.

Rules:

* A citation is *dangling* when its key is neither an entry key, an ``ids`` alias nor a
  ``\\bibitem`` key of its project.  Keys match exactly, as biber and pandoc match them,
  except in a project whose bibliographies come from ``\\bibliography`` (BibTeX), where
  they match case-insensitively as BibTeX matches them.  Not reported for a project whose
  bibliography could not be determined (a bibliography file that is missing has its own
  finding), for a standalone LaTeX file or a Markdown document that names no bibliography
  at all, nor for Quarto cross-references (``@fig-x``) in a Quarto document.
* An entry is an *orphan* when no document of any project using its bibliography cites it
  (``\\nocite`` counts; ``\\nocite{*}`` / ``nocite: '@*'`` in any of those projects turns the
  check off for that bibliography).  An entry named by ``crossref``/``xdata`` of a cited
  entry counts as cited, as BibTeX and biber include such parents.  A ``\\bibitem`` of a
  ``thebibliography`` that its project never cites is an orphan too.
* An entry whose ``@`` follows a ``%`` on its line (``% @article{x, ...``) is a comment for
  biber and pandoc: it defines nothing (and is no orphan) in their projects; BibTeX reads it.

Everything is recomputed on each run from cached pieces: per document version its key set
and its dangling findings, per bibliography version its orphan findings (see
:class:`~citewarden.checks.Memo`), so a run after one edit redoes only what the edit touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from citewarden.checks import Memo, units
from citewarden.model import (
    BibFormat,
    Citation,
    Code,
    DocumentKind,
    Entry,
    Finding,
    Fix,
    LinkKind,
    Location,
    ParsedDocument,
    Span,
    TextEdit,
)
from citewarden.parsing.bibtex import keys_on_comment_lines
from citewarden.project import removal_end

if TYPE_CHECKING:
    from citewarden.project import BibIndex, Project, Workspace

#: at most this many "Change to" suggestions for a dangling key
MAX_SUGGESTIONS = 3
#: minimum similarity (0-100, rapidfuzz ratio on casefolded keys) for a suggestion
SUGGESTION_CUTOFF = 60.0
#: the best suggestion is preferred when it leads the next one by this much (or is alone)
PREFERRED_LEAD = 10.0
#: Quarto cross-reference prefixes: ``@fig-x`` in a Quarto document is a cross-reference,
#: resolved by Quarto before citations are (never a dangling citation there)
QUARTO_CROSSREF = re.compile(
    r"^(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|nte|tip|wrn|imp|cau)-"
)


def citation_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    found: list[Finding] = []
    users: dict[Path, list[Project]] = {}
    for project in projects:
        found += _missing_links(project)
        token = _token(ws, project)
        defined = memo.get(("defined", token, project.casefold_keys), _defined, ws, project, memo)
        delta = _project_delta(ws, project)
        for path, doc in ws.project_documents(project):
            if not doc.citations:
                continue
            found += memo.get(("empty", path, Ident(doc)), _empty_keys, path, doc)
            if _checks_dangling(ws, project):
                found += memo.get(
                    (
                        "dangling",
                        path,
                        Ident(doc),
                        token,
                        project.casefold_keys,
                        _is_quarto(project),
                    ),
                    _dangling,
                    path,
                    doc,
                    defined,
                    token,
                    project.casefold_keys,
                    _is_quarto(project),
                    memo,
                    delta,
                )
        if _checks_dangling(ws, project) and units.has_units(ws, project):
            found += units.unit_dangling(ws, project, partial(_is_defined, defined, project))
        found += _missing_crossrefs(ws, project, defined, token, memo)
        if project.kind is DocumentKind.LATEX:
            found += _bibitem_orphans(ws, project, memo)
        for bib in project.bibliographies:
            users.setdefault(bib, []).append(project)
    for bib_path, bib_projects in users.items():
        found += _orphans(ws, bib_path, bib_projects, memo)
    return found


class Ident:
    """Wraps an object so that it hashes and compares by identity (a cheap cache key that
    also keeps the object alive while the key exists)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ident) and other.obj is self.obj


# ---- definitions ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyDelta:
    """How a bibliography's keys changed in its last edit, when that edit re-read entries
    ``[a, b)`` and left their number, their ``ids`` aliases and every crossref/xdata link
    as they were (a key typed into, the usual edit): what depends on the keys is updated
    from the previous answer instead of being computed again over every key."""

    #: the previous version's ``keys_token``
    previous: object
    a: int
    b: int
    #: keys of ``[a, b)`` before the edit that the bibliography no longer defines
    removed: frozenset[str]
    #: keys of ``[a, b)`` after the edit
    added: frozenset[str]


def key_delta(index: BibIndex) -> KeyDelta | None:
    """The :class:`KeyDelta` of ``index``'s last edit, if it was such an edit."""
    prev = index.previous
    if prev is None:
        return None
    old, a, b, b_old = prev
    if b != b_old or index.alias_rows is not old.alias_rows:
        return None
    if index.parent_rows is not old.parent_rows:
        return None
    rows = index.alias_rows, index.parent_rows
    if any(i in table for i in range(a, b) for table in rows):
        return None
    aliases = {alias for names in index.alias_rows.values() for alias in names}
    removed = frozenset(k for k in old.keys[a:b] if k not in index.by_key and k not in aliases)
    return KeyDelta(old.keys_token, a, b, removed, frozenset(index.keys[a:b]))


def _project_delta(ws: Workspace, project: Project) -> KeyDelta | None:
    """The key delta of a project defined by one bibliography (and no ``\\bibitem``)."""
    bibs = list(ws.project_bibliographies(project))
    if len(bibs) != 1:
        return None
    if any(doc.bibitems for _, doc in ws.project_documents(project)):
        return None
    return key_delta(bibs[0][2])


class Defined:
    """The names a project defines: entry keys, ``ids`` aliases and ``\\bibitem`` keys.

    Held as the bibliography indexes' own sets (no copy of 20 000 keys per check); the
    pool of suggestions (:attr:`keys`, :attr:`folded_keys`) is made once, on the first
    dangling key.
    """

    __slots__ = ("_folded", "_folded_parts", "_folded_pool", "_keys", "_names", "_pool")

    def __init__(
        self,
        names: list[Collection[str]],
        folded: list[Collection[str]],
        pool: list[Sequence[str]],
        folded_parts: list[Callable[[], Sequence[str]]] | None = None,
    ) -> None:
        self._names = names
        self._folded = folded
        self._pool = pool
        #: per part of ``pool``, a function giving its keys casefolded (an index's is
        #: carried over between versions of the bibliography)
        self._folded_parts = folded_parts
        self._keys: list[str] | None = None
        self._folded_pool: list[str] | None = None

    def __contains__(self, key: str) -> bool:
        return any(key in names for names in self._names)

    def missing(self, keys: frozenset[str]) -> frozenset[str]:
        """The ``keys`` defined nowhere (set operations only).

        One difference per collection: each then looks up only the (few) remaining keys,
        where a difference with several collections at once would walk every one of them.
        """
        for names in self._names:
            if not keys:
                break
            keys = keys.difference(names)
        return keys

    def missing_folded(self, folded_keys: frozenset[str]) -> frozenset[str]:
        """The casefolded ``folded_keys`` that no casefolded name matches."""
        for names in self._folded:
            if not folded_keys:
                break
            folded_keys = folded_keys.difference(names)
        return folded_keys

    def has_folded(self, folded_key: str) -> bool:
        return any(folded_key in names for names in self._folded)

    @property
    def keys(self) -> list[str]:
        """Every defined name in file order (the pool of "did you mean" suggestions; may
        repeat a duplicated key).  Made once; do not modify it."""
        if self._keys is None:
            if len(self._pool) == 1:
                part = self._pool[0]
                self._keys = part if isinstance(part, list) else list(part)
            else:
                self._keys = [key for part in self._pool for key in part]
        return self._keys

    @property
    def folded_keys(self) -> list[str]:
        """:attr:`keys` casefolded, made once (parts carried over between versions)."""
        if self._folded_pool is None:
            if self._folded_parts is None:
                self._folded_pool = [k.casefold() for k in self.keys]
            elif len(self._folded_parts) == 1:
                part = self._folded_parts[0]()
                self._folded_pool = part if isinstance(part, list) else list(part)
            else:
                self._folded_pool = [k for part in self._folded_parts for k in part()]
        return self._folded_pool


def _token(ws: Workspace, project: Project) -> tuple[object, ...]:
    """Changes whenever what ``project`` defines may have changed."""
    token: list[object] = [index.keys_token for _, _, index in ws.project_bibliographies(project)]
    for _, doc in ws.project_documents(project):
        if doc.bibitems:
            token.append(tuple(k for k, _ in doc.bibitems))
    return tuple(token)


def _defined(ws: Workspace, project: Project, memo: Memo) -> Defined:
    names: list[Collection[str]] = []
    folded: list[Collection[str]] = []
    pool: list[Sequence[str]] = []
    folded_parts: list[Callable[[], Sequence[str]]] = []
    for bib_path, _, index in ws.project_bibliographies(project):
        commented = (
            frozenset()
            if project.casefold_keys
            else memo.get(("commented", Ident(index)), _commented_keys, ws, bib_path, index)
        )
        if commented:  # biber and pandoc read none of them
            names.append(index.by_key.keys() - commented)
            folded.append({k.casefold() for k in names[-1]})
        else:
            # the index's own dicts: look-ups and set differences need no copy of the keys
            names.append(index.by_key)
            folded.append(index.folded)
        pool.append(index.keys)
        folded_parts.append(index.folded_keys)
        if index.alias_rows:
            aliases = index.aliases
            names.append(frozenset(aliases))
            folded.append({a.casefold() for a in aliases})
            pool.append(list(aliases))
            folded_parts.append(partial(_casefolded, pool[-1]))
    for _, doc in ws.project_documents(project):
        if doc.bibitems:
            items = [k for k, _ in doc.bibitems]
            names.append(frozenset(items))
            folded.append({k.casefold() for k in items})
            pool.append(items)
            folded_parts.append(partial(_casefolded, items))
    return Defined(names, folded, pool, folded_parts)


def _commented_keys(ws: Workspace, path: Path, index: BibIndex) -> frozenset[str]:
    """Keys of the entries whose ``@`` stands after a ``%`` on its line: a comment line for
    biber and pandoc (BibTeX, which has no comment character, reads the entry)."""
    return keys_on_comment_lines(ws.text(path) or "", index.entries)


def _casefolded(keys: Sequence[str]) -> list[str]:
    return [k.casefold() for k in keys]


# ---- dangling ---------------------------------------------------------------------------------


def _is_defined(defined: Defined, project: Project, key: str) -> bool:
    return key in defined or (project.casefold_keys and defined.has_folded(key.casefold()))


def _checks_dangling(ws: Workspace, project: Project) -> bool:
    if project.unresolved or project.missing_bibliography:
        return False
    if project.kind is DocumentKind.LATEX and not project.standalone:
        return True
    if project.has_bibliography_source:
        return True
    return any(doc.bibitems for _, doc in ws.project_documents(project))


def _missing(
    doc: ParsedDocument, defined: Defined, delta: KeyDelta | None, memo: Memo
) -> frozenset[str]:
    """Keys ``doc`` cites that are defined nowhere (exact names)."""
    cited = memo.get(("cited", Ident(doc)), _doc_keys, doc)
    if delta is not None:
        before = memo.previous(("missing", Ident(doc), (delta.previous,)))
        if before is not None:
            return (before - delta.added) | (cited & delta.removed)  # type: ignore[no-any-return]
    return defined.missing(cited)


def _dangling(
    path: Path,
    doc: ParsedDocument,
    defined: Defined,
    token: tuple[object, ...],
    casefold: bool,
    quarto: bool,
    memo: Memo,
    delta: KeyDelta | None = None,
) -> list[Finding]:
    missing = memo.get(("missing", Ident(doc), token), _missing, doc, defined, delta, memo)
    if casefold and missing:
        missing = frozenset(k for k in missing if not defined.has_folded(k.casefold()))
    if quarto and missing:
        missing = frozenset(k for k in missing if not QUARTO_CROSSREF.match(k))
    if not missing:
        return []
    found: list[Finding] = []
    for cit in doc.citations:
        key = cit.key
        if key not in missing or not key.strip():
            continue
        if casefold and defined.has_folded(key.casefold()):
            continue
        if quarto and QUARTO_CROSSREF.match(key):
            continue
        found.append(
            memo.get(
                ("dangling-cit", path, cit, token),
                _dangling_finding,
                path,
                cit,
                memo.get(("suggest", key, token), _suggestions, key, defined, token, delta, memo),
            )
        )
    return found


def _is_quarto(project: Project) -> bool:
    """A Quarto document: a .qmd file, or any Markdown file under a _quarto.yml."""
    if project.kind is not DocumentKind.MARKDOWN:
        return False
    if project.root.suffix.lower() == ".qmd":
        return True
    return any(m.name.lower().startswith("_quarto.") for m in project.metadata)


def suggest_keys(key: str, keys: Iterable[str]) -> list[tuple[str, float]]:
    """Up to :data:`MAX_SUGGESTIONS` existing keys closest to ``key``, best first (ties in
    the order given)."""
    pool = keys if isinstance(keys, list) else list(keys)
    return _closest(key, pool, [k.casefold() for k in pool])


#: Every key of a pool close enough to one looked-for key: (-score, position), sorted.
Scored = list[tuple[float, int]]


def _scored(key: str, folded: list[str]) -> Scored:
    """Every position of ``folded`` whose rapidfuzz ratio to ``key`` casefolded reaches
    :data:`SUGGESTION_CUTOFF` (as a ``str.casefold`` processor would compute it)."""
    matches = process.extract(
        key.casefold(),
        folded,
        scorer=fuzz.ratio,
        processor=None,
        limit=None,
        score_cutoff=SUGGESTION_CUTOFF,
    )
    return sorted((-float(score), i) for _, score, i in matches)


def _rescored(key: str, folded: list[str], before: Scored, a: int, b: int) -> Scored:
    """:func:`_scored` after positions ``[a, b)`` of the pool changed (and no other), from
    the answer ``before`` the change."""
    kept = [(s, i) for s, i in before if not a <= i < b]
    wanted = key.casefold()
    for i in range(a, b):
        score = fuzz.ratio(wanted, folded[i], processor=None, score_cutoff=SUGGESTION_CUTOFF)
        if score >= SUGGESTION_CUTOFF:
            kept.append((-float(score), i))
    kept.sort()
    return kept


def _best(key: str, pool: list[str], scored: Scored) -> list[tuple[str, float]]:
    """The first :data:`MAX_SUGGESTIONS` distinct names of ``scored``, other than ``key``."""
    out: dict[str, float] = {}
    for neg, i in scored:
        name = pool[i]
        if name not in out and name != key:
            out[name] = -neg
            if len(out) == MAX_SUGGESTIONS:
                break
    return list(out.items())


def _closest(key: str, pool: list[str], folded: list[str]) -> list[tuple[str, float]]:
    """:func:`suggest_keys` with ``folded[i] == pool[i].casefold()`` given."""
    return _best(key, pool, _scored(key, folded))


def _suggestions(
    key: str, defined: Defined, token: tuple[object, ...], delta: KeyDelta | None, memo: Memo
) -> list[tuple[str, float]]:
    """:func:`suggest_keys` over ``defined``'s names, updated from the previous version's
    candidates when only the keys of a few entries changed."""
    scored = memo.get(("scored", key, token), _scored_for, key, defined, delta, memo)
    return _best(key, defined.keys, scored)


def _scored_for(key: str, defined: Defined, delta: KeyDelta | None, memo: Memo) -> Scored:
    if delta is not None:
        before = memo.previous(("scored", key, (delta.previous,)))
        if before is not None:
            return _rescored(key, defined.folded_keys, before, delta.a, delta.b)
    return _scored(key, defined.folded_keys)


def _dangling_finding(path: Path, cit: Citation, suggestions: list[tuple[str, float]]) -> Finding:
    names = [s for s, _ in suggestions]
    message = f"citation key '{cit.key}' is not defined in any bibliography"
    if names:
        message += "; did you mean " + " or ".join(f"'{n}'" for n in names) + "?"
    preferred_first = len(suggestions) == 1 or (
        len(suggestions) > 1 and suggestions[0][1] - suggestions[1][1] >= PREFERRED_LEAD
    )
    fixes = tuple(
        Fix(
            f"Change to `{name}`",
            (TextEdit(path, cit.span, name),),
            preferred=(i == 0 and preferred_first),
        )
        for i, name in enumerate(names)
    )
    data = MappingProxyType({"key": cit.key, "suggestions": names})
    return Finding(Code.DANGLING, Location(path, cit.span), message, fixes=fixes, data=data)


# ---- empty keys, missing files ----------------------------------------------------------------


def _empty_keys(path: Path, doc: ParsedDocument) -> list[Finding]:
    found: list[Finding] = []
    for cit in doc.citations:
        if cit.key.strip():
            continue
        span = cit.command_span if len(cit.span) == 0 else cit.span
        found.append(
            Finding(
                Code.EMPTY_KEY,
                Location(path, span),
                f"empty citation key in {cit.command}",
                data=MappingProxyType({"command": cit.command}),
            )
        )
    return found


def _missing_links(project: Project) -> list[Finding]:
    found: list[Finding] = []
    for missing in project.missing:
        link = missing.link
        if link.kind is LinkKind.BIBLIOGRAPHY:
            code = Code.MISSING_BIBLIOGRAPHY
            what = f"bibliography file '{missing.target}'"
        else:
            code = Code.MISSING_INCLUDE
            shown = f"{link.base.rstrip('/')}/{missing.target}" if link.base else missing.target
            what = f"included file '{shown}'"
        if missing.unreadable is not None:
            code = Code.FILE_UNREADABLE
            message = f"{what} cannot be read: {missing.unreadable}"
        else:
            message = f"{what} not found"
        found.append(
            Finding(
                code,
                Location(missing.path, link.span),
                message,
                data=MappingProxyType({"target": missing.target}),
            )
        )
    return found


def _missing_crossrefs(
    ws: Workspace, project: Project, defined: Defined, token: tuple[object, ...], memo: Memo
) -> list[Finding]:
    """``crossref``/``xdata`` targets defined nowhere, per bibliography version and set of
    definitions (``token``)."""
    found: list[Finding] = []
    for path, _, index in ws.project_bibliographies(project):
        if index.parent_rows:
            key = ("crossrefs", path, Ident(index), token)
            found += memo.get(key, _bib_missing_crossrefs, path, index, defined, memo)
    return found


def _parent_targets(parent_rows: dict[int, tuple[str, ...]]) -> frozenset[str]:
    return frozenset(p.casefold() for parents in parent_rows.values() for p in parents)


def _bib_missing_crossrefs(
    path: Path, index: BibIndex, defined: Defined, memo: Memo
) -> list[Finding]:
    found: list[Finding] = []
    # the same table object while no link changed (see update_bib_index)
    rows = index.parent_rows
    targets = memo.get(("parent-targets", Ident(rows)), _parent_targets, rows)
    undefined = defined.missing_folded(targets)
    if not undefined:
        return found
    for i, parents in index.parent_rows.items():
        entry = index.entries[i]
        for parent in parents:
            if parent.casefold() not in undefined:
                continue
            fld = entry.field("crossref") or entry.field("xdata")
            for name in ("crossref", "xdata"):
                f = entry.field(name)
                if f is not None and parent in f.text:
                    fld = f
                    break
            span = fld.value_span if fld is not None else entry.key_span
            found.append(
                Finding(
                    Code.MISSING_CROSSREF,
                    Location(path, span),
                    f"'{entry.key}' refers to '{parent}', which is not defined",
                    data=MappingProxyType({"key": entry.key, "target": parent}),
                )
            )
    return found


# ---- orphans ----------------------------------------------------------------------------------


def _doc_keys(doc: ParsedDocument) -> frozenset[str]:
    return frozenset(c.key for c in doc.citations)


def _doc_folded(doc: ParsedDocument) -> frozenset[str]:
    return frozenset(c.key.casefold() for c in doc.citations)


def _cited_keys(
    ws: Workspace, projects: list[Project], memo: Memo
) -> tuple[set[str], set[str], bool]:
    """Keys cited by ``projects``: exact, casefolded (BibTeX projects), and whether any
    of them cites everything."""
    cited: set[str] = set()
    folded: set[str] = set()
    for project in projects:
        for _, doc in ws.project_documents(project):
            if doc.nocite_all:
                return cited, folded, True
            if not doc.citations:
                continue
            if project.casefold_keys:
                folded |= memo.get(("cited-folded", Ident(doc)), _doc_folded, doc)
            else:
                cited |= memo.get(("cited", Ident(doc)), _doc_keys, doc)
    return cited, folded, False


def _nocited_in_refsection(ws: Workspace, bib_path: Path, projects: list[Project]) -> bool:
    """A ``\\nocite{*}`` in a refsection that reads ``bib_path`` (one of its own
    resources, or an ``\\addglobalbib`` one)."""
    for project in projects:
        for _, doc in ws.project_documents(project):
            if doc.nocite_all_in and units.units_of(ws, project).reads(doc.nocite_all_in, bib_path):
                return True
    return False


def _aliased_cited(own: BibIndex, cited: set[str], folded: set[str]) -> frozenset[str]:
    """Keys of the entries of ``own`` cited through one of their ``ids`` aliases."""
    return frozenset(
        entry.key
        for alias, entry in own.aliases.items()
        if alias in cited or (folded and alias.casefold() in folded)
    )


def _uncited(own: BibIndex, cited: set[str], folded: set[str]) -> set[str]:
    """Keys of ``own`` matched by no citation (exactly, or casefolded for BibTeX)."""
    if folded:
        uncited_folded = own.folded.keys() - folded
        if not cited:
            uncited = {own.keys[i] for fk in uncited_folded for i in own.folded[fk]}
        else:
            uncited = {k for k in own.by_key.keys() - cited if k.casefold() in uncited_folded}
    else:
        uncited = own.by_key.keys() - cited
    for alias, entry in own.aliases.items():
        if alias in cited or (folded and alias.casefold() in folded):
            uncited.discard(entry.key)
    return uncited


def _reached_parents(indexes: list[BibIndex], cited: set[str], folded: set[str]) -> set[str]:
    """Entries reached through crossref/xdata from a cited entry (BibTeX and biber include
    such parents).  Only the (few) entries that have such fields are looked at."""
    parents: dict[str, tuple[str, ...]] = {}
    for index in indexes:
        parents.update(index.parents)
    if not parents:
        return set()

    def is_cited(key: str) -> bool:
        return key in cited or (bool(folded) and key.casefold() in folded)

    todo = [k for k in parents if is_cited(k)]
    for index in indexes:
        for alias, entry in index.aliases.items():
            if entry.key in parents and is_cited(alias):
                todo.append(entry.key)
    reached: set[str] = set()
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in reached:
                reached.add(parent)
                todo.append(parent)
    return reached


def _bibitem_orphans(ws: Workspace, project: Project, memo: Memo) -> list[Finding]:
    """``\\bibitem`` keys of a ``thebibliography`` that the project never cites (LaTeX
    matches them exactly; ``\\nocite{*}`` cites them all)."""
    docs = list(ws.project_documents(project))
    items = [(path, doc) for path, doc in docs if doc.bibitems]
    if not items or any(doc.nocite_all for _, doc in docs):
        return []
    cited: set[str] = set()
    for _, doc in docs:
        if doc.citations:
            cited |= memo.get(("cited", Ident(doc)), _doc_keys, doc)
    found: list[Finding] = []
    for path, doc in items:
        for key, span in doc.bibitems:
            if key not in cited:
                found.append(
                    Finding(
                        Code.ORPHAN,
                        Location(path, span),
                        f"\\bibitem '{key}' is never cited",
                        data=MappingProxyType({"key": key}),
                    )
                )
    return found


def _orphans(ws: Workspace, bib_path: Path, projects: list[Project], memo: Memo) -> list[Finding]:
    own = ws.bib_index(bib_path)
    if own is None:
        return []
    # everything the answer depends on: this bibliography's version, every document (and
    # bibliography) of the projects using it, and where "add to nocite" edits go
    docs = tuple(
        (Ident(doc), project.casefold_keys)
        for project in projects
        for _, doc in ws.project_documents(project)
    )
    others = tuple(Ident(i) for pr in projects for _, _, i in ws.project_bibliographies(pr))
    targets = _nocite_targets(ws, projects)
    return memo.get(
        ("orphan-list", Ident(own), docs, others, targets),
        _orphan_list,
        ws,
        bib_path,
        own,
        projects,
        targets,
        memo,
        docs,
    )


def _orphan_list(
    ws: Workspace,
    bib_path: Path,
    own: BibIndex,
    projects: list[Project],
    nocite_targets: tuple[tuple[object, ...], ...],
    memo: Memo,
    docs: tuple[tuple[Ident, bool], ...],
) -> list[Finding]:
    cited, cited_folded, everything = memo.get(("cited-by", docs), _cited_keys, ws, projects, memo)
    bib = ws.bibliography(bib_path)
    if everything or bib is None or _nocited_in_refsection(ws, bib_path, projects):
        return []
    if any(units.has_units(ws, project) for project in projects):
        # only the units that read this bibliography count
        cited, cited_folded = units.cited_by_readers(ws, bib_path, projects)
    indexes = list(
        {id(i): i for pr in projects for _, _, i in ws.project_bibliographies(pr)}.values()
    )
    positions = _orphan_positions(own, indexes, cited, cited_folded, memo)
    if positions and not any(project.casefold_keys for project in projects):
        commented = memo.get(("commented", Ident(own)), _commented_keys, ws, bib_path, own)
        if commented:
            positions = [i for i in positions if own.entries[i].key not in commented]
    if not positions:
        return []
    fmt = bib.format
    text = ws.text(bib_path) or ""
    found: list[Finding] = []
    # one table per bibliography version and fix targets: a finding per entry position
    table: dict[int, Finding] = memo.get(("orphans", Ident(own), nocite_targets), dict)
    if not table and own.previous is not None:
        # entries before the last edit kept their place: so do their findings
        old, a, _, _ = own.previous
        old_table = memo.previous(("orphans", Ident(old), nocite_targets))
        if old_table:
            table.update((i, f) for i, f in old_table.items() if i < a)
    for i in positions:
        finding = table.get(i)
        if finding is None:
            table[i] = finding = _orphan_finding(
                ws, bib_path, text, fmt, own.entries[i], nocite_targets
            )
        found.append(finding)
    return found


def _orphan_positions(
    own: BibIndex,
    indexes: list[BibIndex],
    cited: set[str],
    folded: set[str],
    memo: Memo,
) -> list[int]:
    """Positions in ``own`` of the entries nobody cites, in file order.

    They depend on the keys, aliases and crossref/xdata links of the bibliographies and on
    the cited keys only: an edit that changes none of these (a title typed into, a space
    in a chapter) reuses the previous answer after comparing the cited sets.
    """
    others = tuple((i.keys_token, Ident(i.parent_rows)) for i in indexes if i is not own)
    key = ("orphan-positions", own.keys_token, Ident(own.parent_rows), *others)
    previous = memo.previous(key)
    if previous is not None and _same(previous[0], cited) and _same(previous[1], folded):
        memo.current[key] = previous
        return previous[2]  # type: ignore[no-any-return]
    delta = key_delta(own) if len(indexes) == 1 else None
    if delta is not None:
        # only the keys of the re-read entries changed: so may only their answers
        before = memo.previous(("orphan-positions", delta.previous, Ident(own.parent_rows)))
        if before is not None and _same(before[0], cited) and _same(before[1], folded):
            _, _, old_positions, was_reached, was_folded, was_aliased = before
            positions = [i for i in old_positions if not delta.a <= i < delta.b]
            for i in range(delta.a, delta.b):
                k = own.keys[i]
                if (
                    k
                    and k not in cited
                    and not (folded and k.casefold() in folded)
                    and k not in was_aliased
                    and k not in was_reached
                    and k.casefold() not in was_folded
                ):
                    positions.append(i)
            positions.sort()
            memo.current[key] = (cited, folded, positions, was_reached, was_folded, was_aliased)
            return positions
    uncited = _uncited(own, cited, folded)
    # kept for the next edit even when nothing is uncited now: a key typed into may turn
    # an entry into a parent that a cited entry reaches
    reached = _reached_parents(indexes, cited, folded)
    folded_reached = {k.casefold() for k in reached}
    if uncited and reached:
        uncited = {k for k in uncited if k not in reached and k.casefold() not in folded_reached}
    positions = sorted(i for k in uncited if k for i in own.by_key[k])
    aliased = _aliased_cited(own, cited, folded)
    memo.current[key] = (cited, folded, positions, reached, folded_reached, aliased)
    return positions


def _same(a: set[str], b: set[str]) -> bool:
    """``a == b``, at once when they are the same set (the cited keys are reused while the
    documents are unchanged)."""
    return a is b or a == b


def _nocite_targets(ws: Workspace, projects: list[Project]) -> tuple[tuple[object, ...], ...]:
    """Where an "add to nocite" edit can go: (kind, path, offset info) per project."""
    targets: list[tuple[object, ...]] = []
    for project in projects:
        extras = ws.extras(project.root)
        if project.kind is DocumentKind.LATEX and extras.end_document is not None:
            targets.append(("latex", project.root, extras.end_document))
        elif project.kind is DocumentKind.MARKDOWN and extras.front_matter is not None:
            fm = extras.front_matter
            targets.append(("markdown", project.root, fm.close, fm.nocite_value, fm.nocite_block))
    return tuple(dict.fromkeys(targets))


def _orphan_finding(
    ws: Workspace,
    path: Path,
    text: str,
    fmt: BibFormat,
    entry: Entry,
    targets: tuple[tuple[object, ...], ...],
) -> Finding:
    fixes: list[Fix] = []
    if fmt is BibFormat.BIBTEX:
        whole = entry.span
        span = Span(whole.start, removal_end(text, whole.end))
        fixes.append(Fix("Remove entry", (TextEdit(path, span, ""),)))
    latex_done = markdown_done = False
    for target in targets:
        if target[0] == "latex" and not latex_done:
            _, root, offset = target
            assert isinstance(root, Path) and isinstance(offset, int)
            edit = TextEdit(root, Span(offset, offset), f"\\nocite{{{entry.key}}}\n")
            fixes.append(Fix(f"Add \\nocite{{{entry.key}}}", (edit,)))
            latex_done = True
        elif target[0] == "markdown" and not markdown_done:
            edit_md = _markdown_nocite_edit(ws, target, entry.key)
            if edit_md is not None:
                fixes.append(Fix("Add to nocite", (edit_md,)))
                markdown_done = True
    message = f"entry '{entry.key}' is never cited"
    return Finding(
        Code.ORPHAN,
        Location(path, entry.key_span),
        message,
        fixes=tuple(fixes),
        data=MappingProxyType({"key": entry.key}),
    )


def _markdown_nocite_edit(ws: Workspace, target: tuple[object, ...], key: str) -> TextEdit | None:
    _, root, close, value, block = target
    assert isinstance(root, Path) and isinstance(close, int)
    if value is None:
        return TextEdit(root, Span(close, close), f'nocite: "@{key}"\n')
    assert isinstance(value, Span)
    text = ws.text(root) or ""
    current = text[value.start : value.end]
    if block:
        return TextEdit(root, Span(value.end, value.end), f"\n  @{key}")
    stripped = current.rstrip()
    if not stripped:
        return None
    if stripped[-1] in "\"'" and len(stripped) >= 2:
        at = value.start + len(stripped) - 1
        return TextEdit(root, Span(at, at), f", @{key}")
    at = value.start + len(stripped)
    return TextEdit(root, Span(at, at), f", @{key}")


__all__ = ["Defined", "Ident", "citation_findings", "suggest_keys"]
