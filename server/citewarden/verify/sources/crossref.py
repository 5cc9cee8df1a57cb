"""Crossref REST API: ``/works/{doi}``, fielded search, and update notices.

Also home of :func:`work_from_csl`, the converter for Crossref work messages and CSL-JSON
(doi.org content negotiation returns CSL-JSON in nearly the same shape).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from citewarden.verify.abstracts import clean_abstract
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Outcome, Query, Update, WorkRecord
from citewarden.verify.sources._common import (
    OddAnswer,
    all_texts,
    clean_doi,
    clean_text,
    first_text,
    guard,
    no_hits,
    normalize_doi,
    one_work,
    per_doi,
    person_from_csl,
    reply_json,
    update_kind,
    used_query,
    works_found,
    year_from_parts,
)
from citewarden.verify.sources.journals import journal_from_crossref
from citewarden.verify.sources.missing import CROSSREF
from citewarden.verify.sources.venue_search import MAX_HITS, crossref_venues

#: Reads one item of a ``/works`` page (the item, the source name) into a record.
Convert = Callable[[Any, str], WorkRecord | None]

#: DOIs per batched request.
BATCH = 20
#: Rows asked for a batch of notices: the most Crossref gives in one page (a work has a
#: few notices at most).
NOTICES_ROWS = 1000

#: Fields requested for searches (keeps responses small).
SEARCH_SELECT = (
    "DOI,title,subtitle,author,editor,issued,published-print,published-online,published,"
    "container-title,short-container-title,ISSN,ISBN,volume,issue,page,article-number,type,"
    "publisher,URL,update-to,updated-by,score"
)

#: Fields requested for batched DOI look-ups: what a search asks for, plus what a single
#: ``/works/{doi}`` record carries beyond it and a verdict or a citation's context reads:
#: the relations (``is-preprint-of`` ...) and the publisher's abstract.
BATCH_SELECT = SEARCH_SELECT + ",relation,abstract"

#: A DOI the ``filter=doi:`` value carries as it is: the modern DOI syntax Crossref
#: recommends matching, without the ``;``, ``(``, ``)`` and ``:`` it also allows (a comma
#: ends a filter value, and older SICI-style DOIs hold ``<``, ``>``, ``;`` and ``:``).
FILTER_SAFE = re.compile(r"10\.\d{4,9}/[-._/a-z0-9]+")


def filter_safe(doi: str) -> bool:
    """Whether the normalised ``doi``'s absence from a filter answer means what
    ``/works/{doi}``'s 404 means."""
    return FILTER_SAFE.fullmatch(doi) is not None


def _filter_dois(dois: list[str] | tuple[str, ...]) -> list[str]:
    """``dois`` normalised, each once, as a ``filter=`` value can carry them: without
    those holding a comma (it would end the value and make the whole request invalid)."""
    asked = (normalize_doi(d) or d.strip().lower() for d in dois)
    return list(dict.fromkeys(d for d in asked if "," not in d))


#: Crossref update types that make a record a notice about another work.
NOTICE_TYPES = frozenset(
    {
        "retraction",
        "removal",
        "partial_retraction",
        "correction",
        "erratum",
        "corrigendum",
        "expression_of_concern",
        "withdrawal",
        "addendum",
        "clarification",
    }
)

CSL_TYPES = {
    "article-journal": "journal-article",
    "paper-conference": "proceedings-article",
    "chapter": "book-chapter",
    "article": "posted-content",
    "thesis": "dissertation",
}


def _year(msg: dict[str, Any]) -> int | None:
    # Publication year: issued, then print, then online; never "created"/"deposited"/"indexed".
    for key in ("issued", "published-print", "published-online", "published"):
        year = year_from_parts(msg.get(key))
        if year is not None:
            return year
    return None


def _other_years(msg: dict[str, Any], year: int | None) -> tuple[int, ...]:
    """The print and online years of the record besides ``year`` (an article online in
    December and in the next year's issue is cited by either)."""
    years = (year_from_parts(msg.get(key)) for key in ("published-print", "published-online"))
    return tuple(sorted({y for y in years if y is not None and y != year}))


def _updates(entries: Any, *, target: bool) -> tuple[Update, ...]:
    out = []
    for u in entries if isinstance(entries, list) else []:
        if not isinstance(u, dict):
            continue
        date = u.get("updated")
        year = year_from_parts(date)
        parts = date.get("date-parts") if isinstance(date, dict) else None
        when = None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            when = "-".join(
                f"{int(p):02d}" if i else str(int(p))
                for i, p in enumerate(parts[0])
                if isinstance(p, int)
            )
        elif year:
            when = str(year)
        out.append(
            Update(
                kind=update_kind(u.get("type")),
                doi=normalize_doi(u.get("DOI")),
                date=when,
                label=clean_text(u.get("label")) or clean_text(u.get("type")) or None,
            )
        )
    return tuple(out)


