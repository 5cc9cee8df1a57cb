"""The fielded search when the identifier gives no match, and the look-ups that follow a
match: a second source's author list, the indexes' venue, the venue registries, Crossref's
notices, the records that describe the venue, the published version of a preprint."""

from __future__ import annotations

import dataclasses

from citewarden.verify.compare import (
    Agreement,
    Comparison,
    cites_preprint,
    compare,
    is_preprint_record,
)
from citewarden.verify.evidence import (
    CONFIRMATIONS,
    Evidence,
    Failure,
    FailureKind,
    VenueOpinion,
)
from citewarden.verify.legitimacy import venue_kind
from citewarden.verify.normalize import NormalizedEntry, replace_confusables
from citewarden.verify.records import Lookup, Outcome, Query, Update, UpdateKind, WorkRecord
from citewarden.verify.search_order import (
    MAX_QUERY_AUTHOR,
    MAX_QUERY_TITLE,
    by_field,
    query_text,
    quorum,
)
from citewarden.verify.source_calls import PARTIAL_SOURCES, SourceCalls
from citewarden.verify.venue_check import venue_contradicted
from citewarden.verify.venue_lookup import venue_answers

#: How many other sources to ask before reporting an author-list difference.
CORROBORATING_SOURCES = 2
#: Sources whose records already carry Crossref's update notices.
NOTICE_CARRIERS = frozenset({"crossref", "snapshot"})
#: Sources that can only look identifiers up, never search.
ID_ONLY_SOURCES = frozenset({"doi", "openlibrary"})
#: Sources whose records say which indexes the venue is in.
VENUE_SOURCES = frozenset({"openalex", "pubmed"})
#: Stop searching once this many sources agree on a candidate with a near-miss title (or,
#: with the quorum answered, hold the cited title under other authors).
NEAR_MISS_CONFIRMATIONS = CONFIRMATIONS
#: A record's title at least this similar to the entry's may be the work in another form
#: (an index's variant of the title): the "not found" quorum does not stop the search then.
PLAUSIBLE_TITLE = 0.7

#: Registries searched only for the kinds of entry they hold, which the general indexes do
#: not cover: a "not found" of such an entry waits for their answer too.
OWN_REGISTRIES = frozenset({"openlibrary", "datacite"})

#: Indexes asked for the venue of a work no publisher's record describes.
VENUE_INDEXES = frozenset({"dblp", "openalex", "semanticscholar"})

#: Entry types DataCite registers (data, software, reports, theses, preprints ...).
DATACITE_TYPES = frozenset(
    {"misc", "dataset", "software", "techreport", "report", "phdthesis", "thesis", "unpublished"}
)


