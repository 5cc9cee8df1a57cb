"""Build the enabled sources, in configured order, from settings and environment."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from citewarden.cache import Cache, default_directory
from citewarden.settings import VerifySettings
from citewarden.verify.breaker import Breaker
from citewarden.verify.config import SourceConfig, resolve_config
from citewarden.verify.http import HttpClient, user_agent
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.datacite import DataCiteSource
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.doaj import DoajSource
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.openlibrary import OpenLibrarySource
from citewarden.verify.sources.pubmed import PubMedSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from citewarden.verify.sources.snapshot import INDEX_DIR, SnapshotSource


def make_http(
    config: SourceConfig, *, transport: httpx.AsyncBaseTransport | None = None, **kwargs: Any
) -> HttpClient:
    """The shared HTTP client for ``config`` (User-Agent with mailto, but to the addresses
    of its anonymous sources; secrets registered; the breaker's settings)."""
    if "breaker" not in kwargs:
        kwargs["breaker"] = Breaker(
            failures=config.breaker_failures, cooldown=config.breaker_cooldown
        )
    return HttpClient(
        timeout=config.timeout,
        user_agent=user_agent(config.mailto),
        anonymous=[config.base_url(name) for name in config.anonymous],
        secrets=config.secrets,
        transport=transport,
        **kwargs,
    )


def make_source(name: str, config: SourceConfig, http: HttpClient) -> Any:
    """One online source by name (see :data:`citewarden.settings.SOURCE_NAMES`)."""
    url = config.base_url(name)
    if name == "crossref":
        return CrossrefSource(http, url, mailto=config.mailto_for(name))
    if name == "doi":
        return DoiSource(http, url)
    if name == "openalex":
        return OpenAlexSource(
            http, url, mailto=config.mailto_for(name), api_key=config.openalex_api_key
        )
    if name == "semanticscholar":
        return SemanticScholarSource(http, url, api_key=config.s2_api_key)
    if name == "datacite":
        return DataCiteSource(http, url)
    if name == "arxiv":
        return ArxivSource(http, url)
    if name == "pubmed":
        return PubMedSource(http, url, mailto=config.mailto_for(name), api_key=config.ncbi_api_key)
    if name == "dblp":
        return DblpSource(http, url)
    if name == "openlibrary":
        return OpenLibrarySource(http, url, identified=bool(config.mailto_for(name)))
    if name == "doaj":
        return DoajSource(http, url)
    raise ValueError(f"unknown source {name!r}")


log = logging.getLogger("citewarden.verify")

#: Sentinel: open the default persistent cache.
DEFAULT_CACHE: Any = object()


def build_sources(
    config: SourceConfig | VerifySettings | None = None,
    http: HttpClient | None = None,
    *,
    cache: Cache | None = DEFAULT_CACHE,
    offline: bool | None = None,
    snapshot: str | os.PathLike[str] | None = None,
    snapshot_index_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Any]:
    """The enabled sources in configured order, each behind ``cache``.

    ``config`` may be resolved :class:`SourceConfig` or plain :class:`VerifySettings`
    (resolved here with ``env``).  Without ``http`` a client is created (it opens its
    connections lazily on first use).  ``cache`` defaults to the persistent cache in
    ``$CITEWARDEN_CACHE_DIR`` / the user cache dir; pass ``None`` for no cache.
    ``offline`` / ``snapshot`` override the configuration.  A snapshot source comes first
    (it answers locally); in offline mode the online sources answer from the cache only.
    """
    if not isinstance(config, SourceConfig):
        config = resolve_config(config, env)
    if offline is not None or snapshot is not None:
        config = dataclasses.replace(
            config,
            offline=config.offline if offline is None else offline,
            snapshot=str(snapshot) if snapshot is not None else config.snapshot,
        )
    if http is None:
        http = make_http(config)
    if cache is DEFAULT_CACHE:
        try:
            cache = Cache(default_directory(env))
        except Exception as exc:  # unwritable or damaged cache directory: verify without one
            log.warning("cache unavailable (%s): verifying without a cache", type(exc).__name__)
            cache = None
    sources: list[Any] = []
    if config.snapshot:
        if snapshot_index_dir is None:
            base = cache.directory if cache is not None else Path(config.snapshot).parent
            snapshot_index_dir = Path(base) / INDEX_DIR
        sources.append(SnapshotSource(config.snapshot, snapshot_index_dir))
    for name in config.sources:
        src = make_source(name, config, http)
        if cache is not None or config.offline:
            src = CachedSource(src, cache, offline=config.offline)
        sources.append(src)
    return sources


@dataclass
class SourceSet:
    """Sources plus the resources they share; close with ``await sources.aclose()``."""

    config: SourceConfig
    http: HttpClient
    cache: Cache | None
    sources: list[Any] = field(default_factory=list)

    def by_name(self, name: str) -> Any | None:
        return next((s for s in self.sources if s.name == name), None)

    async def aclose(self) -> None:
        await self.http.aclose()
        for s in self.sources:
            close = getattr(s, "close", None)
            if callable(close):
                close()
        if self.cache is not None:
            self.cache.close()

    async def __aenter__(self) -> SourceSet:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def open_sources(
    settings: VerifySettings | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    transport: httpx.AsyncBaseTransport | None = None,
    **http_options: Any,
) -> SourceSet:
    """Resolve configuration, create the HTTP client and cache, and build the sources."""
    config = resolve_config(settings, env)
    if cache_dir is None and use_cache:
        cache_dir = default_directory(env)
    cache = Cache(cache_dir) if use_cache else None
    if cache is not None:
        # request rates are shared with other processes through the cache directory
        http_options.setdefault("shared_dir", cache.directory / "rate")
    http = make_http(config, transport=transport, **http_options)
    return SourceSet(config, http, cache, build_sources(config, http, cache=cache, env=env))
