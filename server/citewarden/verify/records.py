"""What sources return: normalised work records and look-up outcomes (no I/O here).

Every source converts its service's response into :class:`WorkRecord` values and reports the
outcome of one request as a :class:`Lookup`: found records, a definite "no such record", or a
failure (timeout, rate limit, malformed response ...) that must never become a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


@dataclass(frozen=True, slots=True)
class Person:
    family: str
    given: str = ""

    def __str__(self) -> str:
        return f"{self.given} {self.family}".strip()


class UpdateKind(StrEnum):
    RETRACTION = "retraction"
    CORRECTION = "correction"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    WITHDRAWAL = "withdrawal"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Update:
    """A notice attached to a work (Crossref ``updated-by`` / ``update-to``)."""

    kind: UpdateKind
    doi: str | None = None
    date: str | None = None
    label: str | None = None


#: The longest title, subtitle, venue or publisher a record may hold.  Real ones run to a
#: few hundred characters; a longer value is a damaged answer, not metadata to compare with
#: an entry, quote in a message or write into a .bib as a correction.
MAX_TEXT = 2_000
#: The longest family or given name (a consortium's name included) a record may hold.
MAX_NAME = 1_000
#: The longest volume, issue or page range a record may hold.
MAX_NUMBERING = 200


class DamagedRecord(ValueError):
    """A source's record holds a value no real record holds (a title of 300 000
    characters): the answer is malformed, and says nothing about the work."""


def _damage(record: WorkRecord) -> str | None:
    """What makes ``record`` a damaged answer, or None."""
    for name, label, limit in _BOUNDED:
        value = getattr(record, name)
        if value is not None and len(value) > limit:
            return f"{label} of {len(value):,} characters"
    for short in record.venue_short:
        if len(short) > MAX_TEXT:
            return f"a venue name of {len(short):,} characters"
    for key, value in record.extra:  # alternative titles and venue names, arXiv's journal_ref
        if len(value) > MAX_TEXT:
            return f"{key} of {len(value):,} characters"
    for person in record.authors:
        longest = max(len(person.family), len(person.given))
        if longest > MAX_NAME:
            return f"an author's name of {longest:,} characters"
    return None


@dataclass(frozen=True, slots=True)
class WorkRecord:
    """One work as a source describes it, in plain Unicode text.  A value over its bound
    (:data:`MAX_TEXT`, :data:`MAX_NAME`, :data:`MAX_NUMBERING`) raises
    :class:`DamagedRecord`, which a source's reader reports as a malformed response."""

    source: str  # "crossref", "openalex", "semanticscholar", "datacite", "arxiv", ...
    title: str
    authors: tuple[Person, ...] = ()
    year: int | None = None  # from issued / published-print, never "created"
    #: Other years the source dates this same version by (Crossref's print and online
    #: publication, when they differ from ``year``): a citation of either year is right.
    other_years: tuple[int, ...] = ()
    doi: str | None = None  # lower-case, no URL prefix
    subtitle: str | None = None
    venue: str | None = None  # full container title
    venue_short: tuple[str, ...] = ()  # abbreviations
    issn: tuple[str, ...] = ()
    isbn: tuple[str, ...] = ()
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    work_type: str | None = None  # journal-article, proceedings-article, book, posted-content ...
    url: str | None = None  # landing page / record URL
    record_id: str | None = None  # source-specific id (OpenAlex W..., S2 paperId, arXiv id, PMID)
    arxiv_id: str | None = None
    pmid: str | None = None
    updates: tuple[Update, ...] = ()  # notices about this work (retraction, correction ...)
    #: True when the record itself is a notice (e.g. Crossref type "retraction").
    is_notice: bool = False
    #: Relevance score reported by a search service, if any.
    relevance: float | None = None
    extra: tuple[tuple[str, str], ...] = field(default=())
    #: The work's abstract as plain text (bounded; see :mod:`citewarden.verify.abstracts`).
    abstract: str | None = None
    #: What the source says the venue is: "journal", "conference", "repository",
    #: "book series", "ebook platform" ... (OpenAlex source ``type``), when it says.
    venue_kind: str | None = None
    #: Indexes the source says the venue is in ("doaj", "scopus", "core", "pubmed" ...).
    venue_indexes: tuple[str, ...] = ()
    #: Indexes the source says the venue is *not* in (an explicit "no", never an absence).
    venue_not_in: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problem = _damage(self)
        if problem is not None:
            raise DamagedRecord(problem)


