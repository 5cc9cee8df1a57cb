"""One key cited in two spellings in a project BibTeX reads.

BibTeX matches keys whatever their case, but keeps one spelling of each: the one it meets
first in the .aux ("Case mismatch error between cite keys knuth and Knuth"), and writes
``\\bibitem`` for that spelling only.  LaTeX matches keys exactly, so every citation of
another spelling is undefined in the document (``Citation `knuth' undefined``).  The .aux
lists the citations in document order, each included file's in place of the link that
reads it; these citations (``\\nocite`` too: LaTeX looks its keys up) get a
``dangling-citation`` naming the spelling BibTeX kept.
Projects whose citations go to several .aux files (chapterbib, bibunits, multibib,
biblatex's refsections) are not read here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.checks import Memo
from citewarden.checks.cited import keys_of
from citewarden.checks.units import include_sites
from citewarden.file_state import fold_key
from citewarden.model import (
    Citation,
    Code,
    DocumentKind,
    Finding,
    Fix,
    Location,
    ParsedDocument,
    Related,
    TextEdit,
    quoted,
)

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace

#: (the offsets of the include links leading to the file, from the root's; the
#: citation's offset): orders citations as the .aux lists them
Place = tuple[int, ...]


def case_clash_findings(
    ws: Workspace, project: Project, defined: Callable[[str], bool], memo: Memo
) -> list[Finding]:
    """``dangling-citation`` for each citation of a key the project defines (``defined``,
    whatever the case) in a spelling other than the one BibTeX keeps (see the module's
    description)."""
    if project.kind is not DocumentKind.LATEX or not project.casefold_keys or project.chapters:
        return []
    documents = dict(ws.project_documents(project))
    if any(doc.refsections or doc.newcites for doc in documents.values()):
        return []
    # no key in two spellings (the usual case), told from the documents' key sets
    exact = keys_of(documents.values(), memo)
    if len(exact) == len(keys_of(documents.values(), memo, folded=True)):
        return []
    spellings: dict[str, set[str]] = {}
    for doc in documents.values():
        for cit in doc.citations:
            spellings.setdefault(fold_key(cit.key), set()).add(cit.key)
    clashing = {folded for folded, keys in spellings.items() if len(keys) > 1 and defined(folded)}
    if not clashing:
        return []
    prefixes = _prefixes(project.root, documents, project.placed)
    cited = sorted(
        (
            (prefixes[path] + (cit.span.start,), path, cit)
            for path, doc in documents.items()
            if path in prefixes
            for cit in doc.citations
            if fold_key(cit.key) in clashing
        ),
        key=lambda item: item[0],
    )
    return list(_findings((path, cit) for _, path, cit in cited))


def _findings(cited: Iterable[tuple[Path, Citation]]) -> Iterable[Finding]:
    first: dict[str, tuple[Path, Citation]] = {}
    for path, cit in cited:
        kept_path, kept = first.setdefault(fold_key(cit.key), (path, cit))
        if cit.key == kept.key:
            continue
        message = (
            f"citation key {quoted(cit.key)} is undefined: BibTeX keeps one spelling of a key, "
            f"the one cited first ({quoted(kept.key)}), and LaTeX matches keys exactly"
        )
        yield Finding(
            Code.DANGLING,
            Location(path, cit.span),
            message,
            related=(Related(Location(kept_path, kept.span), f"{quoted(kept.key)} cited first"),),
            fixes=(
                Fix(
                    f"Change to `{kept.key}`",
                    (TextEdit(path, cit.span, kept.key),),
                    preferred=True,
                ),
            ),
            data=MappingProxyType({"key": cit.key, "suggestions": [kept.key]}),
        )


def _prefixes(
    root: Path, documents: Mapping[Path, ParsedDocument], placed: Iterable[tuple[Path, Path, int]]
) -> dict[Path, Place]:
    """For each document read from ``root``: the offsets of the include links that lead to
    it (the root's ``()``)."""
    children: dict[Path, list[tuple[int, Path]]] = {}
    for child, (parent, start) in include_sites(dict(documents), placed).items():
        children.setdefault(parent, []).append((start, child))
    found: dict[Path, Place] = {root: ()}
    pending = [root]
    while pending:
        path = pending.pop()
        for start, child in children.get(path, ()):
            if child not in found:  # a file read twice: its first reading
                found[child] = (*found[path], start)
                pending.append(child)
    return found
