"""Source configuration: base URLs, identification and keys, from settings and environment.

Precedence for every value: explicit settings (``[verify]`` in ``.citewarden.toml``, LSP
configuration, command-line options) win over environment variables, which win over the
built-in defaults.  Base URLs are given without the API path (``https://api.crossref.org``);
each source appends its own paths, so a mirror or a local replay server can stand in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from citewarden.settings import SOURCE_NAMES, VerifySettings

DEFAULT_BASE_URLS: dict[str, str] = {
    "crossref": "https://api.crossref.org",
    "doi": "https://doi.org",
    "openalex": "https://api.openalex.org",
    "semanticscholar": "https://api.semanticscholar.org",
    "datacite": "https://api.datacite.org",
    "arxiv": "https://export.arxiv.org",
    "pubmed": "https://eutils.ncbi.nlm.nih.gov",
    "dblp": "https://dblp.org",
    "openlibrary": "https://openlibrary.org",
    "doaj": "https://doaj.org",
}

#: Environment variable holding each source's base URL.
URL_ENV: dict[str, str] = {
    "crossref": "CITEWARDEN_CROSSREF_URL",
    "doi": "CITEWARDEN_DOI_URL",
    "openalex": "CITEWARDEN_OPENALEX_URL",
    "semanticscholar": "CITEWARDEN_SEMANTICSCHOLAR_URL",
    "datacite": "CITEWARDEN_DATACITE_URL",
    "arxiv": "CITEWARDEN_ARXIV_URL",
    "pubmed": "CITEWARDEN_PUBMED_URL",
    "dblp": "CITEWARDEN_DBLP_URL",
    "openlibrary": "CITEWARDEN_OPENLIBRARY_URL",
    "doaj": "CITEWARDEN_DOAJ_URL",
}

MAILTO_ENV = "CITEWARDEN_MAILTO"
OPENALEX_KEY_ENV = "CITEWARDEN_OPENALEX_API_KEY"
S2_KEY_ENV = "CITEWARDEN_S2_API_KEY"
NCBI_KEY_ENV = "CITEWARDEN_NCBI_API_KEY"
CACHE_DIR_ENV = "CITEWARDEN_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class SourceConfig:
    """Everything sources need to talk to their services (resolved, no further look-ups)."""

    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_BASE_URLS))
    sources: tuple[str, ...] = SOURCE_NAMES
    mailto: str | None = None
    openalex_api_key: str | None = field(default=None, repr=False)
    s2_api_key: str | None = field(default=None, repr=False)
    ncbi_api_key: str | None = field(default=None, repr=False)
    timeout: float = 20.0
    offline: bool = False
    snapshot: str | None = None

    def base_url(self, source: str) -> str:
        return self.base_urls.get(source, DEFAULT_BASE_URLS.get(source, "")).rstrip("/")

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never be logged, cached or reported."""
        keys = (self.openalex_api_key, self.s2_api_key, self.ncbi_api_key)
        return tuple(k for k in keys if k)


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def resolve_config(
    settings: VerifySettings | None = None, env: Mapping[str, str] | None = None
) -> SourceConfig:
    """Merge ``settings`` over the environment over the defaults."""
    settings = settings or VerifySettings()
    env = os.environ if env is None else env
    urls = dict(DEFAULT_BASE_URLS)
    for name, var in URL_ENV.items():
        value = _clean(env.get(var))
        if value:
            urls[name] = value.rstrip("/")
    for name, value in settings.base_urls.items():
        if _clean(value):
            urls[name] = value.strip().rstrip("/")
    return SourceConfig(
        base_urls=urls,
        sources=tuple(settings.sources),
        mailto=_clean(settings.mailto) or _clean(env.get(MAILTO_ENV)),
        openalex_api_key=_clean(settings.openalex_api_key) or _clean(env.get(OPENALEX_KEY_ENV)),
        s2_api_key=_clean(settings.s2_api_key) or _clean(env.get(S2_KEY_ENV)),
        ncbi_api_key=_clean(settings.ncbi_api_key) or _clean(env.get(NCBI_KEY_ENV)),
        timeout=settings.timeout,
        offline=settings.offline,
        snapshot=_clean(settings.snapshot),
    )
