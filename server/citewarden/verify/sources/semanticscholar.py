"""Semantic Scholar Graph API: ``/paper/DOI:``, ``/paper/search/match``, ``/paper/batch``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from citewarden.verify.abstracts import clean_abstract
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Query, WorkRecord
from citewarden.verify.sources._common import (
    OddAnswer,
    all_texts,
    clean_doi,
    clean_text,
    guard,
    normalize_doi,
    one_work,
    page_found,
    person_from_name,
    reply_json,
    usable_work,
    used_query,
    works_found,
    year_from_string,
)
from citewarden.verify.sources.missing import (
    SEMANTIC_SCHOLAR,
    SEMANTIC_SCHOLAR_MATCH,
    read_404,
)

FIELDS = (
    "title,authors,year,venue,publicationVenue,journal,externalIds,publicationTypes,url,"
    "abstract,tldr"
)
#: Ids per ``POST /paper/batch`` request: the API accepts up to 500.
BATCH = 500


def work_from_s2(paper: Any, source: str = "semanticscholar") -> WorkRecord | None:
    """A :class:`WorkRecord` from a Semantic Scholar paper object."""
    if not isinstance(paper, dict):
        return None
    title = clean_text(paper.get("title"))
    if not title:
        return None
    authors = tuple(
        p
        for p in (
            person_from_name(a.get("name") or "")
            for a in paper.get("authors") or []
            if isinstance(a, dict)
        )
        if p
    )
    ext = paper.get("externalIds") or {}
    pv = paper.get("publicationVenue") or {}
    journal = paper.get("journal") or {}
    venue = (
        clean_text(pv.get("name"))
        or clean_text(journal.get("name"))
        or clean_text(paper.get("venue"))
        or None
    )
    short = tuple(s for s in all_texts(pv.get("alternate_names") or []) if s != venue)
    issn = tuple(i for i in [pv.get("issn")] if isinstance(i, str) and i)
    pages = clean_text(journal.get("pages")).replace(" ", "") or None
    types = paper.get("publicationTypes") or []
    year = paper.get("year")
    arxiv = clean_text(ext.get("ArXiv")) or None
    tldr: dict[str, Any] = paper["tldr"] if isinstance(paper.get("tldr"), dict) else {}
    return WorkRecord(
        source=source,
        title=title,
        authors=authors,
        year=year_from_string(year) if isinstance(year, int) else None,
        doi=normalize_doi(ext.get("DOI")),
        venue=venue,
        venue_short=short,
        issn=issn,
        volume=clean_text(journal.get("volume")) or None,
        pages=pages,
        work_type=clean_text(types[0]) if isinstance(types, list) and types else None,
        url=clean_text(paper.get("url")) or None,
        record_id=clean_text(paper.get("paperId")) or None,
        arxiv_id=arxiv,
        pmid=clean_text(ext.get("PubMed")) or None,
        relevance=float(paper["matchScore"])
        if isinstance(paper.get("matchScore"), int | float)
        else None,
        abstract=clean_abstract(paper.get("abstract")) or clean_abstract(tldr.get("text")),
    )


class SemanticScholarSource:
    """Semantic Scholar (the API key, if any, goes in the ``x-api-key`` header)."""

    name = "semanticscholar"

    def __init__(self, http: HttpClient, base_url: str, *, api_key: str | None = None) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/") + "/graph/v1"
        self._headers = {"x-api-key": api_key} if api_key else {}
        self._lane = "semanticscholar-key" if api_key else "semanticscholar"

    async def _paper(self, paper_id: str) -> Lookup:
        url = f"{self.base_url}/paper/{quote(paper_id, safe='/:().;')}"
        reply = await self.http.get(
            url, lane=self._lane, params={"fields": FIELDS}, headers=self._headers
        )
        return one_work(self.name, reply, lambda d: work_from_s2(d, self.name), SEMANTIC_SCHOLAR)

    async def by_doi(self, doi: str) -> Lookup:
        return await self._paper("DOI:" + clean_doi(doi))

    async def by_arxiv(self, arxiv_id: str) -> Lookup:
        return await self._paper("ARXIV:" + arxiv_id.strip())

    async def by_dois(self, dois: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """``POST /paper/batch`` with ``DOI:`` ids; keys are the normalised DOIs."""
        wanted = list(dict.fromkeys(normalize_doi(d) or d.strip().lower() for d in dois))
        return await self._batch("DOI:", wanted)

    async def by_arxivs(self, arxiv_ids: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """``POST /paper/batch`` with ``ARXIV:`` ids; keys are the ids as given (stripped)."""
        return await self._batch("ARXIV:", list(dict.fromkeys(a.strip() for a in arxiv_ids)))

    async def _batch(self, prefix: str, wanted: list[str]) -> dict[str, Lookup]:
        """Answers come back in request order, ``null`` = unknown (NOT_FOUND)."""
        out: dict[str, Lookup] = {}
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            reply = await self.http.request(
                "POST",
                f"{self.base_url}/paper/batch",
                lane=self._lane,
                params={"fields": FIELDS},
                headers=self._headers,
                json_body={"ids": [prefix + d for d in chunk]},
            )
            data = reply_json(self.name, reply)
            if isinstance(data, Lookup):
                out.update({d: data for d in chunk})
                continue
            if not isinstance(data, list) or len(data) != len(chunk):
                failed = Lookup.failed(self.name, "malformed response: batch length")
                out.update({d: failed for d in chunk})
                continue
            for d, paper in zip(chunk, data, strict=True):
                if paper is None:
                    out[d] = Lookup.not_found(self.name)
                else:
                    out[d] = self._one(paper)
        return out

    def _one(self, paper: Any) -> Lookup:
        return guard(self.name, lambda: usable_work(self.name, work_from_s2(paper, self.name)))

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query, limit=False)

    async def search(self, query: Query) -> Lookup:
        """Title match (``/paper/search/match``): the single best match, or NOT_FOUND; a
        ``free_text`` query is a relevance search (``/paper/search``) within its year."""
        params = {"query": query.title, "fields": FIELDS}
        endpoint = "/paper/search/match"
        if query.free_text:
            endpoint = "/paper/search"
            params["query"] = " ".join([*query.authors, query.title])
            params["limit"] = str(max(1, min(query.limit, 20)))
            if query.year:
                params["year"] = str(query.year)
        reply = await self.http.get(
            f"{self.base_url}{endpoint}",
            lane=self._lane,
            params=params,
            headers=self._headers,
        )
        if not query.free_text:
            # no title matches: 404 {"error": "Title match not found"} (any other 404: FAILED)
            absent = read_404(self.name, reply, SEMANTIC_SCHOLAR_MATCH)
            if absent is not None:
                return absent
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data
        if query.free_text:
            return guard(self.name, lambda: self._search_page(data))

        def build() -> Lookup:
            # no match is the 404 above: a 200 always holds the paper matched
            if not isinstance(data, dict) or not isinstance(data.get("data"), list):
                raise OddAnswer("a title match without its data")
            if not data["data"]:
                raise OddAnswer("a title match without a paper")
            return works_found(self.name, data["data"], lambda p: work_from_s2(p, self.name))

        return guard(self.name, build)

    def _search_page(self, data: Any) -> Lookup:
        """The papers of a relevance search page (``total``, ``offset``, ``data``).  A page
        that counts no paper (``{"total": 0, "offset": 0}``: Semantic Scholar leaves
        ``data`` out then) is an answered search with no hits, NOT_FOUND; a page without
        ``data`` that counts papers, or that does not count, says nothing."""
        if not isinstance(data, dict):
            raise OddAnswer("a search answer that is not an object")
        total = data.get("total")
        if isinstance(total, bool) or not (total is None or isinstance(total, int)):
            raise OddAnswer("a search total that is no count")
        papers = data.get("data", [])  # left out of a page that counts none
        return page_found(self.name, papers, total, lambda p: work_from_s2(p, self.name))
