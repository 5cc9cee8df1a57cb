"""From evidence to a verdict: status, risk tier, issues and anchored corrections (pure).

The engine gathers :class:`Evidence` (the identifier look-up, the search candidates, which
sources answered and which failed); :func:`decide` classifies it.  The rules:

* "real work with wrong metadata" (``mismatch``), "no such work" (``not_found``, only when
  every consulted source answered definitively) and "could not check" (``unverified``) are
  kept apart; a failed look-up never becomes ``not_found`` or ``verified``.
* Corrections are offered only when identity is anchored: the identifier agrees with the
  record, or title and authors both agree with one record.  Title and authors are never
  corrected together; each correction is one field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from citewarden.model import Code, Issue, Match, Severity, Status, Tier, Verdict
from citewarden.verify.arxiv_check import arxiv_issues
from citewarden.verify.compare import (
    Agreement,
    Comparison,
    ValueComparison,
    cites_preprint,
    is_preprint_record,
)
from citewarden.verify.evidence import (
    Evidence,
    IdKind,
    IdState,
    failure_summary,
)
from citewarden.verify.normalize import NormalizedEntry, is_placeholder
from citewarden.verify.records import Update, UpdateKind, WorkRecord
from citewarden.verify.severity import CODE_TIER
from citewarden.verify.venue_check import index_venue, publisher_venue, venue_unsettled
from citewarden.verify.venues import venue_first_year

#: Codes that say something about the work, not about the entry's metadata.
NOT_METADATA = frozenset(
    {Code.UNVERIFIED, Code.CORRECTED, Code.EXPRESSION_OF_CONCERN, Code.PREPRINT_PUBLISHED}
)
_TIER_RANK = {Tier.D: 0, Tier.M: 1, Tier.E: 2, Tier.H: 3}

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
# Formatting corrections
# ----------------------------------------------------------------------------------------


def bibtex_authors(record: WorkRecord) -> str:
    """The record's authors as a BibTeX ``author`` value (``Family, Given and ...``)."""
    names = []
    for p in record.authors:
        names.append(f"{p.family}, {p.given}" if p.given else f"{{{p.family}}}")
    return " and ".join(names)


def bibtex_pages(pages: str) -> str:
    return re.sub(r"\s*[-–—]+\s*", "--", pages.strip())


def bibtex_title(record: WorkRecord) -> str:
    from citewarden.verify.normalize import strip_markup

    title = strip_markup(record.title)
    if record.subtitle:
        title = f"{title}: {strip_markup(record.subtitle)}"
    return title


def _record_label(record: WorkRecord) -> str:
    from citewarden.verify.normalize import strip_markup

    first = record.authors[0].family if record.authors else "?"
    year = record.year or "n.d."
    return f"“{strip_markup(record.title)}” ({first}, {year})"


# ----------------------------------------------------------------------------------------
# Static checks (need no network)
# ----------------------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------------------
# Field comparison -> issues and corrections
# ----------------------------------------------------------------------------------------


def _value_issue(
    code: Code, label: str, bib_field: str, cmp: ValueComparison
) -> tuple[Issue, str] | None:
    if cmp.agreement is not Agreement.DIFFERENT or cmp.record is None:
        return None
    swap = " (a digit swap)" if cmp.swap else ""
    return (
        Issue(code, f"{label} is {cmp.entry}, the record says {cmp.record}{swap}", bib_field),
        cmp.record,
    )


