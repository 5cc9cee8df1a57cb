"""Source configuration: base URLs, identification and keys, from settings and environment.

Precedence for every value: explicit settings (``[verify]`` in ``.citewarden.toml``, LSP
configuration, command-line options) win over environment variables, which win over the
built-in defaults.  Base URLs are given without the API path (``https://api.crossref.org``);
each source appends its own paths, so a mirror or a local replay server can stand in.
A key goes to the service's own address, or to an address from the environment; never to
one that only settings name (:func:`key_may_go_to`).
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from citewarden.redaction import register_secrets
from citewarden.safe_text import clipped, visible
from citewarden.settings import (
    DEFAULT_BREAKER_COOLDOWN,
    DEFAULT_BREAKER_FAILURES,
    DEFAULT_TIMEOUT,
    HEADER_VALUE_PROBLEM,
    SOURCE_NAMES,
    Settings,
    SettingsProblem,
    VerifySettings,
    header_value_problem,
)

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
#: The judge's key (read by :mod:`citewarden.verify.judge`, checked here with the others).
JUDGE_KEY_ENV = "CITEWARDEN_JUDGE_API_KEY"
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
    timeout: float = DEFAULT_TIMEOUT
    #: The breaker's: failures in a row that cut a source off, seconds before a probe.
    breaker_failures: int = DEFAULT_BREAKER_FAILURES
    breaker_cooldown: float = DEFAULT_BREAKER_COOLDOWN
    offline: bool = False
    snapshot: str | None = None
    #: Sources whose key is not sent: their address came from a settings file or the
    #: editor (which a cloned repository can hold), not from the environment, and is not
    #: the service's own (see :func:`key_may_go_to`).
    withheld: tuple[str, ...] = ()
    #: Sources asked at an address only a settings file or the editor gives, not the
    #: service's own: they are sent no contact address (``mailto``), which, like a key,
    #: would go to whoever wrote those settings.
    anonymous: tuple[str, ...] = ()

    def base_url(self, source: str) -> str:
        return self.base_urls.get(source, DEFAULT_BASE_URLS.get(source, "")).rstrip("/")

    def mailto_for(self, source: str) -> str | None:
        """The contact address sent to ``source`` (None for an :attr:`anonymous` one)."""
        return None if source in self.anonymous else self.mailto

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never be logged, cached or reported."""
        keys = (self.openalex_api_key, self.s2_api_key, self.ncbi_api_key)
        return tuple(k for k in keys if k)


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def env_value(env: Mapping[str, str], variable: str) -> str | None:
    """The mailto or key ``variable`` sets, None when it cannot go into a request
    (:func:`~citewarden.settings.header_value_problem`; :func:`env_value_problems` says so)."""
    value = _clean(env.get(variable))
    return None if value is None or header_value_problem(value) else value


def env_value_problems(env: Mapping[str, str]) -> list[SettingsProblem]:
    """A problem for each mailto or key variable set to what cannot go into a request."""
    return [
        SettingsProblem("environment", variable, HEADER_VALUE_PROBLEM)
        for variable in (MAILTO_ENV, OPENALEX_KEY_ENV, S2_KEY_ENV, NCBI_KEY_ENV, JUDGE_KEY_ENV)
        if (value := _clean(env.get(variable))) and header_value_problem(value)
    ]


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
    from_settings: set[str] = set()
    for name, value in settings.base_urls.items():
        if _clean(value):
            urls[name] = value.strip().rstrip("/")
            from_settings.add(name)
    keys = {
        "openalex": _clean(settings.openalex_api_key) or env_value(env, OPENALEX_KEY_ENV),
        "semanticscholar": _clean(settings.s2_api_key) or env_value(env, S2_KEY_ENV),
        "pubmed": _clean(settings.ncbi_api_key) or env_value(env, NCBI_KEY_ENV),
    }
    register_secrets(keys.values())  # masked in every log line and report, sent or withheld
    withheld = tuple(
        name
        for name, key in keys.items()
        if key and not key_may_go_to(urls[name], DEFAULT_BASE_URLS[name], name in from_settings)
    )
    sent = {name: None if name in withheld else key for name, key in keys.items()}
    return SourceConfig(
        base_urls=urls,
        sources=tuple(settings.sources),
        mailto=_clean(settings.mailto) or env_value(env, MAILTO_ENV),
        openalex_api_key=sent["openalex"],
        s2_api_key=sent["semanticscholar"],
        ncbi_api_key=sent["pubmed"],
        timeout=settings.timeout,
        breaker_failures=settings.breaker_failures,
        breaker_cooldown=settings.breaker_cooldown,
        offline=settings.offline,
        snapshot=_clean(settings.snapshot),
        withheld=withheld,
        anonymous=tuple(
            name
            for name in sorted(from_settings)
            if not key_may_go_to(urls[name], DEFAULT_BASE_URLS.get(name), True)
        ),
    )


