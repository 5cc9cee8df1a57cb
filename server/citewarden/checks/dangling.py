"""Dangling citations: keys a project does not define, with "did you mean" suggestions."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from citewarden.checks import Ident, Memo
from citewarden.checks.defined import Defined, KeyDelta, UnreadPart
from citewarden.checks.latex_keys import latex_citable
from citewarden.checks.nocite_edit import markdown_citation, yaml_escaped
from citewarden.checks.orphans import doc_keys
from citewarden.file_state import fold_key
from citewarden.model import (
    Citation,
    CitationKind,
    Code,
    DocumentKind,
    Finding,
    Fix,
    Location,
    ParsedDocument,
    Severity,
    TextEdit,
    quoted,
)
from citewarden.parsing.markdown_inline import is_quarto_crossref
from citewarden.parsing.pandoc_filters import is_label

if TYPE_CHECKING:
    from citewarden.project import Project, Workspace


#: at most this many "Change to" suggestions for a dangling key
MAX_SUGGESTIONS = 3
#: minimum similarity (0-100, rapidfuzz ratio on casefolded keys) for a suggestion
SUGGESTION_CUTOFF = 60.0
#: the best suggestion is preferred when it leads the next one by this much (or is alone)
PREFERRED_LEAD = 10.0


def is_defined(defined: Defined, project: Project, key: str) -> bool:
    """Whether ``project`` defines ``key``: exactly, or where BibTeX reads the keys as
    BibTeX compares them (:func:`~citewarden.file_state.fold_key`)."""
    return key in defined or (project.casefold_keys and defined.has_folded(fold_key(key)))


def checks_dangling(ws: Workspace, project: Project) -> bool:
    """Whether the keys ``project`` defines can be known, so that a citation of a key it
    does not define is dangling: not while a bibliography is missing, unresolved, or could
    not be parsed (:attr:`~citewarden.model.ParsedBibliography.failed`; its own
    ``file-unreadable`` finding says why), as with one that could not be read, nor while
    a document could not be parsed."""
    if project.unresolved or project.missing_bibliography:
        return False
    if any(_failed(ws, path) for path in project.bibliographies):
        return False
    if any(doc.failed for _, doc in ws.project_documents(project)):
        return False  # a document not parsed may define keys (thebibliography, references:)
    if project.kind is DocumentKind.LATEX and not project.standalone:
        return True
    if project.has_bibliography_source:
        return True
    return any(doc.bibitems for _, doc in ws.project_documents(project))


def _failed(ws: Workspace, path: Path) -> bool:
    """Whether the bibliography ``path`` was read but could not be parsed."""
    bib = ws.bibliography(path)
    return bib is not None and bib.failed


def _missing(
    doc: ParsedDocument, defined: Defined, delta: KeyDelta | None, memo: Memo
) -> frozenset[str]:
    """Keys ``doc`` cites that are defined nowhere (exact names)."""
    cited = memo.get(("cited", Ident(doc)), doc_keys, doc)
    if delta is not None:
        before = memo.previous(("missing", Ident(doc), delta.previous))
        if before is not None:
            return (before - delta.added) | (cited & delta.removed)  # type: ignore[no-any-return]
    return defined.missing(cited)


def dangling_findings(
    path: Path,
    doc: ParsedDocument,
    defined: Defined,
    token: tuple[object, ...],
    casefold: bool,
    quarto: bool,
    memo: Memo,
    delta: KeyDelta | None = None,
    text: str | None = None,
    pandoc_crossref: bool = False,
) -> list[Finding]:
    """The dangling citations of ``doc`` (whose text, for a Markdown document, is
    ``text``: a "Change to" edit there writes the key as pandoc reads it where it stands);
    ``pandoc_crossref``: the document runs that filter, which takes its labels' citations
    (:func:`runs_crossref_filter`)."""
    missing = memo.get(("missing", Ident(doc), token), _missing, doc, defined, delta, memo)
    if casefold and missing:
        missing = frozenset(k for k in missing if not defined.has_folded(fold_key(k)))
    if quarto and missing:
        # ``@fig-x`` in a Quarto document is a cross-reference, resolved by Quarto before
        # citations are: never a dangling citation there
        missing = frozenset(k for k in missing if not is_quarto_crossref(k))
    if pandoc_crossref and missing:
        # ``@fig:x`` is a number (or ``¿fig:x?``) once pandoc-crossref has run
        missing = frozenset(k for k in missing if not is_label(k))
    if not missing:
        return []
    found: list[Finding] = []
    for cit in doc.citations:
        key = cit.key
        if key not in missing or not key.strip():
            continue
        if casefold and defined.has_folded(fold_key(key)):
            continue
        if (quarto and is_quarto_crossref(key)) or (pandoc_crossref and is_label(key)):
            continue
        unread = defined.unread_in(key)
        if unread is not None:
            found.append(_unread_finding(path, cit, unread))
            continue
        where = markdown_place(text, cit) if doc.kind is DocumentKind.MARKDOWN else None
        found.append(
            memo.get(
                ("dangling-cit", path, cit, token, where),
                _dangling_finding,
                path,
                cit,
                memo.get(("suggest", key, token), _suggestions, key, defined, token, delta, memo),
                where,
                doc.kind is DocumentKind.MARKDOWN and cit.kind is CitationKind.NOCITE,
            )
        )
    return found


def is_quarto(project: Project) -> bool:
    """A Quarto document: a .qmd file, or any Markdown file under a _quarto.yml."""
    if project.kind is not DocumentKind.MARKDOWN:
        return False
    if project.root.suffix.lower() == ".qmd":
        return True
    return any(m.name.lower().startswith("_quarto.") for m in project.metadata)


def runs_crossref_filter(ws: Workspace, project: Project, path: Path) -> bool:
    """Whether the Markdown document ``path`` of ``project`` runs pandoc-crossref, as its
    front matter or a metadata file of its project says."""
    return ws.runs_crossref_filter(project, path)


def suggest_keys(key: str, keys: Iterable[str]) -> list[tuple[str, float]]:
    """Up to :data:`MAX_SUGGESTIONS` existing keys closest to ``key``, best first (ties in
    the order given)."""
    pool = keys if isinstance(keys, list) else list(keys)
    return _closest(key, pool, [fold_key(k) for k in pool])


#: Every key of a pool close enough to one looked-for key: (-score, position), sorted.
Scored = list[tuple[float, int]]


def _scored(key: str, folded: list[str]) -> Scored:
    """Every position of ``folded`` whose rapidfuzz ratio to ``key`` folded (:func:`fold_key`)
    reaches :data:`SUGGESTION_CUTOFF`."""
    matches = process.extract(
        fold_key(key),
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
    wanted = fold_key(key)
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
    """:func:`suggest_keys` with ``folded[i] == fold_key(pool[i])`` given."""
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
        before = memo.previous(("scored", key, delta.previous))
        if before is not None:
            return _rescored(key, defined.folded_keys, before, delta.a, delta.b)
    return _scored(key, defined.folded_keys)


def markdown_place(text: str | None, cit: Citation) -> tuple[bool, str] | None:
    """Where a Markdown citation's key stands: (inside ``@{...}``, what holds it: ``text``,
    a YAML ``"`` or ``'`` quoted scalar, a ``block`` scalar or a ``plain`` one); None
    without the text."""
    if text is None:
        return None
    braced = text[cit.span.start - 1 : cit.span.start] == "{"
    if cit.command not in ("nocite", "metadata"):
        return braced, "text"
    first = text[cit.command_span.start : cit.command_span.start + 1]
    return braced, first if first in ("'", '"') else "block" if first in ("|", ">") else "plain"


def replacement(name: str, where: tuple[bool, str] | None) -> str | None:
    """``name`` written in place of a key standing at ``where`` (a LaTeX key when None) so
    that pandoc (or LaTeX) reads it whole; None when it cannot be written there."""
    if where is None:
        return name if latex_citable(name) else None
    braced, holder = where
    cite = markdown_citation(name)
    if cite is None:
        return None
    written = name if braced else cite[1:]
    if holder == "plain" and any(c in written for c in ",[]{}#"):
        return None  # in a flow collection these would end the scalar
    return yaml_escaped(written, holder if holder in ("'", '"') else "")


#: Why a reader does not read an entry in a file ``{file}``: (the reader, why), per reader
#: (BibTeX's in a file with a syntax error and without)
_UNREAD_WHY = {
    ("biber", False): (
        "biber",
        "its entry in {file} is commented out for biber (a '%' before it on its line, or an "
        "@comment around it)",
    ),
    ("biber", True): (
        "biber",
        "biber reads no entry of {file}, which has a syntax error for biber (it drops the "
        "whole file where BibTeX reads on)",
    ),
    "biber-key": (
        "biber",
        "biber reads the key of its entry in {file} as another (it skips an apostrophe or a "
        "backslash with the character after it)",
    ),
    "biber-encoding": (
        "biber",
        "biber reads no entry of {file}, which is not valid UTF-8 (biber decodes a .bib file "
        "as UTF-8 unless biblatex's bibencoding option names its encoding)",
    ),
    "pandoc": ("pandoc", "pandoc skips its entry in {file} as a comment"),
    ("bibtex", True): (
        "BibTeX",
        "BibTeX reads its entry in {file} as part of a syntax error before it",
    ),
    ("bibtex", False): (
        "BibTeX",
        "BibTeX does not read its entry in {file} (on a file's last line it reads the first "
        "entry only; '%' starts no comment for it)",
    ),
}


def _unread_finding(path: Path, cit: Citation, part: UnreadPart) -> Finding:
    """A citation of a key whose entry the project's reader does not read: it says why and
    in which file (no "did you mean": the entry is there, unread).  The entry's place is
    not part of it: the answers of a project's documents are kept while its keys and what
    its reader reads stay the same, however the entries move."""
    reading = part.reader
    tool, why = _UNREAD_WHY[(reading, part.broken) if reading in ("bibtex", "biber") else reading]
    why = why.format(file=quoted(part.path.name))
    message = f"citation key {quoted(cit.key)} is not defined for {tool}: {why}"
    data = MappingProxyType({"key": cit.key, "suggestions": []})
    return Finding(Code.DANGLING, Location(path, cit.span), message, data=data)


def _dangling_finding(
    path: Path,
    cit: Citation,
    suggestions: list[tuple[str, float]],
    where: tuple[bool, str] | None = None,
    pandoc_nocite: bool = False,
) -> Finding:
    """``pandoc_nocite``: the key is one of a Markdown ``nocite:`` list, which pandoc's
    citeproc passes over without a word (2.17, 3.6.1 and 3.9): the entry meant is left
    out of the reference list and nothing else goes wrong, a warning."""
    names = [s for s, _ in suggestions]
    kind = "nocite key" if pandoc_nocite else "citation key"
    message = f"{kind} {quoted(cit.key)} is not defined in any bibliography"
    # (a project whose reader folds case never gets here with such a key)
    same = [name for name in names if fold_key(name) == fold_key(cit.key)]
    if same:  # biber: "Possible typo (case mismatch) between citation and datasource keys"
        differ = "differs" if len(same) == 1 else "differ"
        message += (
            f"; {' and '.join(quoted(n) for n in same)} {differ} from it in case only, and "
            "biber and pandoc match keys exactly"
        )
    elif names:
        message += "; did you mean " + " or ".join(quoted(n) for n in names) + "?"
    if pandoc_nocite:
        message += " (pandoc leaves it out of the reference list without a warning)"
    preferred_first = (
        len(same) == 1
        or len(suggestions) == 1
        or (len(suggestions) > 1 and suggestions[0][1] - suggestions[1][1] >= PREFERRED_LEAD)
    )
    fixes = tuple(
        Fix(
            f"Change to `{name}`",
            (TextEdit(path, cit.span, written),),
            preferred=(i == 0 and preferred_first),
        )
        for i, name in enumerate(names)
        if (written := replacement(name, where)) is not None
    )
    data = MappingProxyType({"key": cit.key, "suggestions": names})
    severity = Severity.WARNING if pandoc_nocite else None
    return Finding(
        Code.DANGLING,
        Location(path, cit.span),
        message,
        fixes=fixes,
        data=data,
        severity=severity,
    )
