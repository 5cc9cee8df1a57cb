"""Requests the server sends the editor (``workspace/configuration``, capability
registrations, progress tokens), answered within a bounded time.

The server waits for these answers before it indexes the workspace and answers requests;
an editor that never answers one (a client that drops requests it does not know) left the
server silent for good.  :func:`answer` waits ``CLIENT_ANSWER`` seconds, then logs that the
editor did not answer and goes on without the answer (:class:`NoAnswer`); an answer that
comes later is handed to ``late``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds the server waits for the editor's answer to a request it sent.
CLIENT_ANSWER = 5.0


class NoAnswer(TimeoutError):
    """The editor did not answer a request of the server's in time."""


async def answer(
    request: Awaitable[T],
    what: str,
    late: Callable[[T], None] | None = None,
    timeout: float = CLIENT_ANSWER,
) -> T:
    """The editor's answer to ``request`` (a ``what`` request); :class:`NoAnswer` after
    ``timeout`` seconds without one.  The request stays open: ``late`` gets its answer
    when it comes after that."""
    task = asyncio.ensure_future(request)
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if task in done:
        return task.result()
    log.warning(
        "the editor did not answer %s within %g s: the server goes on without its answer",
        what,
        timeout,
    )
    task.add_done_callback(lambda t: _hand_late(t, what, late))
    raise NoAnswer(f"no answer to {what}")


def _hand_late(task: asyncio.Future[T], what: str, late: Callable[[T], None] | None) -> None:
    if task.cancelled() or task.exception() is not None:
        return
    log.info("the editor answered %s late", what)
    if late is not None:
        late(task.result())
