"""The venue step of a verdict: venue findings from the matched record and the indexes'
opinions (pure).

* A publisher's record (Crossref, DataCite, PubMed) that names another venue settles it.
* Otherwise the indexes speak (dblp, OpenAlex, Semantic Scholar): two of them that agree
  with each other on another venue, with none agreeing with the citation, make a
  ``venue-mismatch``; one index alone is not enough (their venues are often inferred).
* A cited venue the matched record contradicts, that the bundled table does not know and
  that the venue searches (dblp, OpenAlex sources, Crossref journals) answered without is
  ``nonexistent-venue`` (it replaces the venue difference).  Every search asked must have
  answered: the bundled table alone never says so (it is not exhaustive), nor do some
  searches while another failed.  Without every answer the difference stays a
  ``venue-mismatch`` (naming the failure) or nothing.
* When every record of the work is a preprint (two sources at least) and the citation names
  a conference or journal, the work is ``preprint-cited-as-published``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from citewarden.model import Code, Issue
from citewarden.verify.compare import Agreement, Comparison, cites_preprint, is_preprint_record
from citewarden.verify.evidence import Failure, VenueAnswer, VenueOpinion, failure_summary
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.venues import registry_venue, venue_agrees

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


def venue_contradicted(
    entry: NormalizedEntry, cmp: Comparison, opinions: Sequence[VenueOpinion]
) -> bool:
    """The matched record names another venue than the one cited, no index agrees with the
    citation, and the bundled table does not know the cited venue: worth asking the venue
    searches whether it exists at all."""
    if not entry.venue or cites_preprint(entry) or cmp.venue_raw is not Agreement.DIFFERENT:
        return False
    if any(o.agreement is Agreement.EQUAL for o in opinions):
        return False
    return registry_venue(entry.venue) is None


#: Venue codes a nonexistent venue stands in for on the same field.
_REPLACED = frozenset({Code.VENUE_MISMATCH, Code.PREPRINT_AS_PUBLISHED})


def nonexistent_venue(
    entry: NormalizedEntry,
    cmp: Comparison,
    opinions: Sequence[VenueOpinion],
    answers: Sequence[VenueAnswer],
    issues: list[Issue],
    corrected: str | None = None,
    failed: Sequence[Failure] = (),
) -> dict[str, str]:
    """Replace the venue difference in ``issues`` by ``nonexistent-venue`` when the venue
    searches, all of them answering (none ``failed``), know no venue the cited one could
    name (see the module docstring).  The correction is the venue already offered for the
    field (``corrected``), else the matched record's own, unless that record is a
    preprint."""
    if not entry.venue or not venue_contradicted(entry, cmp, opinions):
        return {}
    if failed:
        _unsearched(entry, failed, issues)
        return {}
    if not answers:
        return {}
    cited = entry.venue
    if any(venue_agrees(cited, names) for answer in answers for names in answer.venues):
        return {}
    venue_field = entry.venue_field or "journal"
    rec = cmp.record
    record_venue = corrected or ("" if is_preprint_record(rec) else rec.venue or "")
    issues[:] = [i for i in issues if not (i.code in _REPLACED and i.field == venue_field)]
    who = ", ".join(dict.fromkeys(a.source for a in answers))
    says = record_venue or rec.venue
    told = f", and the {rec.source} record says '{says}'" if says else ""
    issues.append(
        Issue(
            Code.NONEXISTENT_VENUE,
            f"no venue registry knows '{cited}' (not in the bundled table; no such venue in "
            f"the venue search of {who}){told}",
            venue_field,
        )
    )
    return {venue_field: record_venue} if record_venue else {}


def _unsearched(entry: NormalizedEntry, failed: Sequence[Failure], issues: list[Issue]) -> None:
    """Name the failed venue searches in the venue difference of ``issues``: they are why
    it was not settled whether the cited venue exists."""
    venue_field = entry.venue_field or "journal"
    why = f"; whether '{entry.venue}' exists could not be checked: {failure_summary(failed)}"
    issues[:] = [
        dataclasses.replace(i, message=i.message + why)
        if i.code is Code.VENUE_MISMATCH and i.field == venue_field
        else i
        for i in issues
    ]
