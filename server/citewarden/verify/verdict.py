"""From evidence to a verdict: status, risk tier, issues and anchored corrections (pure).

The engine gathers :class:`Evidence` (the identifier look-up, the search candidates, which
sources answered and which failed, the indexes' venue opinions); :func:`decide` classifies
it in small steps, one per question:

1. static: what the entry alone shows (:mod:`citewarden.verify.static_checks`);
2. identity: which record, if any, the verdict rests on (:func:`identify`);
3. no record: chimeric, not found or unverified (:func:`unanchored`);
4. fields: the entry against that record, the venue, the arXiv listing (:func:`fields`);
5. notices and suggestions: retraction, correction, a DOI to add, a published version
   (:func:`notices`);
6. status and tier (:func:`status_of`, :func:`tier_of`), with the fault rule: sources that
   failed never turn a difference into "verified" (:func:`fault_guard`).

"Real work with wrong metadata" (``mismatch``), "no such work" (``not_found``, only when every
consulted source answered definitively) and "could not check" (``unverified``) are kept
apart.  Corrections are offered only when identity is anchored: the identifier agrees with
the record, or title and authors both agree with one record.  Title and authors are never
corrected together; each correction is one field.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from citewarden.model import Code, Issue, Match, Severity, Status, Tier, Verdict
from citewarden.verify.arxiv_check import arxiv_issues
from citewarden.verify.compare import Comparison, cites_preprint, is_preprint_record
from citewarden.verify.evidence import CONFIRMATIONS, Evidence, IdKind, IdState, failure_summary
from citewarden.verify.field_check import (
    bibtex_authors,
    bibtex_pages,
    bibtex_ready,
    bibtex_title,
    field_issues,
    notice_issues,
    record_label,
)
from citewarden.verify.records import WorkRecord
from citewarden.verify.severity import CODE_TIER
from citewarden.verify.static_checks import static_issues
from citewarden.verify.venue_check import index_venue, nonexistent_venue, venue_unsettled

#: Re-exported: these lived here before the steps were split into their own modules.
__all__ = [
    "CODE_TIER",
    "bibtex_authors",
    "bibtex_pages",
    "bibtex_title",
    "decide",
    "field_issues",
    "notice_issues",
    "skipped",
    "static_issues",
]

#: Codes that say something about the work, not about the entry's metadata.
NOT_METADATA = frozenset(
    {Code.UNVERIFIED, Code.CORRECTED, Code.EXPRESSION_OF_CONCERN, Code.PREPRINT_PUBLISHED}
)
_TIER_RANK = {Tier.D: 0, Tier.M: 1, Tier.E: 2, Tier.H: 3}
AUTHOR_CODES = frozenset(
    {Code.AUTHOR_ADDED, Code.AUTHOR_DROPPED, Code.AUTHOR_SUBSTITUTED, Code.AUTHOR_MISSPELLED}
)
IDENTIFIER_CODES = frozenset({Code.DOI_OTHER_WORK, Code.DOI_NOT_FOUND})

#: Entry types that metadata services rarely index: absence there is not evidence.
LOW_COVERAGE_TYPES = frozenset(
    {
        "phdthesis",
        "mastersthesis",
        "thesis",
        "techreport",
        "report",
        "manual",
        "unpublished",
        "booklet",
        "misc",
        "book",
        "collection",
        "proceedings",
        "standard",
        "patent",
    }
)


# ----------------------------------------------------------------------------------------
# Small helpers
# ----------------------------------------------------------------------------------------


def tier_of(issues: Iterable[Issue], status: Status, capped: frozenset[Code] = frozenset()) -> Tier:
    """The highest tier any issue raises the entry to; ``capped`` codes raise it to M at most."""
    tier = Tier.H if status is Status.NOT_FOUND else Tier.D
    for issue in issues:
        if issue.severity in (Severity.HINT, Severity.INFORMATION):
            continue
        t = CODE_TIER.get(issue.code, Tier.D)
        if issue.code in capped and _TIER_RANK[t] > _TIER_RANK[Tier.M]:
            t = Tier.M
        if _TIER_RANK[t] > _TIER_RANK[tier]:
            tier = t
    return tier


def _match(cmp: Comparison) -> Match:
    r = cmp.record
    return Match(
        source=r.source,
        score=cmp.score,
        doi=r.doi,
        url=r.url,
        title=bibtex_title(r),
        authors=tuple(str(p) for p in r.authors),
        families=tuple(p.family for p in r.authors),
        year=r.year,
        venue=r.venue,
        abstract=r.abstract,
    )


def distinct_works(a: WorkRecord, b: WorkRecord) -> bool:
    """True only when identifiers show two records are different works (both have DOIs
    that differ, or both arXiv ids that differ, and nothing they share)."""
    doi_a, doi_b = (a.doi or "").lower(), (b.doi or "").lower()
    if doi_a and doi_a == doi_b:
        return False
    if a.arxiv_id and a.arxiv_id == b.arxiv_id:
        return False
    if doi_a and doi_b and not (doi_a.startswith("10.48550/") or doi_b.startswith("10.48550/")):
        return True
    return bool(a.arxiv_id and b.arxiv_id)


def _id_field(ev: Evidence) -> str:
    if ev.id_kind is IdKind.ARXIV:
        return ev.entry.arxiv_field or "eprint"
    return ev.id_kind.value if ev.id_kind else "doi"


def _registry(ev: Evidence) -> str:
    names = {"doi": "doi.org", "arxiv": "arXiv", "datacite": "DataCite", "pubmed": "PubMed"}
    who = ev.id_missing_from or ""
    return names.get(who, who.capitalize() if who else "the registry")


def _index_name(ev: Evidence) -> str:
    """The catalogue that does not list the identifier (only Open Library does so today)."""
    return "Open Library" if ev.id_kind is IdKind.ISBN else "the index consulted"


def _id_label(ev: Evidence) -> str:
    return f"{ev.id_kind.label if ev.id_kind else 'identifier'} {ev.id_value}"


# ----------------------------------------------------------------------------------------
# Step 2: identity
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """The record the verdict rests on (None: no record identifies the work), whether the
    entry's identifier anchors it, and what the identifier look-up itself showed."""

    anchor: Comparison | None
    by_id: bool = False
    issues: tuple[Issue, ...] = ()
    fixes: dict[str, str] = field(default_factory=dict)


