"""The shared domain model: spans, citations, entries, findings, fixes and verdicts.

Every value here is a frozen dataclass or an enum.  Offsets are code-point offsets into the
text of one file (``str`` indices); conversion to lines/columns lives in :mod:`citewarden.text`,
and conversion to UTF-16 happens only at the LSP edge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


# ----------------------------------------------------------------------------------------
# Parsed documents
# ----------------------------------------------------------------------------------------


class CitationKind(StrEnum):
    CITE = "cite"  # an ordinary citation that appears in the text
    NOCITE = "nocite"  # \nocite{k} / YAML nocite: a reference listed without a citation


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited key at one place.  ``span`` covers the key only; ``command_span`` the whole
    command (``\\citep[p.~3]{a,b}``) or the whole bracketed pandoc group."""

    key: str
    span: Span
    command: str
    command_span: Span
    kind: CitationKind = CitationKind.CITE


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """Where a citation key is being typed: ``prefix`` is the part of the key before the
    cursor, ``span`` the whole partial key a completion replaces (it extends right over key
    characters after the cursor)."""

    prefix: str
    span: Span


class LinkKind(StrEnum):
    INCLUDE = "include"  # \input, \include, \subfile, \import, \subimport
    BIBLIOGRAPHY = "bibliography"  # \bibliography, \addbibresource, YAML bibliography


@dataclass(frozen=True, slots=True)
class Link:
    """A reference from a document to another file, as written (``target`` is unresolved).

    ``base`` is the directory given by ``\\import{dir}{file}`` style commands, if any.
    ``global_`` marks ``\\addglobalbib``.
    """

    kind: LinkKind
    target: str
    span: Span
    command: str
    base: str | None = None


class DocumentKind(StrEnum):
    LATEX = "latex"
    MARKDOWN = "markdown"


