"""Citations of ``@xdata`` entries, which biber and pandoc never cite (``dangling-citation``).

An ``@xdata`` entry only lends its fields to the entries naming it in their ``xdata``
field.  pandoc reads it but leaves it out of the references it can cite: ``[@xd]`` is
"Citeproc: citation xd not found", unless another entry of its bibliographies, of another
type, has the key.  biber writes no ``\\entry`` for it, so LaTeX reports ``\\cite{xd}``
undefined (biber itself says nothing); with a key defined twice biber reads the first
definition only, so a key first defined by an ``@xdata`` entry (or an ``ids`` alias of
one) is not cited either.  BibTeX knows no ``@xdata``: its style reads such an entry as one
of an unknown type, which it cites.  The keys are defined for every other purpose (no
"did you mean", no orphan), so this check, not the set of defined names, reports them.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.checks.dangling import checks_dangling
from citewarden.checks.defined import commented_entries, commented_keys
from citewarden.model import Code, DocumentKind, Finding, Location, ParsedDocument, quoted
from citewarden.parsing.pandoc_syntax import PandocDialect, dialect_of, pandoc_skipped_entries

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace

_WHY = (
    "an @xdata entry only lends its fields to the entries naming it in their xdata field; "
    "cite one of those"
)


def xdata_citation_findings(ws: Workspace, projects: list[Project], memo: Memo) -> list[Finding]:
    found: list[Finding] = []
    for project in projects:
        pandoc = project.kind is DocumentKind.MARKDOWN
        if not pandoc and (project.kind is not DocumentKind.LATEX or project.casefold_keys):
            continue  # BibTeX cites an @xdata entry like any other
        bibs = [(path, index) for path, _, index in ws.project_bibliographies(project)]
        if not checks_dangling(ws, project) or not any(
            memo.get(("has-xdata", Ident(i)), _has_xdata, i) for _, i in bibs
        ):
            continue
        dialect = dialect_of(project.pandoc_version) if pandoc else None
        key: tuple[object, ...] = ("xdata-keys", dialect, *(Ident(index) for _, index in bibs))
        keys = memo.get(key, _xdata_keys, ws, bibs, dialect, memo)
        if not keys:
            continue
        documents = list(ws.project_documents(project))
        own = {k for _, doc in documents for k, _ in doc.bibitems}  # references: items
        usable = keys - own if own else keys
        for path, doc in documents:
            if doc.citations:
                key = ("xdata-cited", path, Ident(doc), usable, pandoc)
                found += memo.get(key, _cited, path, doc, usable, pandoc)
    return found


def _has_xdata(index: BibIndex) -> bool:
    return any(entry.entry_type == "xdata" for entry in index.entries)


def _xdata_keys(
    ws: Workspace, bibs: list[tuple[Path, BibIndex]], dialect: PandocDialect | None, memo: Memo
) -> frozenset[str]:
    """The names the tool (biber: ``dialect`` None; else pandoc of ``dialect``) finds no
    citable entry for: pandoc, keys only ``@xdata`` entries define; biber, names whose
    first definition is an ``@xdata`` entry or its alias.  The entries the tool reads as
    comments or skips are left out, each by its place (another entry may have its key)."""
    pandoc = dialect is not None
    first: dict[str, bool] = {}  # name -> whether its first definition is an @xdata entry
    citable: set[str] = set()
    for path, index in bibs:
        if dialect is None:
            skipped = memo.get(("commented", Ident(index), True), commented_keys, ws, path, index)
        else:
            key = ("commented", Ident(index), False, dialect)
            skipped = memo.get(key, commented_keys, ws, path, index, False, dialect)
        text = ws.text(path) or ""
        entries = index.entries
        unread = {id(entries[i]) for i in commented_entries(ws, path, index, not pandoc)}
        if dialect is not None:  # pandoc before 3.9 skips @commentary{...} (and what follows)
            unread.update(id(entry) for entry in pandoc_skipped_entries(text, entries, dialect))
        for entry in entries:
            if entry.key in skipped or id(entry) in unread:
                continue
            xdata = entry.entry_type == "xdata"
            first.setdefault(entry.key, xdata)
            if not xdata:
                citable.add(entry.key)
            if not pandoc:
                for alias in entry.aliases:
                    first.setdefault(alias, xdata)
    if pandoc:
        return frozenset(k for k in first if k not in citable)
    return frozenset(k for k, xdata in first.items() if xdata)


def _cited(path: Path, doc: ParsedDocument, keys: frozenset[str], pandoc: bool) -> list[Finding]:
    tool = (
        "pandoc never cites (its warning: the citation is not found)"
        if pandoc
        else "biber writes no entry for (LaTeX: the citation is undefined)"
    )
    return [
        Finding(
            Code.DANGLING,
            Location(path, cit.span),
            f"citation key {quoted(cit.key)} names an @xdata entry, which {tool}: {_WHY}",
            data=MappingProxyType({"key": cit.key, "suggestions": []}),
        )
        for cit in doc.citations
        if cit.key in keys
    ]


__all__ = ["xdata_citation_findings"]
