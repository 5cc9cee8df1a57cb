"""ISBN existence: Open Library is a catalogue, not the ISBN registry.  Its "no such book"
makes an entry ``unverified`` (not in Open Library) unless another source also answered with
no record of the work; it never says the ISBN does not exist.

Open Library is the real client over loopback, answering the Books API's documented shape
for an ISBN it does not list (``{}``: unknown bibkeys are left out; built from the
documented shape, see tests/data/PROVENANCE.md).  The search sources are stand-ins
answering the outcome the test sets (a look-up's outcome, not a service response)."""

from __future__ import annotations

from datetime import date

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.sources.openlibrary import OpenLibrarySource
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http

ISBN = "9780306406157"
BOOKS_URI = f"https://openlibrary.org/api/books?bibkeys=ISBN:{ISBN}&format=json&jscmd=data"


class Search:
    """A searchable source answering the outcome the test sets."""

    def __init__(self, outcome: Lookup) -> None:
        self.name = outcome.source
        self.outcome = outcome

    async def by_doi(self, doi: str) -> Lookup:
        return Lookup.failed(self.name, "unsupported")

    async def search(self, query: Query) -> Lookup:
        return self.outcome


def _entry(title: str | None = "An Introduction to Bibliographic Control") -> object:
    fields = {"author": "Doe, Jane", "year": "1999", "isbn": "978-0-306-40615-7"}
    if title:
        fields["title"] = title
    return make_entry("k", "book", fields)


def _verifier(replay: ReplayServer, http: HttpClient, search: Lookup) -> Verifier:
    replay.add_route(BOOKS_URI, b"{}")
    library = OpenLibrarySource(http, replay.base_url("openlibrary"))
    sources = [library, Search(search)]
    settings = VerifySettings(sources=("openlibrary", search.source))
    return Verifier(sources, settings, today=date(2026, 11, 29))  # type: ignore[list-item]


async def test_open_library_miss_with_a_failing_search_is_unverified_not_missing(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    verifier = _verifier(replay, replay_http, Lookup.failed("crossref", "timeout"))
    v = await verifier.verify(_entry())  # type: ignore[arg-type]
    assert replay.requests_to("/openlibrary") == 1
    codes = {i.code for i in v.issues}
    assert Code.DOI_NOT_FOUND not in codes and Code.NOT_FOUND not in codes
    assert v.status is Status.UNVERIFIED
    assert v.reason is not None and "not in Open Library" in v.reason
    assert "timeout (crossref)" in v.reason


async def test_open_library_miss_without_anything_to_search_is_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    verifier = _verifier(replay, replay_http, Lookup.not_found("crossref"))
    v = await verifier.verify(_entry(title=None))  # type: ignore[arg-type]
    assert v.status is Status.UNVERIFIED
    assert v.reason == "ISBN 9780306406157 is not in Open Library, which is not its registry"
    assert Code.DOI_NOT_FOUND not in {i.code for i in v.issues}


async def test_open_library_miss_and_a_second_source_without_the_work_is_not_found(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    verifier = _verifier(replay, replay_http, Lookup.not_found("crossref"))
    v = await verifier.verify(_entry())  # type: ignore[arg-type]
    assert v.status is Status.NOT_FOUND
    codes = [i.code for i in v.issues]
    assert Code.NOT_FOUND in codes
    # the work is not found; nobody said the ISBN itself does not exist
    assert Code.DOI_NOT_FOUND not in codes
    assert not any("does not exist" in i.message for i in v.issues)


async def test_an_isbn_no_source_looks_up_leaves_a_book_rarely_indexed() -> None:
    """Without Open Library among the sources, nothing checks the ISBN: the book is what it
    is without one, a kind of work the searched indexes rarely hold, so their "no record"
    leaves it unverified, never not found."""
    sources = [Search(Lookup.not_found("crossref"))]
    settings = VerifySettings(sources=("crossref",))
    verifier = Verifier(sources, settings, today=date(2026, 11, 29))  # type: ignore[list-item]
    with_isbn = await verifier.verify(_entry())  # type: ignore[arg-type]
    assert with_isbn.status is Status.UNVERIFIED, with_isbn.issues
    assert with_isbn.reason == "@book works are rarely indexed by the sources"
    fields = {"title": "An Introduction to Bibliographic Control", "author": "Doe, Jane"}
    without = await verifier.verify(make_entry("k", "book", {**fields, "year": "1999"}))
    assert (without.status, without.reason) == (with_isbn.status, with_isbn.reason)


@pytest.mark.parametrize(
    "body",
    [
        b'{"error": "internal error"}',  # an object that is not keyed by the bibkey asked
        b'{"ISBN:9780306406157": {"key": "/books/OL1M"}}',  # the book, without a title
        b'{"ISBN:9780306406157": []}',
    ],
    ids=["other-keys", "no-title", "not-a-book"],
)
async def test_an_open_library_answer_that_is_not_its_miss_says_nothing(
    replay: ReplayServer, replay_http: HttpClient, body: bytes
) -> None:
    """Only ``{}`` (the bibkey asked left out) is Open Library's miss: an answer keyed by
    anything else, or listing the ISBN without a usable book, is a failed answer, and with
    a second source without the work the entry is unverified, where it was not found."""
    library = OpenLibrarySource(replay_http, replay.base_url("openlibrary"))
    replay.add_route(BOOKS_URI, body)
    answer = await library.by_isbn(ISBN)
    assert answer.outcome is Outcome.FAILED and answer.reason.startswith("malformed response")
    search = Search(Lookup.not_found("crossref"))
    settings = VerifySettings(sources=("openlibrary", "crossref"))
    verifier = Verifier([library, search], settings, today=date(2026, 11, 29))  # type: ignore[list-item]
    v = await verifier.verify(_entry())  # type: ignore[arg-type]
    assert v.status is Status.UNVERIFIED, v.issues
    assert Code.NOT_FOUND not in {i.code for i in v.issues}