def _origin(url: str) -> tuple[str, str]:
    """(scheme, host) of ``url``; ("", "") when it cannot be read (an address from the
    environment is not checked like a setting: its requests fail, it gets no key)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "", ""
    return parts.scheme.lower(), (parts.hostname or "").lower()


def key_may_go_to(url: str, own_url: str | None, url_from_settings: bool) -> bool:
    """Whether a key may be sent to ``url``: always to the service's own address
    (``own_url``'s scheme and host), to any address the environment gives (the user's own
    shell), never to one that only a settings file or the editor's settings give, since a
    cloned repository can hold those (its ``.citewarden.toml``, ``.vscode/settings.json``)
    and would receive the user's key."""
    if own_url is not None and _origin(url) == _origin(own_url):
        return True
    return not url_from_settings


def shown_address(url: str) -> str:
    """``url`` as messages and reports show it: scheme, host, port and path, never a user
    name, password or query (a mirror's address may carry a token), with visible escapes,
    cut near 200 characters."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return clipped(visible(_without_login_or_query(url)), 200)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    shown = urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))
    return clipped(visible(shown), 200)


def _without_login_or_query(url: str) -> str:
    """An address ``urlsplit`` cannot read, cut the way :func:`shown_address` cuts one it
    can: what precedes an ``@`` of the authority, and a query or fragment, left out."""
    scheme, sep, rest = url.partition("://")
    for mark in "?#":
        rest = rest.split(mark, 1)[0]
    authority, slash, path = rest.partition("/")
    return scheme + sep + authority.rpartition("@")[2] + slash + path


def addresses_elsewhere(
    settings: VerifySettings, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The configured sources asked at an address other than the service's own (from
    settings or the environment): name -> the address as shown (:func:`shown_address`).
    Reports list them: what those addresses answered is reported as the sources'."""
    return _elsewhere(resolve_config(settings, env))


def _elsewhere(config: SourceConfig) -> dict[str, str]:
    return {
        name: shown_address(config.base_url(name))
        for name in config.sources
        if name in DEFAULT_BASE_URLS
        and _origin(config.base_url(name)) != _origin(DEFAULT_BASE_URLS[name])
    }


#: What each keyed source's key is called, for the messages.
_KEY_NAMES = {
    "openalex": ("OpenAlex", OPENALEX_KEY_ENV),
    "semanticscholar": ("Semantic Scholar", S2_KEY_ENV),
    "pubmed": ("NCBI", NCBI_KEY_ENV),
}


def source_address_problems(
    settings: Settings, env: Mapping[str, str] | None = None
) -> list[SettingsProblem]:
    """A settings problem for each source address that settings put in place of the
    service's own (what it answers is reported as that source's: an editor auditing a
    manuscript should know when the manuscript's folder chose the sources), saying also
    when a key is not sent there (:func:`key_may_go_to`), for a judge key withheld, and
    for a mailto or key variable that cannot be sent (:func:`env_value_problems`)."""
    from citewarden.verify.judge import URL_ENV as JUDGE_URL_ENV

    env = os.environ if env is None else env
    config = resolve_config(settings.verify, env)
    elsewhere = _elsewhere(config)
    problems = env_value_problems(env)
    for name, value in settings.verify.base_urls.items():
        if not _clean(value) or name not in elsewhere:
            continue
        message = (
            f"{name} is asked at {elsewhere[name]}, not at its own address "
            f"{DEFAULT_BASE_URLS[name]}, and what that address answers is reported as {name}'s"
        )
        if name in config.withheld:
            service, variable = _KEY_NAMES[name]
            message += (
                f"; {service}'s API key ({variable} or the verify settings) is not sent there: "
                f"an address other than the service's own gets the key only from the "
                f"environment ({URL_ENV[name]}), since a settings file can come with a cloned "
                "repository"
            )
        key = f"verify.base_urls.{name}"
        problems.append(settings.problem(key, message))
    judge = settings.judge
    judge_url = (judge.url or "").strip()
    if judge_url and not judge.api_key and (env.get(JUDGE_KEY_ENV) or "").strip():
        problems.append(
            settings.problem(
                "judge.url",
                f"{JUDGE_KEY_ENV} is not sent to {shown_address(judge_url)}: the environment's "
                f"key goes only to the environment's address ({JUDGE_URL_ENV}); set the key in "
                "the judge settings to send it",
            )
        )
    return problems