def _by_identifier(ev: Evidence) -> Comparison | None:
    """The comparison the identifier anchors, when it does."""
    id_cmp = ev.id_comparison
    if id_cmp is None:
        return None
    candidate = ev.candidate
    agreeing = candidate is not None and candidate.full_agreement
    # the identifier's record has a later title; another record of the same work has the
    # title as cited (an earlier version): the citation is right
    if (
        agreeing
        and candidate is not None
        and id_cmp.title is not None
        and not id_cmp.title.exact
        and not distinct_works(candidate.record, id_cmp.record)
    ):
        return candidate
    found_other = (
        agreeing and candidate is not None and distinct_works(candidate.record, id_cmp.record)
    )
    if id_cmp.title_ok or (id_cmp.authors is not None and id_cmp.authors.agree and not found_other):
        return id_cmp
    return None


def _identifier_issue(ev: Evidence) -> Issue | None:
    """The identifier names another work, or its registry says it does not exist."""
    if ev.id_comparison is not None:
        return Issue(
            Code.DOI_OTHER_WORK,
            f"{_id_label(ev)} belongs to a different work: {record_label(ev.id_comparison.record)}",
            _id_field(ev),
        )
    if ev.id_state is IdState.MISSING:
        return Issue(
            Code.DOI_NOT_FOUND,
            f"{_id_label(ev)} does not exist ({_registry(ev)} has no record of it)",
            _id_field(ev),
        )
    return None


def _address_tail(ev: Evidence) -> tuple[tuple[Issue, ...], dict[str, str]]:
    """The query or fragment of the doi.org address the DOI field was written as, when the
    DOI is known only without it: the fault, and the DOI to write instead."""
    tail = ev.id_tail
    if tail is None or tail.field != "doi":
        return (), {}  # a url field's address is a good address: its query is its own
    issue = Issue(
        Code.INVALID_IDENTIFIER,
        f"the DOI is written as a doi.org address ending in '{tail.tail}', which is no "
        f"part of the DOI: doi.org has no DOI {ev.entry.doi}, and {tail.doi} is this work",
        "doi",
    )
    return (issue,), {"doi": tail.doi}


