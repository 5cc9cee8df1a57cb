"""Checks that need no record: homoglyphs, placeholder authors, impossible years, invalid
identifiers (pure)."""

from __future__ import annotations

import re
from datetime import date

from citewarden.model import Code, Issue
from citewarden.verify.authors import is_placeholder
from citewarden.verify.compare import cites_preprint
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.venues import venue_first_year


def static_issues(entry: NormalizedEntry, today: date) -> list[Issue]:
    """Problems visible in the entry alone: homoglyphs, placeholder authors, impossible
    years, invalid identifiers."""
    issues: list[Issue] = []
    seen: set[tuple[str, str]] = set()
    for h in entry.homoglyphs:
        if (h.field, h.word) in seen:
            continue
        seen.add((h.field, h.word))
        issues.append(
            Issue(
                Code.HOMOGLYPH,
                f"'{h.word}' in {h.field} contains {h.name} (U+{ord(h.char):04X}), "
                "a look-alike of a Latin letter",
                h.field,
            )
        )
    placeholders = [a.raw for a in entry.authors if is_placeholder(a)]
    if placeholders:
        issues.append(
            Issue(
                Code.PLACEHOLDER_AUTHORS,
                f"placeholder author name(s): {', '.join(placeholders)}",
                "author",
            )
        )
    year_field = "year"
    if entry.year is not None:
        latest = today.year + (1 if today.month >= 10 else 0)
        if entry.year > latest:
            issues.append(
                Issue(
                    Code.TEMPORAL_IMPOSSIBILITY,
                    f"year {entry.year} is in the future",
                    year_field,
                )
            )
        else:
            first = venue_first_year(entry.venue)
            if first is not None and entry.year < first:
                issues.append(
                    Issue(
                        Code.TEMPORAL_IMPOSSIBILITY,
                        f"year {entry.year} is before '{entry.venue}' existed ({first})",
                        year_field,
                    )
                )
            # only an entry that cites the preprint itself cannot predate its posting; a paper
            # published in 2016 may well be posted to arXiv in 2018
            arxiv_year = _arxiv_year(entry.arxiv_id) if cites_preprint(entry) else None
            # ids carry the announcement month: a paper sent in late December gets a
            # January id of the next year
            january = bool(entry.arxiv_id and re.match(r"\d{2}01\.", entry.arxiv_id))
            if arxiv_year is not None and entry.year < arxiv_year - (1 if january else 0):
                issues.append(
                    Issue(
                        Code.TEMPORAL_IMPOSSIBILITY,
                        f"year {entry.year} is before arXiv:{entry.arxiv_id} was posted "
                        f"({arxiv_year})",
                        year_field,
                    )
                )
    for bad in entry.invalid_ids:
        issues.append(
            Issue(Code.INVALID_IDENTIFIER, f"{bad.field} '{bad.value}': {bad.reason}", bad.field)
        )
    return issues


def _arxiv_year(arxiv_id: str | None) -> int | None:
    if not arxiv_id:
        return None
    m = re.match(r"(\d{2})(\d{2})\.", arxiv_id) or re.search(r"/(\d{2})(\d{2})\d{3}$", arxiv_id)
    if not m:
        return None
    yy = int(m.group(1))
    return 2000 + yy if yy < 91 else 1900 + yy
