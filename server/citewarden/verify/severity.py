"""The severity scale of verification findings: one table (pure).

Each verification :class:`Code` has a default :class:`Severity` (wherever a finding shows:
terminal, reports, editor) and the risk :class:`Tier` it raises an entry to.  The scale:
author, year, venue and identifier errors are serious (warning or error); a page or volume
difference, digit swaps included, is a warning; only notes and suggestions (a correction
notice, a published version, a DOI to add, "could not check") are hints.  A finding shows at
the more serious of its code's severity and its entry's tier severity
(:func:`finding_severity`), so a serious code is never shown as information because its
entry's tier is low; a tier configured "off" silences it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from citewarden.model import Code, Issue, Severity, Tier

E, W, H = Severity.ERROR, Severity.WARNING, Severity.HINT

#: Code -> (default severity, tier it raises the entry to; None = raises nothing).
SCALE: Mapping[Code, tuple[Severity, Tier | None]] = MappingProxyType(
    {
        Code.NOT_FOUND: (E, Tier.H),
        Code.PLACEHOLDER_AUTHORS: (E, Tier.H),
        Code.HOMOGLYPH: (E, Tier.H),
        Code.TEMPORAL_IMPOSSIBILITY: (E, Tier.H),
        Code.CHIMERIC: (E, Tier.H),
        Code.DOI_OTHER_WORK: (E, Tier.E),
        Code.DOI_NOT_FOUND: (E, Tier.E),
        Code.RETRACTED: (E, Tier.E),
        Code.TITLE_MISMATCH: (W, Tier.E),
        Code.AUTHOR_ADDED: (W, Tier.E),
        Code.AUTHOR_SUBSTITUTED: (W, Tier.E),
        Code.AUTHOR_DROPPED: (W, Tier.M),
        # the same person in the same place, one letter apart: a typing slip, not another author
        Code.AUTHOR_MISSPELLED: (W, Tier.M),
        Code.YEAR_MISMATCH: (W, Tier.M),
        Code.VENUE_MISMATCH: (W, Tier.M),
        Code.PREPRINT_AS_PUBLISHED: (W, Tier.M),
        Code.ARXIV_VERSION: (W, Tier.M),
        # a venue no registry knows, contradicted by the record: a sign of fabrication
        Code.NONEXISTENT_VENUE: (W, Tier.E),
        Code.VOLUME_MISMATCH: (W, Tier.M),
        Code.ISSUE_MISMATCH: (W, Tier.M),
        Code.PAGES_MISMATCH: (W, Tier.M),
        Code.EXPRESSION_OF_CONCERN: (W, Tier.M),
        Code.INVALID_IDENTIFIER: (W, Tier.M),
        # venue legitimacy and citation context: warnings that raise no tier
        Code.VENUE_UNINDEXED: (W, None),
        Code.VENUE_NOT_FOUND: (W, None),
        Code.CITATION_UNSUPPORTED: (W, None),
        Code.CORRECTED: (H, None),
        Code.PREPRINT_PUBLISHED: (H, None),
        Code.MISSING_DOI: (H, None),
        Code.UNVERIFIED: (H, None),
    }
)
del E, W, H

#: Tier -> the severity its findings show at by default (``verify.tier_severity``).
TIER_SEVERITY: Mapping[Tier, Severity | None] = MappingProxyType(
    {Tier.H: Severity.ERROR, Tier.E: Severity.WARNING, Tier.M: Severity.WARNING, Tier.D: None}
)

#: Code -> tier, for the codes that raise one.
CODE_TIER: Mapping[Code, Tier] = MappingProxyType(
    {code: tier for code, (_, tier) in SCALE.items() if tier is not None}
)


def code_severity(code: Code) -> Severity:
    """The default severity of a verification code."""
    return SCALE[code][0]


def is_note(issue: Issue) -> bool:
    """A note or suggestion: it keeps its own severity whatever the entry's tier."""
    return issue.effective_severity in (Severity.HINT, Severity.INFORMATION)


def shown_severity(own: Severity, tier_level: Severity | None) -> Severity | None:
    """A finding that is not a note shows at the more serious of its own severity and its
    entry's tier severity (None: that tier is off)."""
    if own in (Severity.HINT, Severity.INFORMATION):
        return own
    return None if tier_level is None else min(tier_level, own)


def finding_severity(issue: Issue, tier_level: Severity | None) -> Severity | None:
    """The severity an issue shows at, given its entry's tier severity (None = that tier
    is off): notes keep theirs; other issues the more serious of the two."""
    return shown_severity(issue.effective_severity, tier_level)