def work_from_csl(msg: Any, source: str = "crossref") -> WorkRecord | None:
    """A :class:`WorkRecord` from a Crossref work message or a CSL-JSON item.

    Handles the quirks of real records: HTML/JATS markup in titles, titles and container
    titles as lists or strings, subtitle lists (possibly ``[""]``), missing authors,
    organisations as ``name``, literal names, and dates with null or missing parts.
    Returns ``None`` when the record has no title at all.
    """
    if not isinstance(msg, dict):
        return None
    titles = all_texts(msg.get("title"))
    if not titles:
        return None
    doi = normalize_doi(msg.get("DOI"))
    subtitle = first_text(msg.get("subtitle"))
    if subtitle and subtitle.casefold() in titles[0].casefold():
        subtitle = None  # some publishers repeat the subtitle inside the title
    authors = tuple(p for p in (person_from_csl(a) for a in msg.get("author") or []) if p)
    venue_titles = all_texts(msg.get("container-title"))
    short = all_texts(msg.get("short-container-title")) + all_texts(
        msg.get("container-title-short")
    )
    issn = all_texts(msg.get("ISSN"))
    isbn = all_texts(msg.get("ISBN"))
    pages = clean_text(msg.get("page")) or clean_text(msg.get("article-number")) or None
    work_type = clean_text(msg.get("type")) or None
    if work_type in CSL_TYPES:
        work_type = CSL_TYPES[work_type]
    updated_by = _updates(msg.get("updated-by"), target=False)
    notice_updates = _notice_updates(msg, doi)
    # Updates from other works about this one (a self-referencing "new_version" is not one).
    about_this = tuple(u for u in updated_by if u.doi != doi)
    extra: list[tuple[str, str]] = []
    if len(titles) > 1:
        extra += [("alt-title", t) for t in titles[1:]]
    if len(venue_titles) > 1:
        extra += [("alt-container-title", t) for t in venue_titles[1:]]
    relation: dict[str, Any] = msg["relation"] if isinstance(msg.get("relation"), dict) else {}
    for rel in ("is-preprint-of", "has-preprint", "is-version-of"):
        for r in relation.get(rel) or []:
            if isinstance(r, dict) and r.get("id-type") == "doi" and normalize_doi(r.get("id")):
                extra.append((rel, normalize_doi(r.get("id")) or ""))
    score = msg.get("score")
    year = _year(msg)
    return WorkRecord(
        source=source,
        title=titles[0],
        authors=authors,
        year=year,
        other_years=_other_years(msg, year),
        doi=doi,
        subtitle=subtitle,
        venue=venue_titles[0] if venue_titles else None,
        venue_short=tuple(s for s in short if not venue_titles or s != venue_titles[0]),
        issn=issn,
        isbn=isbn,
        volume=clean_text(msg.get("volume")) or None,
        issue=clean_text(msg.get("issue")) or None,
        pages=pages,
        publisher=clean_text(msg.get("publisher")) or None,
        work_type=work_type,
        url=clean_text(msg.get("URL")) or None,
        record_id=doi,
        updates=notice_updates if notice_updates else about_this,
        is_notice=bool(notice_updates),
        relevance=float(score) if isinstance(score, int | float) else None,
        extra=tuple(extra),
        abstract=clean_abstract(msg.get("abstract")),
    )


def _notice_updates(msg: dict[str, Any], doi: str | None) -> tuple[Update, ...]:
    """The updates by which the record ``msg`` (of ``doi``) is a notice: those of its
    ``update-to`` that update *another* work with a notice type (a "new_version" pointing
    at itself is not a notice)."""
    raw_updates = msg.get("update-to")
    kept = (
        [raw for raw in raw_updates if isinstance(raw, dict)]
        if isinstance(raw_updates, list)
        else []
    )
    update_to = _updates(kept, target=True)
    return tuple(
        u
        for u, raw in zip(update_to, kept, strict=False)
        if u.doi != doi and str(raw.get("type", "")).lower() in NOTICE_TYPES
    )


def notice_from_csl(msg: Any, source: str = "crossref") -> WorkRecord | None:
    """A record of an answer to a notices look-up (``filter=updates:``): the work's
    record, or for a notice deposited without a title, a record with an empty title, as a
    notice is known by what it updates (``update-to``: the work, the kind, the date), not
    by its title.  None for an untitled item that is no notice."""
    record = work_from_csl(msg, source)
    if record is not None or not isinstance(msg, dict):
        return record
    doi = normalize_doi(msg.get("DOI"))
    updates = _notice_updates(msg, doi)
    if not updates:
        return None
    work_type = clean_text(msg.get("type")) or None
    return WorkRecord(
        source=source,
        title="",
        doi=doi,
        year=_year(msg),
        work_type=CSL_TYPES.get(work_type, work_type) if work_type else None,
        record_id=doi,
        updates=updates,
        is_notice=True,
    )


