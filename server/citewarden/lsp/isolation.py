"""Feature isolation: a failing handler is logged and answers with an empty result."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def isolated(empty: Callable[[], Any] = lambda: None) -> Callable[[F], F]:
    """Wrap a handler so that an exception is logged and ``empty()`` is returned instead."""

    def decorate(fn: F) -> F:
        name = getattr(fn, "__qualname__", repr(fn))
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("%s failed", name)
                    return empty()

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", name)
                return empty()

        return run  # type: ignore[return-value]

    return decorate
