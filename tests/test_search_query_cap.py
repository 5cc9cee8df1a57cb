"""A search query is capped (:data:`citewarden.verify.search_order.MAX_QUERY_TITLE`
characters of title, cut at a word boundary) so an entry with a huge title is still
searched, where every source failed with an address too long to send.

Over the replay server (real recorded responses, the real HTTP client): Crossref's
recorded search page and dblp's recorded page for Cybenko's 1989 paper."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from citewarden.model import Status
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.search_order import MAX_QUERY_AUTHOR, MAX_QUERY_TITLE, query_text
from replay import ReplayServer, replay, replay_http, replay_server
from test_verify_requests import TITLE, serve, verifier

__all__ = ["replay", "replay_http", "replay_server"]

HUGE_TITLES = {
    "words": (TITLE + " ") * 4000,
    "nested braces": "{" * 100_000 + TITLE + "}" * 100_000,
    "bold": "\\textbf{" * 20_000 + TITLE + "}" * 20_000,
}


@pytest.mark.parametrize("name", sorted(HUGE_TITLES))
async def test_a_huge_title_is_searched_with_a_capped_query(
    name: str, replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve(replay)
    fields = {"title": HUGE_TITLES[name], "author": "Cybenko, George", "year": "1989"}
    entry = make_entry("huge", "article", fields)
    v = await verifier(replay, replay_http).verify(entry)
    searches = [s for s in replay.log if s.path in ("/crossref/works", "/dblp/search/publ/api")]
    assert {s.path for s in searches} >= {"/crossref/works"}
    for s in searches:
        for _, value in parse_qsl(s.query):
            assert len(value) <= MAX_QUERY_TITLE + MAX_QUERY_AUTHOR * 3 + 10
    assert replay_http.stats.failures == 0
    assert v.status is not Status.UNVERIFIED


def test_the_cap_cuts_at_a_word_boundary() -> None:
    text = "word " * 200
    capped = query_text(text, MAX_QUERY_TITLE)
    assert len(capped) <= MAX_QUERY_TITLE
    assert capped.endswith("word") and text.startswith(capped + " ")
    assert query_text("short title", MAX_QUERY_TITLE) == "short title"
    one = "x" * (MAX_QUERY_TITLE * 2)
    assert query_text(one, MAX_QUERY_TITLE) == "x" * MAX_QUERY_TITLE
