"""The venue step of a verdict: venue findings from the matched record and the indexes'
opinions (pure).

* A publisher's record (Crossref, DataCite, PubMed) that names another venue settles it.
* Otherwise the indexes speak (dblp, OpenAlex, Semantic Scholar): two of them that agree
  with each other on another venue, with none agreeing with the citation, make a
  ``venue-mismatch``; one index alone is not enough (their venues are often inferred).
* A cited venue that does not exist is a venue difference like any other: nothing here
  can prove a venue does not exist (the bundled registry is not exhaustive).
* When every record of the work is a preprint (two sources at least) and the citation names
  a conference or journal, the work is ``preprint-cited-as-published``.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewarden.model import Code, Issue
from citewarden.verify.compare import Agreement, Comparison, cites_preprint
from citewarden.verify.evidence import VenueOpinion
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.venues import venue_agrees

#: Order of preference for the venue name offered as a correction (official names first).
_CORRECTION_ORDER = ("crossref", "datacite", "pubmed", "openalex", "semanticscholar", "dblp")

#: Indexes that must agree on another venue before a venue difference is reported.
INDEX_QUORUM = 2


def _issue(entry: NormalizedEntry, venue_field: str, record_venue: str) -> Issue:
    return Issue(
        Code.VENUE_MISMATCH,
        f"venue '{entry.venue}', the record says '{record_venue}'",
        venue_field,
    )


def publisher_venue(entry: NormalizedEntry, cmp: Comparison) -> tuple[list[Issue], dict[str, str]]:
    """A publisher's record names another venue."""
    rec = cmp.record
    if cmp.venue is not Agreement.DIFFERENT or not rec.venue:
        return [], {}
    venue_field = entry.venue_field or "journal"
    return [_issue(entry, venue_field, rec.venue)], {venue_field: rec.venue}


def _agreeing_pair(opinions: Sequence[VenueOpinion]) -> list[VenueOpinion]:
    """The opinions (from distinct sources) that agree with each other on the venue."""
    best: list[VenueOpinion] = []
    for o in opinions:
        group = [o]
        for other in opinions:
            if other.source in {g.source for g in group}:
                continue
            if any(venue_agrees(n, other.names) for n in o.names):
                group.append(other)
        if len(group) > len(best):
            best = group
    return best


def index_venue(
    entry: NormalizedEntry, opinions: Sequence[VenueOpinion]
) -> tuple[list[Issue], dict[str, str]]:
    """Venue findings from the indexes' opinions (see the module docstring)."""
    if not opinions or not entry.venue or cites_preprint(entry):
        return [], {}
    if any(o.agreement is Agreement.EQUAL for o in opinions):
        return [], {}
    venue_field = entry.venue_field or "journal"
    sources = {o.source for o in opinions}
    if len(sources) >= INDEX_QUORUM and all(o.preprint for o in opinions):
        where = ", ".join(sorted(sources))
        return [
            Issue(
                Code.PREPRINT_AS_PUBLISHED,
                f"cited as published in '{entry.venue}', but every record of this work "
                f"({where}) is a preprint",
                venue_field,
            )
        ], {}
    published = [o for o in opinions if not o.preprint and o.agreement is Agreement.DIFFERENT]
    group = _agreeing_pair(published)
    if len(group) < INDEX_QUORUM:
        return [], {}
    rank = {name: i for i, name in enumerate(_CORRECTION_ORDER)}
    # an official name (OpenAlex's source, Semantic Scholar's publicationVenue) first
    chosen = min(group, key=lambda o: (not o.venue, rank.get(o.source, len(rank))))
    name = chosen.venue or chosen.names[0]
    return [_issue(entry, venue_field, name)], {venue_field: name}


def venue_unsettled(cmp: Comparison, opinions: Sequence[VenueOpinion]) -> bool:
    """The cited venue differs from the matched record's, but no finding was made because
    that record's venue is not a publisher's and no index agreed with the citation."""
    if cmp.venue is not Agreement.UNKNOWN or cmp.venue_raw is not Agreement.DIFFERENT:
        return False
    return not any(o.agreement is Agreement.EQUAL for o in opinions)