def _candidate_identifier(ev: Evidence, anchor: Comparison) -> tuple[list[Issue], dict[str, str]]:
    """The identifier of the work the search found, when the entry's own is wrong, missing
    from its registry, or could not be checked and differs."""
    entry, found_doi = ev.entry, anchor.record.doi
    answered = ev.id_state in (IdState.MISSING, IdState.FOUND)
    if ev.id_kind is IdKind.DOI and found_doi and answered:
        return [], {"doi": found_doi}
    if (
        ev.id_kind is IdKind.ARXIV
        and answered
        and anchor.record.arxiv_id
        and anchor.record.arxiv_id != entry.arxiv_id
        and entry.arxiv_field == "eprint"
    ):
        return [], {"eprint": anchor.record.arxiv_id}
    if (
        ev.id_kind is IdKind.DOI
        and ev.id_state is IdState.FAILED
        and found_doi
        and found_doi != entry.doi
    ):
        issue = Issue(
            Code.DOI_OTHER_WORK,
            f"the record of this work has DOI {found_doi}, not {entry.doi} "
            f"({entry.doi} itself could not be checked)",
            "doi",
            Severity.WARNING,
        )
        return [issue], {"doi": found_doi}
    return [], {}


def identify(ev: Evidence) -> Identity:
    """Which record the verdict rests on: the identifier's, else the search candidate's."""
    anchor = _by_identifier(ev)
    if anchor is not None:
        issues, fixes = _address_tail(ev)
        return Identity(anchor, by_id=True, issues=issues, fixes=fixes)
    issue = _identifier_issue(ev)
    issues = (issue,) if issue is not None else ()
    if ev.candidate is None:
        return Identity(None, issues=issues)
    more, fixes = _candidate_identifier(ev, ev.candidate)
    return Identity(ev.candidate, issues=(*issues, *more), fixes=fixes)


# ----------------------------------------------------------------------------------------
# Step 3: no record identifies the work
# ----------------------------------------------------------------------------------------


def unanchored(ev: Evidence, key: str, issues: list[Issue]) -> Verdict:
    """Chimeric (the title of a record with other authors), not found (every source
    answered), or unverified (a source failed, or the kind of work is rarely indexed)."""
    entry = ev.entry
    sources = tuple(dict.fromkeys(ev.sources))
    reason = failure_summary(ev.failures)
    match = None
    held = (
        ev.title_only if ev.title_only is not None and ev.title_only.authors is not None else None
    )
    if held is not None and not (ev.search_complete or ev.title_only_sources >= CONFIRMATIONS):
        # one source holds the title under other authors, and a source that did not answer
        # may hold a work of that title by the cited authors
        label = record_label(held.record)
        lists = f"{held.record.source} lists this title under other authors ({label})"
        reason = f"{lists}; {reason}" if reason else lists
        held = None
    if held is not None:
        other = held.record
        issues.append(
            Issue(
                Code.CHIMERIC,
                f"the title is that of {record_label(other)}, but the authors are not its authors",
                "author",
            )
        )
        status, match = Status.MISMATCH, _match(held)
    elif not ev.searched:
        status = Status.UNVERIFIED
    elif ev.search_complete and ev.id_state is not IdState.FAILED:
        # an identifier no source looked up (none configured for it) is no evidence either
        if entry.entry_type in LOW_COVERAGE_TYPES and (ev.id_kind is None or ev.id_state is None):
            status = Status.UNVERIFIED
            reason = reason or f"@{entry.entry_type} works are rarely indexed by the sources"
        else:
            status = Status.NOT_FOUND
            issues.append(
                Issue(
                    Code.NOT_FOUND,
                    f"no work titled “{entry.title or key}” by these authors was found in "
                    f"{', '.join(sources) or 'any source'}",
                    "title",
                )
            )
    else:
        status = Status.UNVERIFIED
        reason = reason or "a source could not be consulted"
    if status is Status.UNVERIFIED and ev.id_state is IdState.UNLISTED:
        unlisted = f"{_id_label(ev)} is not in {_index_name(ev)}, which is not its registry"
        reason = f"{unlisted}; {reason}" if ev.failures else unlisted
    if status is Status.UNVERIFIED:
        issues.append(Issue(Code.UNVERIFIED, f"could not be checked: {reason or 'no answer'}"))
    wrong_id = any(i.code in IDENTIFIER_CODES for i in issues)
    if wrong_id and status is Status.UNVERIFIED:
        status = Status.MISMATCH
    tier = Tier.H if wrong_id and status is Status.MISMATCH else tier_of(issues, status)
    return Verdict(key, status, tier, match, {}, tuple(issues), sources, reason)


