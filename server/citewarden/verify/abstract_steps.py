"""The matched work's abstract when the record the verdict rests on has none.

The citation context compares a sentence with the cited work's title and abstract.  dblp
never gives an abstract and Crossref gives one for some publishers only, so a work matched
there would be judged on its title alone.  OpenAlex and Semantic Scholar hold abstracts of
most works (arXiv of every preprint): their record of the match's identifier (its DOI, or
the arXiv id of an arXiv DOI) lends its abstract to the match, and ``Match.abstract_source``
names the lender.

A record at hand costs no request: fetched by the plan (which asks OpenAlex and Semantic
Scholar for every DOI of a large batch), in the cache, or asked by an earlier step.  Only a
verifier built with ``abstracts`` on (a run that has citing sentences to score) asks the
sources, through the coalesced batches (OpenAlex 50 DOIs, Semantic Scholar 100 ids a
request).  A record whose title does not agree with the match's lends nothing; a look-up
that failed says nothing.  Nothing but ``Match.abstract`` and its source changes.
"""

from __future__ import annotations

import dataclasses

from citewarden.model import Match, Verdict
from citewarden.verify.compare import compare_title
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.source_calls import SourceCalls

#: The arXiv DOI prefix (DataCite's registration of arXiv preprints).
_ARXIV_DOI = "10.48550/arxiv."


def lenders(match: Match) -> list[tuple[str, str, str]]:
    """(source, look-up method, identifier) of the records that may hold the abstract of
    ``match``'s work, the likeliest first."""
    doi = (match.doi or "").lower()
    if not doi:
        return []
    if doi.startswith(_ARXIV_DOI):
        arxiv_id = doi[len(_ARXIV_DOI) :]
        return [("semanticscholar", "by_arxiv", arxiv_id), ("arxiv", "by_arxiv", arxiv_id)]
    return [("openalex", "by_doi", doi), ("semanticscholar", "by_doi", doi)]


def lent_abstract(match: Match, lookup: Lookup | None) -> str | None:
    """The abstract of the record in ``lookup`` that is ``match``'s work (same DOI when
    both have one, and a title that agrees), if any."""
    if lookup is None or lookup.outcome is not Outcome.FOUND:
        return None
    for record in lookup.records:
        if not record.abstract:
            continue
        if _other_doi(match.doi, record.doi):
            continue
        title = compare_title(match.title, record) if match.title else None
        if title is not None and title.same_work:
            return record.abstract
    return None


def _other_doi(a: str | None, b: str | None) -> bool:
    """Both DOIs given and different (an arXiv DOI beside a publisher's is not: the
    indexes list a preprint under its published version's DOI)."""
    a, b = (a or "").lower(), (b or "").lower()
    if not a or not b or a == b:
        return False
    return not (a.startswith(_ARXIV_DOI) or b.startswith(_ARXIV_DOI))


class AbstractSteps(SourceCalls):
    """The step that lends the matched work an abstract (a base of the verifier)."""

    #: Ask the sources for an abstract no record at hand holds (see the module docstring).
    abstracts: bool = False

    async def _with_abstract(self, verdict: Verdict, *, ask: bool | None = None) -> Verdict:
        """``verdict`` with its match's abstract lent by another record of the work when
        the matched record had none: from a record at hand, and when ``ask`` (by default
        :attr:`abstracts`) by asking the sources."""
        match = verdict.match
        if match is None or match.abstract:
            return verdict
        wanted = [
            (name, method, arg)
            for name, method, arg in lenders(match)
            if name in self.sources and name != match.source
        ]
        for name, method, arg in wanted:
            lent = lent_abstract(match, await self._at_hand(name, method, arg))
            if lent:
                return _lent(verdict, match, lent, name)
        if not (self.abstracts if ask is None else ask):
            return verdict
        for name, method, arg in wanted:
            lookup = await self._ask_safely(self.sources[name], name, method, arg)
            lent = lent_abstract(match, lookup)
            if lent:
                return _lent(verdict, match, lent, name)
        return verdict


def _lent(verdict: Verdict, match: Match, abstract: str, source: str) -> Verdict:
    lent = dataclasses.replace(match, abstract=abstract, abstract_source=source)
    return dataclasses.replace(verdict, match=lent)
