"""OpenAlex: ``/works/doi:{doi}``, batched ``filter=doi:a|b``, and ``title.search``."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

from citewarden.verify.abstracts import from_inverted_index
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Person, Query, Update, UpdateKind, WorkRecord
from citewarden.verify.sources._common import (
    clean_doi,
    clean_text,
    guard,
    normalize_doi,
    one_work,
    page_found,
    per_doi,
    person_from_name,
    reply_json,
    used_query,
    works_found,
    year_from_string,
)
from citewarden.verify.sources.journals import journal_from_openalex
from citewarden.verify.sources.missing import OPENALEX
from citewarden.verify.sources.venue_search import MAX_HITS, openalex_venues

#: OpenAlex accepts up to 100 values in one OR filter; keep URLs short.
BATCH = 50
#: The most works OpenAlex puts on one page.
MAX_PER_PAGE = 200

SELECT = (
    "id,doi,title,display_name,publication_year,authorships,type,primary_location,"
    "biblio,ids,is_retracted,relevance_score,abstract_inverted_index,indexed_in"
)

#: OpenAlex source flags -> the index each one reports.
SOURCE_FLAGS = (("is_in_doaj", "doaj"), ("is_indexed_in_scopus", "scopus"), ("is_core", "core"))


def _complete(data: Any) -> bool:
    """Whether a list page holds every work it counts (``meta.count``; a page that does not
    count, as OpenAlex's always do, vouches for no absence)."""
    meta = data.get("meta") if isinstance(data, dict) else None
    count = meta.get("count") if isinstance(meta, dict) else None
    results = data.get("results") if isinstance(data, dict) else None
    if isinstance(count, bool) or not isinstance(count, int) or not isinstance(results, list):
        return False
    return count <= len(results)


def _held(data: Any) -> frozenset[str]:
    """The normalised DOIs of the works a list page holds (those no record is made of
    included)."""
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        return frozenset()
    dois = (normalize_doi(w.get("doi")) for w in results if isinstance(w, dict))
    return frozenset(d for d in dois if d)


def venue_indexes(
    work: dict[str, Any], src: dict[str, Any]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(indexes the record says the venue is in, indexes it says it is not in): the source
    flags ``true`` / ``false`` (an absent flag says neither), and PubMed when the work's
    ``indexed_in`` lists it.  That list is the work's own: a work missing from PubMed (or
    whose PMID OpenAlex lacks) says nothing of its journal, so it never rules PubMed out;
    the NLM Catalog does."""
    yes = [name for flag, name in SOURCE_FLAGS if src.get(flag) is True]
    no = [name for flag, name in SOURCE_FLAGS if src.get(flag) is False]
    listed = work.get("indexed_in")
    if isinstance(listed, list) and "pubmed" in listed:
        yes.append("pubmed")
    return tuple(yes), tuple(no)


def work_from_openalex(work: Any, source: str = "openalex") -> WorkRecord | None:
    """A :class:`WorkRecord` from an OpenAlex work object."""
    if not isinstance(work, dict):
        return None
    title = clean_text(work.get("title")) or clean_text(work.get("display_name"))
    if not title:
        return None
    authors: list[Person] = []
    for a in work.get("authorships") or []:
        if not isinstance(a, dict):
            continue
        name = (a.get("author") or {}).get("display_name") or a.get("raw_author_name")
        person = person_from_name(name) if isinstance(name, str) else None
        if person:
            authors.append(person)
    loc = work.get("primary_location") or {}
    src = loc.get("source") or {} if isinstance(loc, dict) else {}
    venue = clean_text(src.get("display_name")) or None
    short = tuple(
        s
        for s in (clean_text(src.get("abbreviated_title")), clean_text(loc.get("raw_source_name")))
        if s and s != venue
    )
    issn = tuple(i for i in (src.get("issn") or []) if isinstance(i, str))
    biblio = work.get("biblio") or {}
    first, last = clean_text(biblio.get("first_page")), clean_text(biblio.get("last_page"))
    pages = f"{first}-{last}" if first and last and first != last else first or None
    ids = work.get("ids") or {}
    pmid = clean_text(ids.get("pmid")).rsplit("/", 1)[-1] or None
    year = work.get("publication_year")
    relevance = work.get("relevance_score")
    flags = venue_indexes(work, src) if isinstance(src, dict) and src else ((), ())
    return WorkRecord(
        source=source,
        title=title,
        authors=tuple(authors),
        year=year_from_string(year) if isinstance(year, int) else None,
        doi=normalize_doi(work.get("doi")),
        venue=venue,
        venue_short=short,
        issn=issn,
        volume=clean_text(biblio.get("volume")) or None,
        issue=clean_text(biblio.get("issue")) or None,
        pages=pages,
        publisher=clean_text(src.get("host_organization_name")) or None,
        work_type=clean_text(work.get("type")) or None,
        url=clean_text(loc.get("landing_page_url")) or None,
        record_id=clean_text(work.get("id")).rsplit("/", 1)[-1] or None,
        pmid=pmid,
        updates=(Update(UpdateKind.RETRACTION, label="is_retracted"),)
        if work.get("is_retracted") is True
        else (),
        relevance=float(relevance) if isinstance(relevance, int | float) else None,
        abstract=from_inverted_index(work.get("abstract_inverted_index")),
        venue_kind=clean_text(src.get("type")) or None,
        venue_indexes=flags[0],
        venue_not_in=flags[1],
    )


class OpenAlexSource:
    """OpenAlex works API (``api_key`` and ``mailto`` are sent when configured)."""

    name = "openalex"

    def __init__(
        self,
        http: HttpClient,
        base_url: str,
        *,
        mailto: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.mailto = mailto
        self._api_key = api_key

    def _params(self, **params: str) -> dict[str, str]:
        if self.mailto:
            params["mailto"] = self.mailto
        if self._api_key:
            params["api_key"] = self._api_key
        return params

    async def by_doi(self, doi: str) -> Lookup:
        doi = clean_doi(doi)
        url = f"{self.base_url}/works/doi:{quote(doi, safe='/():;<>[]')}"
        reply = await self.http.get(url, lane="openalex", params=self._params(select=SELECT))
        return one_work(self.name, reply, lambda d: work_from_openalex(d, self.name), OPENALEX)

    async def journal(self, issn: str) -> Lookup:
        """The journal's Source record (``/sources/issn:{issn}``); a 404 says nothing (see
        :data:`.missing.OPENALEX`)."""
        url = f"{self.base_url}/sources/issn:{quote(issn.strip().upper(), safe='')}"
        reply = await self.http.get(url, lane="openalex", params=self._params())
        return one_work(self.name, reply, lambda d: journal_from_openalex(d, self.name), OPENALEX)

    async def venues(self, name: str) -> Lookup:
        """Sources whose names match ``name`` (``/sources?search=``, OpenAlex's search over
        display names, alternate and abbreviated titles); NOT_FOUND when none."""
        params = self._params(search=name.replace(",", " "), per_page=str(MAX_HITS))
        reply = await self.http.get(f"{self.base_url}/sources", lane="openalex", params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data
        return guard(self.name, lambda: openalex_venues(self.name, data))

    async def by_dois(self, dois: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """Look up many DOIs with ``filter=doi:a|b|...`` (50 per request, on a page of twice
        as many works: OpenAlex holds two works for some DOIs).  Keys are the normalised
        DOIs; a DOI absent from a complete answer is NOT_FOUND; a DOI absent from a page
        that counts more works than it holds, or holding ``,`` or ``|``, gets no answer (no
        key): it is asked on its own."""
        wanted = list(dict.fromkeys(normalize_doi(d) or d.strip().lower() for d in dois))
        # a DOI with a filter separator in it cannot be asked this way: left out of the
        # answer, it is asked on its own
        wanted = [d for d in wanted if not ({",", "|"} & set(d))]
        out: dict[str, Lookup] = {}
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            per_page = min(MAX_PER_PAGE, 2 * len(chunk))
            params = self._params(
                filter="doi:" + "|".join(chunk), per_page=str(per_page), select=SELECT
            )
            reply = await self.http.get(f"{self.base_url}/works", lane="openalex", params=params)
            data = reply_json(self.name, reply)
            if isinstance(data, Lookup):
                out.update({d: data for d in chunk})
                continue
            found = guard(self.name, functools.partial(self._results, data))
            out.update(per_doi(self.name, chunk, found, complete=_complete(data), held=_held(data)))
        return out

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query)

    async def search(self, query: Query) -> Lookup:
        """``filter=title.search:...`` (plus the publication year when given)."""
        title = query.title.replace(",", " ").replace("|", " ")
        filters = [f"title.search:{title}"]
        if query.free_text:  # free words: full-text search, anchored on the year
            words = " ".join([*query.authors, title])
            filters = [f"publication_year:{query.year}"] if query.year else []
            params = self._params(search=words, per_page=str(max(1, min(query.limit, 25))))
            if filters:
                params["filter"] = ",".join(filters)
            params["select"] = SELECT
            reply = await self.http.get(f"{self.base_url}/works", lane="openalex", params=params)
            found = reply_json(self.name, reply)
            if isinstance(found, Lookup):
                return found
            return guard(self.name, lambda: self._page(found))
        params = self._params(
            filter=",".join(filters), per_page=str(max(1, min(query.limit, 25))), select=SELECT
        )
        reply = await self.http.get(f"{self.base_url}/works", lane="openalex", params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data
        return guard(self.name, lambda: self._page(data))

    def _page(self, data: Any) -> Lookup:
        """The works of a search page; one without works is no hits only when it counts
        none (``meta.count``, see :func:`page_found`)."""
        meta = data.get("meta") if isinstance(data, dict) else None
        count = meta.get("count") if isinstance(meta, dict) else None
        return page_found(
            self.name, data["results"], count, lambda w: work_from_openalex(w, self.name)
        )

    def _results(self, data: Any) -> Lookup:
        return works_found(self.name, data["results"], lambda w: work_from_openalex(w, self.name))
