"""Verification results: status, risk tier, the matched record, issues, the venue and
the verdict for one entry, and the document score."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from citewarden.model.findings import DEFAULT_SEVERITY, Code, Severity


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
    #: The work's abstract (plain text), when the record or another record of the work
    #: (``abstract_source``) gave one.
    abstract: str | None = None
    #: The source whose record gave ``abstract`` when it is not ``source``.
    abstract_source: str | None = None
    #: Each author's family name (an organisation's whole name: ``World Health
    #: Organization``), in the order of ``authors``.
    families: tuple[str, ...] = ()


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
