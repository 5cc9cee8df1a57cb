"""Findings and their vocabulary: severities, codes, spans, locations, fixes and the
default severity of each code.

Offsets are code-point offsets into the text of one file (``str`` indices); conversion to
lines/columns lives in :mod:`citewarden.text`, and conversion to UTF-16 happens only at
the LSP edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path
from types import MappingProxyType


class Severity(IntEnum):
    """Finding severity; the numeric values match LSP's DiagnosticSeverity."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return {1: "error", 2: "warning", 3: "info", 4: "hint"}[self.value]


class Code(StrEnum):
    """Stable finding codes.  Never rename a value: users configure and suppress by it."""

    # --- citation index -------------------------------------------------------------
    DANGLING = "dangling-citation"
    ORPHAN = "orphan-entry"
    DUPLICATE_KEY = "duplicate-key"
    DUPLICATE_FIELD = "duplicate-field"
    DUPLICATE_WORK = "duplicate-work"
    MISSING_BIBLIOGRAPHY = "missing-bibliography"
    MISSING_INCLUDE = "missing-include"
    EMPTY_KEY = "empty-key"
    BIB_SYNTAX = "bib-syntax"
    UNDEFINED_STRING = "undefined-string"
    MISSING_CROSSREF = "missing-crossref"
    FILE_ENCODING = "file-encoding"
    FILE_UNREADABLE = "file-unreadable"
    YAML_SYNTAX = "yaml-syntax"
    # --- verification ----------------------------------------------------------------
    DOI_NOT_FOUND = "doi-not-found"
    DOI_OTHER_WORK = "doi-other-work"
    NOT_FOUND = "reference-not-found"
    TITLE_MISMATCH = "title-mismatch"
    AUTHOR_ADDED = "author-added"
    AUTHOR_DROPPED = "author-dropped"
    AUTHOR_SUBSTITUTED = "author-substituted"
    AUTHOR_MISSPELLED = "author-misspelled"
    PLACEHOLDER_AUTHORS = "placeholder-authors"
    YEAR_MISMATCH = "year-mismatch"
    VENUE_MISMATCH = "venue-mismatch"
    VOLUME_MISMATCH = "volume-mismatch"
    ISSUE_MISMATCH = "issue-mismatch"
    PAGES_MISMATCH = "pages-mismatch"
    HOMOGLYPH = "homoglyph"
    TEMPORAL_IMPOSSIBILITY = "temporal-impossibility"
    CHIMERIC = "chimeric-entry"
    RETRACTED = "retracted"
    CORRECTED = "corrected"
    EXPRESSION_OF_CONCERN = "expression-of-concern"
    PREPRINT_PUBLISHED = "preprint-published"
    MISSING_DOI = "missing-doi"
    INVALID_IDENTIFIER = "invalid-identifier"
    UNVERIFIED = "unverified"
    # --- venue legitimacy (appended) ------------------------------------------------------
    VENUE_UNINDEXED = "venue-unindexed"
    VENUE_NOT_FOUND = "venue-not-found"
    # --- citation context (appended) -------------------------------------------------------
    CITATION_UNSUPPORTED = "citation-unsupported"
    # --- workspace boundaries ------------------------------------------------------------
    BIB_OUTSIDE_ROOT = "bibliography-outside-root"
    PREPRINT_AS_PUBLISHED = "preprint-cited-as-published"
    ARXIV_VERSION = "arxiv-version-mismatch"
    NONEXISTENT_VENUE = "nonexistent-venue"
    # --- citation index (appended) -----------------------------------------------------
    BIB_UNRESOLVED = "bibliography-unresolved"
    KEY_SPACE = "key-space"
    NOCITE_IN_PREAMBLE = "nocite-in-preamble"
    BIBLIOGRAPHY_IGNORED = "bibliography-ignored"
    CROSSREF_LOOP = "crossref-loop"


#: The codes of the citation index: what the documents and bibliographies themselves say
#: (dangling and orphan keys, syntax, files), found without verifying an entry; every other
#: code comes from verification.  Reports group findings by it.
INDEX_CODES: frozenset[Code] = frozenset(
    {
        Code.DANGLING,
        Code.ORPHAN,
        Code.DUPLICATE_KEY,
        Code.DUPLICATE_FIELD,
        Code.DUPLICATE_WORK,
        Code.MISSING_BIBLIOGRAPHY,
        Code.MISSING_INCLUDE,
        Code.EMPTY_KEY,
        Code.BIB_SYNTAX,
        Code.UNDEFINED_STRING,
        Code.MISSING_CROSSREF,
        Code.CROSSREF_LOOP,
        Code.FILE_ENCODING,
        Code.FILE_UNREADABLE,
        Code.YAML_SYNTAX,
        Code.BIB_OUTSIDE_ROOT,
        Code.BIB_UNRESOLVED,
        Code.KEY_SPACE,
        Code.NOCITE_IN_PREAMBLE,
        Code.BIBLIOGRAPHY_IGNORED,
    }
)


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open range ``[start, end)`` of code-point offsets in one file's text."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span {self.start}..{self.end}")

    def contains(self, offset: int) -> bool:
        """True when ``offset`` is inside the span or touches its end (cursor semantics)."""
        return self.start <= offset <= self.end

    def __len__(self) -> int:
        return self.end - self.start


_set_start = Span.start.__set__  # type: ignore[attr-defined,misc]
_set_end = Span.end.__set__  # type: ignore[attr-defined,misc]


def sound_span(start: int, end: int) -> Span:
    """A Span of offsets a reader knows to be sound, built without re-validating them
    (for the readers' inner loops; elsewhere use ``Span``)."""
    s = object.__new__(Span)
    _set_start(s, start)
    _set_end(s, end)
    return s