class SearchSteps(SourceCalls):
    """The search for a candidate and the look-ups after a match."""

    def _query(self, e: NormalizedEntry) -> Query:
        """What the sources are asked for ``e`` (bounded: see
        :func:`citewarden.verify.search_order.query_text`)."""
        title = query_text(replace_confusables(e.title or ""), MAX_QUERY_TITLE)
        surnames = tuple(query_text(a.family, MAX_QUERY_AUTHOR) for a in e.authors[:3] if a.family)
        return Query(title=title, authors=surnames, year=e.year, venue=e.venue, limit=5)

    def _search_order(self, e: NormalizedEntry) -> list[str]:
        """Searchable sources, the most selective for the entry's kind of work first (see
        :mod:`citewarden.verify.search_order`), then in configured order.  The arXiv API (one request per three
        seconds) is searched only for entries that point at arXiv, DataCite only for kinds
        of work it registers; the broad indexes (OpenAlex, Semantic Scholar) cover both."""
        names = [n for n in self.order if n not in ID_ONLY_SOURCES]
        if not _mentions_arxiv(e) and len(names) > 1:
            names = [n for n in names if n != "arxiv"]
        if e.entry_type not in DATACITE_TYPES and len(names) > 1:
            names = [n for n in names if n != "datacite"]
        names = by_field(e, names)
        if e.entry_type in ("book", "inbook") and "openlibrary" in self.sources:
            names.append("openlibrary")
        return names

    async def _search(self, ev: Evidence) -> None:
        """Search the sources in :meth:`_search_order` until one agrees on title and authors,
        two agree on a near-miss, or the entry's "not found" quorum
        (:func:`citewarden.verify.search_order.quorum`, and the registries of its kind of
        entry) has answered with no plausible record, or
        with the title under other authors at two sources."""
        e = ev.entry
        if not e.title:
            return
        query = self._query(e)
        ev.searched = True
        complete = True
        definitive = 0
        confirmations = 0
        order = self._search_order(e)
        # the sources the entry's "not found" rests on (its field's quorum and the
        # registries of its kind of entry), read off the venue once per search
        needed = quorum(e) | {n for n in order if n in OWN_REGISTRIES}
        answered: list[str] = []
        plausible = False
        title_only = 0  # sources whose answer held the title with other authors
        for name in order:
            lookup = await self._call(ev, name, "search", query)
            if lookup is None:
                continue
            if lookup.outcome is Outcome.FAILED:
                complete = False
                continue
            if name not in PARTIAL_SOURCES:
                definitive += 1
                answered.append(name)
            same_title = False
            agrees = False  # this source holds a record of the work (a near miss included)
            comparisons = [compare(e, rec) for rec in lookup.records]
            full = [c for c in comparisons if c.full_agreement]
            if full:
                # an answer may hold several versions of the work (a conference paper and
                # its journal version, the arXiv copy): the one the entry cites
                ev.candidate = _better(ev.candidate, max(full, key=_version_rank))
                ev.search_complete = True
                return
            for cmp in comparisons:
                plausible = plausible or _plausible(cmp)
                if cmp.identifies:
                    agrees = True
                    if ev.candidate is None or cmp.score > ev.candidate.score:
                        ev.candidate = cmp
                elif cmp.title is not None and cmp.title.exact and cmp.authors is not None:
                    same_title = True
                    if ev.title_only is None or cmp.score > ev.title_only.score:
                        ev.title_only = cmp
            title_only += same_title
            ev.title_only_sources = title_only
            if agrees:
                # only a source that holds the work confirms it: one that answered without
                # it (a "no match" of its title search) leaves the search going
                confirmations += 1
                if confirmations >= NEAR_MISS_CONFIRMATIONS:
                    break
            elif (
                ev.candidate is None
                and complete
                and (not plausible or title_only >= NEAR_MISS_CONFIRMATIONS)
                and needed.issubset(answered)
            ):
                # the sources a "not found" (or a title with other authors) rests on all
                # answered, and none failed
                break
        ev.search_complete = complete and definitive > 0
        if definitive == 0 and complete:
            ev.failures.append(
                Failure(
                    "",
                    FailureKind.NO_COVERAGE,
                    "no source that covers the literature was consulted",
                )
            )

    async def _corroborate(self, ev: Evidence) -> None:
        """A second source's author list before reporting authors added / dropped /
        substituted: records are often incomplete (Crossref lists one author of a paper
        with eight; arXiv versions differ).  The fullest agreeing list is used.  Asked by
        search, the sources the entry's search already asked come first (cached)."""
        by_id = ev.id_comparison is not None and ev.id_comparison.title_ok
        cmp = ev.id_comparison if by_id else ev.candidate
        if cmp is None or not cmp.title_ok:
            return
        if (cmp.authors is None or cmp.authors.exact) and cmp.title is not None and cmp.title.exact:
            return
        rec = cmp.record
        best = cmp
        answered = 0
        failed_before = len(ev.failures)
        names = list(self.order)
        if not rec.doi or rec.doi.startswith("10.48550/"):
            # asked by search: the sources the entry's search already asked answer from
            # the cache, so they give their opinion first
            names.sort(key=lambda n: n not in ev.sources)
        for name in names:
            if name in (rec.source, "doi") or answered >= CORROBORATING_SOURCES:
                continue
            if rec.doi and not rec.doi.startswith("10.48550/"):
                lookup = await self._call(ev, name, "by_doi", rec.doi)
            elif name not in ID_ONLY_SOURCES:
                lookup = await self._call(ev, name, "search", self._query(ev.entry))
            else:
                continue
            if lookup is None or lookup.outcome is Outcome.FAILED:
                continue
            answered += 1
            for other in lookup.records:
                alt = compare(ev.entry, other)
                if alt.title_ok and _author_rank(alt) > _author_rank(best):
                    best = alt
            if _author_rank(best)[:2] == (True, True):
                break
        if best is cmp:
            if answered == 0:
                # the sources that could show the record's list is cut short said nothing
                ev.authors_failures = ev.failures[failed_before:]
            return
        improved = dataclasses.replace(cmp, authors=best.authors, author_record=best.record)
        if best.title is not None and best.title.exact:
            improved = dataclasses.replace(improved, title=best.title)
        if by_id:
            ev.id_comparison = improved
        else:
            ev.candidate = improved

    async def _venue_opinions(self, ev: Evidence) -> None:
        """The venue of the matched work according to the indexes (dblp, OpenAlex, Semantic
        Scholar), when the match is not a publisher's record, and the cited venue differs
        from the match's or the match is a preprint cited as published.  One look-up per
        index (by DOI, at Semantic Scholar by arXiv id, else a search; cached), stopping
        once an index agrees with the citation or three opinions are in.  An index whose
        record is already at hand (Semantic Scholar's records of arXiv ids come in the
        plan's batches) is read first: when it agrees with the citation, nothing is asked."""
        cmp = _anchor(ev)
        e = ev.entry
        if cmp is None or not e.venue or cites_preprint(e) or cmp.venue is not Agreement.UNKNOWN:
            return
        rec = cmp.record
        if cmp.venue_raw is not Agreement.DIFFERENT and not is_preprint_record(rec):
            return
        ev.venue_opinions.append(venue_opinion(cmp))
        names = [n for n in self.order if n in VENUE_INDEXES and n != rec.source]
        asks = {name: _index_lookup(name, rec) for name in names}
        for name, ask in asks.items():
            at_hand = await self._at_hand(name, *ask) if ask is not None else None
            if at_hand is not None and at_hand.outcome is Outcome.FOUND:
                opinion = _index_opinion(e, at_hand)
                if opinion is not None and opinion.agreement is Agreement.EQUAL:
                    ev.sources.append(name)
                    ev.venue_opinions.append(opinion)
                    return
        for name, ask in asks.items():
            opinions = ev.venue_opinions
            if any(o.agreement is Agreement.EQUAL for o in opinions) or len(opinions) >= 3:
                return
            lookup = await self._call(ev, name, *ask) if ask is not None else None
            if lookup is None or lookup.outcome is not Outcome.FOUND:
                lookup = await self._call(ev, name, "search", self._query(e))
            if lookup is None or lookup.outcome is not Outcome.FOUND:
                continue
            opinion = _index_opinion(e, lookup)
            if opinion is not None:
                ev.venue_opinions.append(opinion)

    async def _venue_registry(self, ev: Evidence) -> None:
        """The venue searches' answers for a cited venue the matched record contradicts and
        the bundled table does not know (see :mod:`citewarden.verify.venue_lookup`)."""
        cmp = _anchor(ev)
        if cmp is None or not venue_contradicted(ev.entry, cmp, ev.venue_opinions):
            return
        assert ev.entry.venue is not None
        in_dblp = "dblp" in {cmp.record.source, *(o.source for o in ev.venue_opinions)}
        journal = ev.entry.venue_field == "journal"
        ev.venue_answers, ev.venue_failures = await venue_answers(
            self.sources, ev.entry.venue, journal=journal, in_dblp=in_dblp, ask=self._ask_safely
        )
        ev.failures += ev.venue_failures

    async def _notices(self, ev: Evidence) -> None:
        """Crossref notices (``filter=updates:{doi}``) for a work matched through a source
        whose record does not carry Crossref's ``updated-by``, and for a Crossref record read
        from the cache after its ``updated-by`` outlived the notices' lifetime (a day: the
        record itself is kept a month), so that a retraction is seen within a day."""
        cmp = ev.id_comparison if ev.id_comparison and ev.id_comparison.title_ok else None
        cmp = cmp or ev.candidate
        rec = cmp.record if cmp is not None else None
        doi = rec.doi if rec is not None else None
        if rec is None or not doi or doi.startswith("10.48550/"):
            return
        if rec.source in NOTICE_CARRIERS:
            if doi in ev.stale_notices and not self._offline("crossref"):
                await self._asked_notices(ev, doi)
            return
        if rec.updates:
            return
        own = await self._crossref_record(doi)
        if own is not None:
            # Crossref's own record of the DOI is at hand and recent (the plan's batch,
            # another entry's identifier, the cache within a day): its ``updated-by``
            # lists the notices about the work, which is what ``filter=updates:`` answers
            ev.sources.append("crossref")
            ev.notices += [u for u in own.updates if u.kind is not UpdateKind.OTHER]
            return
        await self._asked_notices(ev, doi)

    async def _asked_notices(self, ev: Evidence, doi: str) -> None:
        """The notices about ``doi`` from Crossref's ``notices`` look-up (kept a day,
        coalesced with other entries'), added to ``ev``; a failure is kept as
        ``ev.notices_failure``: whether the work was retracted is then not known."""
        lookup = await self._call(ev, "crossref", "notices", doi)
        if lookup is not None and lookup.outcome is Outcome.FAILED:
            ev.notices_failure = Failure.of("crossref", lookup.reason)
        if lookup is None or lookup.outcome is not Outcome.FOUND:
            return
        for notice in lookup.records:
            for u in notice.updates:
                if u.doi == doi and u.kind is not UpdateKind.OTHER:
                    ev.notices.append(Update(u.kind, notice.doi, u.date, u.label))

    def _offline(self, name: str) -> bool:
        """Whether source ``name`` answers from the cache only (its notices are then those
        the cache holds, however old)."""
        return bool(getattr(self.sources.get(name), "offline", False))

    async def _crossref_record(self, doi: str) -> WorkRecord | None:
        """Crossref's record of ``doi`` when it is at hand (no request) and its notices are
        recent (not read from the cache past their lifetime), not a notice."""
        at_hand = await self._at_hand("crossref", "by_doi", doi)
        if at_hand is None or at_hand.outcome is not Outcome.FOUND:
            return None
        if at_hand.notices_stale and not self._offline("crossref"):
            return None
        own = [r for r in at_hand.records if r.doi == doi and not r.is_notice]
        return own[0] if own else None

    async def _venue_records(self, ev: Evidence) -> list[WorkRecord]:
        """The records that describe the matched work's venue (heuristic 10): the matched
        record, and for a journal article matched through a source that says nothing of
        indexes, OpenAlex's record of the same DOI (cached like any look-up).  A failed
        look-up adds nothing: the venue is then judged on what is known."""
        cmp = ev.id_comparison if ev.id_comparison and ev.id_comparison.title_ok else None
        cmp = cmp or ev.candidate
        if cmp is None:
            return []
        rec = cmp.record
        records = [rec]
        if venue_kind(ev.entry, records) != "journal" or rec.source in VENUE_SOURCES:
            return records
        source = self.sources.get("openalex")
        if source is None or not rec.doi or rec.doi.startswith("10.48550/"):
            return records
        lookup = await self._ask_safely(source, "openalex", "by_doi", rec.doi)
        if lookup.outcome is Outcome.FOUND:
            records += [r for r in lookup.records if r.doi == rec.doi]
        return records

    def _published_version(self, ev: Evidence) -> None:
        """The published version a preprint record names (Crossref ``is-preprint-of``,
        arXiv's journal DOI); a suggestion, found without another request."""
        cmp = ev.id_comparison if ev.id_comparison and ev.id_comparison.identifies else None
        cmp = cmp or ev.candidate
        if cmp is None:
            return
        rec = cmp.record
        if not (rec.source == "arxiv" or rec.work_type == "posted-content"):
            return
        target = dict(rec.extra).get("is-preprint-of")
        if rec.source == "arxiv" and rec.doi and not rec.doi.startswith("10.48550/"):
            target = target or rec.doi
        ev.published_doi = target.lower() if target else None


