"""Open Library books API: look-up by ISBN (``/api/books?bibkeys=ISBN:...&jscmd=data``)."""

from __future__ import annotations

import re
from typing import Any

from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Query, WorkRecord
from citewarden.verify.sources._common import (
    OddAnswer,
    clean_text,
    guard,
    person_from_name,
    reply_json,
    usable_work,
    year_from_string,
)


def clean_isbn(value: str) -> str:
    return re.sub(r"[^0-9Xx]", "", value).upper()


def work_from_openlibrary(book: Any, isbn: str, source: str = "openlibrary") -> WorkRecord | None:
    """A :class:`WorkRecord` from a ``jscmd=data`` book object."""
    if not isinstance(book, dict):
        return None
    title = clean_text(book.get("title"))
    if not title:
        return None
    authors = tuple(
        p
        for p in (
            person_from_name(a.get("name", ""))
            for a in book.get("authors") or []
            if isinstance(a, dict)
        )
        if p
    )
    ids = book.get("identifiers") or {}
    isbns = tuple(dict.fromkeys([isbn, *ids.get("isbn_13", []), *ids.get("isbn_10", [])]))
    publishers = [
        clean_text(p.get("name")) for p in book.get("publishers") or [] if isinstance(p, dict)
    ]
    return WorkRecord(
        source=source,
        title=title,
        subtitle=clean_text(book.get("subtitle")) or None,
        authors=authors,
        year=year_from_string(book.get("publish_date")),
        isbn=isbns,
        publisher=publishers[0] if publishers else None,
        work_type="book",
        url=clean_text(book.get("url")) or None,
        record_id=clean_text(book.get("key")) or None,
    )


class OpenLibrarySource:
    """Open Library (books by ISBN)."""

    name = "openlibrary"

    def __init__(self, http: HttpClient, base_url: str, *, identified: bool = False) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self._lane = "openlibrary" if identified else "openlibrary-public"

    async def by_doi(self, doi: str) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    async def search(self, query: Query) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    async def by_isbn(self, isbn: str) -> Lookup:
        isbn = clean_isbn(isbn)
        if len(isbn) not in (10, 13):
            return Lookup.not_found(self.name)
        key = f"ISBN:{isbn}"
        params = {"bibkeys": key, "format": "json", "jscmd": "data"}
        reply = await self.http.get(f"{self.base_url}/api/books", lane=self._lane, params=params)
        data = reply_json(self.name, reply)
        if isinstance(data, Lookup):
            return data

        def build() -> Lookup:
            if not isinstance(data, dict):
                raise TypeError("books")
            if any(k != key for k in data):
                # the Books API answers with the bibkeys asked and nothing else
                raise OddAnswer("an answer keyed by other than the ISBN asked")
            if key not in data:
                return Lookup.not_found(self.name)  # {}: the bibkey asked is not listed
            # a book listed without a usable record (no title): Open Library holds it
            return usable_work(self.name, work_from_openlibrary(data[key], isbn, self.name))

        return guard(self.name, build)