class CrossrefSource:
    """Crossref REST API (polite pool when a mailto is configured)."""

    name = "crossref"

    def __init__(self, http: HttpClient, base_url: str, *, mailto: str | None = None) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.mailto = mailto
        self._lane = "crossref" if mailto else "crossref-public"
        self._query_lane = "crossref-query" if mailto else "crossref-query-public"

    def _params(self, **params: str) -> dict[str, str]:
        if self.mailto:
            params["mailto"] = self.mailto
        return params

    async def by_doi(self, doi: str) -> Lookup:
        doi = clean_doi(doi)
        url = f"{self.base_url}/works/{quote(doi, safe='/():;<>[]')}"
        reply = await self.http.get(url, lane=self._lane, params=self._params())
        # a DOI Crossref does not know: 404 "Resource not found." (any other 404: FAILED)
        return one_work(
            self.name, reply, lambda d: work_from_csl(_message(d, "work"), self.name), CROSSREF
        )

    async def journal(self, issn: str) -> Lookup:
        """The journal's record (``/journals/{issn}``); Crossref's own 404 ("Resource not
        found.") -> NOT_FOUND."""
        url = f"{self.base_url}/journals/{quote(issn.strip().upper(), safe='')}"
        reply = await self.http.get(url, lane=self._lane, params=self._params())
        return one_work(
            self.name,
            reply,
            lambda d: journal_from_crossref(_message(d, "journal"), self.name),
            CROSSREF,
        )

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query, authors=None)

    async def venues(self, name: str) -> Lookup:
        """Journals whose titles match ``name`` (``/journals?query=``, on the query lane);
        NOT_FOUND when none."""
        params = self._params(query=name, rows=str(MAX_HITS))
        reply = await self.http.get(
            f"{self.base_url}/journals", lane=self._query_lane, params=params
        )
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data

        def build() -> Lookup:
            _message(data, "journal-list")  # an error in a 200, another resource's answer
            return crossref_venues(self.name, data)

        return guard(self.name, build)

    async def search(self, query: Query) -> Lookup:
        """Fielded search: ``query.title`` (+ ``query.author``), or ``query.bibliographic``
        when the query carries only a free-text title with no authors; a ``free_text``
        query is ``query.bibliographic`` (its words and year) + ``query.author``."""
        params = self._params(rows=str(max(1, min(query.limit, 20))), select=SEARCH_SELECT)
        if query.free_text:
            words = [query.title, str(query.year or "")]
            params["query.bibliographic"] = " ".join(w for w in words if w)
            if query.authors:
                params["query.author"] = " ".join(query.authors)
        elif query.authors:
            params["query.title"] = query.title
            params["query.author"] = " ".join(query.authors)
        else:
            params["query.bibliographic"] = query.title
        return await self._list(params)

    async def search_bibliographic(self, text: str, limit: int = 5) -> Lookup:
        """Free-text reference search (``query.bibliographic``)."""
        params = self._params(rows=str(max(1, min(limit, 20))), select=SEARCH_SELECT)
        params["query.bibliographic"] = text
        return await self._list(params)

    async def by_dois(self, dois: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """Many DOIs per request (``filter=doi:a,doi:b,...``, 20 per request, on the query
        lane).  Keys are normalised DOIs.  A DOI absent from a successful answer is
        NOT_FOUND ("not at Crossref", as ``/works/{doi}`` would answer) only when the
        answer is a work list that holds every work it counts (``total-results``), is
        evidently an OR of its filters (it holds another DOI of the request), and the DOI
        is one the filter carries as it is (:func:`filter_safe`); any other absent
        DOI is left out of the result, so that ``/works/{doi}`` is asked for it (see
        :mod:`citewarden.verify.plan`), and so is a DOI holding a comma, never sent (it
        would end its filter value and make the whole request invalid)."""
        wanted = _filter_dois(dois)
        out: dict[str, Lookup] = {}
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            params = self._params(
                filter=",".join(f"doi:{d}" for d in chunk),
                rows=str(len(chunk)),
                select=BATCH_SELECT,
            )
            answer, held, holds_all = await self._page(params)
            answers = per_doi(self.name, chunk, answer, complete=holds_all)
            ored = any(a.outcome is Outcome.FOUND for a in answers.values())
            out.update(
                {
                    d: a
                    for d, a in answers.items()
                    if a.outcome is not Outcome.NOT_FOUND
                    or (ored and filter_safe(d) and d not in held)
                }
            )
        return out

    async def notices(self, doi: str) -> Lookup:
        """Retraction / correction / expression-of-concern notices about ``doi``
        (``filter=updates:{doi}``).  FOUND records are the notices (``is_notice``)."""
        doi = clean_doi(doi)
        params = self._params(filter=f"updates:{doi}", rows="20")
        return await self._list(params, convert=notice_from_csl)

    async def notices_many(self, dois: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """:meth:`notices` for many DOIs, ``BATCH`` a request (``filter=updates:a,updates:b``:
        Crossref ORs filters of the same name), keys the normalised DOIs.  Each notice of an
        answer goes to the DOIs it updates; a DOI none updates is NOT_FOUND, as its own
        ``filter=updates:`` answer would be.  An answer that does not list all its matches
        (more than a page) is FAILED for its DOIs, which then ask on their own."""
        wanted = _filter_dois(dois)
        out: dict[str, Lookup] = {}
        if len(wanted) == 1:
            return {wanted[0]: await self.notices(wanted[0])}
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            params = self._params(
                filter=",".join(f"updates:{d}" for d in chunk), rows=str(NOTICES_ROWS)
            )
            answer = await self._list(params, complete=True, convert=notice_from_csl)
            for d in chunk:
                if answer.outcome is Outcome.FAILED:
                    out[d] = answer
                    continue
                about = [r for r in answer.records if any(u.doi == d for u in r.updates)]
                out[d] = Lookup.found(self.name, about)  # NOT_FOUND when none is about it
        return out

    async def _list(
        self, params: dict[str, str], *, complete: bool = False, convert: Convert | None = None
    ) -> Lookup:
        """A ``/works`` list; ``complete``: it must hold every match, so it is FAILED when
        ``total-results`` says there are more than the page holds, or says nothing.
        ``convert`` reads an item (:func:`work_from_csl` by default)."""
        return (await self._page(params, complete=complete, convert=convert))[0]

    async def _page(
        self, params: dict[str, str], *, complete: bool = False, convert: Convert | None = None
    ) -> tuple[Lookup, frozenset[str], bool]:
        """:meth:`_list`'s answer, the DOIs of every item the page holds, those of items no
        record is made of (no title) included: Crossref holds them, and whether the page
        holds every work it counts (``total-results``; a page that does not count holds
        no "not found" for what it lacks)."""
        reply = await self.http.get(f"{self.base_url}/works", lane=self._query_lane, params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data, frozenset(), False
        return self._read_page(data, complete, convert), _item_dois(data), _holds_all(data)

    def _read_page(self, data: Any, complete: bool, convert: Convert | None = None) -> Lookup:
        read = convert or work_from_csl

        def build() -> Lookup:
            message = _message(data, "work-list")
            items = message["items"]
            if not isinstance(items, list):
                raise TypeError("items")
            total = _total(message)
            if not items:
                return no_hits(self.name, total)
            if complete and total is None:
                raise OddAnswer("a page that does not count its results")
            if complete and total is not None and total > len(items):
                return Lookup.failed(self.name, "answer incomplete: more notices than a page")
            return works_found(self.name, items, lambda m: read(m, self.name))

        return guard(self.name, build)


def _message(data: Any, kind: str) -> Any:
    """The ``message`` of a Crossref answer whose envelope says it is a ``kind`` (``status``
    ``ok``, ``message-type``); :class:`OddAnswer` for anything else (an error in a 200,
    another resource's answer)."""
    if not isinstance(data, dict) or "message" not in data:
        raise OddAnswer("not a Crossref answer")
    if data.get("status") != "ok":
        raise OddAnswer("a Crossref answer whose status is not ok")
    if data.get("message-type") != kind:
        raise OddAnswer(f"a Crossref answer that is not a {kind}")
    return data["message"]


def _total(message: Any) -> int | None:
    """A list page's ``total-results`` (None when it has none); :class:`OddAnswer` for a
    value no count is."""
    total = message.get("total-results") if isinstance(message, dict) else None
    if total is None:
        return None
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise OddAnswer("a total-results that is no count")
    return total


def _holds_all(data: Any) -> bool:
    """Whether a ``/works`` list page is a work list that holds every work it counts: its
    ``total-results`` no more than its items (a page without a count, or of another shape,
    vouches for no absence)."""
    try:
        message = _message(data, "work-list")
        total = _total(message)
    except OddAnswer:
        return False
    items = message.get("items") if isinstance(message, dict) else None
    return isinstance(items, list) and total is not None and total <= len(items)


def _item_dois(data: Any) -> frozenset[str]:
    """The normalised DOIs of the items of a ``/works`` list page."""
    message = data.get("message") if isinstance(data, dict) else None
    items = message.get("items") if isinstance(message, dict) else None
    if not isinstance(items, list):
        return frozenset()
    dois = (normalize_doi(i.get("DOI")) for i in items if isinstance(i, dict))
    return frozenset(d for d in dois if d)
