"""The verification pipeline: identifier first, then fielded search, then a verdict.

For each entry: normalise (only the fields verification needs); decide whether it can be
verified at all (``skipped``); look its identifier up (DOI via Crossref then doi.org; arXiv
id via arXiv; ISBN via Open Library; PMID via PubMed); when there is no identifier, or it
points at another work, search the sources in the configured order and stop at the first
candidate whose title and authors agree.  A search hit is only a candidate: it must pass
the comparison.  Failed look-ups are remembered so that "could not check" never turns into
"no such work".
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from citewarden.model import Code, Entry, Issue, Status, Tier, Verdict
from citewarden.settings import Settings, VerifySettings
from citewarden.verify.base import Source
from citewarden.verify.coalesce import Coalescer
from citewarden.verify.compare import (
    Agreement,
    Comparison,
    cites_preprint,
    compare,
    is_preprint_record,
)
from citewarden.verify.evidence import (
    Evidence,
    Failure,
    FailureKind,
    IdKind,
    IdState,
    VenueOpinion,
)
from citewarden.verify.http import ENTRY_BUDGET_FACTOR, entry_budget
from citewarden.verify.journals import journal_records
from citewarden.verify.legitimacy import venue_kind, with_venue
from citewarden.verify.normalize import NormalizedEntry, normalize_entry, replace_confusables
from citewarden.verify.plan import Ahead
from citewarden.verify.records import Lookup, Outcome, Query, Update, UpdateKind, WorkRecord
from citewarden.verify.search_order import by_field
from citewarden.verify.venue_check import venue_contradicted
from citewarden.verify.venue_lookup import venue_answers
from citewarden.verify.verdict import decide, skipped

log = logging.getLogger("citewarden.verify")

#: Entry types that describe things no bibliographic source verifies.
UNVERIFIABLE_TYPES = frozenset(
    {"online", "www", "webpage", "electronic", "software", "codebase", "dataset", "patent"}
)
#: Sources that hold only part of the literature: their "not found" is not evidence.
PARTIAL_SOURCES = frozenset({"snapshot"})
#: How many other sources to ask before reporting an author-list difference.
CORROBORATING_SOURCES = 2
#: Sources whose records already carry Crossref's update notices.
NOTICE_CARRIERS = frozenset({"crossref", "snapshot"})
#: Sources that can only look identifiers up, never search.
ID_ONLY_SOURCES = frozenset({"doi", "openlibrary"})
#: Sources whose records say which indexes the venue is in.
VENUE_SOURCES = frozenset({"openalex", "pubmed"})
#: Stop searching once this many sources agree on a candidate with a near-miss title.
NEAR_MISS_CONFIRMATIONS = 2

#: Indexes asked for the venue of a work no publisher's record describes.
VENUE_INDEXES = frozenset({"dblp", "openalex", "semanticscholar"})

#: Entry types DataCite registers (data, software, reports, theses, preprints ...).
DATACITE_TYPES = frozenset(
    {"misc", "dataset", "software", "techreport", "report", "phdthesis", "thesis", "unpublished"}
)

OnResult = Callable[[str, Verdict], Awaitable[None] | None]

#: The cancel event of the entry being verified (each entry runs in its own task).
_CANCEL: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "citewarden_verify_cancel", default=None
)


class _Cancelled(Exception):
    """The run was cancelled before this request was sent."""


def _check_cancel() -> None:
    cancel = _CANCEL.get()
    if cancel is not None and cancel.is_set():
        raise _Cancelled


def skip_reason(entry: Entry, settings: VerifySettings) -> str | None:
    """Why an entry is not verified, or None when it should be."""
    if entry.key in settings.ignore_entries:
        return "listed in verify.ignore_entries"
    has_id = any((entry.get(n) or "").strip() for n in ("doi", "eprint", "isbn", "pmid"))
    url = (entry.get("url") or entry.get("howpublished") or "").lower()
    if not re.search(r"://|\\url|www\.", url):
        url = ""
    if "arxiv.org/" in url or "doi.org/10." in url:
        has_id = True
    kind = entry.entry_type.lower()
    if has_id:
        return None
    if kind in UNVERIFIABLE_TYPES:
        return f"@{kind} entries are not indexed by bibliographic sources"
    if not (entry.get("title") or "").strip():
        return "no title or identifier to verify"
    if (
        kind == "misc"
        and url
        and not any(
            (entry.get(n) or "").strip() for n in ("journal", "booktitle", "publisher", "author")
        )
    ):
        return "a web page (only a title and a URL)"
    if (
        kind == "misc"
        and url
        and not any((entry.get(n) or "").strip() for n in ("journal", "booktitle", "publisher"))
    ):
        return "a web page or software (a URL without a venue or publisher)"
    return None


class Verifier:
    """Verifies entries against sources (already wrapped in the cache, if any)."""

    def __init__(
        self,
        sources: Sequence[Source],
        settings: VerifySettings | None = None,
        *,
        today: date | None = None,
    ) -> None:
        self.settings = settings or VerifySettings()
        self.sources: dict[str, Source] = {s.name: s for s in sources}
        order = [n for n in PARTIAL_SOURCES if n in self.sources]
        order += [n for n in self.settings.sources if n in self.sources]
        order += [n for n in self.sources if n not in order]
        self.order = order
        self.today = today or date.today()
        self._loop: int | None = None
        self._source_slots: dict[str, asyncio.Semaphore] = {}
        self._ahead = Ahead()
        self._coalescer = Coalescer(entry_seconds(self.settings))
        self._closers: list[Callable[[], Any]] = []
        #: What the user should be told once about this verifier (a rebuilt or missing cache).
        self.notices: list[str] = []

    def _bind_loop(self) -> None:
        """Slots and batches belong to one event loop; start afresh on another."""
        loop = id(asyncio.get_running_loop())
        if loop != self._loop:
            self._loop = loop
            self._source_slots = {}
            self._ahead = Ahead()
            self._coalescer = Coalescer(entry_seconds(self.settings))

    def _slot(self, name: str) -> asyncio.Semaphore:
        """Requests in flight to one source (``settings.concurrency``): each source has its
        own, so entries waiting on a strict source (arXiv) never hold up the others.  The
        HTTP client keeps each lane at its published and advertised limits."""
        slot = self._source_slots.get(name)
        if slot is None:
            slot = self._source_slots[name] = asyncio.Semaphore(max(1, self.settings.concurrency))
        return slot

    async def prefetch(self, entries: Iterable[Entry]) -> None:
        """Plan the identifiers of ``entries`` and fetch them in batches per source, in
        their order (see :mod:`citewarden.verify.plan`); :meth:`verify` then uses the
        answers.  Each batch is sent as soon as it is full, while the rest is planned."""
        self._bind_loop()
        ahead = self._ahead
        for entry in entries:
            if skip_reason(entry, self.settings) is not None:
                continue
            try:
                norm = normalize_entry(entry)
            except Exception:  # verification reports it for this entry
                continue
            if ahead.add(self.sources, norm):
                await asyncio.sleep(0)  # let the batch go out
        ahead.flush(self.sources)

    async def aclose(self) -> None:
        """Release what :func:`build_verifier` opened (HTTP client, cache, snapshot)."""
        for source in self.sources.values():
            close = getattr(source, "close", None)
            if callable(close):
                close()
        self._ahead.cancel()
        self._coalescer.cancel()
        for closer in self._closers:
            result = closer()
            if asyncio.iscoroutine(result):
                await result
        self._closers.clear()

    # ------------------------------------------------------------------------------------

    async def verify(self, entry: Entry) -> Verdict:
        """The verdict for one entry.  Never raises for network or data problems."""
        verdict = await self._verify(entry, None)
        assert verdict is not None
        return verdict

    async def _verify(self, entry: Entry, cancel: asyncio.Event | None) -> Verdict | None:
        """The verdict, or None when ``cancel`` was set before the work started."""
        reason = skip_reason(entry, self.settings)
        if reason is not None:
            return skipped(entry.key, reason)
        if cancel is not None and cancel.is_set():
            return None
        self._bind_loop()
        _CANCEL.set(cancel)
        # every request for this entry shares one time budget (see verify.http)
        with entry_budget(entry_seconds(self.settings)):
            return await self._verify_within_budget(entry)

    async def _verify_within_budget(self, entry: Entry) -> Verdict | None:
        try:
            norm = normalize_entry(entry)
            ev = Evidence(norm, today=self.today)
            await self._identify(ev)
            if ev.id_comparison is None or not ev.id_comparison.title_ok:
                await self._search(ev)
            await self._corroborate(ev)
            await self._venue_opinions(ev)
            await self._venue_registry(ev)
            self._published_version(ev)
            await self._notices(ev)
            venue_records = await self._venue_records(ev)
            venue_records += await journal_records(self.sources, ev.entry, venue_records)
            return with_venue(decide(ev, entry.key), ev.entry, venue_records)
        except _Cancelled:
            return None
        except Exception:  # one bad entry must not stop the others
            log.exception("verification of %s failed", entry.key)
            return Verdict(
                entry.key,
                Status.UNVERIFIED,
                Tier.D,
                issues=(Issue(Code.UNVERIFIED, "internal error while verifying"),),
                reason="internal error",
            )

    async def verify_many(
        self,
        entries: Iterable[Entry],
        *,
        on_result: OnResult | None = None,
        cancel_event: asyncio.Event | None = None,
    ) -> dict[str, Verdict]:
        """Verify entries concurrently: identifiers first, fetched in batches per source
        (:meth:`prefetch`), then each entry's comparisons and searches, at most
        ``settings.concurrency`` requests in flight per source.

        ``on_result(key, verdict)`` is called as each verdict is ready.  Setting
        ``cancel_event`` stops further look-ups; entries not finished by then are left out.
        """
        results: dict[str, Verdict] = {}
        unique: dict[str, Entry] = {}
        for e in entries:
            unique.setdefault(e.key, e)

        async def one(entry: Entry) -> None:
            verdict = await self._verify(entry, cancel_event)
            if verdict is None:
                return
            results[entry.key] = verdict
            if on_result is not None:
                try:
                    maybe = on_result(entry.key, verdict)
                    if asyncio.iscoroutine(maybe):
                        await maybe
                except Exception:  # a failing listener must not stop verification
                    log.exception("on_result callback failed for %s", entry.key)

        if cancel_event is None or not cancel_event.is_set():
            await self.prefetch(unique.values())
        await asyncio.gather(*(one(e) for e in unique.values()))
        return results

    # ------------------------------------------------------------------------------------

    async def _ask(self, source: Any, name: str, method: str, *args: Any) -> Lookup:
        """One look-up: the plan's answer when it fetched it ahead, else in a batch with
        other entries' look-ups (:mod:`citewarden.verify.coalesce`), else on its own."""
        if len(args) == 1 and isinstance(args[0], str):
            ahead = self._ahead.take(name, method, args[0])
            early = await ahead if ahead is not None else None
            if early is None and Coalescer.handles(source, name, method):
                _check_cancel()
                early = await self._coalescer.ask(source, name, method, args[0])
            if early is not None:
                return early
        async with self._slot(name):
            _check_cancel()
            lookup: Lookup = await getattr(source, method)(*args)
            return lookup

    async def _call(self, ev: Evidence, name: str, method: str, *args: Any) -> Lookup | None:
        source = self.sources.get(name)
        fn = getattr(source, method, None) if source is not None else None
        if fn is None:
            return None
        try:
            lookup = await self._ask(source, name, method, *args)
        except _Cancelled:
            raise
        except Exception as exc:  # sources promise not to raise; stay safe if one does
            log.warning("%s.%s raised %s", name, method, type(exc).__name__)
            lookup = Lookup.failed(name, f"internal error in {name}")
        if lookup.outcome is Outcome.FAILED and lookup.reason == "unsupported":
            return None
        ev.sources.append(name)
        if lookup.outcome is Outcome.FAILED:
            ev.fail(name, lookup.reason)
        return lookup

    async def _identify(self, ev: Evidence) -> None:
        e = ev.entry
        if e.doi:
            ev.id_kind, ev.id_value = IdKind.DOI, e.doi
            if e.doi.startswith("10.48550/arxiv.") and e.arxiv_id:
                await self._by_arxiv(ev, e.arxiv_id, keep_kind=True)
                return
            states: list[Outcome] = []
            for name in ("snapshot", "crossref", "doi", "datacite"):
                if name not in self.sources:
                    continue
                lookup = await self._call(ev, name, "by_doi", e.doi)
                if lookup is None:
                    continue
                if name in PARTIAL_SOURCES and lookup.outcome is Outcome.NOT_FOUND:
                    continue  # a partial index: absence there proves nothing
                states.append(lookup.outcome)
                if lookup.outcome is Outcome.FOUND:
                    self._set_identified(ev, lookup.records)
                    return
                if name == "doi" and lookup.outcome is Outcome.NOT_FOUND:
                    # doi.org is authoritative: a 404 there means the DOI does not exist
                    ev.id_state, ev.id_missing_from = IdState.MISSING, name
                    return
            # only doi.org, the registry of every DOI, may say a DOI does not exist; Crossref
            # and DataCite each know only their own
            ev.id_state = IdState.FAILED if states else None
            return
        if e.arxiv_id:
            await self._by_arxiv(ev, e.arxiv_id)
            return
        if e.pmid:
            ev.id_kind, ev.id_value = IdKind.PMID, e.pmid
            lookup = await self._call(ev, "pubmed", "by_pmid", e.pmid)
            self._apply(ev, lookup)
            return
        if e.isbn:
            ev.id_kind, ev.id_value = IdKind.ISBN, e.isbn
            lookup = await self._call(ev, "openlibrary", "by_isbn", e.isbn)
            self._apply(ev, lookup)
            if ev.id_state is IdState.MISSING:
                # Open Library is a catalogue, not the ISBN registry: its miss says nothing
                ev.id_state, ev.id_missing_from = IdState.UNLISTED, None

    async def _by_arxiv(self, ev: Evidence, arxiv_id: str, *, keep_kind: bool = False) -> None:
        """arXiv id: the arXiv API, then Semantic Scholar when arXiv has no answer.  "No
        such id" only when arXiv itself says so and the second source (when there is one)
        does not know the id either; a failure on either side leaves the id unchecked."""
        if not keep_kind:
            ev.id_kind, ev.id_value = IdKind.ARXIV, arxiv_id
        lookup = await self._call(ev, "arxiv", "by_arxiv", arxiv_id)
        if lookup is not None and lookup.outcome is Outcome.FOUND:
            self._apply(ev, lookup)
            return
        alt = await self._call(ev, "semanticscholar", "by_arxiv", arxiv_id)
        if alt is not None and alt.outcome is Outcome.FOUND:
            self._apply(ev, alt)
        elif lookup is None:
            self._apply(ev, alt)
            if ev.id_state is IdState.MISSING:
                ev.id_state, ev.id_missing_from = IdState.FAILED, None  # not the registry
        elif lookup.outcome is Outcome.NOT_FOUND and (
            alt is None or alt.outcome is Outcome.NOT_FOUND
        ):
            self._apply(ev, lookup)
        else:
            ev.id_state = IdState.FAILED

    def _apply(self, ev: Evidence, lookup: Lookup | None) -> None:
        if lookup is None:
            ev.id_state = None
        elif lookup.outcome is Outcome.FOUND:
            self._set_identified(ev, lookup.records)
        elif lookup.outcome is Outcome.NOT_FOUND:
            ev.id_state, ev.id_missing_from = IdState.MISSING, lookup.source
        else:
            ev.id_state = IdState.FAILED

    def _set_identified(self, ev: Evidence, records: Sequence[WorkRecord]) -> None:
        usable = [r for r in records if not r.is_notice] or list(records)
        cmps = [compare(ev.entry, r) for r in usable]
        best = max(cmps, key=lambda c: (c.identifies, c.score))
        ev.id_state = IdState.FOUND
        ev.id_comparison = best

    # ------------------------------------------------------------------------------------

    def _query(self, e: NormalizedEntry) -> Query:
        title = replace_confusables(e.title or "")
        surnames = tuple(a.family for a in e.authors[:3] if a.family)
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
        e = ev.entry
        if not e.title:
            return
        query = self._query(e)
        ev.searched = True
        complete = True
        definitive = 0
        confirmations = 0
        for name in self._search_order(e):
            lookup = await self._call(ev, name, "search", query)
            if lookup is None:
                continue
            if lookup.outcome is Outcome.FAILED:
                complete = False
                continue
            if name not in PARTIAL_SOURCES:
                definitive += 1
            for rec in lookup.records:
                cmp = compare(e, rec)
                if cmp.full_agreement:
                    ev.candidate = _better(ev.candidate, cmp)
                    ev.search_complete = True
                    return
                if cmp.identifies:
                    if ev.candidate is None or cmp.score > ev.candidate.score:
                        ev.candidate = cmp
                elif (
                    cmp.title is not None
                    and cmp.title.exact
                    and cmp.authors is not None
                    and (ev.title_only is None or cmp.score > ev.title_only.score)
                ):
                    ev.title_only = cmp
            if ev.candidate is not None:
                confirmations += 1
                if confirmations >= NEAR_MISS_CONFIRMATIONS:
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
        with eight; arXiv versions differ).  The fullest agreeing list is used."""
        by_id = ev.id_comparison is not None and ev.id_comparison.title_ok
        cmp = ev.id_comparison if by_id else ev.candidate
        if cmp is None or not cmp.title_ok:
            return
        if (cmp.authors is None or cmp.authors.exact) and cmp.title is not None and cmp.title.exact:
            return
        rec = cmp.record
        best = cmp
        answered = 0
        for name in self.order:
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
        index (by DOI, else a search; cached), stopping once two indexes agree on another
        venue or one agrees with the citation."""
        cmp = _anchor(ev)
        e = ev.entry
        if cmp is None or not e.venue or cites_preprint(e) or cmp.venue is not Agreement.UNKNOWN:
            return
        rec = cmp.record
        if cmp.venue_raw is not Agreement.DIFFERENT and not is_preprint_record(rec):
            return
        ev.venue_opinions.append(venue_opinion(cmp))
        for name in self.order:
            if name not in VENUE_INDEXES or name == rec.source:
                continue
            opinions = ev.venue_opinions
            if any(o.agreement is Agreement.EQUAL for o in opinions) or len(opinions) >= 3:
                return
            lookup = None
            if rec.doi and not rec.doi.startswith("10.48550/") and name != "dblp":
                lookup = await self._call(ev, name, "by_doi", rec.doi)
            if lookup is None or lookup.outcome is not Outcome.FOUND:
                lookup = await self._call(ev, name, "search", self._query(e))
            if lookup is None or lookup.outcome is not Outcome.FOUND:
                continue
            same = [c for c in (compare(e, r) for r in lookup.records) if c.identifies]
            if same:
                # an index holding a published version says the work is published
                best = max(
                    same,
                    key=lambda c: (not is_preprint_record(c.record), bool(c.record.venue), c.score),
                )
                ev.venue_opinions.append(venue_opinion(best))

    async def _venue_registry(self, ev: Evidence) -> None:
        """The venue searches' answers for a cited venue the matched record contradicts and
        the bundled table does not know (see :mod:`citewarden.verify.venue_lookup`)."""
        cmp = _anchor(ev)
        if cmp is None or not venue_contradicted(ev.entry, cmp, ev.venue_opinions):
            return
        assert ev.entry.venue is not None
        in_dblp = "dblp" in {cmp.record.source, *(o.source for o in ev.venue_opinions)}
        journal = ev.entry.venue_field == "journal"
        ev.venue_answers = await venue_answers(
            self.sources, ev.entry.venue, journal=journal, in_dblp=in_dblp
        )

    async def _notices(self, ev: Evidence) -> None:
        """Crossref notices (``filter=updates:{doi}``) for a work matched through a source
        whose record does not carry Crossref's ``updated-by`` (a Crossref record does)."""
        cmp = ev.id_comparison if ev.id_comparison and ev.id_comparison.title_ok else None
        cmp = cmp or ev.candidate
        if cmp is None or not cmp.record.doi or cmp.record.source in NOTICE_CARRIERS:
            return
        if cmp.record.doi.startswith("10.48550/") or cmp.record.updates:
            return
        lookup = await self._call(ev, "crossref", "notices", cmp.record.doi)
        if lookup is None or lookup.outcome is not Outcome.FOUND:
            return
        for notice in lookup.records:
            for u in notice.updates:
                if u.doi == cmp.record.doi and u.kind is not UpdateKind.OTHER:
                    ev.notices.append(Update(u.kind, notice.doi, u.date, u.label))

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
        try:
            lookup = await self._ask(source, "openalex", "by_doi", rec.doi)
        except _Cancelled:
            raise
        except Exception as exc:  # sources promise not to raise; stay safe if one does
            log.warning("openalex.by_doi raised %s", type(exc).__name__)
            return records
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


