"""Background work: a task registry, per-key debounce, and one serial CPU worker.

* :class:`TaskRegistry` keeps every background task under a ``(group, key)`` name.  Starting a
  task under a name cancels the one already running under it, so outdated work never
  finishes; a whole group (e.g. ``"verify"``) can be cancelled at once.
* :meth:`TaskRegistry.debounce` waits ``delay`` seconds before running, restarting the wait
  on every call with the same name.
* :class:`Worker` runs CPU work in a thread (``asyncio.to_thread``), one job at a time, so the
  project model is never touched by two threads at once while the event loop stays free to
  answer requests and send messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

TaskName = tuple[str, str]


class TaskRegistry:
    """Named background tasks; a new task under a name replaces (cancels) the old one."""

    def __init__(self) -> None:
        self._tasks: dict[TaskName, asyncio.Task[Any]] = {}

    def spawn(self, group: str, key: str, work: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``work`` as the task ``(group, key)``, cancelling a previous one."""
        name = (group, key)
        old = self._tasks.get(name)
        if old is not None and not old.done():
            old.cancel()
        task: asyncio.Task[Any] = asyncio.ensure_future(self._guard(name, work))
        self._tasks[name] = task
        task.add_done_callback(lambda t, n=name: self._forget(n, t, work))  # type: ignore[misc]
        return task

    def debounce(
        self, group: str, key: str, delay: float, work: Callable[[], Awaitable[Any]]
    ) -> asyncio.Task[Any]:
        """Run ``work()`` after ``delay`` seconds unless the same name is debounced again."""

        async def later() -> None:
            if delay > 0:
                await asyncio.sleep(delay)
            await work()

        return self.spawn(group, key, later())

    def cancel(self, group: str, key: str | None = None) -> int:
        """Cancel one task, or every task of ``group`` when ``key`` is None."""
        count = 0
        for name, task in list(self._tasks.items()):
            if name[0] == group and (key is None or name[1] == key) and not task.done():
                task.cancel()
                count += 1
        return count

    def running(self, group: str | None = None) -> list[TaskName]:
        return [
            name
            for name, task in self._tasks.items()
            if not task.done() and (group is None or name[0] == group)
        ]

    def get(self, group: str, key: str) -> asyncio.Task[Any] | None:
        return self._tasks.get((group, key))

    async def wait_idle(self, group: str | None = None) -> None:
        """Wait until no task (of ``group``) is running; tasks started meanwhile count too."""
        while True:
            pending = [
                t
                for n, t in self._tasks.items()
                if not t.done() and (group is None or n[0] == group)
            ]
            if not pending:
                return
            await asyncio.wait(pending)

    async def close(self) -> None:
        tasks = [t for t in self._tasks.values() if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)

    async def _guard(self, name: TaskName, work: Awaitable[Any]) -> Any:
        try:
            return await work
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("background task %s/%s failed", *name)
            return None

    def _forget(self, name: TaskName, task: asyncio.Task[Any], work: Awaitable[Any]) -> None:
        if self._tasks.get(name) is task:
            del self._tasks[name]
        if inspect.iscoroutine(work) and inspect.getcoroutinestate(work) == "CORO_CREATED":
            work.close()  # cancelled before it started: never to be awaited


async def finish_even_if_cancelled(work: Awaitable[T]) -> T:
    """Await ``work``; a cancelled caller still waits for it to end (then is cancelled), so
    work that cannot be stopped half-way never outlives the one who started it."""
    job = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        while not job.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([job])
        raise


class Worker:
    """Runs blocking functions in a thread, one at a time, in call order."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` in a thread once the previous job is done.

        Cancelling the caller does not release the worker before the thread has finished,
        so two jobs never overlap.
        """
        async with self._lock:
            return await finish_even_if_cancelled(asyncio.to_thread(fn, *args, **kwargs))

    @property
    def busy(self) -> bool:
        return self._lock.locked()
