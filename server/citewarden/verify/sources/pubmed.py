"""NCBI E-utilities for PubMed: esearch, efetch/esummary (XML parsed safely), ECitMatch."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from citewarden.verify.abstracts import clean_abstract
from citewarden.verify.authors import split_suffix
from citewarden.verify.http import Failure, HttpClient, Reply
from citewarden.verify.normalize import page_range
from citewarden.verify.records import (
    Lookup,
    Outcome,
    Person,
    Query,
    Update,
    UpdateKind,
    WorkRecord,
)
from citewarden.verify.sources._common import (
    UNUSABLE,
    clean_text,
    dotted_initials,
    guard,
    no_hits,
    normalize_doi,
    person_from_name,
    reply_xml,
    used_query,
    within_page,
    year_from_string,
)
from citewarden.verify.sources.nlmcatalog import is_entrez_id, nlm_journal

#: PMIDs per batched efetch request (E-utilities take a few hundred ids per GET).
PMID_BATCH = 100

CORRECTION_REFS = {
    "RetractionIn": UpdateKind.RETRACTION,
    "ErratumIn": UpdateKind.CORRECTION,
    "ExpressionOfConcernIn": UpdateKind.EXPRESSION_OF_CONCERN,
    "RetractionOf": UpdateKind.RETRACTION,
}


def _text(el: Element | None) -> str:
    return clean_text("".join(el.itertext())) if el is not None else ""


def _abstract(article: Element) -> str | None:
    """The abstract's sections (``<AbstractText Label=...>``) joined as plain text."""
    parts: list[str] = []
    for section in article.findall("Abstract/AbstractText"):
        text = _text(section)
        label = section.get("Label")
        if text:
            parts.append(f"{label.capitalize()}: {text}" if label else text)
    return clean_abstract(" ".join(parts))


def _pages(pagination: Element | None) -> str | None:
    """The article's pages written whole: ``<StartPage>``-``<EndPage>`` when the record
    has them, else ``<MedlinePgn>`` with MEDLINE's abbreviated last page expanded
    (``217-64`` -> ``217-264``).  An article number (``e1004``) or a range such as
    ``S12-S15`` is kept as written."""
    if pagination is None:
        return None
    start, end = _text(pagination.find("StartPage")), _text(pagination.find("EndPage"))
    if start and end:
        return start if start == end else f"{start}-{end}"
    return page_range(_text(pagination.find("MedlinePgn"))) or start or None


def _indexes(cit: Element) -> tuple[str, ...]:
    """PubMed lists every record; MEDLINE indexing shows in the citation's ``Status``."""
    status = cit.get("Status", "")
    return ("pubmed", "medline") if status == "MEDLINE" else ("pubmed",)


def work_from_pubmed_article(art: Element, source: str = "pubmed") -> WorkRecord | None:
    """A :class:`WorkRecord` from an efetch ``<PubmedArticle>``."""
    cit = art.find("MedlineCitation")
    if cit is None:
        return None
    article = cit.find("Article")
    if article is None:
        return None
    title = _text(article.find("ArticleTitle")).rstrip(".") or _text(
        article.find("VernacularTitle")
    )
    if not title:
        return None
    pmid = _text(cit.find("PMID")) or None
    journal = article.find("Journal")
    issue_el = journal.find("JournalIssue") if journal is not None else None
    pubdate = issue_el.find("PubDate") if issue_el is not None else None
    year = None
    if pubdate is not None:
        year = year_from_string(pubdate.findtext("Year")) or year_from_string(
            pubdate.findtext("MedlineDate")
        )
    authors: list[Person] = []
    for a in article.findall("AuthorList/Author"):
        last = _text(a.find("LastName"))
        if last:
            suffix = _text(a.find("Suffix"))  # "Jr": kept with the surname
            given = _text(a.find("ForeName")) or dotted_initials(_text(a.find("Initials")))
            authors.append(Person(f"{last} {suffix}" if suffix else last, given))
        elif a.find("CollectiveName") is not None:
            authors.append(Person(_text(a.find("CollectiveName"))))
    doi = None
    for aid in art.findall("PubmedData/ArticleIdList/ArticleId"):
        if aid.get("IdType") == "doi":
            doi = normalize_doi(aid.text)
            break
    if doi is None:
        for loc in article.findall("ELocationID"):
            if loc.get("EIdType") == "doi":
                doi = normalize_doi(loc.text)
    issn = tuple(_text(i) for i in journal.findall("ISSN")) if journal is not None else ()
    short = _text(journal.find("ISOAbbreviation")) if journal is not None else ""
    medline_ta = _text(cit.find("MedlineJournalInfo/MedlineTA"))
    pages = _pages(article.find("Pagination"))
    comments = cit.findall("CommentsCorrectionsList/CommentsCorrections")
    updates = tuple(
        Update(
            CORRECTION_REFS[c.get("RefType", "")],
            label=_text(c.find("RefSource")) or None,
        )
        for c in comments
        if c.get("RefType") in CORRECTION_REFS and c.get("RefType", "").endswith("In")
    )
    pub_types = {_text(t) for t in article.findall("PublicationTypeList/PublicationType")}
    if "Retracted Publication" in pub_types and not any(
        u.kind is UpdateKind.RETRACTION for u in updates
    ):
        updates += (Update(UpdateKind.RETRACTION, label="Retracted Publication"),)
    notice_types = {"Retraction of Publication", "Published Erratum", "Expression of Concern"}
    is_notice = bool(pub_types & notice_types)
    return WorkRecord(
        source=source,
        title=title,
        authors=tuple(authors),
        year=year,
        doi=doi,
        venue=_text(journal.find("Title")) if journal is not None else None,
        venue_short=tuple(dict.fromkeys(s for s in (short, medline_ta) if s)),
        issn=tuple(i for i in issn if i),
        volume=_text(issue_el.find("Volume")) or None if issue_el is not None else None,
        issue=_text(issue_el.find("Issue")) or None if issue_el is not None else None,
        pages=pages,
        work_type="journal-article",
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        record_id=pmid,
        pmid=pmid,
        updates=updates,
        is_notice=is_notice,
        abstract=_abstract(article),
        venue_kind="journal",
        venue_indexes=_indexes(cit),
    )


