"""Venue search answers as venue records: dblp ``/search/venue/api``, OpenAlex
``/sources?search=`` and Crossref ``/journals?query=``.

A venue record is a :class:`WorkRecord` that describes a venue only: its name as ``title``
and ``venue``, every other name the service gives (acronym, abbreviated and alternate
titles) in ``venue_short``, no authors, and ``extra`` holding :data:`VENUE_MARK`.  The
answers are read, never trusted: a hit without a name is dropped, at most
:data:`MAX_HITS` are kept.
"""

from __future__ import annotations

import re
from typing import Any

from citewarden.verify.records import Lookup, WorkRecord
from citewarden.verify.sources._common import all_texts, clean_text, page_found, works_found

#: The ``extra`` pair that marks a venue record.
VENUE_MARK = ("record", "venue")
#: Hits asked for and kept per venue search.
MAX_HITS = 25
#: dblp's venue types -> the kind of venue.
_DBLP_KINDS = {"Conference or Workshop": "conference", "Journal": "journal", "Series": "series"}


def _texts(values: Any) -> list[str]:
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list):
        return []
    return list(all_texts([v for v in values if isinstance(v, str)]))


def _record(source: str, name: str, others: list[str], kind: str | None, **more: Any) -> WorkRecord:
    short = tuple(dict.fromkeys(n for n in others if n and n != name))
    return WorkRecord(
        source, name, venue=name, venue_short=short, venue_kind=kind, extra=(VENUE_MARK,), **more
    )


def venue_from_dblp(hit: Any, source: str = "dblp") -> WorkRecord | None:
    """A venue record from a dblp venue search hit (``info``: ``venue``, ``acronym``,
    ``type``, ``url``).  dblp writes a conference as ``Name (ACRONYM)``: both are kept."""
    info = hit.get("info") if isinstance(hit, dict) else None
    if not isinstance(info, dict):
        return None
    name = clean_text(info.get("venue"))
    if not name:
        return None
    acronym = clean_text(info.get("acronym"))
    bare = re.sub(r"\s*\([^()]*\)\s*$", "", name).strip() or name
    url = clean_text(info.get("url")) or None
    kind = _DBLP_KINDS.get(clean_text(info.get("type")))
    return _record(source, bare, [name, acronym], kind, url=url)


def venue_from_openalex(item: Any, source: str = "openalex") -> WorkRecord | None:
    """A venue record from an OpenAlex Source object (``display_name``,
    ``abbreviated_title``, ``alternate_titles``, ``type``)."""
    if not isinstance(item, dict):
        return None
    name = clean_text(item.get("display_name"))
    if not name:
        return None
    others = _texts(item.get("abbreviated_title")) + _texts(item.get("alternate_titles"))
    kind = item.get("type")
    record_id = item.get("id")
    return _record(
        source,
        name,
        others,
        kind if isinstance(kind, str) else None,
        record_id=record_id if isinstance(record_id, str) else None,
    )


def venue_from_crossref(item: Any, source: str = "crossref") -> WorkRecord | None:
    """A venue record from an item of Crossref's ``/journals`` list (``title``)."""
    if not isinstance(item, dict):
        return None
    name = clean_text(item.get("title"))
    if not name:
        return None
    return _record(source, name, [], "journal", publisher=clean_text(item.get("publisher")) or None)


def dblp_venues(source: str, data: Any) -> Lookup:
    """The venue records of a dblp venue search answer (no ``hit``: none)."""
    hits = data["result"]["hits"]
    items = hits.get("hit") or []
    items = items if isinstance(items, list) else [items]
    return works_found(source, items[:MAX_HITS], lambda h: venue_from_dblp(h, source))


def openalex_venues(source: str, data: Any) -> Lookup:
    """The venue records of an OpenAlex ``/sources`` list (none: only when it counts none,
    ``meta.count``, see :func:`page_found`)."""
    meta = data.get("meta")
    count = meta.get("count") if isinstance(meta, dict) else None
    items = _first(data["results"])
    return page_found(source, items, count, lambda i: venue_from_openalex(i, source))


def crossref_venues(source: str, data: Any) -> Lookup:
    """The venue records of a Crossref ``/journals`` list (none: only when it counts none,
    ``total-results``, see :func:`page_found`)."""
    message = data["message"]
    items = _first(message["items"])
    count = message.get("total-results")
    return page_found(source, items, count, lambda i: venue_from_crossref(i, source))


def _first(items: Any) -> Any:
    """The first ``MAX_HITS`` items of a list; anything else as it is (not a list: the
    answer is malformed, see :func:`works_found`)."""
    return items[:MAX_HITS] if isinstance(items, list) else items


def is_venue_record(record: WorkRecord) -> bool:
    return VENUE_MARK in record.extra