# ----------------------------------------------------------------------------------------
# Steps 4 and 5: fields, notices
# ----------------------------------------------------------------------------------------


def fields(ev: Evidence, ident: Identity, issues: list[Issue]) -> dict[str, str]:
    """Append the field findings against the anchored record; return the corrections."""
    assert ident.anchor is not None
    entry, anchor = ev.entry, ident.anchor
    fixes = dict(ident.fixes)
    found: dict[str, str] = {}
    more, corrections = field_issues(entry, anchor, anchored_by_id=ident.by_id)
    issues += more
    found.update(corrections)
    more, corrections = index_venue(entry, ev.venue_opinions)
    issues += more
    found.update(corrections)
    venue_field = entry.venue_field or "journal"
    found.update(
        nonexistent_venue(
            entry,
            anchor,
            ev.venue_opinions,
            ev.venue_answers,
            issues,
            found.get(venue_field),
            ev.venue_failures,
        )
    )
    if ident.by_id and ev.id_kind is IdKind.ARXIV:
        codes = {i.code for i in issues if i.effective_severity <= Severity.WARNING}
        more, corrections = arxiv_issues(entry, anchor, codes)
        issues += more
        found.update(corrections)
    for name, value in found.items():
        fixes.setdefault(name, value)
    # homoglyph corrections: the record's clean text for the flagged field
    if "title" not in fixes and any(
        i.code is Code.HOMOGLYPH and i.field == "title" for i in issues
    ):
        fixes["title"] = bibtex_title(anchor.record)
    return fixes


def notices(ev: Evidence, anchor: Comparison, issues: list[Issue], fixes: dict[str, str]) -> None:
    """Append the suggestions (a DOI to add, a published version) and the notices about
    the work (retraction, correction, expression of concern)."""
    entry, rec = ev.entry, anchor.record
    published_match = cites_preprint(entry) and not is_preprint_record(rec) and rec.doi
    published_doi = ev.published_doi or (rec.doi if published_match else None)
    if entry.doi is None and rec.doi and ev.id_kind is None and not published_match:
        issues.append(Issue(Code.MISSING_DOI, f"the work has a DOI: {rec.doi}", "doi"))
        fixes["doi"] = rec.doi
    issues += notice_issues(rec, ev.notices)
    if published_doi and published_doi != entry.doi:
        issues.append(
            Issue(
                Code.PREPRINT_PUBLISHED,
                f"this preprint has been published: doi:{published_doi}",
                "doi",
            )
        )


# ----------------------------------------------------------------------------------------
# Step 6: status, the fault rule, the decision
# ----------------------------------------------------------------------------------------


def status_of(issues: Iterable[Issue]) -> Status:
    """Retracted, mismatch (a warning or error about the metadata), else verified."""
    issues = list(issues)
    if any(i.code is Code.RETRACTED for i in issues):
        return Status.RETRACTED
    if any(
        i.effective_severity in (Severity.ERROR, Severity.WARNING) and i.code not in NOT_METADATA
        for i in issues
    ):
        return Status.MISMATCH
    return Status.VERIFIED


def _unchecked(ev: Evidence, anchor: Comparison) -> tuple[str, str] | None:
    """What a failure left unchecked that could overturn ``verified``, and the failure's
    reason: the notices about the matched DOI (a retraction), or a venue difference no
    finding was made of because the sources that could settle it failed."""
    if ev.notices_failure is not None:
        reason = failure_summary([ev.notices_failure]) or ev.notices_failure.reason
        return "whether the work was retracted: the look-up of its notices failed", reason
    if ev.failures and venue_unsettled(anchor, ev.venue_opinions):
        what = (
            f"the venue differs from the {anchor.record.source} record and the sources "
            "that could settle it failed"
        )
        return what, failure_summary(ev.failures) or "failed"
    return None


