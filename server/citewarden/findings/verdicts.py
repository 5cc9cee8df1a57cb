"""Verdicts -> findings: the one conversion every consumer uses (pure).

* :func:`entry_findings` -> the findings of one entry in its bibliography: each verification
  issue on the value of the field it names (the DOI value when the DOI belongs to another
  work, the title for a near-miss, the author list, the pages ...), else on the entry key,
  with the issue's own severity and the entry's risk tier in ``data["tier"]``: the policy
  step (:mod:`citewarden.findings.policy`) decides the severity shown.  The message names
  the source that said so, and the record's address travels in ``data["record_url"]``.
* Fixes: the anchored correction of the finding's own field as a minimal edit of the value
  (or a new field line, e.g. a missing ``doi``), "Update entry from <source>" with every
  anchored correction at once, and "Ignore this entry" (a ``% citewarden: ignore`` line
  above the entry, which the parser reads as suppressing the entry's first line).
* :func:`citation_findings` -> for an H-tier or retracted entry, one finding at every
  citation of it in the documents, related to the field at fault; :func:`citations_of`
  finds those citations in a workspace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from citewarden.model import (
    Citation,
    Code,
    Entry,
    Field,
    Finding,
    Fix,
    Issue,
    Location,
    ParsedDocument,
    Related,
    Severity,
    Span,
    Status,
    TextEdit,
    Tier,
    Verdict,
)
from citewarden.parsing import BIBTEX_SUFFIXES
from citewarden.safe_text import doi_url, https_url, without_unsafe
from citewarden.text import line_ending, line_start_before

if TYPE_CHECKING:
    from citewarden.fix.csl import Decoding
    from citewarden.project import Project


#: How each source is named in messages.
SOURCE_LABELS: Mapping[str, str] = {
    "crossref": "Crossref",
    "doi": "doi.org",
    "openalex": "OpenAlex",
    "semanticscholar": "Semantic Scholar",
    "datacite": "DataCite",
    "arxiv": "arXiv",
    "pubmed": "PubMed",
    "dblp": "DBLP",
    "openlibrary": "Open Library",
    "snapshot": "Snapshot",
    "bibliography": "the bibliography entry",
}

#: Findings that come from the entry alone (no source said anything).
STATIC_CODES = frozenset(
    {
        Code.HOMOGLYPH,
        Code.PLACEHOLDER_AUTHORS,
        Code.TEMPORAL_IMPOSSIBILITY,
        Code.INVALID_IDENTIFIER,
        Code.NOT_FOUND,
        Code.UNVERIFIED,
    }
)
#: Findings about the identifier look-up (the first source consulted answered it).
ID_CODES = frozenset({Code.DOI_NOT_FOUND, Code.DOI_OTHER_WORK})

IGNORE_COMMENT = "% citewarden: ignore"

#: A field an issue names, and the fields an entry may use for it instead (BibTeX and
#: biblatex names of the same thing, or where the same information lives).
FIELD_ALIASES: Mapping[str, tuple[str, ...]] = {
    "number": ("number", "issue"),
    "issue": ("issue", "number"),
    "journal": ("journal", "journaltitle"),
    "journaltitle": ("journaltitle", "journal"),
    "year": ("year", "date"),
    "eprint": ("eprint", "url"),
    "author": ("author", "editor"),
}

_TIER_RANK = {Tier.D: 0, Tier.M: 1, Tier.E: 2, Tier.H: 3}


def source_label(name: str | None) -> str:
    if not name:
        return "the sources"
    return SOURCE_LABELS.get(name, name)


def record_url(verdict: Verdict) -> str | None:
    """The address of the matched record (its DOI when it has one)."""
    m = verdict.match
    if m is None:
        return None
    if m.doi:
        return doi_url(m.doi)
    return https_url(m.url)


def is_note(issue: Issue) -> bool:
    """Hints and information (unverified, corrected, preprint published ...) keep their own
    severity whatever the tier."""
    return issue.effective_severity in (Severity.HINT, Severity.INFORMATION)


def find_field(
    entry: Entry,
    name: str | None,
    aliases: Mapping[str, tuple[str, ...]] = FIELD_ALIASES,
) -> Field | None:
    """The first field of ``entry`` among ``aliases[name]`` (just ``name`` when it has no
    aliases); None when ``name`` is empty or the entry has none of them."""
    if not name:
        return None
    for candidate in aliases.get(name, (name,)):
        found = entry.field(candidate)
        if found is not None:
            return found
    return None


def field_of(entry: Entry, name: str | None) -> Field | None:
    """The entry's field an issue about ``name`` refers to (aliases included)."""
    return find_field(entry, name, FIELD_ALIASES)


