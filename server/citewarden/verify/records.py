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
    #: Read from the cache after the notices its records carry (Crossref's ``updated-by``)
    #: outlived their own lifetime (a day, the records' a month): whether the work was
    #: retracted since is asked again (``notices``).
    notices_stale: bool = field(default=False, compare=False)

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
        elif name == "year":
            value = value if _is_year(value) else None  # (read back only as a year)
        elif name == "other_years":
            value = [y for y in value if _is_year(y)]
        elif isinstance(value, tuple):
            value = list(value)
        data[name] = value
    return data


_TEXT_FIELDS = ("source", "title")
_OPTIONAL_TEXT_FIELDS = (
    "doi",
    "subtitle",
    "venue",
    "volume",
    "issue",
    "pages",
    "publisher",
    "work_type",
    "url",
    "record_id",
    "arxiv_id",
    "pmid",
    "abstract",
    "venue_kind",
)
_TEXT_TUPLE_FIELDS = ("venue_short", "issn", "isbn", "venue_indexes", "venue_not_in")
#: The years a record read back may hold (any other number is damage, not a date).
MIN_YEAR, MAX_YEAR = 1, 2999


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} is not text")
    return value


def _optional_text(value: object, name: str) -> str | None:
    return None if value is None else _text(value, name)


def _is_year(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and MIN_YEAR <= value <= MAX_YEAR


def _year(value: object, name: str) -> int:
    if not _is_year(value):
        raise ValueError(f"{name} is not a year")
    return value  # type: ignore[return-value]


def _items(value: object, name: str) -> list[object]:
    """A stored list (absent or null: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{name} is not a list")
    return value


def _row(value: object, name: str, size: int) -> list[object]:
    if not isinstance(value, list) or len(value) != size:
        raise ValueError(f"{name} holds an item that is not a list of {size}")
    return value


def _person(value: object) -> Person:
    family, given = _row(value, "authors", 2)
    return Person(_text(family, "an author's family name"), _text(given, "an author's name"))


def _update(value: object) -> Update:
    kind, doi, date, label = _row(value, "updates", 4)
    return Update(
        UpdateKind(_text(kind, "an update's kind")),
        _optional_text(doi, "an update's DOI"),
        _optional_text(date, "an update's date"),
        _optional_text(label, "an update's label"),
    )


def _relevance(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError("relevance is not a number")
    return float(value)


def record_from_dict(data: dict[str, object]) -> WorkRecord:
    """Rebuild a :class:`WorkRecord` from :func:`record_to_dict` output; raises
    :class:`ValueError` for a field of the wrong type or out of range (a damaged store)."""
    if not isinstance(data, dict):
        raise ValueError("a record is not an object")
    d: dict[str, Any] = {name: _text(data.get(name), name) for name in _TEXT_FIELDS}
    for name in _OPTIONAL_TEXT_FIELDS:
        d[name] = _optional_text(data.get(name), name)
    for name in _TEXT_TUPLE_FIELDS:
        d[name] = tuple(_text(v, name) for v in _items(data.get(name), name))
    year = data.get("year")
    d["year"] = None if year is None else _year(year, "year")
    d["other_years"] = tuple(
        _year(v, "other_years") for v in _items(data.get("other_years"), "other_years")
    )
    d["authors"] = tuple(_person(v) for v in _items(data.get("authors"), "authors"))
    d["updates"] = tuple(_update(v) for v in _items(data.get("updates"), "updates"))
    d["extra"] = tuple(
        (_text(k, "extra"), _text(v, "extra"))
        for k, v in (_row(item, "extra", 2) for item in _items(data.get("extra"), "extra"))
    )
    is_notice = data.get("is_notice", False)
    if not isinstance(is_notice, bool):
        raise ValueError("is_notice is not true or false")
    d["is_notice"] = is_notice
    d["relevance"] = _relevance(data.get("relevance"))
    return WorkRecord(**d)


def lookup_to_dict(lookup: Lookup) -> dict[str, object]:
    return {
        "source": lookup.source,
        "outcome": lookup.outcome.value,
        "records": [record_to_dict(r) for r in lookup.records],
        "reason": lookup.reason,
    }


def lookup_from_dict(
    data: dict[str, object], *, from_cache: bool = False, notices_stale: bool = False
) -> Lookup:
    """Rebuild a :class:`Lookup` from :func:`lookup_to_dict` output; raises
    :class:`ValueError` when any part of it is of the wrong type."""
    records = tuple(record_from_dict(r) for r in _items(data.get("records"), "records"))  # type: ignore[arg-type]
    return Lookup(
        _text(data.get("source"), "source"),
        Outcome(_text(data.get("outcome"), "outcome")),
        records,
        reason=_optional_text(data.get("reason"), "reason"),
        from_cache=from_cache,
        notices_stale=notices_stale,
    )
