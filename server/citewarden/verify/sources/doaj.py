"""DOAJ (Directory of Open Access Journals): a journal by ISSN, for heuristic 10.

``GET {base}/api/search/journals/issn:{issn}`` (DOAJ's public search API; no key).  The
answer is a search page (``total``, ``results`` of documented ``OutgoingJournal`` objects):
a result holding the ISSN is the journal's DOAJ record (FOUND), ``total: 0`` is DOAJ
saying it holds no such journal (NOT_FOUND); any other answer or a failure is FAILED and
says nothing.  It has no work look-ups: ``by_doi`` and ``search`` answer "unsupported"
(which the engine skips), like Open Library's.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from citewarden.verify.http import HttpClient
from citewarden.verify.records import DamagedRecord, Lookup, Query
from citewarden.verify.sources._common import guard, no_hits, reply_json
from citewarden.verify.sources.journals import journal_from_doaj


def _issns(result: Any) -> set[str]:
    """The print and electronic ISSNs a DOAJ journal result lists."""
    bib = result.get("bibjson") if isinstance(result, dict) else None
    if not isinstance(bib, dict):
        return set()
    values = (bib.get("pissn"), bib.get("eissn"))
    return {v.strip().upper() for v in values if isinstance(v, str) and v.strip()}


def _holds(result: Any, issn: str) -> bool:
    return issn in _issns(result)


class DoajSource:
    """DOAJ's journal search, asked by the journal look-up step only."""

    name = "doaj"

    def __init__(self, http: HttpClient, base_url: str = "https://doaj.org") -> None:
        self.http = http
        self.base_url = base_url.rstrip("/") + "/api"

    async def by_doi(self, doi: str) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    async def search(self, query: Query) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    async def journal(self, issn: str) -> Lookup:
        """DOAJ's record of the journal with ``issn`` (``1234-567X``)."""
        issn = issn.strip().upper()
        url = f"{self.base_url}/search/journals/{quote('issn:' + issn, safe=':')}"
        reply = await self.http.get(url, lane="doaj")
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data

        def build() -> Lookup:
            results = data["results"]
            if not isinstance(results, list):
                raise TypeError("results")
            if not results:
                return no_hits(self.name, data.get("total"))
            if not all(isinstance(r, dict) and isinstance(r.get("bibjson"), dict) for r in results):
                raise DamagedRecord("a result that is not a journal record")
            # a search on the ISSN field may match a related title's ISSN too (one that
            # lists no ISSN at all is no answer about this one)
            if not any(_issns(r) for r in results):
                raise DamagedRecord("journal records without an ISSN")
            chosen = next((r for r in results if _holds(r, issn)), None)
            if chosen is None:
                return Lookup.not_found(self.name)
            rec = journal_from_doaj(chosen, self.name)
            if rec is None:
                return Lookup.failed(self.name, "malformed response: a journal without a title")
            return Lookup.found(self.name, [rec])

        return guard(self.name, build)