def _message(issue: Issue, verdict: Verdict) -> str:
    if issue.code in STATIC_CODES:
        return issue.message
    if issue.code in ID_CODES:
        first = verdict.sources[0] if verdict.sources else None
        if issue.code is Code.DOI_NOT_FOUND and "doi" in verdict.sources:
            first = "doi"
        text = f"{source_label(first)}: {issue.message}"
        doi = verdict.corrections.get("doi")
        if doi and doi not in issue.message and verdict.match is not None:
            text += (
                f"; {source_label(verdict.match.source)} finds the work this entry describes "
                f"under DOI {doi}"
            )
        return text
    name = verdict.match.source if verdict.match is not None else None
    return f"{source_label(name)}: {issue.message}"


def _fix_title(name: str, value: str, present: bool) -> str:
    shown = value if len(value) <= 60 else value[:57] + "..."
    if name in ("doi", "DOI"):
        return f"Replace DOI with {shown}" if present else f"Add DOI {shown}"
    return f"Set {name} to “{shown}”" if present else f"Add {name} “{shown}”"


def csl_decoding() -> Decoding:
    """How a correction's BibTeX text is read for a CSL item."""
    from citewarden.fix.csl import Decoding
    from citewarden.verify.authors import csl_names
    from citewarden.verify.plain_text import latex_to_text

    return Decoding(latex_to_text, csl_names)


def _edits(text: str, entry: Entry, fields: Mapping[str, str]) -> tuple[list[TextEdit], list[str]]:
    """The edits of ``fields`` in ``entry`` (a BibTeX entry's, or a CSL item's: CSL-JSON,
    CSL-YAML, a document's ``references:``, with the corrections' BibTeX text read), and
    the fields of the corrections not applied (none when nothing is)."""
    from citewarden.fix.plan import Change, FixRefused, Skipped  # only when one is shown

    changes: list[Change] = []
    skipped: list[Skipped] = []
    try:
        if entry.csl_type is not None:
            from citewarden.fix.csl import entry_edits as csl_edits

            made = csl_edits(text, entry, fields, changes, skipped, decoding=csl_decoding())
        else:
            from citewarden.fix.plan import entry_edits

            made = entry_edits(text, entry, fields, changes, skipped)
    except FixRefused:
        return [], []
    edits = [TextEdit(entry.path, Span(e.start, e.end), e.text) for e in made]
    return edits, [s.field or "all" for s in skipped] if edits else []


def correction_fix(entry: Entry, text: str, name: str, value: str) -> Fix | None:
    """One anchored correction as a minimal edit (None when it cannot be made safely)."""
    target = field_of(entry, name)
    field_name = target.name if target is not None else name
    edits, _ = _edits(text, entry, {field_name: value})
    if not edits:
        return None
    shown_name, shown = field_name, without_unsafe(value)  # what is written, no soft hyphen
    if field_name.lower() == "title":  # protected as the entry's own title (a BibTeX entry's)
        from citewarden.fix.plan import written_title

        shown = written_title(entry, shown)
    if entry.csl_type is not None:  # as the item gets it
        from citewarden.fix.csl import csl_correction

        shown_name, shown = csl_correction(field_name, shown, csl_decoding(), entry.csl_type)
    title = _fix_title(shown_name, shown, target is not None)
    return Fix(title, tuple(edits), preferred=True)


def update_fix(entry: Entry, text: str, verdict: Verdict) -> Fix | None:
    """Every anchored correction at once; the key and all other fields stay."""
    if len(verdict.corrections) < 2:
        return None
    fields: dict[str, str] = {}
    for name, value in verdict.corrections.items():
        target = field_of(entry, name)
        fields[target.name if target is not None else name] = value
    edits, left = _edits(text, entry, fields)
    if not edits:
        return None
    source = source_label(verdict.match.source if verdict.match else None)
    but = f" (not {', '.join(left)}: by hand)" if left else ""
    return Fix(f"Update entry from {source}{but}", tuple(edits))


def ignore_fix(entry: Entry, text: str) -> Fix | None:
    """``% citewarden: ignore`` on its own line above the entry (BibTeX files only)."""
    if entry.path.suffix.lower() not in BIBTEX_SUFFIXES:
        return None
    start = entry.span.start
    line_start = line_start_before(text, start)
    newline = line_ending(text[max(0, line_start - 2) : entry.span.end], line_ending(text))
    if text[line_start:start].strip():  # something precedes the entry on its line
        edit = TextEdit(entry.path, Span(start, start), f"{newline}{IGNORE_COMMENT}{newline}")
    else:
        indent = text[line_start:start]
        edit = TextEdit(
            entry.path, Span(line_start, line_start), f"{indent}{IGNORE_COMMENT}{newline}"
        )
    return Fix("Ignore this entry (do not verify it)", (edit,))


