"""The persistent look-up cache (the only module that imports diskcache).

Values are JSON-compatible data stored with their own expiry, so tests can inject a clock;
diskcache's own expiry (a little later) lets :func:`prune` reclaim space.  Keys are built by the
caller from the source name, the normalised request and :data:`SCHEMA_VERSION`; they never hold
secrets.  Location: ``$CITEWARDEN_CACHE_DIR`` or the platform's user cache directory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import diskcache
import platformdirs

#: Bump when the stored record shape changes: old entries are then simply never read.
SCHEMA_VERSION = 1

DAY = 86400.0
#: Time to live of positive results, "no such record" answers and notices/retraction status.
TTL_FOUND = 30 * DAY
TTL_NOT_FOUND = 1 * DAY
TTL_NOTICES = 1 * DAY

CACHE_DIR_ENV = "CITEWARDEN_CACHE_DIR"


def default_directory() -> Path:
    """``$CITEWARDEN_CACHE_DIR`` or the user cache directory for citewarden."""
    env = os.environ.get(CACHE_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("citewarden", appauthor=False))


class Cache:
    """A small TTL key-value store on disk.  Safe to share between processes."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._store = diskcache.Cache(str(self.directory / "lookups"))
        self.hits = 0
        self.misses = 0

    def key(self, *parts: str) -> str:
        """A cache key from request parts, prefixed with the schema version."""
        return "|".join((f"v{SCHEMA_VERSION}", *parts))

    def get(self, key: str) -> Any | None:
        """The stored value, or ``None`` when absent or expired (by the injected clock)."""
        try:
            entry = self._store.get(key)
        except Exception:  # a damaged cache is a miss, never a crash
            entry = None
        if not isinstance(entry, dict) or self._clock() >= float(entry.get("expires", 0)):
            self.misses += 1
            return None
        self.hits += 1
        return entry.get("value")

    def set(self, key: str, value: Any, ttl: float) -> None:
        """Store ``value`` for ``ttl`` seconds."""
        entry = {"expires": self._clock() + ttl, "stored": self._clock(), "value": value}
        try:
            # diskcache's own expiry trails ours so that prune() reclaims dead entries.
            self._store.set(key, entry, expire=ttl + DAY)
        except Exception:  # a full or read-only disk must not stop verification
            return

    def stats(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "entries": len(self._store),
            "size_bytes": int(self._store.volume()),
            "hits": self.hits,
            "misses": self.misses,
            "schema_version": SCHEMA_VERSION,
        }

    def clear(self) -> int:
        return int(self._store.clear())

    def prune(self) -> int:
        """Remove expired entries (by the injected clock and by diskcache's expiry)."""
        removed = int(self._store.expire())
        now = self._clock()
        for key in list(self._store.iterkeys()):
            entry = self._store.get(key)
            if not isinstance(entry, dict) or now >= float(entry.get("expires", 0)):
                removed += int(self._store.delete(key))
        return removed

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- module-level commands for ``citewarden cache stats|clear|prune`` -----------------------


def stats(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Entries, size on disk and location of the cache."""
    with Cache(directory) as cache:
        return cache.stats()


def clear(directory: str | os.PathLike[str] | None = None) -> int:
    """Remove every entry; returns how many were removed."""
    with Cache(directory) as cache:
        return cache.clear()


def prune(directory: str | os.PathLike[str] | None = None) -> int:
    """Remove expired entries; returns how many were removed."""
    with Cache(directory) as cache:
        return cache.prune()
