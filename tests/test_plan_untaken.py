"""An answer the plan fetched that no entry took (the entry was removed before its
look-up ran, in a long editor session) lives no longer than the cache keeps it, its
notices are stale after a day as the cache's are, and the plan holds a bounded number.

Over the replay server: Crossref's recorded ``/works/{doi}`` answers, batched by
tests/batch_replay.py into the ``filter=doi:`` answer the plan sends."""

from __future__ import annotations

import asyncio

import pytest

from batch_replay import serve_batches
from citewarden.cache import DAY
from citewarden.verify import plan
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import normalize_entry
from citewarden.verify.plan import Ahead
from citewarden.verify.records import Outcome
from citewarden.verify.sources.crossref import CrossrefSource
from clocks import Clock, clock
from replay import ReplayServer, replay, replay_http, replay_server
from test_plan import entry_for, recorded_crossref_works

__all__ = ["clock", "replay", "replay_http", "replay_server"]


async def planned_and_settled(
    replay: ReplayServer, http: HttpClient, ahead: Ahead, count: int
) -> list[str]:
    """The DOIs of ``count`` recorded works, planned in one batch, its answer in."""
    serve_batches(replay)
    works = recorded_crossref_works()[:count]
    sources = {"crossref": CrossrefSource(http, replay.base_url("crossref"))}
    for i, msg in enumerate(works):
        ahead.add(sources, normalize_entry(entry_for(i, msg)))
    dois = [str(msg["DOI"]) for msg in works]
    last = ahead.planned("crossref", "by_doi", dois[-1])
    ahead.flush(sources)
    assert last is not None
    await asyncio.wait_for(last, timeout=10)
    await asyncio.sleep(0)
    return dois


async def test_an_answer_not_taken_expires_with_the_caches_lifetime(
    replay: ReplayServer, replay_http: HttpClient, clock: Clock
) -> None:
    ahead = Ahead(clock=clock)
    first, second, third = await planned_and_settled(replay, replay_http, ahead, 3)
    clock.now += 0.5 * DAY
    fresh = ahead.take("crossref", "by_doi", first)
    assert fresh is not None and fresh.done()
    answer = fresh.result()
    assert answer is not None and answer.outcome is Outcome.FOUND
    assert not answer.notices_stale  # taken within the day: its notices are fresh
    clock.now += 2 * DAY
    later = ahead.take("crossref", "by_doi", second)
    assert later is not None
    aged = later.result()
    assert aged is not None and aged.outcome is Outcome.FOUND
    assert aged.notices_stale  # its record still holds, its notices are asked again
    clock.now += 30 * DAY  # past the month a found record is kept
    assert ahead.planned("crossref", "by_doi", third) is None
    assert ahead.take("crossref", "by_doi", third) is None


async def test_the_plan_holds_a_bounded_number_of_answers_not_taken(
    replay: ReplayServer, replay_http: HttpClient, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "MAX_UNTAKEN", 2, raising=False)
    ahead = Ahead(clock=clock)
    dois = await planned_and_settled(replay, replay_http, ahead, 4)
    held = [ahead.planned("crossref", "by_doi", d) is not None for d in dois]
    assert held == [False, False, True, True]  # the oldest forgotten first
