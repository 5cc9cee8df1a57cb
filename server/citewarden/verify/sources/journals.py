"""Journal records: OpenAlex's Source object (``/sources/issn:{issn}``), Crossref's
journal (``/journals/{issn}``), DOAJ's journal (``/api/search/journals/issn:{issn}``) and the
NLM Catalog's record (E-utilities ``esummary`` of ``db=nlmcatalog``), as :class:`WorkRecord`
values that describe a venue only.

A journal record has the journal's name as its ``title`` and ``venue``, no authors, and
``extra`` holding ``("record", "journal")`` plus what the service counts: OpenAlex's
``works_count``, ``apc_usd`` and ``first_publication_year``; Crossref's ``total-dois`` and
the first year of ``breakdowns.dois-by-issued-year``.  OpenAlex's flags (``is_in_doaj``,
``is_indexed_in_scopus``, ``is_core``) become ``venue_indexes`` / ``venue_not_in`` as they do
on a work's source: an absent flag says nothing.  A DOAJ record is DOAJ indexing (since its
``created_date``); an NLM Catalog record says whether the journal is currently indexed for
MEDLINE.  When a source answers that it holds no journal with the ISSN, an *absence record*
(:func:`journal_absent`) carries that "no" and nothing else (for DOAJ and the NLM Catalog,
the indexes it rules out); a look-up
that failed becomes a *failure record* (:func:`journal_failed`), which says nothing.
"""

from __future__ import annotations

from typing import Any

from citewarden.verify.records import WorkRecord
from citewarden.verify.sources._common import clean_text

#: The ``extra`` pair that marks a journal record.
JOURNAL_MARK = ("record", "journal")
#: OpenAlex source flags -> the index each one reports.
FLAGS = (("is_in_doaj", "doaj"), ("is_indexed_in_scopus", "scopus"), ("is_core", "core"))


#: Indexes an absent answer of each registry rules out.  A journal with articles in PubMed
#: has an NLM Catalog record, so a catalog without the ISSN also rules out PubMed.
ABSENT_MEANS = {"doaj": ("doaj",), "pubmed": ("pubmed", "medline")}


def is_journal_record(record: WorkRecord) -> bool:
    return JOURNAL_MARK in record.extra


def journal_absent(source: str, issn: str) -> WorkRecord:
    """The answer "no journal with ``issn``" of a source: no name and no ISSN of its own (it
    knows no journal), only the indexes it rules out (:data:`ABSENT_MEANS`: DOAJ's and the
    NLM Catalog's; OpenAlex's and Crossref's rule out none)."""
    return WorkRecord(
        source,
        issn,
        extra=(JOURNAL_MARK, ("absent", issn)),
        venue_not_in=ABSENT_MEANS.get(source, ()),
    )


def journal_failed(source: str, issn: str, reason: str) -> WorkRecord:
    """A journal look-up of ``issn`` that failed: it says nothing of the journal, only that
    not every source could be asked (``reason`` says why)."""
    return WorkRecord(source, issn, extra=(JOURNAL_MARK, ("failed", reason)))


def _issns(values: Any) -> tuple[str, ...]:
    if not isinstance(values, list):
        return ()
    return tuple(
        dict.fromkeys(v.strip().upper() for v in values if isinstance(v, str) and v.strip())
    )


