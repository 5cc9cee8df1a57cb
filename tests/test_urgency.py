"""What the author waits for goes first: an urgent verification's requests are let into a
source's slots (and a lane's token and concurrency queues) before the background run's,
its cached answers need no slot, and a slot is never lost to a cancelled waiter."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from citewarden.settings import VerifySettings
from citewarden.verify.plan import answer_key
from citewarden.verify.rate_limit import Limit, TokenBucket
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.source_calls import SourceCalls
from citewarden.verify.urgency import PrioritySlots, is_urgent, urgent


async def _hold(slots: PrioritySlots, name: str, order: list[str], go: asyncio.Event) -> None:
    async with slots:
        order.append(name)
        await go.wait()


async def test_urgent_waiters_are_let_in_first_each_kind_in_its_order() -> None:
    slots = PrioritySlots(1)
    order: list[str] = []
    go = asyncio.Event()
    go.set()
    first = asyncio.Event()
    holder = asyncio.create_task(_hold(slots, "holder", order, first))
    await asyncio.sleep(0)
    tasks = [asyncio.create_task(_hold(slots, "bg1", order, go))]
    tasks.append(asyncio.create_task(_hold(slots, "bg2", order, go)))
    await asyncio.sleep(0)
    with urgent():
        tasks.append(asyncio.create_task(_hold(slots, "now1", order, go)))
        tasks.append(asyncio.create_task(_hold(slots, "now2", order, go)))
    assert not is_urgent()  # the mark stays with the tasks started inside the block
    await asyncio.sleep(0)
    first.set()
    await asyncio.gather(holder, *tasks)
    assert order == ["holder", "now1", "now2", "bg1", "bg2"]
    assert slots.active == 0


async def test_a_waiter_cancelled_as_it_is_let_in_passes_the_slot_on() -> None:
    slots = PrioritySlots(1)
    order: list[str] = []
    go = asyncio.Event()
    await slots.__aenter__()
    doomed = asyncio.create_task(_hold(slots, "doomed", order, go))
    later = asyncio.create_task(_hold(slots, "later", order, go))
    await asyncio.sleep(0)
    await slots.__aexit__(None, None, None)  # hands the slot to "doomed" (no step between)
    doomed.cancel()  # ... which is cancelled before it runs
    go.set()
    await later
    with pytest.raises(asyncio.CancelledError):
        await doomed
    assert order == ["later"] and slots.active == 0


async def test_a_lowered_cap_lets_no_one_in_until_holders_are_below_it() -> None:
    slots = PrioritySlots(2)
    order: list[str] = []
    hold = asyncio.Event()
    holders = [asyncio.create_task(_hold(slots, f"h{i}", order, hold)) for i in range(2)]
    await asyncio.sleep(0)
    slots.lower(1)
    waiting = asyncio.create_task(_hold(slots, "w", order, asyncio.Event()))
    await asyncio.sleep(0)
    hold.set()
    await asyncio.gather(*holders)
    await asyncio.sleep(0)
    assert order == ["h0", "h1", "w"] and slots.active == 1
    waiting.cancel()


async def test_an_urgent_request_takes_the_next_token_of_its_lane() -> None:
    clock = [0.0]
    gate = asyncio.Event()

    async def sleep(seconds: float) -> None:
        await gate.wait()
        clock[0] += seconds

    bucket = TokenBucket(Limit(1.0, 1, 1), clock=lambda: clock[0], sleep=sleep)
    await bucket.acquire()  # the burst is spent: every later one waits for a token
    order: list[str] = []

    async def take(name: str) -> None:
        await bucket.acquire()
        order.append(name)

    background = [asyncio.create_task(take(f"bg{i}")) for i in range(3)]
    await asyncio.sleep(0)  # bg0 waits for its token holding the lane, bg1 and bg2 queue
    with urgent():
        now = asyncio.create_task(take("now"))
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*background, now)
    assert order == ["bg0", "now", "bg1", "bg2"]


class _CachedSource:
    """A source whose cache holds the answer (peek) and that counts real asks."""

    def __init__(self) -> None:
        self.asked = 0

    def peek(self, method: str, arg: Any) -> Lookup | None:
        return Lookup.failed("crossref", "cached answer") if arg == "10.1/cached" else None

    async def by_doi(self, doi: str) -> Lookup:
        self.asked += 1
        return Lookup.failed("crossref", "asked")


async def test_an_urgent_look_up_answered_by_the_cache_needs_no_slot() -> None:
    calls = SourceCalls([], VerifySettings(concurrency=1))
    calls._bind_loop()
    source = _CachedSource()
    slot = calls._slot("crossref")
    async with slot:  # every slot of the source is taken by the background run
        with urgent():
            hit = await asyncio.wait_for(calls._ask(source, "crossref", "by_doi", "10.1/cached"), 1)
    assert hit.reason == "cached answer" and source.asked == 0


class _BatchSource:
    """A source whose batch answer is held back until ``gate`` opens, counting asks."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.alone: list[str] = []
        self.batched: list[list[str]] = []

    def peek(self, method: str, arg: Any) -> Lookup | None:
        return None

    async def by_doi(self, doi: str) -> Lookup:
        self.alone.append(doi)
        return Lookup.not_found("crossref")

    async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
        self.batched.append(list(dois))
        await self.gate.wait()
        return {answer_key("by_doi", d): Lookup.not_found("crossref") for d in dois}


async def test_an_urgent_look_up_of_an_id_in_a_batch_being_sent_waits_for_its_answer() -> None:
    """The background run's batch holding the id is on the wire: the saved entry's look-up
    takes its answer rather than asking the same id again."""
    calls = SourceCalls([], VerifySettings(concurrency=1))
    calls._bind_loop()
    source = _BatchSource()
    sources = {"crossref": source}
    for i in range(3):
        calls._ahead._plan(sources, ("crossref", "by_doi"), f"10.1/{i}")
    calls._ahead.flush(sources)
    while not source.batched:
        await asyncio.sleep(0)
    with urgent():
        ask = asyncio.create_task(calls._ask(source, "crossref", "by_doi", "10.1/1"))
    await asyncio.sleep(0.05)
    assert not ask.done() and source.alone == []  # waiting for the batch on the wire
    source.gate.set()
    answer = await asyncio.wait_for(ask, 1)
    assert answer.outcome is Outcome.NOT_FOUND and source.alone == []
    assert source.batched == [["10.1/0", "10.1/1", "10.1/2"]]
