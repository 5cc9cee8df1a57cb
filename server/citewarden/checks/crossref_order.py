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
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.orphans import doc_folded
from citewarden.model import Code, DocumentKind, Finding, Location, Related, quoted

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace


def crossref_order_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    """The crossref targets BibTeX skips, in the LaTeX projects it reads."""
    found: list[Finding] = []
    for project in projects:
        if project.kind is not DocumentKind.LATEX or not project.casefold_keys:
            continue
        bibs = [(path, index) for path, _, index in ws.project_bibliographies(project)]
        if project.chapters or not any(index.crossref_rows for _, index in bibs):
            continue
        docs = [doc for _, doc in ws.project_documents(project)]
        if any(doc.nocite_all or doc.refsections or doc.newcites for doc in docs):
            continue
        cited = frozenset().union(
            *(memo.get(("cited-folded", Ident(doc)), doc_folded, doc) for doc in docs)
        )
        key = ("crossref-order", cited, *((path, Ident(index)) for path, index in bibs))
        found += memo.get(key, _skipped_targets, bibs, cited)
    return found


def _skipped_targets(bibs: list[tuple[Path, BibIndex]], cited: frozenset[str]) -> list[Finding]:
    # the cited entries naming each target in crossref, where they stand
    naming: dict[str, list[tuple[int, int]]] = {}
    for n, (_, index) in enumerate(bibs):
        keys = index.keys
        for row, target in index.crossref_rows.items():
            if keys[row].casefold() in cited:
                naming.setdefault(target.casefold(), []).append((n, row))
    found: list[Finding] = []
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
    return found


def _first_definition(bibs: list[tuple[Path, BibIndex]], key: str) -> tuple[int, int] | None:
    """Where the casefolded ``key`` is first defined: (file number, entry number)."""
    for n, (_, index) in enumerate(bibs):
        rows = index.folded.get(key)
        if rows:
            return n, rows[0]
    return None


__all__ = ["crossref_order_findings"]