def _anchor(ev: Evidence) -> Comparison | None:
    """The comparison the verdict will rest on: the identifier's record when its title
    agrees, else the search candidate."""
    if ev.id_comparison is not None and ev.id_comparison.title_ok:
        return ev.id_comparison
    return ev.candidate


def _index_lookup(name: str, rec: WorkRecord) -> tuple[str, str] | None:
    """An index's look-up of the matched work by identifier (None: by search only): by DOI
    (not at dblp), at Semantic Scholar by arXiv id (its record of an arXiv paper names the
    published venue; planned ahead)."""
    if rec.doi and not rec.doi.startswith("10.48550/") and name != "dblp":
        return "by_doi", rec.doi
    if rec.arxiv_id and name == "semanticscholar":
        return "by_arxiv", rec.arxiv_id
    return None


def _index_opinion(e: NormalizedEntry, lookup: Lookup) -> VenueOpinion | None:
    """The venue opinion of an index's answer: its best record of the work, a published
    version before a preprint (an index holding one says the work is published)."""
    same = [c for c in (compare(e, r) for r in lookup.records) if c.identifies]
    if not same:
        return None
    best = max(
        same, key=lambda c: (not is_preprint_record(c.record), bool(c.record.venue), c.score)
    )
    return venue_opinion(best)


