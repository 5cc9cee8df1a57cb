"""Identifier look-ups: DOI via Crossref then doi.org, arXiv id via arXiv then Semantic
Scholar, ISBN via Open Library, PMID via PubMed.

A DOI Crossref does not hold is asked at doi.org, the registry of every DOI, unless doi.org
says its prefix does not exist (``/ra/``, many prefixes a request, kept long).  Crossref's
own "Resource not found" never says a DOI does not exist: its REST API lacks DOIs it
registered (an alias of another DOI, a DOI registered hours ago, gaps its index fills
later), which doi.org resolves."""

from __future__ import annotations

from collections.abc import Sequence

from citewarden.verify.compare import compare
from citewarden.verify.evidence import Evidence, IdKind, IdState
from citewarden.verify.records import Lookup, Outcome, WorkRecord
from citewarden.verify.source_calls import PARTIAL_SOURCES, SourceCalls
from citewarden.verify.sources._common import normalize_doi
from citewarden.verify.sources.crossref import filter_safe
from citewarden.verify.sources.doi import doi_prefix


class IdLookup(SourceCalls):
    """The look-up of an entry's identifier."""

    async def _identify(self, ev: Evidence) -> None:
        e = ev.entry
        if e.doi:
            ev.id_kind, ev.id_value = IdKind.DOI, e.doi
            if e.doi.startswith("10.48550/arxiv.") and e.arxiv_id:
                await self._by_arxiv(ev, e.arxiv_id, keep_kind=True)
                return
            await self._by_doi(ev, e.doi)
            tail = e.doi_tail
            if tail is not None and ev.id_state is IdState.MISSING:
                # the DOI as written ends in its address's query or fragment (?utm_source=x),
                # which its registry does not know: the DOI without them may be the work's
                await self._by_doi(ev, tail.doi)
                if ev.id_state is IdState.FOUND:
                    ev.id_tail, ev.id_value = tail, tail.doi
                elif ev.id_state is not IdState.MISSING:
                    # the reading without the tail could not be checked: nothing is known
                    ev.id_state, ev.id_missing_from = IdState.FAILED, None
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

    async def _by_doi(self, ev: Evidence, doi: str) -> None:
        """Crossref, doi.org and DataCite (and a snapshot) asked for ``doi``, in turn, until
        one finds it or doi.org says it does not exist."""
        states: list[Outcome] = []
        ev.id_state, ev.id_missing_from = None, None
        for name in ("snapshot", "crossref", "doi", "datacite"):
            if name not in self.sources:
                continue
            lookup = await self._call(ev, name, "by_doi", doi)
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
            crossref_lacks = name == "crossref" and lookup.outcome is Outcome.NOT_FOUND
            if crossref_lacks and await self._prefix_unknown(ev, doi):
                ev.id_state, ev.id_missing_from = IdState.MISSING, "doi"
                return
        # only doi.org, the registry of every DOI, may say a DOI does not exist; Crossref
        # and DataCite each know only what their indexes hold
        ev.id_state = IdState.FAILED if states else None

    async def _prefix_unknown(self, ev: Evidence, doi: str) -> bool:
        """Whether doi.org says the prefix of ``doi``, which Crossref does not hold, does not
        exist (then no DOI under it does; one request for many prefixes, kept long).  False
        when the prefix exists (doi.org is then asked for the DOI itself), the question
        failed, or the DOI is not of the plain modern syntax."""
        prefix = doi_prefix(doi)
        source = self.sources.get("doi")
        if prefix is None or source is None or getattr(source, "agency", None) is None:
            return False
        if not filter_safe(normalize_doi(doi) or ""):
            return False  # an older syntax (SICI: <, >, ;): doi.org is asked for the DOI
        answer = await self._ask_safely(source, "doi", "agency", prefix)
        if answer.outcome is Outcome.NOT_FOUND:
            ev.sources.append("doi")
            return True
        return False

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
