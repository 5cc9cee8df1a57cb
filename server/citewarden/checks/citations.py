"""Citation checks: dangling citations, orphan entries, empty keys, missing files, crossref.

Rules:

* A citation is *dangling* when its key is neither an entry key, an ``ids`` alias nor a
  ``\\bibitem`` key of its project (keys match exactly, as biber and pandoc match them).
  Not reported for a project whose bibliography could not be determined (a macro as the
  file name, or a bibliography file that is missing - that has its own finding), nor for a
  standalone LaTeX file or a Markdown document that names no bibliography at all.
* An entry is an *orphan* when no document of any project using its bibliography cites it
  (``\\nocite`` counts; ``\\nocite{*}`` / ``nocite: '@*'`` in any of those projects turns the
  check off for that bibliography).  An entry named by ``crossref``/``xdata`` of a cited
  entry counts as cited, as BibTeX and biber include such parents.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from citewarden.checks import Memo
from citewarden.model import (
    BibFormat,
    Citation,
    CitationKind,
    Code,
    DocumentKind,
    Entry,
    Finding,
    Fix,
    LinkKind,
    Location,
    Related,
    Span,
    TextEdit,
)
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
        found += _empty_keys(ws, project)
        defined, token = _defined(ws, project)
        found += _dangling(ws, project, defined, token, memo)
        found += _missing_crossrefs(ws, project, defined)
        for bib in project.bibliographies:
            users.setdefault(bib, []).append(project)
    for bib_path, bib_projects in users.items():
        found += _orphans(ws, bib_path, bib_projects, memo)
    return found


# ---- definitions ----------------------------------------------------------------------------


def _defined(ws: Workspace, project: Project) -> tuple[dict[str, str], tuple[object, ...]]:
    """Defined names -> entry key (aliases map to their entry), and a token that changes
    whenever the set may have changed."""
    defined: dict[str, str] = {}
    token: list[object] = []
    for _, _, index in ws.project_bibliographies(project):
        token.append(index)
        for key in index.by_key:
            defined.setdefault(key, key)
        for alias, entry in index.aliases.items():
            defined.setdefault(alias, entry.key)
    for _, doc in ws.project_documents(project):
        if doc.bibitems:
            token.append(tuple(k for k, _ in doc.bibitems))
            for key, _ in doc.bibitems:
                defined.setdefault(key, key)
    return defined, tuple(token)


# ---- dangling ---------------------------------------------------------------------------------


def _checks_dangling(ws: Workspace, project: Project) -> bool:
    if project.unresolved or project.missing_bibliography:
        return False
    if project.kind is DocumentKind.LATEX and not project.standalone:
        return True
    if project.has_bibliography_source:
        return True
    return any(doc.bibitems for _, doc in ws.project_documents(project))


def _dangling(
    ws: Workspace,
    project: Project,
    defined: dict[str, str],
    token: tuple[object, ...],
    memo: Memo,
) -> list[Finding]:
    if not _checks_dangling(ws, project):
        return []
    found: list[Finding] = []
    keys: list[str] | None = None
    folded = {k.casefold() for k in defined} if project.casefold_keys else None
    quarto = _is_quarto(project)
    for path, doc in ws.project_documents(project):
        for cit in doc.citations:
            if not cit.key.strip() or cit.key in defined:
                continue
            if folded is not None and cit.key.casefold() in folded:
                continue
            if quarto and QUARTO_CROSSREF.match(cit.key):
                continue
            if keys is None:
                keys = sorted(set(defined.values()))
            pool = keys
            found.append(
                memo.get(
                    ("dangling", path, cit, token),
                    _dangling_finding,
                    path,
                    cit,
                    pool,
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
    """Up to :data:`MAX_SUGGESTIONS` existing keys closest to ``key``, best first."""
    matches = process.extract(
        key,
        list(keys),
        scorer=fuzz.ratio,
        processor=str.casefold,
        limit=MAX_SUGGESTIONS,
        score_cutoff=SUGGESTION_CUTOFF,
    )
    return [(m[0], float(m[1])) for m in matches]


def _dangling_finding(path: Path, cit: Citation, keys: list[str]) -> Finding:
    suggestions = suggest_keys(cit.key, keys)
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


def _empty_keys(ws: Workspace, project: Project) -> list[Finding]:
    found: list[Finding] = []
    for path, doc in ws.project_documents(project):
        for cit in doc.citations:
            if cit.key.strip():
                continue
            span = cit.command_span if len(cit.span) == 0 else cit.span
            command = cit.command
            found.append(
                Finding(
                    Code.EMPTY_KEY,
                    Location(path, span),
                    f"empty citation key in {command}",
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
            message = f"bibliography file '{missing.target}' not found"
        else:
            code = Code.MISSING_INCLUDE
            shown = f"{link.base.rstrip('/')}/{missing.target}" if link.base else missing.target
            message = f"included file '{shown}' not found"
        found.append(
            Finding(
                code,
                Location(missing.path, link.span),
                message,
                data=MappingProxyType({"target": missing.target}),
            )
        )
    return found


def _missing_crossrefs(ws: Workspace, project: Project, defined: dict[str, str]) -> list[Finding]:
    folded = {k.casefold() for k in defined}
    found: list[Finding] = []
    for path, bib, index in ws.project_bibliographies(project):
        if not index.parents:
            continue
        for entry in bib.entries:
            for parent in index.parents.get(entry.key, ()):
                if parent.casefold() in folded:
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


def _cited_keys(ws: Workspace, projects: list[Project]) -> tuple[set[str], set[str], bool]:
    """Keys cited by ``projects``: exact, casefolded (BibTeX projects), and whether any
    of them cites everything."""
    cited: set[str] = set()
    folded: set[str] = set()
    for project in projects:
        for _, doc in ws.project_documents(project):
            if doc.nocite_all:
                return cited, folded, True
            if project.casefold_keys:
                folded.update(c.key.casefold() for c in doc.citations)
            else:
                cited.update(c.key for c in doc.citations)
    return cited, folded, False


def _with_parents(cited: set[str], indexes: list[BibIndex]) -> set[str]:
    """``cited`` plus every entry reached through crossref/xdata from a cited entry."""
    parents: dict[str, tuple[str, ...]] = {}
    alias_of: dict[str, str] = {}
    for index in indexes:
        parents.update(index.parents)
        for alias, entry in index.aliases.items():
            alias_of.setdefault(alias, entry.key)
    result = set(cited)
    result.update(alias_of[k] for k in cited if k in alias_of)
    if not parents:
        return result
    todo = [k for k in result if k in parents]
    while todo:
        key = todo.pop()
        for parent in parents.get(key, ()):
            if parent not in result:
                result.add(parent)
                todo.append(parent)
    return result


def _orphans(ws: Workspace, bib_path: Path, projects: list[Project], memo: Memo) -> list[Finding]:
    cited, cited_folded, everything = _cited_keys(ws, projects)
    if everything:
        return []
    bib = ws.bibliography(bib_path)
    index = ws.bib_index(bib_path)
    if bib is None or index is None:
        return []
    indexes = [i for pr in projects for _, _, i in ws.project_bibliographies(pr)]
    if cited_folded:
        # a BibTeX project: every entry whose key matches a citation but for case is used
        for index in indexes:
            for key_folded, entries in index.folded.items():
                if key_folded in cited_folded:
                    cited.update(e.key for e in entries)
            for alias, entry in index.aliases.items():
                if alias.casefold() in cited_folded:
                    cited.add(entry.key)
    cited = _with_parents(cited, indexes)
    nocite_targets = _nocite_targets(ws, projects)
    text = ws.text(bib_path) or ""
    fmt = bib.format
    found: list[Finding] = []
    for entry in bib.entries:
        if not entry.key or entry.key in cited:
            continue  # an empty key is reported by the parser: it cannot be cited at all
        if entry.aliases and any(a in cited for a in entry.aliases):
            continue
        span, key_span = entry.span, entry.key_span
        memo_key = (
            "orphan",
            bib_path,
            entry.key,
            span.start,
            span.end,
            key_span.start,
            key_span.end,
            removal_end(text, span.end),
            fmt,
            nocite_targets,
        )
        finding = memo.get(
            memo_key,
            _orphan_finding,
            ws,
            bib_path,
            fmt,
            entry,
            nocite_targets,
        )
        found.append(finding)
    return found


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
    fmt: BibFormat,
    entry: Entry,
    targets: tuple[tuple[object, ...], ...],
) -> Finding:
    fixes: list[Fix] = []
    if fmt is BibFormat.BIBTEX:
        span = ws.removal_span(path, entry.span)
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


def related_first(path: Path, span: Span, key: str) -> Related:
    return Related(Location(path, span), f"first definition of '{key}'")


__all__ = ["CitationKind", "citation_findings", "suggest_keys"]
