"""DataCite REST API: ``/dois/{doi}`` (JSON:API) and title search."""

from __future__ import annotations

import datetime
import re
from typing import Any
from urllib.parse import quote

from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Person, Query, WorkRecord
from citewarden.verify.sources._common import (
    clean_doi,
    clean_text,
    guard,
    normalize_doi,
    one_work,
    page_found,
    person_from_name,
    reply_json,
    used_query,
    year_from_string,
)
from citewarden.verify.sources.missing import DATACITE

#: A word of a title: letters and digits, what the search's analyser indexes.
_TERM = re.compile(r"[^\W_]+")


def title_terms(title: str) -> str:
    """A title as the words of an Elasticsearch ``query_string``: its syntax characters
    (``: ! ( ) [ ] { } / ^ ~ * ? + - && ||`` ...) left out, and lower case, so that a
    title's "AND", "OR" and "NOT" are words and not operators."""
    return " ".join(_TERM.findall(title.lower()))


def _creator(c: Any) -> Person | None:
    if not isinstance(c, dict):
        return None
    family = clean_text(c.get("familyName"))
    if family:
        return Person(family, clean_text(c.get("givenName")))
    name = clean_text(c.get("name"))
    if not name:
        return None
    if c.get("nameType") == "Organizational":
        return Person(name)
    return person_from_name(name)


def work_from_datacite(item: Any, source: str = "datacite") -> WorkRecord | None:
    """A :class:`WorkRecord` from a DataCite JSON:API ``data`` object."""
    if not isinstance(item, dict):
        return None
    a = item.get("attributes") or {}
    titles = [t for t in a.get("titles") or [] if isinstance(t, dict)]
    main = [t for t in titles if not t.get("titleType")] or titles
    title = clean_text(main[0].get("title")) if main else ""
    if not title:
        return None
    subtitle = next(
        (clean_text(t.get("title")) for t in titles if t.get("titleType") == "Subtitle"), None
    )
    container = a.get("container") or {}
    types = a.get("types") or {}
    issn: tuple[str, ...] = ()
    if container.get("identifierType") == "ISSN" and container.get("identifier"):
        issn = (str(container["identifier"]),)
    first, last = clean_text(container.get("firstPage")), clean_text(container.get("lastPage"))
    publisher = a.get("publisher")
    if isinstance(publisher, dict):  # newer API versions return {"name": ...}
        publisher = publisher.get("name")
    year = year_from_string(a.get("publicationYear"))
    if year is not None and year > datetime.date.today().year + 2:
        year = None  # e.g. a Buddhist-era year (2549 = 2006 CE): unknown rather than wrong
    return WorkRecord(
        source=source,
        title=title,
        authors=tuple(p for p in (_creator(c) for c in a.get("creators") or []) if p),
        year=year,
        doi=normalize_doi(a.get("doi") or item.get("id")),
        subtitle=subtitle or None,
        venue=clean_text(container.get("title")) or None,
        issn=issn,
        volume=clean_text(container.get("volume")) or None,
        issue=clean_text(container.get("issue")) or None,
        pages=(f"{first}-{last}" if first and last else first) or None,
        publisher=clean_text(publisher) or None,
        work_type=clean_text(types.get("citeproc"))
        or clean_text(types.get("resourceTypeGeneral"))
        or None,
        url=clean_text(a.get("url")) or None,
        record_id=normalize_doi(item.get("id")),
    )


class DataCiteSource:
    """DataCite DOIs (datasets, software, theses, preprints on Zenodo / figshare ...)."""

    name = "datacite"

    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    async def by_doi(self, doi: str) -> Lookup:
        doi = clean_doi(doi)
        url = f"{self.base_url}/dois/{quote(doi, safe='/():;<>[]+')}"
        reply = await self.http.get(url, lane="datacite")
        return one_work(
            self.name, reply, lambda d: work_from_datacite(d["data"], self.name), DATACITE
        )

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query)

    async def search(self, query: Query) -> Lookup:
        """Title search (``query=titles.title:(...)``)."""
        params = {
            "query": f"titles.title:({title_terms(query.title)})",
            "page[size]": str(max(1, min(query.limit, 25))),
        }
        reply = await self.http.get(f"{self.base_url}/dois", lane="datacite", params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data

        def build() -> Lookup:
            # no hits only when the page counts none (meta.total, see page_found)
            meta = data.get("meta") if isinstance(data, dict) else None
            total = meta.get("total") if isinstance(meta, dict) else None
            return page_found(
                self.name, data["data"], total, lambda i: work_from_datacite(i, self.name)
            )

        return guard(self.name, build)
