"""Caps on requests in flight shared by every citewarden process on a machine.

A cap of ``n`` requests in flight to one host (a lane's published concurrency, or what the
host advertises with ``x-concurrency-limit``) is ``n`` slot files in the cache directory,
``<cache>/rate/<host>.<name>.slot<i>``.  A request holds an exclusive ``flock`` on one of them
for its whole duration; the kernel releases it when the file is closed or the process dies,
so a crashed or killed holder never keeps a slot.

A request that finds every slot taken tries them again at growing intervals (a few
milliseconds up to :data:`MAX_POLL`; it sleeps between tries, it never spins), and gives up
when its deadline comes (:class:`SlotTimeout`).  Where file locks are unavailable (no
``fcntl``) or the directory cannot be written, each process keeps only its own caps; this
is said once in the log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from citewarden.verify.shared_dir import SharedDirectory, open_shared, safe_name

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("citewarden.http")

#: Longest sleep between two tries for a free slot (seconds).
MAX_POLL = 0.05
#: First sleep between tries; each later one is half as long again, up to :data:`MAX_POLL`.
FIRST_POLL = 0.002
#: No cap holds more slot files than this (a hostile advertisement cannot make thousands).
MAX_SLOTS = 64


class SlotTimeout(Exception):
    """Every slot stayed taken until the request's deadline."""

    def __init__(self, host: str, waited: float) -> None:
        super().__init__(host, waited)
        self.host = host
        self.waited = waited


class SharedSlots(SharedDirectory):
    """Slot files per host and cap name in ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        super().__init__(directory, "caps on requests in flight")

    def path(self, host: str, name: str, index: int) -> Path:
        """The file of slot ``index`` of cap ``name`` on ``host``."""
        return self.directory / f"{safe_name(host)}.{safe_name(name)}.slot{index}"

    def _try(self, host: str, name: str, count: int, start: int) -> int | None:
        """An open, locked descriptor of a free slot, or None when all are taken."""
        for k in range(count):
            path = self.path(host, name, (start + k) % count)
            try:
                fd = open_shared(path)
            except OSError as exc:
                self._disable(f"cannot open {path}: {exc.strerror or exc}")
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            except OSError as exc:
                os.close(fd)
                self._disable(f"cannot lock {path}: {exc.strerror or exc}")
                return None
            return fd
        return None

    @asynccontextmanager
    async def hold(self, host: str, name: str, count: int, limit: float) -> AsyncIterator[None]:
        """Hold one of ``count`` slots of cap ``name`` on ``host`` for the ``with`` block,
        waiting at most ``limit`` seconds for one (:class:`SlotTimeout` after that)."""
        if not self._shared:
            yield
            return
        count = max(1, min(count, MAX_SLOTS))
        started = time.monotonic()
        start = os.getpid() % count  # processes start their search at different slots
        delay = FIRST_POLL
        while True:
            fd = self._try(host, name, count, start)
            if fd is not None or not self._shared:
                break
            waited = time.monotonic() - started
            if waited >= limit:
                raise SlotTimeout(host, waited)
            await asyncio.sleep(min(delay, max(0.0, limit - waited)))
            delay = min(MAX_POLL, delay * 1.5)
        try:
            yield
        finally:
            if fd is not None:
                os.close(fd)  # closing releases the lock