def entry_seconds(settings: VerifySettings) -> float:
    """The time budget of one entry: ``verify.entry-budget``, else ``ENTRY_BUDGET_FACTOR``
    request timeouts."""
    if settings.entry_budget is not None:
        return settings.entry_budget
    return ENTRY_BUDGET_FACTOR * settings.timeout


def _anchor(ev: Evidence) -> Comparison | None:
    """The comparison the verdict will rest on: the identifier's record when its title
    agrees, else the search candidate."""
    if ev.id_comparison is not None and ev.id_comparison.title_ok:
        return ev.id_comparison
    return ev.candidate


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


def _better(a: Comparison | None, b: Comparison) -> Comparison:
    return b if a is None or b.score >= a.score else a


def notices_of(records: Iterable[WorkRecord]) -> set[UpdateKind]:
    return {u.kind for r in records for u in r.updates}


# ----------------------------------------------------------------------------------------
# Construction from settings
# ----------------------------------------------------------------------------------------


def build_verifier(
    settings: Settings, *, offline: bool = False, snapshot: Path | None = None
) -> Verifier:
    """A verifier over the configured sources behind the persistent cache.

    ``offline`` answers from the cache (and the snapshot, if any) only.  Close it with
    ``await verifier.aclose()`` (releases the HTTP client and the cache).
    """
    from citewarden.cache import Cache
    from citewarden.verify.config import resolve_config
    from citewarden.verify.sources.registry import build_sources, make_http

    config = resolve_config(settings.verify)
    notices: list[str] = []
    try:
        cache: Cache | None = Cache()
    except OSError as exc:  # uncreatable or unwritable: said once, then verify without one
        cache = None
        notices.append(f"verifying without a cache: {exc}")
    if cache is not None and cache.notice:
        notices.append(cache.notice)
    # request rates are shared with other processes through the cache directory
    http = make_http(config, shared_dir=cache.directory / "rate" if cache is not None else None)
    sources = build_sources(
        config,
        http,
        cache=cache,
        offline=offline or settings.verify.offline,
        snapshot=snapshot,
    )
    verifier = Verifier(sources, settings.verify)
    verifier.notices = notices
    verifier._closers.append(http.aclose)
    if cache is not None:
        verifier._closers.append(cache.close)
    return verifier


def verdict_counts(verdicts: Mapping[str, Verdict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in verdicts.values():
        counts[v.status.value] = counts.get(v.status.value, 0) + 1
    return counts
