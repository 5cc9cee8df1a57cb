"""The loopback replay server itself: matching, counting, faults."""

from __future__ import annotations

import httpx

import replay as replay_fixtures
from replay import ReplayServer, recorded

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

DBLP = "/dblp/search/publ/api"
Q = "1d convolutional neural networks and applications: A survey"


async def test_query_parameters_match_in_any_order(replay: ReplayServer) -> None:
    async with httpx.AsyncClient(base_url=replay.url) as client:
        a = await client.get(DBLP, params={"q": Q, "format": "json", "h": "5"})
        b = await client.get(DBLP, params={"h": "5", "format": "json", "q": Q, "mailto": "x@y.org"})
        c = await client.get(DBLP, params={"q": Q, "format": "json", "h": "6"})
    assert a.status_code == b.status_code == 200 and a.content == b.content
    assert c.status_code == 501
    assert replay.unmatched == [f"GET {c.request.url.raw_path.decode()}"]
    assert replay.counts[DBLP] == 3 and replay.requests_to("/dblp") == 3


async def test_status_type_and_body_are_the_recorded_ones(replay: ReplayServer) -> None:
    async with httpx.AsyncClient(base_url=replay.url) as client:
        r = await client.get("/crossref/works/10.1371/notarealdoi")
    assert r.status_code == 404
    assert r.headers["content-type"] == "text/plain"
    assert r.content == recorded("crossref", "test-works__test_works_bad_id_warn.txt")


async def test_redirect_location_points_back_to_the_server(replay: ReplayServer) -> None:
    async with httpx.AsyncClient(base_url=replay.url) as client:
        r = await client.get("/doi/10.1126/science.169.3946.635")
    assert r.status_code == 302
    assert r.headers["location"].startswith(replay.url + "/crossref/works/10.1126/")


async def test_truncate_and_malformed_cut_the_real_body(replay: ReplayServer) -> None:
    full = recorded("crossref", "test-works__test_works_with_one_id.json")
    replay.inject("truncate", path="/crossref")
    replay.inject("malformed", path="/crossref")
    async with httpx.AsyncClient(base_url=replay.url) as client:
        t = await client.get("/crossref/works/10.1371/journal.pone.0033693")
        m = await client.get("/crossref/works/10.1371/journal.pone.0033693")
        ok = await client.get("/crossref/works/10.1371/journal.pone.0033693")
    assert t.content == full[: len(full) // 2]
    assert m.content == full[len(full) // 2 :]
    assert ok.content == full


async def test_429_carries_retry_after(replay: ReplayServer) -> None:
    replay.inject("429", path="/dblp", retry_after="3")
    async with httpx.AsyncClient(base_url=replay.url) as client:
        r = await client.get(DBLP, params={"q": Q, "format": "json", "h": "5"})
    assert r.status_code == 429 and r.headers["retry-after"] == "3"
