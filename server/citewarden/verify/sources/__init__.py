"""Scholarly metadata sources behind one interface (see ``citewarden.verify.base.Source``).

Every source has ``name`` and two coroutines that never raise for network or data problems::

    await src.by_doi(doi: str) -> Lookup        # FOUND / NOT_FOUND / FAILED(reason)
    await src.search(query: Query) -> Lookup    # candidates only, never a verdict

Optional capabilities (test with ``hasattr``; ``CachedSource`` mirrors its inner source)::

    await src.notices(doi) -> Lookup              # crossref, snapshot: notices about doi;
                                                  # records have is_notice=True and
                                                  # updates=(Update(kind, doi=target), ...)
    await src.notices_many(dois) -> dict[str, Lookup]  # crossref: notices of many DOIs
    await src.by_dois(dois) -> dict[str, Lookup]  # crossref, openalex, semanticscholar;
                                                  # keys are normalised (lower-case) DOIs
    await src.by_arxiv(arxiv_id) -> Lookup        # arxiv, semanticscholar
    await src.by_pmid(pmid) -> Lookup             # pubmed (also by_pmids, summaries, citmatch)
    await src.by_isbn(isbn) -> Lookup             # openlibrary
    await src.search_bibliographic(text) -> Lookup  # crossref query.bibliographic

Sources that cannot answer a kind of request return ``Lookup.failed(name, "unsupported")``
(doi/dblp/openlibrary ``search`` or ``by_doi``; arxiv ``by_doi`` for non-10.48550 DOIs).

Building them (what the engine and the CLI use)::

    from citewarden.verify.sources import open_sources
    async with open_sources(settings.verify) as ss:      # SourceSet
        for src in ss.sources: ...                       # configured order, cached
        crossref = ss.by_name("crossref")

    open_sources(settings=None, *, env=None, cache_dir=None, use_cache=True,
                 transport=None, **http_options) -> SourceSet
    SourceSet(config, http, cache, sources).aclose()
    build_sources(config: SourceConfig | VerifySettings | None = None, http=None, *,
                  cache=<persistent default; None = no cache>, offline=None, snapshot=None,
                  snapshot_index_dir=None, env=None) -> list[source]   (snapshot first)
    resolve_config(settings: VerifySettings | None, env=None) -> SourceConfig   (verify.config)
    make_http(config, *, transport=None, **kw) -> HttpClient                     (registry)

Classes (all take ``(http: HttpClient, base_url: str, ...)``): ``CrossrefSource(mailto=)``,
``DoiSource``, ``OpenAlexSource(mailto=, api_key=)``, ``SemanticScholarSource(api_key=)``,
``DataCiteSource``, ``ArxivSource``, ``PubMedSource(mailto=, api_key=)``, ``DblpSource``,
``OpenLibrarySource(identified=)``; ``SnapshotSource(path, index_dir)`` (offline JSONL of
Crossref records); ``CachedSource(inner, cache: Cache | None, offline=False)``.

Converters usable on their own: ``work_from_csl`` (Crossref message / CSL-JSON),
``work_from_openalex``, ``work_from_s2``, ``work_from_datacite``, ``work_from_entry`` (arXiv
Atom), ``work_from_pubmed_article``, ``work_from_docsum``, ``work_from_dblp``.

Caching: ``CachedSource`` keeps FOUND ~30 days, NOT_FOUND ~1 day, notices ~1 day, never
FAILED; results read back have ``from_cache=True``; concurrent identical look-ups share one
request; ``by_dois`` only asks for the DOIs not in the cache.  HTTP: one ``HttpClient`` per
run (``verify.http``); ``http.stats.requests`` counts requests per lane and
``verify.rate_limit.rate_bound(counts)`` is the least wall time the published limits allow.

A FAILED Lookup's ``reason`` explains "unverified" (timeout, rate limited, HTTP 503,
malformed response ..., "offline: not in cache"); it never contains API keys.
"""

from citewarden.verify.sources.arxiv import ArxivSource, work_from_entry
from citewarden.verify.sources.cached import OFFLINE_MISS, CachedSource
from citewarden.verify.sources.crossref import CrossrefSource, work_from_csl
from citewarden.verify.sources.datacite import DataCiteSource, work_from_datacite
from citewarden.verify.sources.dblp import DblpSource, work_from_dblp
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.openalex import OpenAlexSource, work_from_openalex
from citewarden.verify.sources.openlibrary import OpenLibrarySource
from citewarden.verify.sources.pubmed import (
    PubMedSource,
    work_from_docsum,
    work_from_pubmed_article,
)
from citewarden.verify.sources.registry import (
    SourceSet,
    build_sources,
    make_http,
    make_source,
    open_sources,
)
from citewarden.verify.sources.semanticscholar import SemanticScholarSource, work_from_s2
from citewarden.verify.sources.snapshot import SnapshotSource

__all__ = [
    "OFFLINE_MISS",
    "ArxivSource",
    "CachedSource",
    "CrossrefSource",
    "DataCiteSource",
    "DblpSource",
    "DoiSource",
    "OpenAlexSource",
    "OpenLibrarySource",
    "PubMedSource",
    "SemanticScholarSource",
    "SnapshotSource",
    "SourceSet",
    "build_sources",
    "make_http",
    "make_source",
    "open_sources",
    "work_from_csl",
    "work_from_datacite",
    "work_from_dblp",
    "work_from_docsum",
    "work_from_entry",
    "work_from_openalex",
    "work_from_pubmed_article",
    "work_from_s2",
]