#: Findings about the author list that a second source's list may overturn (a record that
#: lists fewer authors than the work has, or others); a name spelled one letter apart is a
#: slip of the entry's, which no incomplete list explains.
AUTHOR_CLAIMS = frozenset(
    {Code.AUTHOR_ADDED, Code.AUTHOR_DROPPED, Code.AUTHOR_SUBSTITUTED, Code.CHIMERIC}
)


def withhold_authors(
    ev: Evidence, anchor: Comparison, issues: list[Issue], fixes: dict[str, str]
) -> tuple[str, str] | None:
    """The author-list findings against ``anchor``'s record taken out of ``issues`` (and
    the author correction out of ``fixes``) when every look-up that could corroborate that
    list failed: what was not checked, and why; None when nothing was withheld."""
    if not ev.authors_failures:
        return None
    claims = [
        i for i in issues if i.code in AUTHOR_CLAIMS and i.effective_severity <= Severity.WARNING
    ]
    if not claims:
        return None
    issues[:] = [i for i in issues if i not in claims]
    fixes.pop("author", None)
    what = (
        f"the authors differ from the {anchor.record.source} record, and the sources that "
        "could show whether its author list is complete failed"
    )
    return what, failure_summary(ev.authors_failures) or "failed"


def fault_guard(
    ev: Evidence,
    anchor: Comparison,
    status: Status,
    issues: list[Issue],
    withheld: tuple[str, str] | None = None,
) -> tuple[Status, str | None]:
    """A check whose look-ups failed (see :func:`_unchecked`) that could overturn
    ``verified``: unverified, never verified.  A mismatch stays one, with a hint that
    whether the work was retracted is not known when its notices could not be looked up,
    or that author findings were ``withheld`` (:func:`withhold_authors`)."""
    if withheld is not None:
        what, reason = withheld
        if status is Status.VERIFIED:
            issues.append(Issue(Code.UNVERIFIED, f"could not be checked: {what}: {reason}"))
            return Status.UNVERIFIED, reason
        issues.append(Issue(Code.UNVERIFIED, f"not checked: {what}: {reason}", None, Severity.HINT))
    if status is Status.MISMATCH and ev.notices_failure is not None:
        reason = failure_summary([ev.notices_failure]) or ev.notices_failure.reason
        what = "whether the work was retracted: the look-up of its notices failed"
        issues.append(Issue(Code.UNVERIFIED, f"not checked: {what}: {reason}", None, Severity.HINT))
        return status, None
    unchecked = _unchecked(ev, anchor) if status is Status.VERIFIED else None
    if unchecked is None:
        return status, None
    what, reason = unchecked
    issues.append(Issue(Code.UNVERIFIED, f"could not be checked: {what}: {reason}"))
    return Status.UNVERIFIED, reason


def decide(ev: Evidence, key: str) -> Verdict:
    """Classify the evidence about one entry."""
    issues = static_issues(ev.entry, ev.today)
    ident = identify(ev)
    issues += ident.issues
    if ident.anchor is None:
        return unanchored(ev, key, issues)
    anchor = ident.anchor
    fixes = fields(ev, ident, issues)
    withheld = withhold_authors(ev, anchor, issues, fixes)
    notices(ev, anchor, issues, fixes)
    status, reason = fault_guard(ev, anchor, status_of(issues), issues, withheld)
    # one name different in a long list is what versions of a work look like
    minor = anchor.authors is not None and anchor.authors.minor
    return Verdict(
        key,
        status,
        tier_of(issues, status, AUTHOR_CODES if minor else frozenset()),
        _match(anchor),
        bibtex_ready(fixes),
        tuple(issues),
        tuple(dict.fromkeys(ev.sources)),
        reason,
    )


def skipped(key: str, reason: str) -> Verdict:
    return Verdict(key, Status.SKIPPED, Tier.D, reason=reason)
