"""CachedSource: any source behind the persistent cache, so the engine stays cache-agnostic.

FOUND answers are kept ~30 days, NOT_FOUND ~1 day, notices (retraction status) ~1 day;
FAILED answers are never stored.  An answer read back more than a day after it was stored
is marked ``notices_stale``: the notices its records carry (Crossref's ``updated-by``) are
older than their lifetime, and the engine asks the ``notices`` look-up for them again.  Keys hold the source's address (:func:`key_space`), so
answers from one base URL never serve another.  In offline mode nothing reaches the inner source: a cache
miss is ``Lookup.failed(name, "offline: not in cache")``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from citewarden.cache import TTL_FOUND, TTL_NOT_FOUND, TTL_NOTICES, Cache
from citewarden.verify.config import DEFAULT_BASE_URLS
from citewarden.verify.records import (
    Lookup,
    Outcome,
    Query,
    lookup_from_dict,
    lookup_to_dict,
)
from citewarden.verify.sources._common import fold, normalize_doi

OFFLINE_MISS = "offline: not in cache"

#: Single-argument look-up methods that are cached when the inner source has them.
KEYED_METHODS = frozenset(
    {
        "by_arxiv",
        "by_pmid",
        "by_isbn",
        "search_bibliographic",
        "notices",
        "summaries",
        "journal",
        "venues",
        "agency",
    }
)
SHORT_LIVED = frozenset({"notices"})
#: Batch look-up methods and the single look-up whose cache entries they share.
BATCHED_METHODS = {
    "by_dois": "by_doi",
    "by_arxivs": "by_arxiv",
    "by_pmid_batch": "by_pmid",
    "notices_many": "notices",
    "agencies": "agency",
}


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _address(base_url: str) -> str:
    """``base_url`` as scheme, host, port and path only (never its login, query or fragment),
    in one spelling: ``HTTPS://API.Crossref.org:443/`` is ``https://api.crossref.org``."""
    try:
        parts = urlsplit(base_url.strip())
        port = parts.port
    except ValueError:
        return base_url.strip()  # not a URL the sources could use: kept apart as it is
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port_part = f":{port}" if port is not None and port != _DEFAULT_PORTS.get(scheme) else ""
    return f"{scheme}://{host}{port_part}{parts.path.rstrip('/')}"


def key_space(name: str, base_url: str | None) -> str:
    """Where the answers of source ``name`` at ``base_url`` are kept: its name for the default
    address, its name and a digest of the address otherwise, so that what one address answered
    never serves a source configured with another."""
    if not base_url:
        return name
    address = _address(base_url)
    default = DEFAULT_BASE_URLS.get(name)
    if default is not None and address == _address(default):
        return name
    return f"{name}@{hashlib.sha256(address.encode()).hexdigest()[:16]}"


def _norm_arg(method: str, arg: Any) -> str:
    if method in {"by_doi", "notices"}:
        return normalize_doi(str(arg)) or fold(str(arg))
    if isinstance(arg, Query):
        data = dataclasses.asdict(arg)
        data["title"] = fold(arg.title)
        data["authors"] = [fold(a) for a in arg.authors]
        data["venue"] = fold(arg.venue) if arg.venue else None
        return json.dumps(data, sort_keys=True, ensure_ascii=False)
    if isinstance(arg, list | tuple):
        return ",".join(fold(str(a)) for a in arg)
    return fold(str(arg))


