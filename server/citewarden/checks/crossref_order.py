"""A ``crossref`` target BibTeX reads as missing because it comes too early.

BibTeX reads a project's .bib files one after the other as one database, and keeps an
entry that is not cited only when an entry it kept before cross-references it: a
``@proceedings`` that nobody cites, defined before every cited ``@inproceedings`` that
names it in ``crossref`` (earlier in the file, or in a file named before), is "A bad cross
reference---entry "c" refers to entry "p", which doesn't exist", and the child inherits none
of its fields (``empty booktitle``).  biber and pandoc take the target wherever it is, so
only projects BibTeX reads get the finding (``missing-crossref``, on the child's
``crossref`` value, the target's place related); not those that cite everything
(``\\nocite{*}``) nor those whose units BibTeX reads apart (bibunits, chapterbib, multibib).
The first definition of a key is the one BibTeX keeps; keys match whatever their case.

A bibliography may hold thousands of such findings; an edit of one of its files that
touches no ``crossref`` value and changes no key a ``crossref`` names (a title typed into,
a key typed into that no entry names) keeps them: the findings before the edit are the same
objects, those after it are moved with the text (see :func:`_moved`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.cited import keys_of
from citewarden.file_state import fold_key
from citewarden.model import Code, DocumentKind, Finding, Location, Related, Span, quoted

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace

Bibs = tuple[tuple[Path, "BibIndex"], ...]


@dataclass(frozen=True, slots=True)
class _Answer:
    """The findings of one project's bibliographies and cited keys, with what is needed to
    carry them over an edit."""

    cited: frozenset[str]
    bibs: Bibs
    #: casefolded keys that some ``crossref`` value of the bibliographies names
    targets: frozenset[str]
    found: tuple[Finding, ...]
    #: per finding: (child's file number, child's row, target's file number, target's row)
    places: tuple[tuple[int, int, int, int], ...]


def crossref_order_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    """The crossref targets BibTeX skips, in the LaTeX projects it reads."""
    found: list[Finding] = []
    for project in projects:
        if project.kind is not DocumentKind.LATEX or not project.casefold_keys:
            continue
        bibs = tuple((path, index) for path, _, index in ws.project_bibliographies(project))
        if project.chapters or not any(index.crossref_rows for _, index in bibs):
            continue
        docs = [doc for _, doc in ws.project_documents(project)]
        if any(doc.nocite_all or doc.refsections or doc.newcites for doc in docs):
            continue
        cited = keys_of(docs, memo, folded=True)
        key = ("crossref-order", cited, *((path, Ident(index)) for path, index in bibs))
        last = ("crossref-order-last", project.root)
        answer = memo.get(key, _answer, bibs, cited, memo.previous(last))
        memo.current[last] = answer
        found += answer.found
    return found


def _answer(bibs: Bibs, cited: frozenset[str], last: _Answer | None) -> _Answer:
    moved = _moved(last, bibs, cited) if last is not None else None
    return moved if moved is not None else _skipped_targets(bibs, cited)


def _moved(last: _Answer, bibs: Bibs, cited: frozenset[str]) -> _Answer | None:
    """``last`` carried over to ``bibs``, when they differ from its own by one edit that
    cannot change the answer (None otherwise)."""
    if not (last.cited is cited or last.cited == cited) or len(last.bibs) != len(bibs):
        return None
    edited = -1
    for n, ((was_path, was), (path, index)) in enumerate(zip(last.bibs, bibs, strict=True)):
        if was_path != path:
            return None
        if was is index:
            continue
        if edited >= 0 or index.previous is None or index.previous[0] is not was:
            return None
        edited = n
    if edited < 0:
        return _Answer(cited, bibs, last.targets, last.found, last.places)
    new = bibs[edited][1]
    assert new.previous is not None
    old, a, b, b_old = new.previous
    targets = last.targets
    same_keys = old.keys[a:b_old] == new.keys[a:b]
    for index, end in ((old, b_old), (new, b)):
        for row in range(a, end):
            if row in index.crossref_rows:
                return None  # a crossref value was edited
            if not same_keys and fold_key(index.keys[row]) in targets:
                return None  # a key a crossref value names was edited
    rows = b - b_old
    chars = new.entries[b].span.start - old.entries[b_old].span.start if b < len(new.keys) else 0
    path = bibs[edited][0]
    found: list[Finding] = []
    places: list[tuple[int, int, int, int]] = []
    for finding, (cn, crow, pn, prow) in zip(last.found, last.places, strict=True):
        child_after = cn == edited and crow >= b_old
        parent_moved = pn == edited and prow >= a
        if child_after or parent_moved:
            crow += rows if child_after else 0
            prow += rows if parent_moved and prow >= b_old else 0
            parent = new.entries[prow].key_span if parent_moved else None
            finding = _moved_finding(finding, path, chars if child_after else 0, parent)
        found.append(finding)
        places.append((cn, crow, pn, prow))
    return _Answer(cited, bibs, targets, tuple(found), tuple(places))


def _moved_finding(finding: Finding, path: Path, chars: int, parent: Span | None) -> Finding:
    """``finding`` with its place moved by ``chars``, and its target's key (in ``path``)
    at ``parent`` when that is given."""
    span = finding.location.span
    related = finding.related
    if parent is not None:
        related = tuple(
            Related(Location(path, parent), r.message) if r.location.path == path else r
            for r in related
        )
    return Finding(
        finding.code,
        Location(finding.location.path, _plus(span, chars)),
        finding.message,
        related,
        finding.fixes,
        finding.data,
        finding.severity,
    )


def _plus(span: Span, chars: int) -> Span:
    return span if not chars else Span(span.start + chars, span.end + chars)


def _skipped_targets(bibs: Bibs, cited: frozenset[str]) -> _Answer:
    # the cited entries naming each target in crossref, where they stand
    naming: dict[str, list[tuple[int, int]]] = {}
    targets: set[str] = set()
    for n, (_, index) in enumerate(bibs):
        keys = index.keys
        for row, target in index.crossref_rows.items():
            folded = fold_key(target)
            targets.add(folded)
            if fold_key(keys[row]) in cited:
                naming.setdefault(folded, []).append((n, row))
    found: list[Finding] = []
    places: list[tuple[int, int, int, int]] = []
    for target, children in naming.items():
        at = _first_definition(bibs, target)
        if at is None or target in cited or min(children) < at:
            continue  # defined nowhere (reported apart), cited, or kept for an earlier child
        parent_path, parent_index = bibs[at[0]]
        parent = parent_index.entries[at[1]]
        for n, row in children:
            path, index = bibs[n]
            entry = index.entries[row]
            fld = entry.field("crossref")
            assert fld is not None
            where = "in a file named before it" if at[0] < n else "before it in the file"
            found.append(
                Finding(
                    Code.MISSING_CROSSREF,
                    Location(path, fld.value_span),
                    f"BibTeX reads {quoted(parent.key)} as missing: it is not cited and is "
                    f"defined {where}; BibTeX keeps an entry nobody cites only when an entry "
                    f"read before it cross-references it, so {quoted(entry.key)} gets none of "
                    f"its fields (define {quoted(parent.key)} after the entries that name "
                    f"it, or cite it)",
                    related=(
                        Related(
                            Location(parent_path, parent.key_span), f"{quoted(parent.key)} here"
                        ),
                    ),
                    data=MappingProxyType({"key": entry.key, "target": fld.text.strip()}),
                )
            )
            places.append((n, row, *at))
    return _Answer(cited, bibs, frozenset(targets), tuple(found), tuple(places))


def _first_definition(bibs: Bibs, key: str) -> tuple[int, int] | None:
    """Where the casefolded ``key`` is first defined: (file number, entry number)."""
    for n, (_, index) in enumerate(bibs):
        rows = index.folded.get(key)
        if rows:
            return n, rows[0]
    return None


__all__ = ["crossref_order_findings"]
