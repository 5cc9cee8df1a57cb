"""What the HTML report shows: the report data and how entries are classified."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

from citewarden.context.collect import CitationContext
from citewarden.findings.score import score_summary
from citewarden.model import Entry, Finding, Severity, Status, Tier, Verdict

# ----------------------------------------------------------------------------------------
# Input
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntryAudit:
    """One bibliography entry with its verdict (None when verification did not run)."""

    entry: Entry
    verdict: Verdict | None = None
    line: int = 0  # 1-based line of the entry
    source: str = ""  # the entry as written
    corrected: str = ""  # the entry with its anchored corrections applied ('' = unchanged)
    #: why its corrections are not applied ('' = they are, or there are none)
    not_applied: str = ""
    #: Citation index findings on this entry (orphan, duplicate key ...).
    findings: tuple[Finding, ...] = ()
    #: the corrections ``--fix`` writes into the entry, as it writes them (none when they
    #: are not applied; :func:`~citewarden.fix.run.written_corrections`, found once)
    written: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FileSummary:
    """One input file's row in the summary table."""

    path: Path
    kind: str  # "latex", "markdown", "bibtex", "csl-json" ...
    entries: int = 0
    citations: int = 0
    errors: int = 0
    warnings: int = 0
    notes: int = 0
    score: int | None = None  # for a bibliography whose entries were verified


@dataclass(frozen=True, slots=True)
class Located:
    """A finding with its 1-based line and column, for the citation index table."""

    finding: Finding
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class AuditData:
    """Everything the HTML report shows; built by the command line from one check run."""

    entries: tuple[EntryAudit, ...] = ()
    findings: tuple[Located, ...] = ()
    files: tuple[FileSummary, ...] = ()
    inputs: tuple[str, ...] = ()
    generated: datetime = field(default_factory=lambda: datetime.now().astimezone())
    version: str = ""
    root: Path | None = None
    verification: bool = True
    offline: bool = False
    sources: tuple[str, ...] = ()  # sources configured for the run
    #: sources asked at an address other than the service's own: name -> address
    addresses: tuple[tuple[str, str], ...] = ()
    #: (source, why) of the sources that stopped answering during the run
    stopped: tuple[tuple[str, str], ...] = ()
    thresholds: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    title: str = "Reference audit"
    #: Every citation's sentence and score (see :mod:`citewarden.report.contexts`).
    contexts: tuple[CitationContext, ...] = ()


# ----------------------------------------------------------------------------------------
# Classification
# ----------------------------------------------------------------------------------------


class Outcome:
    """Where an entry ended in the flow diagram."""

    VERIFIED = "verified"
    CORRECTED = "corrected"
    FLAGGED = "flagged"
    UNRESOLVABLE = "unresolvable"
    NOT_VERIFIABLE = "not verifiable"

    ORDER = (VERIFIED, CORRECTED, FLAGGED, UNRESOLVABLE, NOT_VERIFIABLE)


def outcome(audit: EntryAudit) -> str:
    """verified / corrected / flagged / unresolvable / not verifiable; corrected only when
    ``--fix`` writes a correction into the entry (none it refuses, none of a key the file
    defines twice)."""
    verdict = audit.verdict
    if verdict is None or verdict.status is Status.SKIPPED:
        return Outcome.NOT_VERIFIABLE
    if verdict.status is Status.UNVERIFIED:
        return Outcome.UNRESOLVABLE
    if verdict.status in (Status.NOT_FOUND, Status.RETRACTED):
        return Outcome.FLAGGED
    if audit.written:
        return Outcome.CORRECTED
    if verdict.status is Status.MISMATCH or verdict.tier in (Tier.H, Tier.E):
        return Outcome.FLAGGED
    return Outcome.VERIFIED


_TIER_RANK = {Tier.H: 0, Tier.E: 1, Tier.M: 2, Tier.D: 3}
_STATUS_RANK = {
    Status.NOT_FOUND: 0,
    Status.RETRACTED: 1,
    Status.MISMATCH: 2,
    Status.UNVERIFIED: 3,
    Status.VERIFIED: 4,
    Status.SKIPPED: 5,
}


def suspicion_rank(items: Iterable[EntryAudit]) -> list[EntryAudit]:
    """Entries above the defensible tier, worst first.

    Order: tier (H, E, M), then status (not found, retracted, mismatch ...), then the number
    of error-level issues (more first), then the identity score of the match (lower first).
    """

    def key(a: EntryAudit) -> tuple[int, int, int, float, str]:
        v = a.verdict
        assert v is not None
        errors = sum(1 for i in v.issues if i.effective_severity is Severity.ERROR)
        score = v.match.score if v.match is not None else 0.0
        return (_TIER_RANK[v.tier], _STATUS_RANK[v.status], -errors, score, a.entry.key)

    flagged = [a for a in items if a.verdict is not None and a.verdict.tier is not Tier.D]
    return sorted(flagged, key=key)


def tier_counts(items: Iterable[EntryAudit]) -> dict[Tier, int]:
    """Tier counts of the entries the score counts (:mod:`citewarden.findings.score`)."""
    return dict(score_summary(a.verdict for a in items if a.verdict is not None).tiers)
