"""The one score summary of a set of verdicts (pure).

Counted: the entries some registry answered for (verified, mismatch, not found,
retracted).  Not counted: ``unverified`` entries (no source answered: a failed source has
said nothing, so it neither raises nor lowers the score) and ``skipped`` ones.  The score
is :func:`citewarden.model.document_score` of the counted entries' tiers (100 - 12 H -
5 E - 2 M, floored at 0).  The command line, every report and the editor's status bar
show this summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from citewarden.model import Status, Tier, Verdict, document_score

#: Statuses whose tier counts towards the score.
COUNTED = frozenset({Status.VERIFIED, Status.MISMATCH, Status.NOT_FOUND, Status.RETRACTED})

#: What a report says beside the tier of an entry it shows but the counts leave out (the
#: tier then comes from the file's own findings, placeholder authors for one).
NOT_COUNTED = (
    "a tier in parentheses is not counted: no source answered for that entry (unverified), "
    "or it was not looked up (skipped)"
)


@dataclass(frozen=True, slots=True)
class ScoreSummary:
    score: int
    #: Tier counts of the counted entries, H, E, M, D.
    tiers: tuple[tuple[Tier, int], ...]
    #: Entries whose tier counts.
    counted: int
    #: Entries left out: no source answered (``unverified``) or not verified (``skipped``).
    unverified: int
    skipped: int
    #: Entries by status (every verdict).
    statuses: tuple[tuple[str, int], ...]

    def tier_counts(self) -> dict[str, int]:
        return {t.value: n for t, n in self.tiers}

    def as_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "tiers": self.tier_counts(),
            "counted": self.counted,
            "unverified": self.unverified,
            "skipped": self.skipped,
            "statuses": dict(self.statuses),
        }


def score_summary(verdicts: Iterable[Verdict]) -> ScoreSummary:
    tiers = dict.fromkeys((Tier.H, Tier.E, Tier.M, Tier.D), 0)
    statuses: dict[str, int] = {}
    unverified = skipped = 0
    for v in verdicts:
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
        if v.status in COUNTED:
            tiers[v.tier] += 1
        elif v.status is Status.UNVERIFIED:
            unverified += 1
        else:
            skipped += 1
    return ScoreSummary(
        score=document_score(tiers),
        tiers=tuple(tiers.items()),
        counted=sum(tiers.values()),
        unverified=unverified,
        skipped=skipped,
        statuses=tuple(statuses.items()),
    )
