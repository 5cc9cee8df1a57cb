"""What the author waits for goes first: the verification of an entry just saved in the
editor asks its sources ahead of the background run's requests.

:func:`urgent` marks the verification running in the current task (a context variable, so
every request it makes carries the mark); :class:`PrioritySlots` is a source's cap on
requests in flight whose urgent waiters are let in before the others (each kind in the
order it came).  An urgent look-up is asked on its own, not added to a batch in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Iterator
from contextvars import ContextVar

_URGENT: ContextVar[bool] = ContextVar("citewarden_urgent", default=False)


@contextlib.contextmanager
def urgent(on: bool = True) -> Iterator[None]:
    """Within the block (and the tasks it starts), requests are urgent when ``on``."""
    token = _URGENT.set(on)
    try:
        yield
    finally:
        _URGENT.reset(token)


def is_urgent() -> bool:
    return _URGENT.get()


class PrioritySlots:
    """At most ``limit`` holders at once (``async with``); a freed slot goes to the
    longest-waiting urgent task, else to the longest-waiting other one."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.active = 0
        self._urgent: deque[asyncio.Future[None]] = deque()
        self._others: deque[asyncio.Future[None]] = deque()

    async def __aenter__(self) -> None:
        if self.active < self.limit and not self._urgent and not self._others:
            self.active += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._urgent if is_urgent() else self._others
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # handed the slot as it was cancelled: pass it on
            else:
                with contextlib.suppress(ValueError):
                    queue.remove(waiter)
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._release()

    def lower(self, limit: int) -> None:
        """Adopt a lower cap (never raised, never below one): holders finish, and waiters
        are let in again once fewer than the new cap hold a slot."""
        if 1 <= limit < self.limit:
            self.limit = limit

    def _release(self) -> None:
        """Hand the freed slot to the next waiter (it counts as active from now)."""
        self.active -= 1
        if self.active >= self.limit:
            return
        for queue in (self._urgent, self._others):
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    self.active += 1
                    return