def work_from_pubmed_book(art: Element, source: str = "pubmed") -> WorkRecord | None:
    """A :class:`WorkRecord` from an efetch ``<PubmedBookArticle>`` (books and chapters)."""
    doc = art.find("BookDocument")
    if doc is None:
        return None
    book = doc.find("Book")
    title = _text(doc.find("ArticleTitle")).rstrip(".") or (
        _text(book.find("BookTitle")).rstrip(".") if book is not None else ""
    )
    if not title:
        return None
    pmid = _text(doc.find("PMID")) or None
    authors = tuple(
        Person(_text(a.find("LastName")), _text(a.find("ForeName")))
        for a in doc.findall("AuthorList/Author")
        if _text(a.find("LastName"))
    )
    year = None
    if book is not None:
        year = year_from_string(book.findtext("PubDate/Year"))
    return WorkRecord(
        source=source,
        title=title,
        authors=authors,
        year=year,
        venue=_text(book.find("BookTitle")) or None if book is not None else None,
        publisher=_text(book.find("Publisher/PublisherName")) or None if book is not None else None,
        isbn=tuple(_text(i) for i in book.findall("Isbn")) if book is not None else (),
        work_type="book-chapter" if doc.find("ArticleTitle") is not None else "book",
        abstract=_abstract(doc),
        venue_kind="book",
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        record_id=pmid,
        pmid=pmid,
    )


def work_from_docsum(doc: Element, source: str = "pubmed") -> WorkRecord | None:
    """A :class:`WorkRecord` from an esummary (v1) ``<DocSum>``."""
    items = {i.get("Name"): i for i in doc.findall("Item")}

    def item(name: str) -> str:
        return _text(items.get(name))

    title = item("Title").rstrip(".")
    if not title:
        return None
    pmid = _text(doc.find("Id")) or None
    authors = tuple(
        p
        for p in (
            _docsum_author(_text(a))
            for a in (items["AuthorList"].findall("Item") if "AuthorList" in items else [])
        )
        if p
    )
    ids = (
        {i.get("Name"): _text(i) for i in items["ArticleIds"].findall("Item")}
        if "ArticleIds" in items
        else {}
    )
    doi = normalize_doi(ids.get("doi") or item("DOI"))
    return WorkRecord(
        source=source,
        title=title,
        authors=authors,
        year=year_from_string(item("PubDate")),
        doi=doi,
        venue=item("FullJournalName") or item("Source") or None,
        venue_short=(item("Source"),) if item("Source") else (),
        issn=tuple(x for x in (item("ISSN"), item("ESSN")) if x),
        volume=item("Volume") or None,
        issue=item("Issue") or None,
        pages=page_range(item("Pages")),  # MEDLINE's "188-91": 188-191
        work_type="journal-article",
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        record_id=pmid,
        pmid=pmid,
    )