def field_issues(
    entry: NormalizedEntry, cmp: Comparison, *, anchored_by_id: bool
) -> tuple[list[Issue], dict[str, str]]:
    """Issues and corrections from comparing an entry with the record it is anchored to."""
    rec = cmp.record
    issues: list[Issue] = []
    fixes: dict[str, str] = {}
    title_changed = False

    if cmp.title is not None and not cmp.title.exact:
        kind = "near-miss title" if cmp.title.near else "title does not match"
        issues.append(
            Issue(
                Code.TITLE_MISMATCH,
                f"{kind}: the record's title is “{bibtex_title(rec)}”",
                "title",
            )
        )
        fixes["title"] = bibtex_title(rec)
        title_changed = True

    a = cmp.authors
    if a is not None and not a.exact:
        if a.overlap < 0.5 and cmp.title is not None and cmp.title.exact:
            issues.append(
                Issue(
                    Code.CHIMERIC,
                    f"the title is that of {_record_label(rec)}, but the authors are not its "
                    "authors",
                    "author",
                )
            )
        if a.substituted:
            pairs = "; ".join(f"{e} instead of {r}" for e, r in a.substituted)
            issues.append(Issue(Code.AUTHOR_SUBSTITUTED, f"author substituted: {pairs}", "author"))
        if not a.first_ok and not a.substituted:
            first = (cmp.author_record or rec).authors[0]
            if a.matched == a.entry_count:
                # the same people in another order: the record may be the one that is wrong
                issues.append(
                    Issue(
                        Code.AUTHOR_SUBSTITUTED,
                        f"author order differs: the record's first author is {first}",
                        "author",
                        Severity.INFORMATION,
                    )
                )
            else:
                issues.append(
                    Issue(
                        Code.AUTHOR_SUBSTITUTED,
                        f"first author differs: the record's first author is {first}",
                        "author",
                    )
                )
        if a.added:
            issues.append(
                Issue(
                    Code.AUTHOR_ADDED,
                    f"author(s) not on the record: {', '.join(a.added)}",
                    "author",
                )
            )
        if a.dropped:
            shown = ", ".join(a.dropped[:5]) + (" ..." if len(a.dropped) > 5 else "")
            issues.append(
                Issue(Code.AUTHOR_DROPPED, f"author(s) missing from the entry: {shown}", "author")
            )
        # never rewrite title and authors at once; authors only when identity is anchored
        people = cmp.author_record or rec
        if not title_changed and (anchored_by_id or a.agree) and people.authors:
            fixes["author"] = bibtex_authors(people)

    if cmp.year is Agreement.NEAR and rec.year is not None:
        issues.append(
            Issue(
                Code.YEAR_MISMATCH,
                f"year {entry.year}, the record says {rec.year} (preprint, online and print "
                "versions often differ by a year or more)",
                "year",
                Severity.HINT,
            )
        )
    elif cmp.year is Agreement.DIFFERENT and rec.year is not None:
        from citewarden.verify.compare import digit_swap

        swap = " (a digit swap)" if digit_swap(str(entry.year), str(rec.year)) else ""
        issues.append(
            Issue(
                Code.YEAR_MISMATCH, f"year {entry.year}, the record says {rec.year}{swap}", "year"
            )
        )
        fixes["year"] = str(rec.year)

    venue_issues, venue_fixes = publisher_venue(entry, cmp)
    issues += venue_issues
    fixes.update(venue_fixes)

    for code, label, name, vc in (
        (Code.VOLUME_MISMATCH, "volume", "volume", cmp.volume),
        (Code.ISSUE_MISMATCH, "issue", "number", cmp.issue),
        (Code.PAGES_MISMATCH, "pages", "pages", cmp.pages),
    ):
        found = _value_issue(code, label, name, vc)
        if found:
            issue, value = found
            issues.append(issue)
            fixes[name] = bibtex_pages(value) if name == "pages" else value
    return issues, fixes


def notice_issues(record: WorkRecord, more: Iterable[Update] = ()) -> list[Issue]:
    """Retraction / correction / expression-of-concern findings, one per notice."""
    issues: list[Issue] = []
    seen: set[tuple[UpdateKind, str | None]] = set()
    for u in (*record.updates, *more):
        if (u.kind, u.doi) in seen:
            continue
        seen.add((u.kind, u.doi))
        where = f" ({u.doi})" if u.doi else ""
        when = f" on {u.date}" if u.date else ""
        if u.kind in (UpdateKind.RETRACTION, UpdateKind.WITHDRAWAL):
            issues.append(Issue(Code.RETRACTED, f"this work was retracted{when}{where}", "doi"))
        elif u.kind is UpdateKind.CORRECTION:
            issues.append(
                Issue(Code.CORRECTED, f"a correction to this work was published{when}{where}")
            )
        elif u.kind is UpdateKind.EXPRESSION_OF_CONCERN:
            issues.append(
                Issue(
                    Code.EXPRESSION_OF_CONCERN,
                    f"an expression of concern about this work was published{when}{where}",
                )
            )
    return issues


