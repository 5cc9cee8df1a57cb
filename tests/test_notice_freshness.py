"""Retraction status is kept about a day, though the Crossref record that carries it
(``updated-by``) is kept a month: a record read from the cache after a day has its notices
asked again (``filter=updates:``, kept a day, coalesced), once a day at most.

Over the replay server (real recorded responses, the real HTTP client): Crossref's recorded
``/works/10.1007/BF02551274`` (Cybenko 1989) and dblp's recorded search page for its title
(see test_verify_requests.py); the ``filter=updates:`` answer is composed by
tests/batch_replay.py from the recorded work messages (none is a notice about the DOI)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from citewarden.cache import DAY, Cache
from citewarden.model import Status
from citewarden.verify.http import HttpClient
from clocks import Clock, clock
from replay import ReplayServer, replay, replay_http, replay_server
from test_verify_requests import cybenko, notices_asked, serve, verifier

__all__ = ["clock", "replay", "replay_http", "replay_server"]


@pytest.fixture
def store(replay: ReplayServer, tmp_path: Path, clock: Clock) -> Iterator[Cache]:
    """The recorded answers served, and a cache on ``clock``."""
    serve(replay)
    cache = Cache(tmp_path / "cache", clock=clock)
    yield cache
    cache.close()


async def test_a_crossref_record_cached_past_a_day_has_its_notices_asked_again(
    replay: ReplayServer, replay_http: HttpClient, store: Cache, clock: Clock
) -> None:
    entry = cybenko("cited", doi="10.1007/BF02551274")

    async def run() -> Status:
        v = await verifier(replay, replay_http, store).verify(entry)  # type: ignore[arg-type]
        assert v.match is not None and v.match.source == "crossref"
        return v.status

    assert await run() is Status.VERIFIED  # the record fetched now: its notices are fresh
    clock.now += 0.5 * DAY
    assert await run() is Status.VERIFIED
    assert notices_asked(replay) == []  # within the day: no request at all
    clock.now += 1.5 * DAY  # the record is still kept (a month), its notices are not
    assert await run() is Status.VERIFIED
    assert len(notices_asked(replay)) == 1
    assert parse_qs(notices_asked(replay)[0])["filter"] == ["updates:10.1007/bf02551274"]
    clock.now += 0.5 * DAY
    assert await run() is Status.VERIFIED  # asked once a day at most
    assert len(notices_asked(replay)) == 1
    clock.now += 1.0 * DAY
    replay.inject("503", path="/crossref/works", times=10)
    v = await verifier(replay, replay_http, store).verify(entry)  # type: ignore[arg-type]
    # the refresh failed: whether the work was retracted since is not known
    assert v.status is Status.UNVERIFIED
    assert any("whether the work was retracted" in i.message for i in v.issues)
    assert replay.unmatched == []


async def test_a_crossref_record_at_hand_past_a_day_does_not_answer_for_the_notices(
    replay: ReplayServer, replay_http: HttpClient, store: Cache, clock: Clock
) -> None:
    # a work matched at dblp: Crossref's record of its DOI in the cache answers for the
    # notices within the day it was stored, and not after
    await verifier(replay, replay_http, store).verify(cybenko("cited", doi="10.1007/BF02551274"))  # type: ignore[arg-type]
    clock.now += 0.5 * DAY
    v = await verifier(replay, replay_http, store).verify(cybenko("found"))  # type: ignore[arg-type]
    assert v.match is not None and v.match.source == "dblp"
    assert notices_asked(replay) == []
    clock.now += 2 * DAY
    v = await verifier(replay, replay_http, store).verify(cybenko("found"))  # type: ignore[arg-type]
    assert v.status is Status.VERIFIED and v.match is not None and v.match.source == "dblp"
    assert len(notices_asked(replay)) == 1