class CachedSource:
    """Wraps ``inner`` (any :class:`~citewarden.verify.base.Source`) with ``cache``.

    Exposes the same methods as ``inner``: ``by_doi``, ``search`` and, when ``inner`` has
    them, ``notices``, ``by_dois``, ``by_arxiv``, ``by_pmid``, ``by_isbn`` ... (``hasattr``
    tells the engine what a source supports).  Results read from the cache have
    ``from_cache=True``.
    """

    def __init__(self, inner: Any, cache: Cache | None, *, offline: bool = False) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.cache = cache
        self.offline = offline
        #: The first part of this source's cache keys (see :func:`key_space`).
        self.space = key_space(self.name, getattr(inner, "base_url", None))
        #: Requests in flight by key: concurrent identical look-ups share one request.
        self._inflight: dict[str, asyncio.Future[Lookup | None]] = {}

    def __repr__(self) -> str:
        return f"CachedSource({self.inner!r}, offline={self.offline})"

    def key(self, method: str, arg: Any) -> str:
        """The cache key of a look-up ``method(arg)`` of this source at its address."""
        return self._key(method, _norm_arg(method, arg))

    def _key(self, method: str, norm: str) -> str:
        return self.cache.key(self.space, method, norm) if self.cache is not None else ""

    async def _cached(self, method: str, arg: Any, call: Callable[[], Awaitable[Lookup]]) -> Lookup:
        """The cached answer, else the answer of the request in flight for the same look-up,
        else a request of its own.  A request that ended without an answer (its entry's
        verification cancelled, the source raised) answers nobody else: each waiting
        look-up then asks on its own, never cancelled along with another entry."""
        key = self.key(method, arg)
        flight_key = f"{method}|{_norm_arg(method, arg)}"
        while True:
            known = self.peek(method, arg)
            if known is not None:
                return known
            pending = self._inflight.get(flight_key)
            if pending is None:
                break
            shared = await asyncio.shield(pending)
            if shared is not None:
                return shared
        future: asyncio.Future[Lookup | None] = asyncio.get_running_loop().create_future()
        self._inflight[flight_key] = future
        try:
            result = await call()
        except BaseException:
            future.set_result(None)  # the others ask on their own
            raise
        else:
            future.set_result(result)
            self._store(method, key, result)
        finally:
            del self._inflight[flight_key]
        return result

    def _store(self, method: str, key: str, result: Lookup) -> None:
        if self.cache is None or result.outcome is Outcome.FAILED:
            return
        if method in SHORT_LIVED:
            ttl = TTL_NOTICES
        elif result.outcome is Outcome.FOUND:
            ttl = TTL_FOUND
        else:
            ttl = TTL_NOT_FOUND
        self.cache.set(key, lookup_to_dict(result), ttl)

    async def by_doi(self, doi: str) -> Lookup:
        return await self._cached("by_doi", doi, lambda: self.inner.by_doi(doi))

    async def search(self, query: Query) -> Lookup:
        """Kept under what the request is built from (the source's ``search_key``): queries
        that differ only in what the source does not send share one answer."""
        key = getattr(self.inner, "search_key", None)
        asked = key(query) if callable(key) else query
        return await self._cached("search", asked, lambda: self.inner.search(query))

    def peek(self, method: str, arg: Any) -> Lookup | None:
        """The cached answer of a single look-up without asking the source (offline: a miss
        is the offline failure); None when the source would have to be asked."""
        if self.cache is not None:
            hit = self._read(self.key(method, arg))
            if hit is not None:
                return hit
        return Lookup.failed(self.name, OFFLINE_MISS) if self.offline else None

    def _read(self, key: str) -> Lookup | None:
        """The answer kept under ``key`` (None when absent, expired or unreadable), marked
        ``notices_stale`` when it was stored longer ago than notices live."""
        aged = self.cache.get_aged(key) if self.cache is not None else None
        if aged is None or not isinstance(aged[0], dict):
            return None
        try:
            hit = lookup_from_dict(aged[0], from_cache=True, notices_stale=aged[1] >= TTL_NOTICES)
        except (KeyError, TypeError, ValueError):
            return None  # an unreadable entry is a miss
        # a failure is never stored (:meth:`_store`): one read back was not written here
        return None if hit.outcome is Outcome.FAILED else hit

    async def _batched(
        self, single: str, batch: Callable[[list[str]], Awaitable[dict[str, Lookup]]], ids: Any
    ) -> dict[str, Lookup]:
        """A batch look-up that asks ``inner`` only for the ids not in the cache, and keeps
        each answer under the key of the single look-up (``by_doi`` for ``by_dois`` ...), so
        later single look-ups are hits.  Keys of the result are the normalised ids."""
        out: dict[str, Lookup] = {}
        missing: list[str] = []
        asked: set[str] = set()
        for raw in ids:
            norm = _norm_arg(single, raw)
            if norm in out or norm in asked:
                continue
            hit = self._read(self._key(single, norm))
            if hit is not None:
                out[norm] = hit
                continue
            if self.offline:
                out[norm] = Lookup.failed(self.name, OFFLINE_MISS)
            else:
                missing.append(raw.strip())
                asked.add(norm)
        if missing:
            fetched = await batch(missing)
            for raw, result in fetched.items():
                norm = _norm_arg(single, raw)
                self._store(single, self._key(single, norm), result)
                out[norm] = result
        return out

    def __getattr__(self, name: str) -> Any:
        if name == "inner" or name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(self.inner, name)  # AttributeError when the source lacks it
        if name in BATCHED_METHODS:
            return functools.partial(self._batched, BATCHED_METHODS[name], attr)
        if name in KEYED_METHODS:

            async def method(arg: Any) -> Lookup:
                return await self._cached(name, arg, lambda: attr(arg))

            return method
        return attr