def _plausible(cmp: Comparison) -> bool:
    """A record that could be the entry's work under another form: its title is close, or
    exact with other authors.  While one is in sight, every source is searched."""
    return cmp.title is not None and (cmp.title.exact or cmp.title.score >= PLAUSIBLE_TITLE)


def venue_opinion(cmp: Comparison) -> VenueOpinion:
    rec = cmp.record
    names = tuple(n for n in (rec.venue, *rec.venue_short) if n)
    return VenueOpinion(rec.source, rec.venue or "", names, cmp.venue_raw, is_preprint_record(rec))


def _mentions_arxiv(e: NormalizedEntry) -> bool:
    if e.arxiv_id:
        return True
    venue = (e.venue or "").lower()
    return (
        "arxiv" in venue
        or venue.strip() == "corr"
        or "arxiv" in (e.url or "").lower()
        or (e.entry_type in ("misc", "unpublished", "online"))
    )


def _author_rank(cmp: Comparison) -> tuple[bool, bool, bool, int, float]:
    """Order of preference between records of one work: exact title, then the author list
    closest to the entry's."""
    title = cmp.title is not None and cmp.title.exact
    a = cmp.authors
    if a is None:
        return (title, False, False, -(10**6), 0.0)
    changes = len(a.added) + len(a.dropped) + len(a.substituted)
    return (title, a.exact, a.agree, -changes, a.overlap)


#: How well a field of a record agrees with the entry, best first.
_AGREEMENT_RANK = {Agreement.EQUAL: 3, Agreement.NEAR: 2, Agreement.UNKNOWN: 1}


def _version_rank(cmp: Comparison) -> tuple[int, int, float]:
    """Order of preference between versions of one work (the title and authors agree on
    each): the venue the entry names, then its year, then the closer record."""
    return (
        _AGREEMENT_RANK.get(cmp.venue_raw, 0),
        _AGREEMENT_RANK.get(cmp.year, 0),
        cmp.score,
    )


def _better(a: Comparison | None, b: Comparison) -> Comparison:
    return b if a is None or b.score >= a.score else a
