"""arXiv API (Atom, parsed safely): ``id_list`` look-ups and ``ti:``/``au:`` searches."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from citewarden.verify.abstracts import clean_abstract
from citewarden.verify.http import HttpClient
from citewarden.verify.identifiers import strip_arxiv_version
from citewarden.verify.records import Lookup, Outcome, Query, WorkRecord
from citewarden.verify.sources._common import (
    UNUSABLE,
    clean_text,
    guard,
    hit_count,
    normalize_doi,
    person_from_name,
    reply_xml,
    used_query,
    within_page,
    year_from_string,
)

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

_ID = re.compile(r"(?:abs|pdf)/(.+?)(?:\.pdf)?$")
_NEW_ID = re.compile(r"^\d{4}\.\d{4,5}(v\d+)?$")
_OLD_ID = re.compile(r"^[a-z-]+(\.[A-Z]{2})?/\d{7}(v\d+)?$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)

#: Identifiers per batched ``id_list`` request.
BATCH = 50


def is_arxiv_id(value: str) -> bool:
    return bool(_NEW_ID.match(value) or _OLD_ID.match(value))


def work_from_entry(entry: Element, source: str = "arxiv") -> WorkRecord | None:
    """A :class:`WorkRecord` from an Atom ``<entry>`` (``None`` for error entries)."""
    raw_id = entry.findtext(f"{ATOM}id") or ""
    if "/api/errors" in raw_id:
        return None
    title = clean_text(entry.findtext(f"{ATOM}title"))
    if not title:
        return None
    m = _ID.search(raw_id)
    arxiv_id = m.group(1) if m else None
    authors = tuple(
        p
        for p in (
            person_from_name(a.findtext(f"{ATOM}name") or "")
            for a in entry.findall(f"{ATOM}author")
        )
        if p
    )
    doi = normalize_doi(entry.findtext(f"{ARXIV}doi"))
    journal_ref = clean_text(entry.findtext(f"{ARXIV}journal_ref"))
    primary = entry.find(f"{ARXIV}primary_category")
    extra: list[tuple[str, str]] = []
    if journal_ref:
        extra.append(("journal_ref", journal_ref))
    if primary is not None and primary.get("term"):
        extra.append(("primary_category", str(primary.get("term"))))
    return WorkRecord(
        source=source,
        title=title,
        authors=authors,
        # The year of the first version (what citations of a preprint use).
        year=year_from_string(entry.findtext(f"{ATOM}published")),
        doi=doi,  # the journal DOI the authors registered, if any
        venue="arXiv",
        work_type="posted-content",
        url=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
        record_id=arxiv_id,
        arxiv_id=strip_arxiv_version(arxiv_id) if arxiv_id else None,
        extra=tuple(extra),
        abstract=clean_abstract(entry.findtext(f"{ATOM}summary")),
        venue_kind="repository",
    )


def _answers(arxiv_id: str, records: tuple[WorkRecord, ...]) -> list[WorkRecord]:
    """The records of a batched answer that answer ``arxiv_id`` (the requested version when
    the batch holds several versions of one paper)."""
    same = [r for r in records if r.arxiv_id == strip_arxiv_version(arxiv_id)]
    return [r for r in same if r.record_id == arxiv_id] or same


def _expected_entries(feed: Element, params: dict[str, str]) -> int:
    """How many entries a complete page of ``feed`` holds: its ``totalResults`` past its
    ``startIndex``, at most the ``max_results`` asked (0 when the feed does not count)."""

    def number(text: str | None) -> int:
        return hit_count(text) or 0

    total = number(feed.findtext(f"{OPENSEARCH}totalResults"))
    start = number(feed.findtext(f"{OPENSEARCH}startIndex"))
    asked = number(params.get("max_results")) or total
    return max(0, min(total - start, asked))


#: Why an id a batch's answer does not hold is not absent when an entry's id is unreadable.
_UNPLACED = "malformed response: an entry whose arXiv id is unreadable"


def _entry_ids(feed: Element) -> frozenset[str]:
    """The arXiv ids (without version) of a feed's entries; ``""`` stands for an entry
    whose id is unreadable (it may be the entry of any id asked)."""
    ids = (_ID.search(e.findtext(f"{ATOM}id") or "") for e in feed.findall(f"{ATOM}entry"))
    return frozenset(strip_arxiv_version(m.group(1)) if m else "" for m in ids)


class ArxivSource:
    """The arXiv export API (one request every three seconds)."""

    name = "arxiv"

    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    async def _query(self, params: dict[str, str]) -> Lookup:
        """The records of one feed page.  A page that holds fewer entries than it counts
        (``totalResults``, up to the ``max_results`` asked; arXiv sends such pages now and
        then) is FAILED: what it leaves out is not known to be absent; so is a page whose
        entries give no usable record (no title): arXiv holds them."""
        found, held = await self._feed(params)
        if found.outcome is Outcome.NOT_FOUND and held:
            return Lookup.failed(self.name, UNUSABLE)
        return found

    async def _feed(self, params: dict[str, str]) -> tuple[Lookup, frozenset[str]]:
        """:meth:`_query`'s records and the arXiv ids (without version) of every entry of
        the page, those no record is made of included."""
        reply = await self.http.get(f"{self.base_url}/api/query", lane="arxiv", params=params)
        root = reply_xml(self.name, reply)
        if isinstance(root, Lookup):
            return root, frozenset()
        return self._read_feed(root, params), _entry_ids(root)

    def _read_feed(self, root: Element, params: dict[str, str]) -> Lookup:
        """The records of a parsed feed page (see :meth:`_query`)."""
        if root.tag != f"{ATOM}feed":
            return Lookup.failed(self.name, "malformed response: not an Atom feed")
        entries = root.findall(f"{ATOM}entry")
        if any("/api/errors" in (e.findtext(f"{ATOM}id") or "") for e in entries):
            return Lookup.failed(self.name, "arXiv API error")
        if hit_count(root.findtext(f"{OPENSEARCH}totalResults")) is None:
            # every arXiv feed counts its entries: without its count, a feed vouches for
            # no absence (an id of a batch it lacks, a search without hits)
            return Lookup.failed(self.name, "malformed response: a feed that does not count")
        if len(entries) < _expected_entries(root, params):
            return Lookup.failed(self.name, "answer incomplete: fewer entries than it counts")
        return guard(
            self.name,
            lambda: Lookup.found(
                self.name,
                [r for r in (work_from_entry(e, self.name) for e in within_page(entries)) if r],
            ),
        )

    async def by_arxiv(self, arxiv_id: str) -> Lookup:
        """Look up an arXiv identifier (new ``2104.12255`` or old ``astro-ph/0601001`` style)."""
        arxiv_id = arxiv_id.strip()
        if not is_arxiv_id(arxiv_id):
            return Lookup.not_found(self.name)
        return await self._query({"id_list": arxiv_id, "max_results": "1"})

    async def by_arxivs(self, arxiv_ids: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """Many identifiers per request (``id_list=a,b,...``, 50 per request).  Keys are the
        identifiers as given (stripped); an identifier a complete answer lacks is NOT_FOUND
        (a page with fewer entries than it counts is FAILED, see :meth:`_query`), a
        malformed one is NOT_FOUND without a request (as :meth:`by_arxiv` does)."""
        wanted = list(dict.fromkeys(i.strip() for i in arxiv_ids))
        out = {i: Lookup.not_found(self.name) for i in wanted if not is_arxiv_id(i)}
        valid = [i for i in wanted if i not in out]
        for start in range(0, len(valid), BATCH):
            chunk = valid[start : start + BATCH]
            params = {"id_list": ",".join(chunk), "max_results": str(len(chunk))}
            answer, held = await self._feed(params)
            for i in chunk:
                records = _answers(i, answer.records)
                if answer.outcome is Outcome.FAILED:
                    out[i] = answer
                elif not records and strip_arxiv_version(i) in held:  # no usable record
                    out[i] = Lookup.failed(self.name, UNUSABLE)
                elif not records and "" in held:
                    out[i] = Lookup.failed(self.name, _UNPLACED)
                else:
                    out[i] = Lookup.found(self.name, records)
        return out

    async def by_doi(self, doi: str) -> Lookup:
        """Only arXiv's own DOIs (``10.48550/arXiv.<id>``) can be looked up here."""
        m = _ARXIV_DOI.match(normalize_doi(doi) or "")
        if not m:
            return Lookup.failed(self.name, "unsupported")
        return await self.by_arxiv(m.group(1))

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query, authors=1)

    async def search(self, query: Query) -> Lookup:
        """``ti:"..."`` plus ``au:`` for the first author's surname."""
        words = re.sub(r"[^\w\s-]", " ", query.title)
        words = " ".join(w for w in words.split() if w.lower() not in {"and", "or", "andnot"})
        terms = [f'ti:"{words}"']
        if query.authors:
            terms.append(f'au:"{query.authors[0]}"')
        params = {
            "search_query": " AND ".join(terms),
            "max_results": str(max(1, min(query.limit, 20))),
        }
        return await self._query(params)
