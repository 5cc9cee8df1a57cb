"""dblp publication search (computer science): ``/search/publ/api?q=...&format=json``, and
its venue search (``/search/venue/api``)."""

from __future__ import annotations

from typing import Any

from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Query, WorkRecord
from citewarden.verify.sources._common import (
    OddAnswer,
    all_texts,
    clean_text,
    guard,
    no_hits,
    normalize_doi,
    person_from_name,
    reply_json,
    used_query,
    works_found,
    year_from_string,
)
from citewarden.verify.sources.venue_search import MAX_HITS, dblp_venues

DBLP_TYPES = {
    "Journal Articles": "journal-article",
    "Conference and Workshop Papers": "proceedings-article",
    "Informal and Other Publications": "posted-content",
    "Books and Theses": "book",
    "Parts in Books or Collections": "book-chapter",
    "Editorship": "edited-book",
}


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def work_from_dblp(hit: Any, source: str = "dblp") -> WorkRecord | None:
    """A :class:`WorkRecord` from a dblp search hit."""
    if not isinstance(hit, dict):
        return None
    info = hit.get("info") or {}
    title = clean_text(info.get("title")).rstrip(".")
    if not title:
        return None
    authors = []
    for a in _as_list((info.get("authors") or {}).get("author")):
        name = a.get("text") if isinstance(a, dict) else a
        person = person_from_name(name) if isinstance(name, str) else None
        if person:
            authors.append(person)
    venues = all_texts(_as_list(info.get("venue")))
    score = hit.get("@score")
    volume = clean_text(info.get("volume")) or None
    extra: list[tuple[str, str]] = []
    if info.get("key"):
        extra.append(("dblp_key", str(info["key"])))
    ee = info.get("ee")
    arxiv_id = None
    for link in _as_list(ee):
        if isinstance(link, str) and "arxiv.org/abs/" in link:
            arxiv_id = link.rsplit("/abs/", 1)[1]
    return WorkRecord(
        source=source,
        title=title,
        authors=tuple(authors),
        year=year_from_string(info.get("year")),
        doi=normalize_doi(info.get("doi")),
        venue=venues[0] if venues else None,  # dblp venues are abbreviations ("CoRR", "NeurIPS")
        venue_short=tuple(venues),
        volume=volume,
        issue=clean_text(info.get("number")) or None,
        pages=clean_text(info.get("pages")) or None,
        work_type=DBLP_TYPES.get(
            clean_text(info.get("type")), clean_text(info.get("type")) or None
        ),
        url=clean_text(info.get("url")) or None,
        record_id=clean_text(info.get("key")) or None,
        arxiv_id=arxiv_id,
        relevance=float(score)
        if isinstance(score, str) and score.isascii() and score.isdigit()
        else None,
        extra=tuple(extra),
    )


class DblpSource:
    """dblp (no DOI look-up; search only)."""

    name = "dblp"

    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    async def by_doi(self, doi: str) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query)

    async def search(self, query: Query) -> Lookup:
        text = query.title
        if query.free_text:  # dblp's q matches words in authors, title, venue and year
            parts = [*query.authors, query.title, str(query.year or "")]
            text = " ".join(p for p in parts if p.strip())
        params = {"q": text, "format": "json", "h": str(max(1, min(query.limit, 30)))}
        reply = await self.http.get(f"{self.base_url}/search/publ/api", lane="dblp", params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data

        def build() -> Lookup:
            items = _hits(data)
            if not items:
                return Lookup.not_found(self.name)  # counted none (see _checked)
            return works_found(self.name, items, lambda h: work_from_dblp(h, self.name))

        return _unless_failed(self.name, data) or guard(self.name, build)

    async def venues(self, name: str) -> Lookup:
        """dblp's venue search (``/search/venue/api``; every word of ``name`` must prefix a
        word of a venue's name or acronym): the venues found, NOT_FOUND when none."""
        params = {"q": name, "format": "json", "h": str(MAX_HITS)}
        reply = await self.http.get(f"{self.base_url}/search/venue/api", lane="dblp", params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data
        return _unless_failed(self.name, data) or guard(
            self.name, lambda: dblp_venues(self.name, _checked(data))
        )


def _status(data: Any) -> str | None:
    """The code of the ``result.status`` of a dblp answer (``{"@code": "200", "text":
    "OK"}``); None when the answer has none."""
    result = data.get("result") if isinstance(data, dict) else None
    status = result.get("status") if isinstance(result, dict) else None
    if status is None:
        return None
    code = status.get("@code") if isinstance(status, dict) else None
    return code if isinstance(code, str) else "?"


def _unless_failed(source: str, data: Any) -> Lookup | None:
    """FAILED when the ``result.status`` of a dblp answer (sent with HTTP 200) says the
    search did not succeed: its hits, if any, are no answer."""
    code = _status(data)
    if code is None or code.strip() == "200":
        return None
    shown = code if code.isascii() and code.isdigit() and len(code) <= 3 else "?"
    return Lookup.failed(source, f"dblp error: status {shown} in its answer")


def _checked(data: Any) -> Any:
    """``data`` when it is a dblp result with a ``hits`` object that holds hits, or holds
    none and counts none (``@total`` "0", as every dblp answer counts its hits);
    :class:`OddAnswer` otherwise: a ``hits`` without a ``hit`` and without a count (or
    counting hits it does not hold) is no answer of dblp's, so it says nothing."""
    result = data.get("result") if isinstance(data, dict) else None
    hits = result.get("hits") if isinstance(result, dict) else None
    if not isinstance(hits, dict):
        raise OddAnswer("a dblp answer without its hits")
    if not _as_list(hits.get("hit")):
        no_hits("dblp", hits.get("@total"))
    return data


def _hits(data: Any) -> list[Any]:
    """The hits of a dblp search answer (see :func:`_checked`)."""
    return _as_list(_checked(data)["result"]["hits"].get("hit"))