def _count(value: Any) -> str | None:
    return (
        str(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0
        else None
    )


def journal_from_openalex(data: Any, source: str = "openalex") -> WorkRecord | None:
    """A journal record from an OpenAlex Source object (None without a name)."""
    if not isinstance(data, dict):
        return None
    name = clean_text(data.get("display_name"))
    if not name:
        return None
    extra = [JOURNAL_MARK]
    for key in ("works_count", "apc_usd", "first_publication_year"):
        value = _count(data.get(key))
        if value is not None:
            extra.append((key, value))
    host = clean_text(data.get("host_organization_name")) or None
    kind = data.get("type")
    return WorkRecord(
        source,
        name,
        venue=name,
        issn=_issns(data.get("issn")) or _issns([data.get("issn_l")]),
        publisher=host,
        record_id=str(data["id"]) if isinstance(data.get("id"), str) else None,
        url=data["homepage_url"] if isinstance(data.get("homepage_url"), str) else None,
        extra=tuple(extra),
        venue_kind=kind if isinstance(kind, str) else None,
        venue_indexes=tuple(n for f, n in FLAGS if data.get(f) is True),
        venue_not_in=tuple(n for f, n in FLAGS if data.get(f) is False),
    )


def journal_from_crossref(message: Any, source: str = "crossref") -> WorkRecord | None:
    """A journal record from the ``message`` of Crossref's ``/journals/{issn}``."""
    if not isinstance(message, dict):
        return None
    name = clean_text(message.get("title"))
    if not name:
        return None
    extra = [JOURNAL_MARK]
    counts = message.get("counts")
    total = _count(counts.get("total-dois")) if isinstance(counts, dict) else None
    if total is not None:
        extra.append(("total-dois", total))
    breakdowns = message.get("breakdowns")
    years = breakdowns.get("dois-by-issued-year") if isinstance(breakdowns, dict) else None
    if isinstance(years, list):
        known = [
            y[0]
            for y in years
            if isinstance(y, list) and len(y) == 2 and isinstance(y[0], int) and y[1]
        ]
        if known:
            extra.append(("first-year", str(min(known))))
    return WorkRecord(
        source,
        name,
        venue=name,
        issn=_issns(message.get("ISSN")),
        publisher=clean_text(message.get("publisher")) or None,
        extra=tuple(extra),
        venue_kind="journal",
    )


def _year(value: Any) -> str | None:
    """The year of a ``YYYY-MM-DD...`` date or of a plausible integer year."""
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        return str(value)
    if isinstance(value, str) and len(value) >= 4 and value[:4].isascii() and value[:4].isdigit():
        return value[:4]
    return None


def journal_from_doaj(result: Any, source: str = "doaj") -> WorkRecord | None:
    """A journal record from one result of DOAJ's journal search (its documented
    ``OutgoingJournal``: ``bibjson.title``, ``pissn``, ``eissn``, ``publisher.name``,
    ``oa_start``, ``created_date``, ``admin.in_doaj``)."""
    if not isinstance(result, dict) or not isinstance(result.get("bibjson"), dict):
        return None
    bib = result["bibjson"]
    name = clean_text(bib.get("title"))
    if not name:
        return None
    extra = [JOURNAL_MARK]
    since = _year(result.get("created_date"))
    if since:
        extra.append(("in_doaj_since", since))
    oa_start = _year(bib.get("oa_start"))
    if oa_start:
        extra.append(("oa_start", oa_start))
    publisher = bib.get("publisher")
    admin = result.get("admin")
    # the public search serves journals in DOAJ; a record marked otherwise is withdrawn
    withdrawn = isinstance(admin, dict) and admin.get("in_doaj") is False
    return WorkRecord(
        source,
        name,
        venue=name,
        issn=_issns([bib.get("pissn"), bib.get("eissn")]),
        publisher=clean_text(publisher.get("name")) or None
        if isinstance(publisher, dict)
        else None,
        record_id=result["id"] if isinstance(result.get("id"), str) else None,
        extra=tuple(extra),
        venue_kind="journal",
        venue_indexes=() if withdrawn else ("doaj",),
        venue_not_in=("doaj",) if withdrawn else (),
    )


def journal_from_nlm(item: Any, source: str = "pubmed") -> WorkRecord | None:
    """A journal record from one item of the NLM Catalog's ``esummary`` (JSON): its main
    title, ISSNs, NLM unique ID, MEDLINE abbreviation and ``currentindexingstatus`` (``Y``:
    currently indexed for MEDLINE, so in PubMed; ``N``: not currently indexed; anything
    else says nothing)."""
    if not isinstance(item, dict):
        return None
    titles = item.get("titlemainlist")
    first = titles[0] if isinstance(titles, list) and titles else None
    name = clean_text(first.get("title")).rstrip(" ./") if isinstance(first, dict) else ""
    if not name:
        return None
    issnlist = item.get("issnlist")
    issns = _issns(
        [i.get("issn") for i in issnlist if isinstance(i, dict)]
        if isinstance(issnlist, list)
        else []
    )
    nlm_id = clean_text(item.get("nlmuniqueid")) or None
    extra = [JOURNAL_MARK]
    if nlm_id:
        extra.append(("nlm_id", nlm_id))
    status = item.get("currentindexingstatus")
    # a catalog record alone is not indexing: NLM catalogues far more than it indexes
    yes: tuple[str, ...] = ()
    no: tuple[str, ...] = ()
    if status == "Y":
        yes = ("pubmed", "medline")
        extra.append(("medline", "current"))
    elif status == "N":
        no = ("medline",)
        extra.append(("medline", "not current"))
    short = clean_text(item.get("medlineta"))
    return WorkRecord(
        source,
        name,
        venue=name,
        venue_short=(short,) if short else (),
        issn=issns,
        record_id=nlm_id,
        extra=tuple(extra),
        venue_kind="journal",
        venue_indexes=yes,
        venue_not_in=no,
    )
