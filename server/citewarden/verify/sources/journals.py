"""Journal records: OpenAlex's Source object (``/sources/issn:{issn}``) and Crossref's
journal (``/journals/{issn}``), as :class:`WorkRecord` values that describe a venue only.

A journal record has the journal's name as its ``title`` and ``venue``, no authors, and
``extra`` holding ``("record", "journal")`` plus what the service counts: OpenAlex's
``works_count``, ``apc_usd`` and ``first_publication_year``; Crossref's ``total-dois`` and
the first year of ``breakdowns.dois-by-issued-year``.  OpenAlex's flags (``is_in_doaj``,
``is_indexed_in_scopus``, ``is_core``) become ``venue_indexes`` / ``venue_not_in`` as they do
on a work's source: an absent flag says nothing.
"""

from __future__ import annotations

from typing import Any

from citewarden.verify.records import WorkRecord
from citewarden.verify.sources._common import clean_text

#: The ``extra`` pair that marks a journal record.
JOURNAL_MARK = ("record", "journal")
#: OpenAlex source flags -> the index each one reports.
FLAGS = (("is_in_doaj", "doaj"), ("is_indexed_in_scopus", "scopus"), ("is_core", "core"))


def is_journal_record(record: WorkRecord) -> bool:
    return JOURNAL_MARK in record.extra


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