@dataclass(frozen=True, slots=True)
class CitationMacro:
    """A LaTeX macro whose use cites: a wrapper (``\\newcommand{\\mt}[2]{\\cite{#1} and
    \\cite{#2}}``), an alias (``\\let\\ml\\citep``) or a macro whose body cites fixed keys
    (``\\newcommand{\\wn}{\\cite{a}}``: those count only where the macro is used)."""

    name: str
    #: the arguments, one letter each: ``o`` optional ``[..]``, ``m`` mandatory ``{..}``,
    #: ``s`` an optional star (the spec letters of ``\\NewDocumentCommand``)
    pattern: str = "m"
    #: 1-based numbers of the parameters (positions in ``pattern``) that hold keys
    keys: tuple[int, ...] = (1,)
    #: ``\\let`` alias: read exactly like this citation command
    like: str = ""
    #: the body cites keys of its own
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class LatexContext:
    """What a LaTeX file inherits from the files of its project read before it."""

    macros: tuple[CitationMacro, ...] = ()
    #: ``\\newif`` flags with a value known for the whole project
    flags: tuple[tuple[str, bool], ...] = ()
    #: names of macros with :attr:`CitationMacro.fixed` bodies used somewhere in the project
    used: frozenset[str] = frozenset()
    #: where each macro of ``macros`` defined outside this file applies from, in document
    #: order: (name, -1) from the start, (name, i) after the file's include link number
    #: ``i`` (0-based); a macro not listed does not apply here.  None: all apply everywhere.
    starts: tuple[tuple[str, int], ...] | None = None
    #: names of the ``\\newif`` flags the files of the project define or set: a file
    #: without a ``\\newif`` of its own is searched for settings of these only
    flag_names: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """Summary of one .tex / .md / .qmd / .Rmd file: everything the checks need."""

    path: Path
    kind: DocumentKind
    citations: tuple[Citation, ...] = ()
    links: tuple[Link, ...] = ()
    #: ``\\nocite{*}`` or YAML ``nocite: '@*'`` present.
    nocite_all: bool = False
    #: ``% !TEX root = ../main.tex`` value, as written.
    magic_root: str | None = None
    #: True for a LaTeX document with ``\\documentclass`` (a root candidate).
    is_root: bool = False
    #: ``\\bibitem`` keys defined inside a thebibliography environment.
    bibitems: tuple[tuple[str, Span], ...] = ()
    #: 0-based line numbers on which findings are suppressed by an ignore comment.
    suppressed_lines: frozenset[int] = frozenset()
    #: Problems found while reading (encoding, unreadable ...).
    problems: tuple[Finding, ...] = ()
    #: LaTeX macros this file defines around citation commands
    #: (``\\newcommand{\\inlinecite}[1]{\\citen{#1}}``, ``\\let\\ml\\citep``); a project
    #: passes them on (a :class:`LatexContext`) to the files read after this one.
    citation_macros: tuple[CitationMacro, ...] = ()
    #: ``\\newif`` flags: (name, value) for each value this file sets a flag to, (name,
    #: None) for a flag it defines without setting it.
    flags: tuple[tuple[str, bool | None], ...] = ()
    #: the ``backend=`` option of ``\\usepackage[...]{biblatex}``, lower case, if given.
    bib_backend: str | None = None
    #: resources of the biblatex refsections in which a ``\\nocite{*}`` stands (it cites
    #: every entry of those bibliographies only), as written
    nocite_all_in: tuple[str, ...] = ()
    #: biblatex refsections with resources of their own: (start, end, resources as
    #: written); a citation between ``start`` and ``end`` reads those resources only
    refsections: tuple[tuple[int, int, tuple[str, ...]], ...] = ()
    #: loads chapterbib (without ``gather``, ``duplicate`` or ``rootbib``): each
    #: ``\\include``d file is a unit with its own .aux and bibliography
    chapterbib: bool = False
    #: each citation macro this file defines, with the number of include links before its
    #: definition (where it starts to apply, in document order)
    macro_links: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a bibliography entry.

    ``value`` is the raw text between the delimiters (braces/quotes removed, nothing decoded);
    ``value_span`` covers exactly that text, so an edit replacing it keeps the delimiters.
    ``expanded`` is the value with @string macros and ``#`` concatenation resolved, when it
    differs from ``value`` (else None).
    """

    name: str  # lower-case
    value: str
    name_span: Span
    value_span: Span
    expanded: str | None = None

    @property
    def text(self) -> str:
        return self.expanded if self.expanded is not None else self.value


@dataclass(frozen=True, slots=True)
class Entry:
    """One bibliography entry (@article{key, ...}, or a CSL-JSON/YAML item)."""

    key: str
    entry_type: str  # lower-case: article, inproceedings, ...
    path: Path
    span: Span  # the whole entry, from '@' to the closing delimiter
    key_span: Span
    fields: tuple[Field, ...] = ()
    #: Alternative keys from the biblatex ``ids`` field.
    aliases: tuple[str, ...] = ()

    def field(self, name: str) -> Field | None:
        name = name.lower()
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def get(self, name: str, default: str | None = None) -> str | None:
        f = self.field(name)
        return f.text if f is not None else default

    def __hash__(self) -> int:
        # Equal entries have equal keys, types, paths and spans: hashing those alone spares
        # a parsed entry building its fields (and their positions) to be hashed.
        return hash((self.key, self.entry_type, self.path, self.span))

    def field_texts(self) -> tuple[tuple[str, str], ...]:
        """``(name, text)`` of every field in order: what the fields say, without their
        positions (a parsed entry answers without building its Field objects)."""
        return tuple((f.name, f.text) for f in self.fields)


class BibFormat(StrEnum):
    BIBTEX = "bibtex"
    CSL_JSON = "csl-json"
    CSL_YAML = "csl-yaml"


@dataclass(frozen=True, slots=True)
class ParsedBibliography:
    path: Path
    format: BibFormat
    #: A tuple, or after an incremental re-read runs of earlier tuples whose entries are
    #: moved on access (:class:`citewarden.parsing.entry_runs.EntryRuns`).
    entries: Sequence[Entry] = ()
    #: @string macros, name (lower-case) -> expanded value.
    strings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: 0-based line numbers on which findings are suppressed by an ignore comment.
    suppressed_lines: frozenset[int] = frozenset()
    #: Syntax errors, duplicate fields, encoding problems ... as findings with positions.
    problems: tuple[Finding, ...] = ()
    #: True when every byte of the file was understood (a --fix precondition).
    complete: bool = True
    #: Set by an incremental re-read: ``(id of the previous parse's entries tuple, head,
    #: tail)``: the first ``head`` entries are that parse's first ones, the last ``tail``
    #: ones its last ones moved by the edit (same keys and contents).
    reused: tuple[int, int, int] | None = field(default=None, compare=False, repr=False)


# ----------------------------------------------------------------------------------------
# Verification
# ----------------------------------------------------------------------------------------


class Status(StrEnum):
    VERIFIED = "verified"
    MISMATCH = "mismatch"
    NOT_FOUND = "not_found"
    RETRACTED = "retracted"
    UNVERIFIED = "unverified"
    SKIPPED = "skipped"


class Tier(StrEnum):
    """Risk tier of an entry: High, Elevated, Moderate, Defensible."""

    H = "H"
    E = "E"
    M = "M"
    D = "D"


@dataclass(frozen=True, slots=True)
class Match:
    """The record an entry was matched to."""

    source: str  # "crossref", "openalex", ...
    score: float  # 0..1 confidence of the identity match
    doi: str | None = None
    url: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    #: The record's abstract (plain text), when the source gave one.
    abstract: str | None = None


@dataclass(frozen=True, slots=True)
class Issue:
    """One verification finding about an entry; ``field`` names the .bib field at fault."""

    code: Code
    message: str
    field: str | None = None
    severity: Severity | None = None

    @property
    def effective_severity(self) -> Severity:
        return self.severity if self.severity is not None else DEFAULT_SEVERITY[self.code]


@dataclass(frozen=True, slots=True)
class VenueInfo:
    """What the sources said about the venue of an entry (see verify/legitimacy.py).

    ``kind`` is "journal", "proceedings", "book", "preprint", "grey" or "unknown";
    ``indexed_in`` the indexes a source says the venue is in ("doaj", "pubmed", "medline",
    "scopus", "core"); ``evidence`` one plain sentence per thing a source said.
    """

    name: str | None
    issn: tuple[str, ...] = ()
    kind: str = "unknown"
    indexed_in: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    publisher: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verification result for one entry."""

    key: str
    status: Status
    tier: Tier
    match: Match | None = None
    #: Anchored corrections only: field name -> corrected value (BibTeX-ready text).
    corrections: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    issues: tuple[Issue, ...] = ()
    sources: tuple[str, ...] = ()  # sources consulted
    reason: str | None = None  # why unverified / skipped
    #: The venue as the sources describe it (journals and what is not one), when known.
    venue: VenueInfo | None = None


def document_score(tiers: Mapping[Tier, int]) -> int:
    """Document score: 100 - 12 H - 5 E - 2 M, floored at 0."""
    score = 100 - 12 * tiers.get(Tier.H, 0) - 5 * tiers.get(Tier.E, 0) - 2 * tiers.get(Tier.M, 0)
    return max(0, score)


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
        Code.BIB_SYNTAX: S.ERROR,
        Code.UNDEFINED_STRING: S.WARNING,
        Code.MISSING_CROSSREF: S.WARNING,
        Code.FILE_ENCODING: S.ERROR,
        Code.FILE_UNREADABLE: S.ERROR,
        Code.YAML_SYNTAX: S.WARNING,
        Code.BIB_OUTSIDE_ROOT: S.WARNING,
        Code.DOI_NOT_FOUND: S.ERROR,
        Code.DOI_OTHER_WORK: S.ERROR,
        Code.NOT_FOUND: S.ERROR,
        Code.TITLE_MISMATCH: S.WARNING,
        Code.AUTHOR_ADDED: S.WARNING,
        Code.AUTHOR_DROPPED: S.WARNING,
        Code.AUTHOR_SUBSTITUTED: S.WARNING,
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
