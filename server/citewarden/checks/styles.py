"""How certain an ``undefined-string`` finding is, given the BibTeX styles of the projects
reading its file.

A .bib file is read with the macros its projects' styles define
(:mod:`citewarden.bibtex_styles`): plain.bst's ``cacm`` is no finding in a project with
``\\bibliographystyle{plain}``.  When a project names a style whose file is not found here
(a journal's style not installed on this machine, the document built elsewhere), cannot be
read or is one BibTeX would stop on, which macros it defines is not known: any name could
be one of them.  Reporting the macro as undefined would then often be wrong, saying
nothing would hide a real undefined macro (BibTeX prints an empty journal), so the finding
stays, as information rather than a warning, saying which style may define it.  It stays a
warning when any reader of the file surely does not define the name: another project
whose style is known (or names none, on which BibTeX stops), biber or pandoc (they define
only the months).

The month names are defined as every standard style defines them, unless a known style
lacks them (bibexport's, a style of one's own): a month name used in a field its ``ENTRY``
names (``month = jan``) is then undefined, as BibTeX says; in another field BibTeX reads
no macro at all.  A style not known, biblatex and pandoc define them.

Likewise an undefined macro of a file only projects with known styles read is no finding
in a field none of their ``ENTRY`` commands names (``doi = nosuchdoi`` under plain), nor
in an entry none of them cites (an ``orphan-entry``): BibTeX reads neither, and says
nothing of them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.model import (
    BibFormat,
    Code,
    DocumentKind,
    Entry,
    Finding,
    Location,
    Related,
    Severity,
    Span,
    quoted,
)
from citewarden.model.findings import MAX_QUOTED
from citewarden.parsing.bibtex_patterns import MONTH_MACROS

if TYPE_CHECKING:
    from citewarden.bibtex_styles import BibStyle
    from citewarden.project import Project, Workspace


def unknown_styles(projects: Iterable[Project]) -> dict[Path, BibStyle]:
    """The bibliography files every project reading which has BibTeX read a style whose
    macros are not known, with the first such style."""
    unknown: dict[Path, BibStyle] = {}
    known: set[Path] = set()
    for project in projects:
        style = project.unknown_style
        for path in project.bibliographies:
            if style is not None:
                unknown.setdefault(path, style)
            else:
                known.add(path)
    return {path: style for path, style in unknown.items() if path not in known}


def _style_place(ws: Workspace, style: BibStyle) -> tuple[Related, ...]:
    """The ``\\bibliographystyle`` naming ``style``, as a related place."""
    doc = ws.document(style.document)
    if doc is None or style.index >= len(doc.bib_styles):
        return ()
    span = doc.bib_styles[style.index][1]
    return (Related(Location(style.document, span), "the style BibTeX reads"),)


def uncertain_strings(ws: Workspace, findings: Sequence[Finding], style: BibStyle) -> list[Finding]:
    """``findings`` of a file whose projects' style is not known (:func:`unknown_styles`),
    each ``undefined-string`` one as information naming the style that may define it."""
    related = _style_place(ws, style)
    name = quoted(style.name)
    out: list[Finding] = []
    for finding in findings:
        if finding.code is Code.UNDEFINED_STRING:
            finding = Finding(
                finding.code,
                finding.location,
                f"{finding.message}, unless the BibTeX style {name} defines it: {style.unknown}",
                related=finding.related + related,
                fixes=finding.fixes,
                data=MappingProxyType({**finding.data, "style": style.name[:MAX_QUOTED]}),
                severity=Severity.INFORMATION,
            )
        out.append(finding)
    return out


#: the fields of each .bib file in which a known style lacks month macros: field -> (the
#: months lacking, the style)
LackingMonths = dict[Path, dict[str, tuple[frozenset[str], "BibStyle"]]]


def lacking_months(projects: Iterable[Project]) -> LackingMonths:
    """The month names each bibliography file's known styles do not define, per field
    their ``ENTRY`` names (BibTeX expands macros in no other field)."""
    found: LackingMonths = {}
    for project in projects:
        style = project.bib_style
        if style is None or style.macros is None:
            continue
        lacking = _MONTHS - {name for name, _ in style.macros}
        if not lacking:
            continue
        for path in project.bibliographies:
            fields = found.setdefault(path, {})
            for name in style.fields:
                before = fields.get(name)
                fields[name] = (lacking | before[0], before[1]) if before else (lacking, style)
    return found


def undefined_months(
    ws: Workspace, path: Path, lacking: Mapping[str, tuple[frozenset[str], BibStyle]]
) -> list[Finding]:
    """An ``undefined-string`` finding for each use of a month name in ``path`` where a
    style of its projects lacks it (:func:`lacking_months`) and no ``@string`` before the
    use defines it, as BibTeX warns: ``string name "jan" is undefined``."""
    bib = ws.bibliography(path)
    if bib is None or bib.format is not BibFormat.BIBTEX:
        return []
    before = getattr(bib.strings, "before", None)
    out: list[Finding] = []
    for entry in bib.entries:
        for field in entry.fields:
            if field.expanded is None or field.name not in lacking:
                continue  # no macro in it, or BibTeX does not read it
            months, style = lacking[field.name]
            for offset, name in _bare_names(field.value):
                if name.lower() not in months:
                    continue
                start = field.value_span.start + offset
                defined = before(start) if callable(before) else bib.strings
                if name.lower() in defined:
                    continue
                out.append(
                    Finding(
                        Code.UNDEFINED_STRING,
                        Location(path, Span(start, start + len(name))),
                        f"undefined @string macro {quoted(name)}: the BibTeX style "
                        f"{quoted(style.name)} defines no such month",
                        related=_style_place(ws, style),
                        data=MappingProxyType({"name": name, "style": style.name[:MAX_QUOTED]}),
                    )
                )
    return out


def read_fields(projects: Iterable[Project]) -> dict[Path, frozenset[str]]:
    """The fields BibTeX reads of each bibliography file that only projects with known
    styles read: those their ``ENTRY`` commands name, and ``crossref``."""
    fields: dict[Path, set[str]] = {}
    other: set[Path] = set()
    for project in projects:
        style = project.bib_style
        known = project.kind is DocumentKind.LATEX and style is not None
        for path in project.bibliographies:
            if known and style is not None and style.macros is not None:
                fields.setdefault(path, {"crossref"}).update(style.fields)
            else:
                other.add(path)
    return {path: frozenset(names) for path, names in fields.items() if path not in other}


def read_by_bibtex(
    ws: Workspace, path: Path, findings: Sequence[Finding], fields: frozenset[str]
) -> list[Finding]:
    """``findings`` of ``path`` but the ``undefined-string`` ones in a field BibTeX does not
    read (:func:`read_fields`): it expands no macro there, and says nothing."""
    bib = ws.bibliography(path)
    if bib is None:
        return list(findings)
    out: list[Finding] = []
    for finding in findings:
        if finding.code is Code.UNDEFINED_STRING:
            at = finding.location.span.start
            entry = _entry_at(bib.entries, at)
            if entry is not None:
                field = next(
                    (f for f in entry.fields if f.value_span.start <= at < f.value_span.end), None
                )
                if field is not None and field.name not in fields:
                    continue
        out.append(finding)
    return out


def read_entries(
    ws: Workspace, projects: Iterable[Project], findings: list[Finding]
) -> list[Finding]:
    """``findings`` but the ``undefined-string`` ones in an entry no project cites (an
    ``orphan-entry`` among ``findings``) of a file only projects with known styles read
    (:func:`read_fields`): BibTeX reads only the entries cited (and their crossref
    parents), and says nothing of the others' macros."""
    code = Code.UNDEFINED_STRING  # looked up once: an enum member's look-up is slow
    undefined = [f for f in findings if f.code is code]
    if not undefined:
        return findings
    files = read_fields(projects)
    # the undefined macros of those files by the offset of their entry's key
    by_key: dict[int, list[Finding]] = {}
    for path in {f.location.path for f in undefined} & files.keys():
        bib = ws.bibliography(path)
        if bib is None:
            continue
        for finding in undefined:
            if finding.location.path == path:
                entry = _entry_at(bib.entries, finding.location.span.start)
                if entry is not None:
                    by_key.setdefault(entry.key_span.start, []).append(finding)
    unread: set[int] = set()
    orphan = Code.ORPHAN
    for finding in findings:
        if finding.code is orphan and (held := by_key.get(finding.location.span.start)):
            path = finding.location.path
            unread.update(id(f) for f in held if f.location.path == path)
    return [f for f in findings if id(f) not in unread] if unread else findings


