"""``citewarden cache clear`` lifts the pauses a service asked for (``Retry-After``), which
every citewarden process sharing the cache directory keeps in ``<cache>/rate/``.

Over the replay server: Crossref's recorded ``/works/10.1371/journal.pone.0033693``, its
first answer turned into a 503 with ``Retry-After: 86400`` (the fault injection)."""

from __future__ import annotations

from pathlib import Path

from citewarden.verify.records import Outcome
from citewarden.verify.shared_rate import RATE_DIR, SharedRate
from citewarden.verify.sources import CrossrefSource
from cli_process import run_citewarden
from replay import ReplayServer, fast_http, replay, replay_server

__all__ = ["replay", "replay_server"]

DOI = "10.1371/journal.pone.0033693"


async def test_cache_clear_lifts_a_pause_kept_for_every_process(
    replay: ReplayServer, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    host = "127.0.0.1"
    http = fast_http(shared_dir=cache_dir / RATE_DIR)
    try:
        replay.inject("503", path="/crossref", retry_after="86400")
        source = CrossrefSource(http, replay.base_url("crossref"))
        first = await source.by_doi(DOI)
    finally:
        await http.aclose()
    assert first.outcome is Outcome.FAILED
    assert SharedRate(cache_dir / RATE_DIR).paused_for(host, "crossref") > 80000
    done = run_citewarden(["cache", "clear"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(cache_dir)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
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
