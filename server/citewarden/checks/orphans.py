"""Orphan entries: entries no document of a project using their bibliography cites."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo, units
from citewarden.checks.defined import (
    biber_drops,
    biber_reading,
    bibtex_reading,
    commented_keys,
    key_delta,
    reader,
)
from citewarden.checks.latex_keys import latex_citable
from citewarden.checks.nocite_edit import nocite_insertion, nocite_plan
from citewarden.checks.pandoc import pandoc_dialect
from citewarden.file_state import fold_key
from citewarden.model import (
    BibFormat,
    Code,
    DocumentKind,
    Entry,
    Finding,
    Fix,
    Location,
    ParsedDocument,
    Span,
    TextEdit,
    quoted,
)
from citewarden.project import removal_extent

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace


def cites_unknown(ws: Workspace, project: Project) -> bool:
    """Whether what ``project`` cites is not known: an included document is there but
    could not be read, or a document of it could not be parsed."""
    return project.unread_document or any(doc.failed for _, doc in ws.project_documents(project))


def doc_keys(doc: ParsedDocument) -> frozenset[str]:
    return frozenset(c.key for c in doc.citations)


def doc_folded(doc: ParsedDocument) -> frozenset[str]:
    """The keys ``doc`` cites, folded as BibTeX compares them (:func:`fold_key`)."""
    return frozenset(fold_key(c.key) for c in doc.citations)


def _cited_keys(ws: Workspace, projects: list[Project], memo: Memo) -> tuple[set[str], set[str]]:
    """Keys cited by ``projects``: exact, and folded (BibTeX projects)."""
    cited: set[str] = set()
    folded: set[str] = set()
    for project in projects:
        for _, doc in ws.project_documents(project):
            if not doc.citations:
                continue
            if project.casefold_keys:
                folded |= memo.get(("cited-folded", Ident(doc)), doc_folded, doc)
            else:
                cited |= memo.get(("cited", Ident(doc)), doc_keys, doc)
    return cited, folded


def _nocited_outside_refsections(ws: Workspace, bib_path: Path, projects: list[Project]) -> bool:
    """A ``\\nocite{*}`` outside the biblatex refsections with resources of their own
    cites every entry of ``bib_path``: it cites every entry of the resources read there
    (the default and ``\\addglobalbib`` ones) only.  One in a file included inside such
    a refsection is in that refsection; one in a refsection begun in a file read before
    it and ended there (or begun without resources) is outside."""
    for project in projects:
        documents = list(ws.project_documents(project))
        docs = [doc for _, doc in documents]
        if project.chapters or not any(doc.nocite_all or doc.nocite_all_at for doc in docs):
            continue
        if not any(doc.refsections for doc in docs) or any(
            doc.bibunits or doc.newcites for doc in docs
        ):
            if any(doc.nocite_all for doc in docs):
                return True  # no refsections (bibunits, multibib: read as before)
            continue
        found = units.units_of(ws, project)
        outside = any(None in found.nocite_scopes(path, doc) for path, doc in documents)
        if outside and found.reads(None, bib_path):
            return True
    return False


def _nocited_in_refsection(ws: Workspace, bib_path: Path, projects: list[Project]) -> bool:
    """A ``\\nocite{*}`` in a refsection that reads ``bib_path`` (one of its own
    resources, or an ``\\addglobalbib`` one), in its file or in a file included there."""
    for project in projects:
        found: units.Units | None = None
        for path, doc in ws.project_documents(project):
            if not (doc.nocite_all_in or doc.nocite_all):
                continue
            found = found or units.units_of(ws, project)
            if any(
                scope is not None and found.reads(scope, bib_path)
                for scope in found.nocite_scopes(path, doc)
            ):
                return True
    return False


def _aliased_cited(own: BibIndex, cited: set[str], indexes: list[BibIndex]) -> frozenset[str]:
    """Keys of the entries of ``own`` cited through one of their ``ids`` aliases (by a
    biber or pandoc project: BibTeX, whose citations are the folded ones, knows no
    ``ids`` field).  An alias that is an entry's key in ``indexes`` cites that entry alone
    (biber: "Citekey alias 'b' is also a real entry key, skipping")."""
    if not cited:
        return frozenset()
    return frozenset(
        entry.key
        for alias, entry in own.aliases.items()
        if alias in cited and not _is_key(alias, indexes)
    )


def _is_key(name: str, indexes: list[BibIndex]) -> bool:
    """Whether ``name`` is the key of an entry of ``indexes``."""
    return any(name in index.by_key for index in indexes)


def _uncited(own: BibIndex, cited: set[str], folded: set[str]) -> set[str]:
    """Keys of ``own`` matched by no citation (exactly, or folded for BibTeX)."""
    if folded:
        uncited_folded = own.folded.keys() - folded
        if not cited:
            uncited = {own.keys[i] for fk in uncited_folded for i in own.folded[fk]}
        else:
            uncited = {k for k in own.by_key.keys() - cited if fold_key(k) in uncited_folded}
    else:
        uncited = own.by_key.keys() - cited
    return uncited


def _reached_parents(indexes: list[BibIndex], cited: set[str], folded: set[str]) -> set[str]:
    """Entries reached through crossref/xdata/xref from a cited entry (BibTeX and biber
    include such parents; biber an ``xref`` one from ``minxrefs`` children on, and none is
    counted an orphan, as its removal would break the ``xref`` fields): from the exactly
    ``cited`` keys (and ``ids`` aliases that are no entry's key) through exact keys
    (biber), from the folded ``folded`` ones through folded keys (BibTeX).  Only the (few)
    entries that have such fields are looked at."""
    reached: set[str] = set()
    for fold, wanted in ((False, cited), (True, folded)):
        parents = _first_parents(indexes, fold) if wanted else {}
        if not parents:
            continue
        todo = [k for k in parents if k in wanted]
        if not fold:
            for index in indexes:
                for alias, entry in index.aliases.items():
                    # biber and pandoc only; an alias that is a key cites that entry
                    if entry.key in parents and alias in cited and not _is_key(alias, indexes):
                        todo.append(entry.key)
        while todo:
            for parent in parents.get(todo.pop(), ()):
                if parent not in reached:
                    reached.add(parent)
                    todo.append(fold_key(parent) if fold else parent)
    return reached


def _first_parents(indexes: list[BibIndex], fold: bool) -> dict[str, tuple[str, ...]]:
    """Key (folded with ``fold``, as BibTeX compares keys) -> the keys the crossref and
    xdata fields of its first definition name: BibTeX ("Repeated entry") and biber
    ("Duplicate entry key") skip an entry whose key was read before, with its fields."""
    found: dict[str, tuple[str, ...]] = {}
    for n, index in enumerate(indexes):
        places = index.folded if fold else index.by_key
        for i, refs in index.parent_rows.items():
            key = fold_key(index.keys[i]) if fold else index.keys[i]
            if places[key][0] != i:
                continue
            if not any(key in (ix.folded if fold else ix.by_key) for ix in indexes[:n]):
                found[key] = refs
    return found


def bibitem_orphans(ws: Workspace, project: Project, memo: Memo) -> list[Finding]:
    """``\\bibitem`` keys of a ``thebibliography`` that the project never cites (LaTeX
    matches them exactly; ``\\nocite{*}`` cites them all)."""
    docs = list(ws.project_documents(project))
    items = [(path, doc) for path, doc in docs if doc.bibitems]
    if not items or cites_unknown(ws, project) or any(doc.nocite_all for _, doc in docs):
        return []
    cited: set[str] = set()
    for _, doc in docs:
        if doc.citations:
            cited |= memo.get(("cited", Ident(doc)), doc_keys, doc)
    found: list[Finding] = []
    for path, doc in items:
        for key, span in doc.bibitems:
            if key not in cited:
                found.append(
                    Finding(
                        Code.ORPHAN,
                        Location(path, span),
                        f"\\bibitem {quoted(key)} is never cited",
                        data=MappingProxyType({"key": key}),
                    )
                )
    return found


def reference_orphans(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    """Items of the ``references:`` field of a Markdown document or metadata file that no
    project reading the file cites (pandoc matches ids exactly; ``nocite: '@*'`` cites
    them all), each reported once however many projects read the file."""
    readers: dict[Path, list[Project]] = {}
    for project in projects:
        if project.kind is DocumentKind.MARKDOWN:
            for path, doc in ws.project_documents(project):
                if doc.bibitems:
                    readers.setdefault(path, []).append(project)
    found: list[Finding] = []
    for path, users in readers.items():
        docs = [doc for project in users for _, doc in ws.project_documents(project)]
        defining = ws.document(path)
        if defining is None or any(doc.nocite_all for doc in docs):
            continue
        cited: set[str] = set()
        for doc in docs:
            if doc.citations:
                cited |= memo.get(("cited", Ident(doc)), doc_keys, doc)
        found.extend(
            Finding(
                Code.ORPHAN,
                Location(path, span),
                f"reference {quoted(key)} is never cited",
                data=MappingProxyType({"key": key}),
            )
            for key, span in defining.bibitems
            if key not in cited
        )
    return found


def orphan_findings(
    ws: Workspace, bib_path: Path, projects: list[Project], memo: Memo
) -> list[Finding]:
    own = ws.bib_index(bib_path)
    if own is None or any(cites_unknown(ws, project) for project in projects):
        return []  # what an unread document cites is not known: no entry is "never cited"
    if projects and all(
        reader(pr) == "biber" and biber_drops(ws, pr, bib_path, own) for pr in projects
    ):
        return []  # biber reads no entry of the file: none is defined, none an orphan
    # everything the answer depends on: this bibliography's version, every document (and
    # bibliography) of the projects using it, and where "add to nocite" edits go
    docs = tuple(
        (Ident(doc), project.casefold_keys)
        for project in projects
        for _, doc in ws.project_documents(project)
    )
    others = tuple(Ident(i) for pr in projects for _, _, i in ws.project_bibliographies(pr))
    targets = _nocite_targets(ws, projects)
    # the pandoc that reads a Markdown project decides which entries it skips
    dialect = pandoc_dialect(projects)
    return memo.get(
        ("orphan-list", Ident(own), docs, others, targets, dialect),
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
    cited, cited_folded = memo.get(("cited-by", docs), _cited_keys, ws, projects, memo)
    bib = ws.bibliography(bib_path)
    if _nocited_outside_refsections(ws, bib_path, projects):
        return []
    if bib is None or _nocited_in_refsection(ws, bib_path, projects):
        return []
    # keys cited in the project, but only by units that read other bibliographies
    elsewhere: tuple[set[str], set[str]] = (set(), set())
    if any(units.has_units(ws, project) for project in projects):
        # only the units that read this bibliography count
        readers = units.cited_by_readers(ws, bib_path, projects)
        if readers is None:
            return []
        elsewhere = (cited, cited_folded)
        cited, cited_folded = readers
    indexes = list(
        {id(i): i for pr in projects for _, _, i in ws.project_bibliographies(pr)}.values()
    )
    positions = _orphan_positions(own, indexes, cited, cited_folded, memo)
    if positions and not any(project.casefold_keys for project in projects):
        # biber and pandoc read comments apart (pandoc reads @comment(...), biber ends a
        # comment at a lone \r): an entry is no orphan only where no project reading the
        # file reads it
        commented: frozenset[str] | None = None
        if any(project.kind is not DocumentKind.MARKDOWN for project in projects):
            commented = memo.get(("commented", Ident(own), True), commented_keys, ws, bib_path, own)
        if commented != frozenset() and any(
            project.kind is DocumentKind.MARKDOWN for project in projects
        ):
            dialect = pandoc_dialect(projects)
            skipped = memo.get(
                ("commented", Ident(own), False, dialect),
                commented_keys,
                ws,
                bib_path,
                own,
                False,
                dialect,
            )
            commented = skipped if commented is None else commented & skipped
        if commented:
            positions = [i for i in positions if own.entries[i].key not in commented]
    if positions and cited_folded:
        # an entry BibTeX reads under another key (``@misc(work)``: ``work)``) is cited
        # under that one
        renamed = bibtex_reading(ws, bib_path, own).renamed
        if renamed:
            positions = [i for i in positions if fold_key(renamed.get(i, "")) not in cited_folded]
    if positions and any(pr.kind is DocumentKind.LATEX and not pr.casefold_keys for pr in projects):
        # an entry biber reads under another key (``d'A`` as ``d``) is cited under that one
        renamings = dict(biber_reading(ws, bib_path, own).renamings)
        if renamings:
            positions = [i for i in positions if renamings.get(i) not in cited]
    if not positions:
        return []
    fmt = bib.format
    text = ws.text(bib_path) or ""
    found: list[Finding] = []
    # one table per bibliography version and fix targets: per entry position, its finding
    # and how far its fixes read the text (see removal_extent)
    table: dict[int, tuple[Finding, int]] = memo.get(("orphans", Ident(own), nocite_targets), dict)
    if not table and own.previous is not None:
        # entries before the last edit kept their place: so do their findings, unless
        # their fixes read text the edit changed (the blanks and line break after them)
        old, a, _, _ = own.previous
        old_table = memo.previous(("orphans", Ident(old), nocite_targets))
        if old_table:
            edited = own.edited_from
            table.update((i, f) for i, f in old_table.items() if i < a and f[1] <= edited)
    for i in positions:
        entry = own.entries[i]
        if entry.key in elsewhere[0] or fold_key(entry.key) in elsewhere[1]:
            found.append(_cited_elsewhere(bib_path, entry))
            continue
        made = table.get(i)
        if made is None:
            table[i] = made = _orphan_finding(bib_path, text, fmt, entry, nocite_targets)
        found.append(made[0])
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
    # the others in their order, ``own`` in its place: the first definition of a key counts
    others = tuple(None if i is own else (i.keys_token, Ident(i.parent_rows)) for i in indexes)
    key = ("orphan-positions", own.keys_token, Ident(own.parent_rows), *others)
    previous = memo.previous(key)
    if previous is not None and _same(previous[0], cited) and _same(previous[1], folded):
        memo.current[key] = previous
        return previous[2]  # type: ignore[no-any-return]
    delta = key_delta(own) if len(indexes) == 1 else None
    if delta is not None and (
        _redefines_a_child(own, delta.a, delta.b) or _names_an_alias(own, delta.a, delta.b)
    ):
        delta = None
    if delta is not None:
        # only the keys of the re-read entries changed: so may only their answers
        before = memo.previous(("orphan-positions", delta.previous, Ident(own.parent_rows), None))
        if before is not None and _same(before[0], cited) and _same(before[1], folded):
            _, _, old_positions, was_reached, was_folded, was_aliased = before
            positions = [i for i in old_positions if not delta.a <= i < delta.b]
            for i in range(delta.a, delta.b):
                k = own.keys[i]
                if (
                    k
                    and k not in cited
                    and not (folded and fold_key(k) in folded)
                    and k not in was_aliased
                    and k not in was_reached
                    and fold_key(k) not in was_folded
                ):
                    positions.append(i)
            positions.sort()
            memo.current[key] = (cited, folded, positions, was_reached, was_folded, was_aliased)
            return positions
    aliased = _aliased_cited(own, cited, indexes)
    uncited = _uncited(own, cited, folded) - aliased
    # kept for the next edit even when nothing is uncited now: a key typed into may turn
    # an entry into a parent that a cited entry reaches
    reached = _reached_parents(indexes, cited, folded)
    # a parent reached as BibTeX reaches it reaches its keys in every case (BibTeX only)
    folded_reached = {fold_key(k) for k in reached} if folded else set()
    if uncited and reached:
        uncited = {k for k in uncited if k not in reached and fold_key(k) not in folded_reached}
    positions = sorted(i for k in uncited if k for i in own.by_key[k])
    memo.current[key] = (cited, folded, positions, reached, folded_reached, aliased)
    return positions


def _redefines_a_child(own: BibIndex, a: int, b: int) -> bool:
    """Whether the keys of entries ``[a, b)`` (re-read by the last edit, with no
    crossref/xdata of their own) were or are the key (folded) of a later entry that has
    such fields: which of its definitions is the first, and whose parents count, may have
    changed."""
    assert own.previous is not None
    touched = {fold_key(k) for k in (*own.previous[0].keys[a:b], *own.keys[a:b])}
    rows = own.parent_rows
    return any(i >= b and i in rows for key in touched for i in own.folded.get(key, ()))


def _names_an_alias(own: BibIndex, a: int, b: int) -> bool:
    """Whether the keys of entries ``[a, b)`` (re-read by the last edit) were or are an
    ``ids`` alias: whether the alias cites its entry (it does not while it is a key too)
    may have changed."""
    assert own.previous is not None
    if not own.alias_rows:
        return False
    touched = {*own.previous[0].keys[a:b], *own.keys[a:b]}
    return any(alias in touched for names in own.alias_rows.values() for alias in names)


def _same(a: set[str], b: set[str]) -> bool:
    """``a == b``, at once when they are the same set (the cited keys are reused while the
    documents are unchanged)."""
    return a is b or a == b


def _nocite_targets(ws: Workspace, projects: list[Project]) -> tuple[tuple[object, ...], ...]:
    """Where an "add to nocite" edit can go: (kind, path, offset info, the document's line
    break) per project, or for Markdown (kind, path, :data:`NocitePlan`); everything the
    edit depends on, since the findings with these edits are kept while the targets are
    equal."""
    targets: list[tuple[object, ...]] = []
    for project in projects:
        extras = ws.extras(project.root)
        newline = extras.newline
        if project.kind is DocumentKind.LATEX and extras.end_document is not None:
            targets.append(("latex", project.root, extras.end_document, newline))
        elif project.kind is DocumentKind.MARKDOWN and extras.front_matter is not None:
            plan = nocite_plan(ws.text(project.root) or "", extras.front_matter, newline)
            if plan is not None:
                targets.append(("markdown", project.root, plan))
    return tuple(dict.fromkeys(targets))


def _cited_elsewhere(path: Path, entry: Entry) -> Finding:
    """An entry no unit reading its file cites, cited by one that reads other files (a
    refsection, a multibib list, a chapter): it is printed nowhere, but it is not unused,
    so removing it is not offered."""
    return Finding(
        Code.ORPHAN,
        Location(path, entry.key_span),
        f"entry {quoted(entry.key)} is never cited where this file is read: its citations are in "
        "a unit that reads other bibliographies",
        data=MappingProxyType({"key": entry.key}),
    )


def _orphan_finding(
    path: Path,
    text: str,
    fmt: BibFormat,
    entry: Entry,
    targets: tuple[tuple[object, ...], ...],
) -> tuple[Finding, int]:
    """The orphan finding of ``entry`` with its fixes, and how far they read ``text``."""
    fixes: list[Fix] = []
    read = 0
    if fmt is BibFormat.BIBTEX:
        whole = entry.span
        end, read = removal_extent(text, whole.end)
        fixes.append(Fix("Remove entry", (TextEdit(path, Span(whole.start, end), ""),)))
    elif fmt in (BibFormat.CSL_JSON, BibFormat.CSL_YAML):
        from citewarden.parsing.csl_regions import item_removal  # a CSL file only

        removal = item_removal(text, entry)
        if removal is not None:
            fixes.append(Fix("Remove entry", (TextEdit(path, removal[0], ""),)))
            read = removal[1]
    latex_done = markdown_done = False
    for target in targets:
        if target[0] == "latex" and not latex_done and latex_citable(entry.key):
            _, root, offset, newline = target
            assert isinstance(root, Path) and isinstance(offset, int)
            edit = TextEdit(root, Span(offset, offset), f"\\nocite{{{entry.key}}}{newline}")
            fixes.append(Fix(f"Add \\nocite{{{entry.key}}}", (edit,)))
            latex_done = True
        elif target[0] == "markdown" and not markdown_done:
            edit_md = _markdown_nocite_edit(target, entry.key)
            if edit_md is not None:
                fixes.append(Fix("Add to nocite", (edit_md,)))
                markdown_done = True
    message = f"entry {quoted(entry.key)} is never cited"
    finding = Finding(
        Code.ORPHAN,
        Location(path, entry.key_span),
        message,
        fixes=tuple(fixes),
        data=MappingProxyType({"key": entry.key}),
    )
    return finding, read


def _markdown_nocite_edit(target: tuple[object, ...], key: str) -> TextEdit | None:
    _, root, plan = target
    assert isinstance(root, Path) and isinstance(plan, tuple)
    inserted = nocite_insertion(plan, key)
    return None if inserted is None else TextEdit(root, Span(plan[0], plan[0]), inserted)
