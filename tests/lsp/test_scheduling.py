"""The background task registry: a debounced task replaced before it started leaves no
coroutine behind that was never awaited."""

from __future__ import annotations

import asyncio
import gc
import warnings

from citewarden.lsp.scheduling import TaskRegistry


async def test_a_debounced_task_replaced_before_it_started_is_closed() -> None:
    registry = TaskRegistry()
    ran: list[int] = []

    async def work() -> None:
        ran.append(1)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):  # each call cancels the one before, before it ever ran
            registry.debounce("g", "k", 0.05, work)
        await asyncio.sleep(0.2)
        gc.collect()
    assert ran == [1]  # the last one ran, once
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert registry.running() == []
