"""The persistent cache and CachedSource: hits make no request, failures are never stored,
TTLs expire (injected clock), offline mode answers from the cache only, no secrets in keys."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest

import clocks
import replay as replay_fixtures
from citewarden import cache as cache_module
from citewarden.cache import DAY, SCHEMA_VERSION, VALUE_FORMAT, Cache
from citewarden.verify.records import MAX_NAME, Outcome, Query
from citewarden.verify.sources import (
    OFFLINE_MISS,
    CachedSource,
    CrossrefSource,
    DblpSource,
    OpenAlexSource,
    PubMedSource,
    SemanticScholarSource,
)
from replay import ReplayServer, fast_http

DOI = "10.1371/journal.pone.0033693"

# the loopback replay fixtures, and a clock set by hand
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
Clock = clocks.Clock
clock = clocks.clock


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Cache:
    return Cache(tmp_path / "cache", clock=clock)


async def test_second_call_makes_no_request(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    first = await src.by_doi(DOI)
    assert replay.requests_to("/crossref") == 1
    second = await src.by_doi("https://doi.org/" + DOI.upper())  # same DOI, other spelling
    await http.aclose()
    assert replay.requests_to("/crossref") == 1
    assert first.outcome is Outcome.FOUND and not first.from_cache
    assert second.from_cache and second.records == first.records


async def test_search_is_cached_by_normalised_query(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    a = await src.search(Query("Ecology", ("Boettiger",)))
    b = await src.search(Query("  ecology ", ("boettiger",)))
    # Crossref's fielded search sends the title and authors, not the year or the venue
    c = await src.search(Query("ecology", ("Boettiger",), year=2020, venue="PeerJ"))
    d = await src.search(Query("ecology", ("Chamberlain",)))
    e = await src.search(Query("ecology", ("Boettiger",), year=2020, free_text=True))
    await http.aclose()
    assert b.from_cache and b.records == a.records
    assert c.from_cache and c.records == a.records  # the same request
    assert not d.from_cache and not e.from_cache  # different requests
    assert replay.requests_to("/crossref") == 3


def test_search_keys_hold_what_each_request_sends() -> None:
    http = fast_http()
    query = Query("A title", ("Smith", "Jones"), year=2020, venue="Nature", limit=5)
    keys = {
        type(s).__name__: s.search_key(query)
        for s in (
            CrossrefSource(http, "http://127.0.0.1:9"),
            DblpSource(http, "http://127.0.0.1:9"),
            PubMedSource(http, "http://127.0.0.1:9"),
            SemanticScholarSource(http, "http://127.0.0.1:9"),
        )
    }
    assert keys["CrossrefSource"] == Query("A title", ("Smith", "Jones"), limit=5)
    assert keys["DblpSource"] == Query("A title", limit=5)
    assert keys["PubMedSource"] == Query("A title", ("Smith",), limit=5)
    assert keys["SemanticScholarSource"] == Query("A title")
    free = Query("words of a key", ("Smith",), year=2020, venue="Nature", free_text=True)
    assert DblpSource(http, "http://127.0.0.1:9").search_key(free) == Query(
        "words of a key", ("Smith",), year=2020, free_text=True
    )


async def test_failures_are_never_cached(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    replay.inject("503", path="/crossref", times=10)
    failed = await src.by_doi(DOI)
    assert failed.outcome is Outcome.FAILED
    replay.clear()
    ok = await src.by_doi(DOI)
    await http.aclose()
    assert ok.outcome is Outcome.FOUND and not ok.from_cache
    assert replay.requests_to("/crossref") == 1


async def test_ttls_expire(replay: ReplayServer, store: Cache, clock: Clock) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    await src.by_doi(DOI)  # FOUND: ~30 days
    await src.by_doi("10.1371/notarealdoi")  # NOT_FOUND: ~1 day
    assert replay.requests_to("/crossref") == 2
    clock.now += 2 * DAY
    assert (await src.by_doi(DOI)).from_cache
    assert not (await src.by_doi("10.1371/notarealdoi")).from_cache
    assert replay.requests_to("/crossref") == 3
    clock.now += 29 * DAY
    assert not (await src.by_doi(DOI)).from_cache
    await http.aclose()
    assert replay.requests_to("/crossref") == 4


async def test_notices_expire_after_a_day(replay: ReplayServer, store: Cache, clock: Clock) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    await src.notices(DOI)
    clock.now += 0.5 * DAY
    assert (await src.notices(DOI)).from_cache
    clock.now += 0.6 * DAY
    assert not (await src.notices(DOI)).from_cache
    await http.aclose()
    assert replay.requests_to("/crossref") == 2


async def test_offline_answers_from_cache_only(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    online = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    offline = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store, offline=True)
    miss = await offline.by_doi(DOI)
    assert miss.outcome is Outcome.FAILED and miss.reason == OFFLINE_MISS
    assert replay.log == []
    await online.by_doi(DOI)
    hit = await offline.by_doi(DOI)
    search_miss = await offline.search(Query("never asked"))
    await http.aclose()
    assert hit.outcome is Outcome.FOUND and hit.from_cache
    assert search_miss.reason == OFFLINE_MISS
    assert replay.requests_to("/crossref") == 1


async def test_offline_without_any_cache_is_failed(replay: ReplayServer) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), None, offline=True)
    result = await src.by_doi(DOI)
    await http.aclose()
    assert result.reason == OFFLINE_MISS and replay.log == []


async def test_capabilities_are_mirrored(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    crossref = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    openalex = CachedSource(OpenAlexSource(http, replay.base_url("openalex")), store)
    await http.aclose()
    assert hasattr(crossref, "notices") and hasattr(crossref, "by_dois")
    assert not hasattr(crossref, "by_arxiv")
    assert hasattr(openalex, "by_dois") and not hasattr(openalex, "notices")
    assert crossref.name == "crossref"


async def test_batch_requests_only_missing_dois(replay: ReplayServer, store: Cache) -> None:
    http = fast_http()
    src = CachedSource(OpenAlexSource(http, replay.base_url("openalex")), store)
    single = await src.by_doi("10.1371/journal.pone.0000030")
    assert single.outcome is Outcome.FOUND
    out = await src.by_dois(["10.1371/journal.pone.0000030", "10.5555/not-in-page"])
    await http.aclose()
    assert out["10.1371/journal.pone.0000030"].from_cache
    assert out["10.5555/not-in-page"].outcome is Outcome.NOT_FOUND
    batch = [s for s in replay.log if s.path == "/openalex/works"]
    assert len(batch) == 1
    assert parse_qs(batch[0].query)["filter"] == ["doi:10.5555/not-in-page"]


async def test_keys_and_values_hold_no_secrets(replay: ReplayServer, store: Cache) -> None:
    secret = "oa-KEY-do-not-store"
    http = fast_http(secrets=[secret])
    src = CachedSource(
        OpenAlexSource(http, replay.base_url("openalex"), api_key=secret, mailto="a@example.org"),
        store,
    )
    await src.by_doi("10.1371/journal.pone.0000030")
    await http.aclose()
    raw = store._store
    keys = list(raw.iterkeys())
    assert keys and all(k.startswith(f"v{SCHEMA_VERSION}|{src.space}|") for k in keys)
    assert all(secret not in k and secret not in repr(raw[k]) for k in keys)


def test_corrupt_entry_is_a_miss(store: Cache) -> None:
    key = store.key("crossref", "by_doi", "10.1/x")
    store._store.set(key, "not an entry")
    assert store.get(key) is None


async def test_a_cached_record_over_a_bound_is_a_miss(replay: ReplayServer, store: Cache) -> None:
    """A cache written before records were bounded (``records.MAX_NAME``) may hold an
    answer with a damaged name: it is read as a miss and asked again, never used."""
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    first = await src.by_doi(DOI)
    key = src.key("by_doi", DOI)
    kept = store.get(key)
    kept["records"][0]["authors"][1][0] = "Pond" + "d" * (MAX_NAME + 1)  # [family, given]
    store.set(key, kept, DAY)
    assert src.peek("by_doi", DOI) is None
    again = await src.by_doi(DOI)
    await http.aclose()
    assert replay.requests_to("/crossref") == 2
    assert not again.from_cache and again.records == first.records


def test_commands_stats_clear_prune(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "c"))
    assert cache_module.default_directory() == tmp_path / "c"
    old = Cache(clock=lambda: 0.0)  # entries written "long ago": expired now
    old.set(old.key("x", "by_doi", "1"), {"v": 1}, ttl=DAY)
    old.close()
    fresh = Cache()
    fresh.set(fresh.key("x", "by_doi", "2"), {"v": 2}, ttl=DAY)
    fresh.close()
    stats = cache_module.stats()
    assert stats["entries"] == 2 and stats["directory"] == str(tmp_path / "c")
    assert cache_module.prune() == 1
    assert cache_module.stats()["entries"] == 1
    assert cache_module.clear() == 1
    assert cache_module.stats()["entries"] == 0


async def test_concurrent_identical_lookups_share_one_request(
    replay: ReplayServer, store: Cache
) -> None:
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    replay.latency = 0.2
    a, b, c = await asyncio.gather(src.by_doi(DOI), src.by_doi(DOI.upper()), src.by_doi(DOI))
    await http.aclose()
    assert a.outcome is b.outcome is c.outcome is Outcome.FOUND
    assert a.records == b.records == c.records
    assert replay.requests_to("/crossref") == 1


async def test_answers_stored_under_the_previous_schema_are_not_read(
    replay: ReplayServer, store: Cache
) -> None:
    """Schema 1 stored answers whose meaning changed since (a Crossref 404 as 'no such
    DOI', OpenAlex's 'not in PubMed'): the source is asked again, offline it is a miss."""
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    old_key = src.key("by_doi", DOI).replace(f"v{SCHEMA_VERSION}|", "v1|", 1)
    assert SCHEMA_VERSION > 1 and old_key != src.key("by_doi", DOI)
    store.set(old_key, {"outcome": "not_found", "source": "crossref", "records": []}, DAY)
    offline = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store, offline=True)
    missed = await offline.by_doi(DOI)
    asked = await src.by_doi(DOI)
    await http.aclose()
    assert missed.outcome is Outcome.FAILED and missed.reason == OFFLINE_MISS
    assert asked.outcome is Outcome.FOUND and replay.requests_to("/crossref") == 1


async def test_a_cancelled_lookup_does_not_cancel_the_entries_sharing_its_request(
    replay: ReplayServer, store: Cache
) -> None:
    """An entry whose verification is cancelled (the editor's text changed) while another
    entry waits for the same request: the other entry still gets its answer, where it was
    cancelled too (and the editor dropped its verdict)."""
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    replay.latency = 0.3
    first = asyncio.create_task(src.by_doi(DOI))
    await asyncio.sleep(0.1)  # its request is on the wire
    second = asyncio.create_task(src.by_doi(DOI.upper()))
    await asyncio.sleep(0.05)  # waiting for the first one's request
    first.cancel()
    answer = await asyncio.wait_for(second, 5)
    await http.aclose()
    assert first.cancelled()
    assert answer.outcome is Outcome.FOUND and answer.records[0].doi == DOI


async def test_an_answer_stored_while_the_clock_ran_ahead_is_not_kept_past_its_lifetime(
    replay: ReplayServer, store: Cache, clock: Clock
) -> None:
    """A "no such record" stored while the clock was a year ahead (set wrong, then put
    right): read back, it would live a year and a day, where it lives a day.  A small
    difference between clocks (a minute) still reads it."""
    http = fast_http()
    src = CachedSource(CrossrefSource(http, replay.base_url("crossref")), store)
    clock.now += 365 * DAY
    assert (await src.by_doi("10.1371/notarealdoi")).outcome is Outcome.NOT_FOUND
    assert (await src.by_doi(DOI)).outcome is Outcome.FOUND
    clock.now -= 365 * DAY  # the clock put right
    again = await src.by_doi("10.1371/notarealdoi")
    assert again.outcome is Outcome.NOT_FOUND and not again.from_cache
    assert replay.requests_to("/crossref") == 3
    clock.now -= 60  # a minute behind the clock that stored it
    assert (await src.by_doi("10.1371/notarealdoi")).from_cache
    assert replay.requests_to("/crossref") == 3
    store.set("v2|other", 1, ttl=DAY)
    clock.now += 365 * DAY
    store.set("v2|ahead", 1, ttl=DAY)
    clock.now -= 365 * DAY
    assert store.prune() >= 2  # the record stored ahead and the key stored ahead
    assert store.get("v2|other") == 1
    await http.aclose()


def test_prune_leaves_the_entries_of_a_later_version_alone(tmp_path: Path) -> None:
    """A newer citewarden sharing the directory (the editor's and the command line's may
    differ) keeps its entries through an older one's prune, where every entry of another
    schema or value format was removed as unreadable; an earlier version's go."""
    later = {"format": VALUE_FORMAT + 1, "stored": 1000.0, "expires": 9000.0, "value": {}}
    with Cache(tmp_path, clock=lambda: 2000.0) as store:
        store._store.set(f"v{SCHEMA_VERSION + 1}|crossref|by_doi|10.1/x", json.dumps(later))
        store._store.set(f"v{SCHEMA_VERSION - 1}|crossref|by_doi|10.1/x", json.dumps(later))
        store.set(store.key("crossref", "by_doi", "10.1/x"), {"v": 1}, ttl=DAY)
        assert store.prune() == 1
        assert sorted(store._store.iterkeys()) == [
            f"v{SCHEMA_VERSION}|crossref|by_doi|10.1/x",
            f"v{SCHEMA_VERSION + 1}|crossref|by_doi|10.1/x",
        ]
