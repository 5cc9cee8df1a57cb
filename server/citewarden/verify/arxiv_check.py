"""The arXiv step of a verdict: the cited version and year against the arXiv listing (pure).

The arXiv API's entry for an id names its latest version (``.../abs/2106.01234v3``) and the
date of the first (``published``).  A cited version after the latest one does not exist; an
entry citing the preprint with a year before its first version cannot be right.  (An id
that belongs to another paper is ``doi-other-work``, decided with the identity.)
"""

from __future__ import annotations

import re

from citewarden.model import Code, Issue
from citewarden.verify.compare import Comparison, cites_preprint
from citewarden.verify.normalize import NormalizedEntry

_VERSION = re.compile(r"v(\d+)$")


def latest_version(cmp: Comparison) -> int | None:
    """The latest version the arXiv listing has, when the record is arXiv's own."""
    rec = cmp.record
    if rec.source != "arxiv" or not rec.record_id:
        return None
    m = _VERSION.search(rec.record_id)
    return int(m.group(1)) if m else None


def arxiv_issues(
    entry: NormalizedEntry, cmp: Comparison, already: set[Code]
) -> tuple[list[Issue], dict[str, str]]:
    """Findings about the cited arXiv version and year (``already``: codes found so far)."""
    rec = cmp.record
    if rec.source != "arxiv" or not entry.arxiv_id or rec.arxiv_id != entry.arxiv_id:
        return [], {}
    issues: list[Issue] = []
    fixes: dict[str, str] = {}
    where = entry.arxiv_field or "eprint"
    latest = latest_version(cmp)
    cited = entry.arxiv_version
    if cited is not None and latest is not None and cited > latest:
        listing = "v1" if latest == 1 else f"v1 to v{latest}"
        issues.append(
            Issue(
                Code.ARXIV_VERSION,
                f"arXiv:{entry.arxiv_id}v{cited} does not exist: the listing has {listing}",
                where,
            )
        )
        if where == "eprint":
            fixes["eprint"] = f"{entry.arxiv_id}v{latest}"
    year_known_bad = already & {Code.TEMPORAL_IMPOSSIBILITY, Code.YEAR_MISMATCH}
    if (
        entry.year is not None
        and rec.year is not None
        and entry.year < rec.year
        and cites_preprint(entry)
        and not year_known_bad
    ):
        issues.append(
            Issue(
                Code.ARXIV_VERSION,
                f"year {entry.year} is before the first version of arXiv:{entry.arxiv_id} "
                f"({rec.year})",
                "year",
            )
        )
        fixes["year"] = str(rec.year)
    return issues, fixes
