"""What the engine learnt about one entry, as typed data (no I/O, no decisions).

The engine fills an :class:`Evidence` per entry; :func:`citewarden.verify.verdict.decide`
classifies it.  Failures are kept as :class:`Failure` values with a :class:`FailureKind`, so
no step has to parse a reason string back; identifiers carry an :class:`IdKind` and an
:class:`IdState`, and the registry that said "no such identifier" is named, because only the
registry that owns an identifier may say it does not exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

from citewarden.verify.compare import Agreement, Comparison
from citewarden.verify.normalize import AddressTail, NormalizedEntry
from citewarden.verify.records import Update


class IdKind(StrEnum):
    """Kinds of identifier an entry can carry."""

    DOI = "doi"
    ARXIV = "arxiv"
    ISBN = "isbn"
    PMID = "pmid"

    @property
    def label(self) -> str:
        return {"doi": "DOI", "arxiv": "arXiv id", "isbn": "ISBN", "pmid": "PMID"}[self.value]


class IdState(StrEnum):
    """What the identifier look-up established."""

    FOUND = "found"
    #: The registry that owns the identifier answered: no such identifier.
    MISSING = "missing"
    #: No source that could say answered definitively (timeouts, errors, garbage).
    FAILED = "failed"
    #: A source that is not the identifier's registry has no record of it (Open Library
    #: for an ISBN): alone that proves nothing.
    UNLISTED = "unlisted"


class FailureKind(StrEnum):
    """Why a request said nothing.  Every kind makes an entry ``unverified``, never
    ``mismatch`` or ``not_found``."""

    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    NETWORK = "network"
    MALFORMED = "malformed"
    OFFLINE = "offline"
    INTERNAL = "internal"
    #: The answer was larger than the client reads (the body cap); a batch so answered is
    #: asked again in halves (:mod:`citewarden.verify.batch_split`).
    TOO_LARGE = "too_large"
    #: No source able to cover the literature was consulted at all.
    NO_COVERAGE = "no_coverage"
    OTHER = "other"


_KIND_PATTERNS: tuple[tuple[FailureKind, re.Pattern[str]], ...] = (
    (FailureKind.TIMEOUT, re.compile(r"timeout|timed out|deadline")),
    (FailureKind.RATE_LIMITED, re.compile(r"rate limit|\b429\b")),
    (FailureKind.SERVER_ERROR, re.compile(r"http 5\d\d|api error|e-utilities error")),
    (FailureKind.NETWORK, re.compile(r"connect|connection|network|redirect|client error")),
    (FailureKind.MALFORMED, re.compile(r"malformed|not json|not xml|no title|no csl")),
    (FailureKind.OFFLINE, re.compile(r"offline")),
    (FailureKind.INTERNAL, re.compile(r"internal error")),
    (FailureKind.TOO_LARGE, re.compile(r"response body over")),
)


def failure_kind(reason: str | None) -> FailureKind:
    """The kind of a source's failure reason (the one place reasons are classified)."""
    text = (reason or "").lower()
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(text):
            return kind
    return FailureKind.OTHER


@dataclass(frozen=True, slots=True)
class Failure:
    """One request that said nothing: which source, what kind, and the reason as given."""

    source: str
    kind: FailureKind
    reason: str

    @classmethod
    def of(cls, source: str, reason: str | None) -> Failure:
        text = reason or "failed"
        return cls(source, failure_kind(text), text)


def failure_summary(failures: Iterable[Failure]) -> str | None:
    """``timeout (crossref, doi); HTTP 503 (dblp)``: each reason once, with its sources."""
    by_reason: dict[str, list[str]] = {}
    for failure in failures:
        names = by_reason.setdefault(failure.reason, [])
        if failure.source and failure.source not in names:
            names.append(failure.source)
    parts = [f"{why} ({', '.join(names)})" if names else why for why, names in by_reason.items()]
    return "; ".join(parts) or None


@dataclass(frozen=True, slots=True)
class VenueOpinion:
    """What one source's record of the matched work says of its venue."""

    source: str
    #: The record's official venue name ("" when it gives only short or raw names).
    venue: str
    #: Every name the record gives for its venue (official, short, as deposited).
    names: tuple[str, ...]
    #: The cited venue compared with ``names`` (EQUAL, DIFFERENT or UNKNOWN).
    agreement: Agreement
    #: The record is a preprint (arXiv, bioRxiv, SSRN ..., Crossref posted-content).
    preprint: bool


@dataclass(frozen=True, slots=True)
class VenueAnswer:
    """A venue search that answered (dblp, OpenAlex sources, Crossref journals): the names
    of each venue it found for the cited venue's words (none: it knows no such venue).  A
    search that failed has no answer: it is evidence of nothing."""

    source: str
    venues: tuple[tuple[str, ...], ...]


#: Sources that must hold a near miss, or the cited title under other authors, for that
#: to settle the entry while some source did not answer.
CONFIRMATIONS = 2


@dataclass
class Evidence:
    """Everything the engine learnt about one entry."""

    entry: NormalizedEntry
    id_kind: IdKind | None = None
    id_value: str | None = None
    id_state: IdState | None = None
    #: The registry whose definitive answer set ``id_state`` to MISSING ("doi", "datacite",
    #: "arxiv"); None otherwise.
    id_missing_from: str | None = None
    id_comparison: Comparison | None = None
    #: The DOI's registry does not know it as written, with the query or fragment of the
    #: doi.org address it was written as, and knows it without them.
    id_tail: AddressTail | None = None
    #: Best search candidate that identifies the work (title and authors agree).
    candidate: Comparison | None = None
    #: A record with exactly this title whose authors do not agree (chimeric evidence).
    title_only: Comparison | None = None
    #: Sources whose answer held this title under other authors.
    title_only_sources: int = 0
    #: Every consulted source answered definitively (found or not found).
    search_complete: bool = True
    searched: bool = False
    failures: list[Failure] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    #: Notices about the matched work found with a separate look-up (``filter=updates:``).
    notices: list[Update] = field(default_factory=list)
    #: DOIs of records read from the cache after the notices they carry outlived their
    #: lifetime (``Lookup.notices_stale``): their notices are asked again.
    stale_notices: set[str] = field(default_factory=set)
    #: The venue of the matched work according to each index consulted (dblp, OpenAlex,
    #: Semantic Scholar, arXiv), gathered when no publisher's record settles it.
    venue_opinions: list[VenueOpinion] = field(default_factory=list)
    #: The venue searches that answered for a cited venue the matched record contradicts
    #: and the bundled table does not know ...
    venue_answers: list[VenueAnswer] = field(default_factory=list)
    #: ... and those that failed (then no answer settles that the venue does not exist).
    venue_failures: list[Failure] = field(default_factory=list)
    #: The notices look-up about the matched work's DOI failed: whether the work was
    #: retracted is not known.
    notices_failure: Failure | None = None
    #: Every look-up that could corroborate the matched record's author list failed (none
    #: answered): an author-list difference rests on that record alone.
    authors_failures: list[Failure] = field(default_factory=list)
    #: DOI of the published version of a preprint, when the record names one.
    published_doi: str | None = None
    today: date = field(default_factory=date.today)

    def fail(self, source: str, reason: str | None) -> None:
        """Record that ``source`` said nothing, and why."""
        self.failures.append(Failure.of(source, reason))

    @property
    def faulted(self) -> bool:
        """Some request failed: what the sources did not say may matter."""
        return bool(self.failures)