def _data(entry: Entry, verdict: Verdict, issue: Issue | None) -> Mapping[str, object]:
    data: dict[str, object] = {
        "key": entry.key,
        "status": verdict.status.value,
        "tier": verdict.tier.value,
        "verification": True,
    }
    if issue is not None and issue.field:
        data["field"] = issue.field
    url = record_url(verdict)
    if url is not None and verdict.match is not None:
        data["record_url"] = url
        data["record_source"] = source_label(verdict.match.source)
    return MappingProxyType(data)


def entry_findings(entry: Entry, verdict: Verdict, text: str | None) -> list[Finding]:
    """The findings of ``verdict`` on ``entry`` (whose spans point into ``text``), each with
    its issue's own severity (the policy step applies the tier's)."""
    if verdict.status is Status.SKIPPED or not verdict.issues:
        return []
    if entry.path.suffix.lower() not in BIBTEX_SUFFIXES and entry.csl_type is None:
        text = None  # a file of no bibliography format --fix writes: no edits offered
    whole = update_fix(entry, text, verdict) if text else None
    ignore = ignore_fix(entry, text) if text else None
    out: list[Finding] = []
    for issue in verdict.issues:
        target = field_of(entry, issue.field)
        span = target.value_span if target is not None else entry.key_span
        fixes: list[Fix] = []
        if text and issue.field:
            names = [issue.field, *FIELD_ALIASES.get(issue.field, ())]
            if target is not None:
                names.insert(0, target.name)
            name = next((n for n in names if n in verdict.corrections), None)
            if name is not None:
                own = correction_fix(entry, text, name, verdict.corrections[name])
                if own is not None:
                    fixes.append(own)
        if whole is not None and (not fixes or fixes[0].edits != whole.edits):
            fixes.append(whole)
        if ignore is not None:
            fixes.append(ignore)
        out.append(
            Finding(
                issue.code,
                Location(entry.path, span),
                _message(issue, verdict),
                fixes=tuple(fixes),
                data=_data(entry, verdict, issue),
                severity=issue.effective_severity,
            )
        )
    return out


def headline(verdict: Verdict) -> Issue | None:
    """The issue that best says what is wrong with the entry (retraction first)."""
    for issue in verdict.issues:
        if issue.code is Code.RETRACTED:
            return issue
    from citewarden.verify.verdict import CODE_TIER

    best: Issue | None = None
    rank = -1
    for issue in verdict.issues:
        if is_note(issue):
            continue
        r = _TIER_RANK[CODE_TIER.get(issue.code, Tier.D)]
        if r > rank:
            best, rank = issue, r
    return best


def marks_citations(verdict: Verdict) -> bool:
    """True for the entries whose citations are marked too: H tier, or retracted."""
    return verdict.tier is Tier.H or verdict.status is Status.RETRACTED


def citation_findings(
    entry: Entry,
    verdict: Verdict,
    citations: Sequence[tuple[Path, Citation]],
) -> list[Finding]:
    """A finding at every citation of an H-tier or retracted entry (with the headline
    issue's severity; the policy step applies the tier's)."""
    if not marks_citations(verdict):
        return []
    issue = headline(verdict)
    if issue is None:
        return []
    severity = issue.effective_severity
    if verdict.status is Status.RETRACTED:
        what = "cites a retracted work"
    else:
        what = "the reference looks fabricated or wrong"
    target = field_of(entry, issue.field)
    where = target.value_span if target is not None else entry.key_span
    related = (Related(Location(entry.path, where), _message(issue, verdict)),)
    message = f"{entry.key}: {what}: {issue.message}"
    data = _data(entry, verdict, issue)
    return [
        Finding(
            issue.code,
            Location(path, cit.span),
            message,
            related=related,
            data=data,
            severity=severity,
        )
        for path, cit in citations
    ]


class CitationSource(Protocol):
    """What :func:`citations_of` reads of a workspace."""

    def projects(self) -> Sequence[Project]: ...

    def project_documents(self, project: Project) -> Iterable[tuple[Path, ParsedDocument]]: ...


def citations_of(
    ws: CitationSource, marked: Sequence[tuple[Entry, Verdict]]
) -> dict[str, list[tuple[Path, Citation]]]:
    """Citations of the marked entries' keys (and aliases), by entry key, in one pass over
    the documents of the projects whose bibliographies hold them."""
    out: dict[str, list[tuple[Path, Citation]]] = {}
    seen: set[tuple[Path, int]] = set()
    for project in ws.projects():
        names: dict[str, str] = {}
        for entry, _ in marked:
            if entry.path not in project.bibliographies and entry.path not in project.sources:
                continue  # another project's bibliography: its keys mean other works
            names[entry.key] = entry.key
            for alias in entry.aliases:
                names.setdefault(alias, entry.key)
        if not names:
            continue
        for path, doc in ws.project_documents(project):
            for cit in doc.citations:
                key = names.get(cit.key)
                if key is not None and (path, cit.span.start) not in seen:
                    seen.add((path, cit.span.start))
                    out.setdefault(key, []).append((path, cit))
    return out