def _docsum_author(name: str) -> Person | None:
    """ "LoPresti PJ", "Hambrick GW Jr": surname, initials, a suffix kept with the surname
    ("Hambrick Jr", "G. W.")."""
    name, suffix = split_suffix(name.strip())
    m = re.match(r"^(.*\S)\s+([A-Z]{1,4})$", name)
    if m:
        return Person(f"{m.group(1)} {suffix}".strip(), dotted_initials(m.group(2)))
    return person_from_name(f"{name} {suffix}".strip()) if name else None


#: Why a PMID an efetch answer does not hold is not absent when an article's PMID is
#: unreadable.
_UNPLACED = "malformed response: an article whose PMID is unreadable"


class PubMedSource:
    """PubMed through E-utilities (3 req/s, 10 with an NCBI API key)."""

    name = "pubmed"

    def __init__(
        self,
        http: HttpClient,
        base_url: str,
        *,
        mailto: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/") + "/entrez/eutils"
        self.mailto = mailto
        self._api_key = api_key
        self._lane = "pubmed-key" if api_key else "pubmed"

    def _params(self, **params: str) -> dict[str, str]:
        params["tool"] = "citewarden"
        if self.mailto:
            params["email"] = self.mailto
        if self._api_key:
            params["api_key"] = self._api_key
        return params

    async def _xml(self, endpoint: str, params: dict[str, str]) -> Element | Lookup:
        reply = await self.http.get(
            f"{self.base_url}/{endpoint}", lane=self._lane, params=self._params(**params)
        )
        root = reply_xml(self.name, reply)
        if isinstance(root, Lookup):
            return root
        error = root.find("ERROR")
        if error is not None or root.tag == "ERROR":
            return Lookup.failed(self.name, "E-utilities error")
        return root

    async def esearch(self, term: str, limit: int = 5) -> list[str] | Lookup:
        """PMIDs matching an Entrez query (a Lookup when the request failed, or when the
        answer holds no Id and does not count none: a partial answer or one of another
        shape)."""
        root = await self._xml("esearch.fcgi", {"db": "pubmed", "term": term, "retmax": str(limit)})
        if isinstance(root, Lookup):
            return root
        if root.tag != "eSearchResult":
            return Lookup.failed(self.name, "malformed response: not an eSearchResult")
        ids = [i.text.strip() for i in root.findall("IdList/Id") if i.text and i.text.strip()]
        if not all(map(is_entrez_id, ids)):
            # sent on in the next request's URL: only what a PMID can be
            return Lookup.failed(self.name, "malformed response: an Id that is not a PMID")
        if not ids:  # no hits only when the answer counts none (see no_hits)
            absent = guard(self.name, lambda: no_hits(self.name, root.findtext("Count")))
            return absent if absent.outcome is Outcome.FAILED else []
        return ids

    async def by_pmids(self, pmids: list[str] | tuple[str, ...]) -> Lookup:
        """Full records for PMIDs (efetch, PubMed XML); FAILED when the answer holds
        articles but no usable record (PubMed holds them: no "not found")."""
        found, held = await self._efetch(pmids)
        if found.outcome is Outcome.NOT_FOUND and held:
            return Lookup.failed(self.name, UNUSABLE)
        return found

    async def _efetch(self, pmids: list[str] | tuple[str, ...]) -> tuple[Lookup, frozenset[str]]:
        """The usable records of an efetch answer for ``pmids`` and the PMIDs of every
        article it holds, those no record is made of (no title) included; ``""`` stands
        for an article whose PMID is unreadable (it may be the article of any PMID asked)."""
        if not pmids:
            return Lookup.not_found(self.name), frozenset()
        root = await self._xml(
            "efetch.fcgi", {"db": "pubmed", "id": ",".join(pmids), "retmode": "xml"}
        )
        if isinstance(root, Lookup):
            return root, frozenset()
        if root.tag != "PubmedArticleSet":
            failed = Lookup.failed(self.name, "malformed response: not a PubmedArticleSet")
            return failed, frozenset()
        articles, books = root.findall("PubmedArticle"), root.findall("PubmedBookArticle")
        held = frozenset(
            _text(a.find(path))
            for a, path in [
                *((a, "MedlineCitation/PMID") for a in articles),
                *((b, "BookDocument/PMID") for b in books),
            ]
        )

        def build() -> Lookup:
            recs = [
                *(work_from_pubmed_article(a, self.name) for a in within_page(articles)),
                *(work_from_pubmed_book(a, self.name) for a in within_page(books)),
            ]
            return Lookup.found(self.name, [r for r in recs if r])

        return guard(self.name, build), held

    async def by_pmid_batch(self, pmids: list[str] | tuple[str, ...]) -> dict[str, Lookup]:
        """:meth:`by_pmid` for many PMIDs, ``PMID_BATCH`` per efetch request.  Keys are the
        PMIDs as given (stripped); a PMID the answer lacks is NOT_FOUND, one it holds
        without a usable record FAILED."""
        wanted = list(dict.fromkeys(p.strip() for p in pmids))
        out = {p: Lookup.not_found(self.name) for p in wanted if not is_entrez_id(p)}
        valid = [p for p in wanted if p not in out]
        for start in range(0, len(valid), PMID_BATCH):
            chunk = valid[start : start + PMID_BATCH]
            answer, held = await self._efetch(chunk)
            for p in chunk:
                records = [r for r in answer.records if r.pmid == p]
                if answer.outcome is Outcome.FAILED:
                    out[p] = answer
                elif not records and p in held:  # held, but no usable record of it
                    out[p] = Lookup.failed(self.name, UNUSABLE)
                elif not records and "" in held:
                    out[p] = Lookup.failed(self.name, _UNPLACED)
                else:
                    out[p] = Lookup.found(self.name, records)
        return out

    async def by_pmid(self, pmid: str) -> Lookup:
        pmid = pmid.strip()
        if not is_entrez_id(pmid):
            return Lookup.not_found(self.name)
        return await self.by_pmids([pmid])

    async def summaries(self, pmids: list[str] | tuple[str, ...]) -> Lookup:
        """Brief records for PMIDs (esummary v1 DocSums, one request for many ids)."""
        if not pmids:
            return Lookup.not_found(self.name)
        root = await self._xml("esummary.fcgi", {"db": "pubmed", "id": ",".join(pmids)})
        if isinstance(root, Lookup):
            return root
        if root.tag != "eSummaryResult":
            return Lookup.failed(self.name, "malformed response: not an eSummaryResult")
        docs = root.findall("DocSum")
        return guard(
            self.name,
            lambda: Lookup.found(
                self.name,
                [r for r in (work_from_docsum(d, self.name) for d in within_page(docs)) if r],
            ),
        )

    async def by_doi(self, doi: str) -> Lookup:
        doi = normalize_doi(doi) or doi.strip()
        ids = await self.esearch(f'"{doi}"[doi]', limit=2)
        if isinstance(ids, Lookup):
            return ids
        return await self.by_pmids(ids) if ids else Lookup.not_found(self.name)

    def search_key(self, query: Query) -> Query:
        """What :meth:`search` sends of ``query`` (the cache key of its answer)."""
        return used_query(query, authors=1)

    async def search(self, query: Query) -> Lookup:
        words = re.sub(r"[\[\]\"()]", " ", query.title)
        term = f'"{" ".join(words.split())}"[Title]'
        if query.authors:
            term += f" AND {query.authors[0]}[Author]"
        ids = await self.esearch(term, limit=max(1, min(query.limit, 20)))
        if isinstance(ids, Lookup):
            return ids
        return await self.by_pmids(ids) if ids else Lookup.not_found(self.name)

    async def journal(self, issn: str) -> Lookup:
        """The NLM Catalog's record of the journal (see :mod:`.nlmcatalog`), in this
        source's lane: NCBI's limit is shared with every PubMed request."""

        async def get(endpoint: str, params: dict[str, str]) -> Reply | Failure:
            url = f"{self.base_url}/{endpoint}"
            return await self.http.get(url, lane=self._lane, params=self._params(**params))

        return await nlm_journal(self.name, get, issn)

    async def citmatch(
        self, journal: str, year: int | str, volume: str, first_page: str, author: str
    ) -> Lookup:
        """ECitMatch: the PMID of a citation given journal, year, volume, first page, author."""
        bdata = (
            "|".join(
                str(x).replace("|", " ") for x in (journal, year, volume, first_page, author, "q")
            )
            + "|"
        )
        reply = await self.http.get(
            f"{self.base_url}/ecitmatch.cgi",
            lane=self._lane,
            params=self._params(db="pubmed", retmode="xml", bdata=bdata),
        )
        if isinstance(reply, Failure):
            return Lookup.failed(self.name, reply.reason)
        if reply.status != 200:
            return Lookup.failed(self.name, f"HTTP {reply.status}")
        last = reply.text.strip().splitlines()[-1:] or [""]
        pmid = last[0].rsplit("|", 1)[-1].strip()
        if is_entrez_id(pmid):
            return await self.by_pmid(pmid)
        if pmid.startswith("NOT_FOUND") or pmid.startswith("AMBIGUOUS"):
            return Lookup.not_found(self.name)
        return Lookup.failed(self.name, "malformed response: ECitMatch")