def _entry_at(entries: Sequence[Entry], offset: int) -> Entry | None:
    """The entry of ``entries`` (in file order) holding ``offset``."""
    i = bisect.bisect_right(entries, offset, key=lambda e: e.span.start) - 1
    entry = entries[i] if i >= 0 else None
    return entry if entry is not None and offset < entry.span.end else None


_MONTHS = frozenset(MONTH_MACROS)
#: a bare word of a field value (a macro name, or a number)
_BARE = re.compile(r"[^\s\"#%'(),={}]+")


def _bare_names(raw: str) -> Iterator[tuple[int, str]]:
    """The macro names of the raw field value ``raw`` (``jan # "~1"``) and their offsets."""
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "{" or c == '"':
            i = _past_delimited(raw, i)
        elif (m := _BARE.match(raw, i)) is not None:
            if not m.group()[0].isdecimal():
                yield i, m.group()
            i = m.end()
        else:
            i += 1


def _past_delimited(raw: str, i: int) -> int:
    """The offset after the ``{...}`` group or ``"..."`` string at ``i``."""
    quote = raw[i] == '"'
    depth = 0 if quote else 1
    i += 1
    while i < len(raw):
        c = raw[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and not quote:
                return i + 1
        elif c == '"' and quote and depth == 0:
            return i + 1
        i += 1
    return i


__all__ = [
    "LackingMonths",
    "lacking_months",
    "read_by_bibtex",
    "read_entries",
    "read_fields",
    "uncertain_strings",
    "undefined_months",
    "unknown_styles",
]