@dataclass(frozen=True, slots=True)
class Location:
    path: Path
    span: Span


@dataclass(frozen=True, slots=True)
class Related:
    """A secondary location attached to a finding (e.g. the other definition of a key)."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class TextEdit:
    path: Path
    span: Span
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A named set of edits; applied only when the user accepts it."""

    title: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem at one place.  Severity defaults come from :data:`DEFAULT_SEVERITY`."""

    code: Code
    location: Location
    message: str
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()
    #: Small machine-readable details (``key``, ``suggestions``, ``field`` ...).
    data: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    severity: Severity | None = None

    @property
    def effective_severity(self) -> Severity:
        return self.severity if self.severity is not None else DEFAULT_SEVERITY[self.code]


S = Severity
DEFAULT_SEVERITY: Mapping[Code, Severity] = MappingProxyType(
    {
        Code.DANGLING: S.ERROR,
        Code.ORPHAN: S.WARNING,
        Code.DUPLICATE_KEY: S.ERROR,
        Code.DUPLICATE_FIELD: S.WARNING,
        Code.DUPLICATE_WORK: S.WARNING,
        Code.MISSING_BIBLIOGRAPHY: S.ERROR,
        Code.MISSING_INCLUDE: S.WARNING,
        Code.EMPTY_KEY: S.ERROR,
        Code.KEY_SPACE: S.ERROR,
        Code.NOCITE_IN_PREAMBLE: S.WARNING,
        Code.BIBLIOGRAPHY_IGNORED: S.WARNING,
        Code.BIB_SYNTAX: S.ERROR,
        Code.UNDEFINED_STRING: S.WARNING,
        Code.MISSING_CROSSREF: S.WARNING,
        Code.CROSSREF_LOOP: S.ERROR,
        Code.FILE_ENCODING: S.ERROR,
        Code.FILE_UNREADABLE: S.ERROR,
        Code.YAML_SYNTAX: S.WARNING,
        Code.BIB_OUTSIDE_ROOT: S.WARNING,
        Code.BIB_UNRESOLVED: S.INFORMATION,
        Code.DOI_NOT_FOUND: S.ERROR,
        Code.DOI_OTHER_WORK: S.ERROR,
        Code.NOT_FOUND: S.ERROR,
        Code.TITLE_MISMATCH: S.WARNING,
        Code.AUTHOR_ADDED: S.WARNING,
        Code.AUTHOR_DROPPED: S.WARNING,
        Code.AUTHOR_SUBSTITUTED: S.WARNING,
        Code.AUTHOR_MISSPELLED: S.WARNING,
        Code.PLACEHOLDER_AUTHORS: S.ERROR,
        Code.YEAR_MISMATCH: S.WARNING,
        Code.VENUE_MISMATCH: S.WARNING,
        Code.VOLUME_MISMATCH: S.WARNING,
        Code.ISSUE_MISMATCH: S.WARNING,
        Code.PAGES_MISMATCH: S.WARNING,
        Code.HOMOGLYPH: S.ERROR,
        Code.TEMPORAL_IMPOSSIBILITY: S.ERROR,
        Code.CHIMERIC: S.ERROR,
        Code.RETRACTED: S.ERROR,
        Code.CORRECTED: S.HINT,
        Code.EXPRESSION_OF_CONCERN: S.WARNING,
        Code.PREPRINT_PUBLISHED: S.HINT,
        Code.MISSING_DOI: S.HINT,
        Code.INVALID_IDENTIFIER: S.WARNING,
        Code.UNVERIFIED: S.HINT,
        Code.VENUE_UNINDEXED: S.WARNING,
        Code.VENUE_NOT_FOUND: S.WARNING,
        Code.CITATION_UNSUPPORTED: S.WARNING,
        Code.PREPRINT_AS_PUBLISHED: S.WARNING,
        Code.ARXIV_VERSION: S.WARNING,
        Code.NONEXISTENT_VENUE: S.WARNING,
    }
)
del S


def moved_finding(finding: Finding, delta: int) -> Finding:
    """``finding`` with every position in its own file (its place, related places, fix
    edits) moved by ``delta`` characters: the same finding after text before it changed."""
    if not delta:
        return finding
    path = finding.location.path

    def span(s: Span) -> Span:
        return Span(s.start + delta, s.end + delta)

    related = finding.related
    if related:
        related = tuple(
            [
                Related(Location(r.location.path, span(r.location.span)), r.message)
                if r.location.path == path
                else r
                for r in related
            ]
        )
    fixes = finding.fixes
    if fixes:
        fixes = tuple(
            [
                Fix(
                    fix.title,
                    tuple(
                        [
                            TextEdit(e.path, span(e.span), e.new_text) if e.path == path else e
                            for e in fix.edits
                        ]
                    ),
                    fix.preferred,
                )
                for fix in fixes
            ]
        )
    return Finding(
        finding.code,
        Location(path, span(finding.location.span)),
        finding.message,
        related,
        fixes,
        finding.data,
        finding.severity,
    )


DOCS_URL = "https://github.com/citewarden/citewarden/blob/main/README.md"


def code_doc_url(code: Code) -> str:
    """Link to the README table row of a code (each row carries an anchor named after it)."""
    return f"{DOCS_URL}#{code.value}"


#: The most characters of a name (a key, a file name) that a message quotes.
MAX_QUOTED = 120


def quoted(name: str) -> str:
    """``name`` in single quotes for a message; a name longer than :data:`MAX_QUOTED`
    characters is shown by its head and its length, so that a hostile key or file name of
    thousands of characters does not fill every report that names it."""
    if len(name) <= MAX_QUOTED:
        return f"'{name}'"
    return f"'{name[:MAX_QUOTED]}...' ({len(name):,} characters)"