#: The bounded text fields of a record: name, what a reason calls it, bound.
_BOUNDED = (
    ("title", "a title", MAX_TEXT),
    ("subtitle", "a subtitle", MAX_TEXT),
    ("venue", "a venue name", MAX_TEXT),
    ("publisher", "a publisher name", MAX_TEXT),
    ("volume", "a volume", MAX_NUMBERING),
    ("issue", "an issue", MAX_NUMBERING),
    ("pages", "a page range", MAX_NUMBERING),
)


class Outcome(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"  # the service answered definitively: no such record
    FAILED = "failed"  # timeout, rate limit, 5xx, malformed body, offline cache miss ...


@dataclass(frozen=True, slots=True)
class Lookup:
    """The outcome of one request to one source."""

    source: str
    outcome: Outcome
    records: tuple[WorkRecord, ...] = ()
    reason: str | None = None  # why FAILED (shown to users as the cause of 'unverified')
    from_cache: bool = False

    @classmethod
    def found(cls, source: str, records: tuple[WorkRecord, ...] | list[WorkRecord]) -> Lookup:
        recs = tuple(records)
        return cls(source, Outcome.FOUND if recs else Outcome.NOT_FOUND, recs)

    @classmethod
    def not_found(cls, source: str) -> Lookup:
        return cls(source, Outcome.NOT_FOUND)

    @classmethod
    def failed(cls, source: str, reason: str) -> Lookup:
        return cls(source, Outcome.FAILED, reason=reason)


@dataclass(frozen=True, slots=True)
class Query:
    """A fielded bibliographic search."""

    title: str
    authors: tuple[str, ...] = ()  # surnames
    year: int | None = None
    venue: str | None = None
    limit: int = 5
    #: ``title`` holds free query words (a citation key's words), not a title: sources
    #: search them as free text together with ``authors`` and ``year``.
    free_text: bool = False


# -- plain-data round trip (used by the cache; additive) ----------------------------------------


def record_to_dict(record: WorkRecord) -> dict[str, object]:
    """A JSON-serialisable dict of ``record`` (inverse of :func:`record_from_dict`)."""
    data: dict[str, object] = {}
    for name in WorkRecord.__dataclass_fields__:
        value = getattr(record, name)
        if name == "authors":
            value = [[p.family, p.given] for p in record.authors]
        elif name == "updates":
            value = [[u.kind.value, u.doi, u.date, u.label] for u in record.updates]
        elif name == "extra":
            value = [list(kv) for kv in record.extra]
        elif isinstance(value, tuple):
            value = list(value)
        data[name] = value
    return data


_RECORD_FIELDS = frozenset(WorkRecord.__dataclass_fields__)
_TUPLE_FIELDS = ("venue_short", "issn", "isbn", "venue_indexes", "venue_not_in", "other_years")


def record_from_dict(data: dict[str, object]) -> WorkRecord:
    """Rebuild a :class:`WorkRecord` from :func:`record_to_dict` output."""
    d: dict[str, Any] = {k: v for k, v in data.items() if k in _RECORD_FIELDS}
    d["authors"] = tuple(Person(str(f), str(g)) for f, g in d.get("authors") or ())
    d["updates"] = tuple(
        Update(UpdateKind(k), doi, date, label) for k, doi, date, label in d.get("updates") or ()
    )
    d["extra"] = tuple((str(k), str(v)) for k, v in d.get("extra") or ())
    for name in _TUPLE_FIELDS:
        d[name] = tuple(d.get(name) or ())
    return WorkRecord(**d)


def lookup_to_dict(lookup: Lookup) -> dict[str, object]:
    return {
        "source": lookup.source,
        "outcome": lookup.outcome.value,
        "records": [record_to_dict(r) for r in lookup.records],
        "reason": lookup.reason,
    }


def lookup_from_dict(data: dict[str, object], *, from_cache: bool = False) -> Lookup:
    records = tuple(record_from_dict(r) for r in data.get("records") or ())  # type: ignore[attr-defined]
    return Lookup(
        str(data["source"]),
        Outcome(str(data["outcome"])),
        records,
        reason=data.get("reason"),  # type: ignore[arg-type]
        from_cache=from_cache,
    )