# ----------------------------------------------------------------------------------------
# The decision
# ----------------------------------------------------------------------------------------


AUTHOR_CODES = frozenset({Code.AUTHOR_ADDED, Code.AUTHOR_DROPPED, Code.AUTHOR_SUBSTITUTED})


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


def _id_label(ev: Evidence) -> str:
    return f"{ev.id_kind.label if ev.id_kind else 'identifier'} {ev.id_value}"


def decide(ev: Evidence, key: str) -> Verdict:
    """Classify the evidence about one entry."""
    entry = ev.entry
    issues = static_issues(entry, ev.today)
    fixes: dict[str, str] = {}
    anchor: Comparison | None = None
    anchored_by_id = False
    sources = tuple(dict.fromkeys(ev.sources))
    reason = failure_summary(ev.failures)
    id_cmp = ev.id_comparison

    search_found_other = (
        ev.candidate is not None
        and ev.candidate.full_agreement
        and id_cmp is not None
        and distinct_works(ev.candidate.record, id_cmp.record)
    )
    # the identifier's record has a later title; another record of the same work has the
    # title as cited (an earlier version): the citation is right
    same_work_as_cited = (
        id_cmp is not None
        and id_cmp.title is not None
        and not id_cmp.title.exact
        and ev.candidate is not None
        and ev.candidate.full_agreement
        and not distinct_works(ev.candidate.record, id_cmp.record)
    )
    if same_work_as_cited:
        anchor, anchored_by_id = ev.candidate, True
    elif id_cmp is not None and (
        id_cmp.title_ok
        or (id_cmp.authors is not None and id_cmp.authors.agree and not search_found_other)
    ):
        anchor, anchored_by_id = id_cmp, True
    elif id_cmp is not None:
        issues.append(
            Issue(
                Code.DOI_OTHER_WORK,
                f"{_id_label(ev)} belongs to a different work: {_record_label(id_cmp.record)}",
                _id_field(ev),
            )
        )
    elif ev.id_state == IdState.MISSING:
        issues.append(
            Issue(
                Code.DOI_NOT_FOUND,
                f"{_id_label(ev)} does not exist ({_registry(ev)} has no record of it)",
                _id_field(ev),
            )
        )

    if anchor is None and ev.candidate is not None:
        anchor = ev.candidate
        found_doi = anchor.record.doi
        if (
            ev.id_kind is IdKind.DOI
            and found_doi
            and ev.id_state in (IdState.MISSING, IdState.FOUND)
        ):
            fixes["doi"] = found_doi
        elif (
            ev.id_kind is IdKind.ARXIV
            and ev.id_state in (IdState.MISSING, IdState.FOUND)
            and anchor.record.arxiv_id
            and anchor.record.arxiv_id != entry.arxiv_id
            and entry.arxiv_field == "eprint"
        ):
            fixes["eprint"] = anchor.record.arxiv_id
        elif (
            ev.id_kind is IdKind.DOI
            and ev.id_state == IdState.FAILED
            and found_doi
            and found_doi != entry.doi
        ):
            issues.append(
                Issue(
                    Code.DOI_OTHER_WORK,
                    f"the record of this work has DOI {found_doi}, not {entry.doi} "
                    f"({entry.doi} itself could not be checked)",
                    "doi",
                    Severity.WARNING,
                )
            )
            fixes["doi"] = found_doi

    if anchor is None:
        if ev.title_only is not None and ev.title_only.authors is not None:
            other = ev.title_only.record
            issues.append(
                Issue(
                    Code.CHIMERIC,
                    f"the title is that of {_record_label(other)}, but the authors are not "
                    "its authors",
                    "author",
                )
            )
            status = Status.MISMATCH
            match = _match(ev.title_only)
        elif not ev.searched:
            status, match = Status.UNVERIFIED, None
        elif ev.search_complete and (ev.id_state != IdState.FAILED):
            low = entry.entry_type in LOW_COVERAGE_TYPES and ev.id_kind is None
            if low:
                status = Status.UNVERIFIED
                reason = reason or f"@{entry.entry_type} works are rarely indexed by the sources"
            else:
                status = Status.NOT_FOUND
                what = entry.title or key
                issues.append(
                    Issue(
                        Code.NOT_FOUND,
                        f"no work titled “{what}” by these authors was found in "
                        f"{', '.join(sources) or 'any source'}",
                        "title",
                    )
                )
            match = None
        else:
            status, match = Status.UNVERIFIED, None
            reason = reason or "a source could not be consulted"
        if status is Status.UNVERIFIED:
            issues.append(Issue(Code.UNVERIFIED, f"could not be checked: {reason or 'no answer'}"))
        if any(i.code in (Code.DOI_OTHER_WORK, Code.DOI_NOT_FOUND) for i in issues) and (
            status is Status.UNVERIFIED
        ):
            status = Status.MISMATCH
        tier = tier_of(issues, status)
        if status is Status.MISMATCH and any(
            i.code in (Code.DOI_OTHER_WORK, Code.DOI_NOT_FOUND) for i in issues
        ):
            tier = Tier.H
        return Verdict(key, status, tier, match, {}, tuple(issues), sources, reason)

    more, field_fixes = field_issues(entry, anchor, anchored_by_id=anchored_by_id)
    issues += more
    more, venue_fixes = index_venue(entry, ev.venue_opinions)
    issues += more
    field_fixes.update(venue_fixes)
    if anchored_by_id and ev.id_kind is IdKind.ARXIV:
        codes = {i.code for i in issues if i.effective_severity <= Severity.WARNING}
        more, arxiv_fixes = arxiv_issues(entry, anchor, codes)
        issues += more
        field_fixes.update(arxiv_fixes)
    for name, value in field_fixes.items():
        fixes.setdefault(name, value)
    # homoglyph corrections: the record's clean text for the flagged field
    for issue in issues:
        if issue.code is Code.HOMOGLYPH and issue.field == "title" and "title" not in fixes:
            fixes["title"] = bibtex_title(anchor.record)
    published_match = (
        cites_preprint(entry) and not is_preprint_record(anchor.record) and anchor.record.doi
    )
    published_doi = ev.published_doi or (anchor.record.doi if published_match else None)
    if entry.doi is None and anchor.record.doi and ev.id_kind is None and not published_match:
        issues.append(Issue(Code.MISSING_DOI, f"the work has a DOI: {anchor.record.doi}", "doi"))
        fixes["doi"] = anchor.record.doi
    issues += notice_issues(anchor.record, ev.notices)
    if published_doi and published_doi != entry.doi:
        issues.append(
            Issue(
                Code.PREPRINT_PUBLISHED,
                f"this preprint has been published: doi:{published_doi}",
                "doi",
            )
        )
    if any(i.code is Code.RETRACTED for i in issues):
        status = Status.RETRACTED
    elif any(
        i.effective_severity in (Severity.ERROR, Severity.WARNING) and i.code not in NOT_METADATA
        for i in issues
    ):
        status = Status.MISMATCH
    else:
        status = Status.VERIFIED
    reason = None
    if status is Status.VERIFIED and ev.failures and venue_unsettled(anchor, ev.venue_opinions):
        # the sources that could have told a venue error apart failed: never verified
        status, reason = Status.UNVERIFIED, failure_summary(ev.failures)
        issues.append(
            Issue(
                Code.UNVERIFIED,
                f"could not be checked: the venue differs from the {anchor.record.source} "
                f"record and the sources that could settle it failed: {reason}",
            )
        )
    # one name different in a long list is what versions of a work look like
    minor = anchor.authors is not None and anchor.authors.minor
    return Verdict(
        key,
        status,
        tier_of(issues, status, AUTHOR_CODES if minor else frozenset()),
        _match(anchor),
        fixes,
        tuple(issues),
        sources,
        reason,
    )


def skipped(key: str, reason: str) -> Verdict:
    return Verdict(key, Status.SKIPPED, Tier.D, reason=reason)
