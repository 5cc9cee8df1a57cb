"""``citewarden cache clear`` lifts the pauses a service asked for (``Retry-After``), which
every citewarden process sharing the cache directory keeps in ``<cache>/rate/``.

Over the replay server: Crossref's recorded ``/works/10.1371/journal.pone.0033693``, its
first answer turned into a 503 with ``Retry-After: 86400`` (the fault injection)."""

from __future__ import annotations

from pathlib import Path

from citewarden.verify.http import HttpClient
from citewarden.verify.records import Outcome
from citewarden.verify.shared_rate import RATE_DIR, SharedRate
from citewarden.verify.sources import CrossrefSource
from cli_process import run_citewarden
from replay import ReplayServer, fast_http, replay, replay_server

__all__ = ["replay", "replay_server"]

DOI = "10.1371/journal.pone.0033693"


async def told_to_wait(replay: ReplayServer, http: HttpClient) -> CrossrefSource:
    """A Crossref source whose first look-up was answered 503 with Retry-After: a day."""
    replay.inject("503", path="/crossref", retry_after="86400")
    source = CrossrefSource(http, replay.base_url("crossref"))
    assert (await source.by_doi(DOI)).outcome is Outcome.FAILED
    return source


def cache_clear(tmp_path: Path, cache_dir: Path) -> str:
    """What ``citewarden cache clear`` of ``cache_dir`` says; it must succeed."""
    done = run_citewarden(["cache", "clear"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(cache_dir)})
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_cache_clear_lifts_a_pause_kept_for_every_process(
    replay: ReplayServer, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    host = "127.0.0.1"
    http = fast_http(shared_dir=cache_dir / RATE_DIR)
    try:
        await told_to_wait(replay, http)
    finally:
        await http.aclose()
    assert SharedRate(cache_dir / RATE_DIR).paused_for(host, "crossref") > 80000
    assert cache_clear(tmp_path, cache_dir) == (
        "removed 0 cache entries\nlifted 1 pause a service asked for (Retry-After)\n"
    )
    assert SharedRate(cache_dir / RATE_DIR).paused_for(host, "crossref") == 0.0
    # a new process asks the service again, and is answered
    http = fast_http(shared_dir=cache_dir / RATE_DIR)
    try:
        again = await CrossrefSource(http, replay.base_url("crossref")).by_doi(DOI)
    finally:
        await http.aclose()
    assert again.outcome is Outcome.FOUND
    assert replay.requests_to("/crossref") == 2


async def test_cache_clear_lifts_the_pause_of_a_running_process(
    replay: ReplayServer, tmp_path: Path
) -> None:
    """The process that was told to wait a day asks again once the pause was lifted from
    the cache it shares, where it kept its own copy of the pause."""
    cache_dir = tmp_path / "cache"
    http = fast_http(shared_dir=cache_dir / RATE_DIR)
    try:
        source = await told_to_wait(replay, http)
        assert (await source.by_doi(DOI)).outcome is Outcome.FAILED  # paused: not asked
        assert replay.requests_to("/crossref") == 1
        cache_clear(tmp_path, cache_dir)
        again = await source.by_doi(DOI)
    finally:
        await http.aclose()
    assert again.outcome is Outcome.FOUND
    assert replay.requests_to("/crossref") == 2


async def test_a_pause_stays_in_a_process_that_shares_no_cache(
    replay: ReplayServer, tmp_path: Path
) -> None:
    http = fast_http()
    try:
        source = await told_to_wait(replay, http)
        cache_clear(tmp_path, tmp_path / "cache")
        again = await source.by_doi(DOI)
    finally:
        await http.aclose()
    assert again.outcome is Outcome.FAILED
    assert replay.requests_to("/crossref") == 1


async def test_a_lanes_own_pause_stays_when_the_services_is_lifted(tmp_path: Path) -> None:
    """A lane whose rate-limit budget is spent (X-RateLimit-Remaining: 0) keeps its own
    pause when the Retry-After pause of its service is lifted; its sibling lane is free."""
    rate_dir = tmp_path / "cache" / RATE_DIR
    http = fast_http(shared_dir=rate_dir)
    try:
        host = "127.0.0.1"
        for lane in ("crossref", "crossref-query"):
            http._lane_hosts[lane] = host
        http.bucket("crossref").adapt({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "7200"})
        http.pause_host(host, "crossref", 86400)
        assert http._paused_for("crossref-query", host) > 80000
        assert SharedRate(rate_dir).lift_pauses() == 1
        assert http._paused_for("crossref-query", host) == 0.0
        assert http.bucket("crossref-query").token_wait() < 1.0
        assert 7000 < http._paused_for("crossref", host) <= 7200
    finally:
        await http.aclose()
