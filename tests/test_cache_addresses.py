"""Answers are kept under the address of the source that gave them: a project configuring
another base URL for a source (in a cloned repository's .citewarden.toml) never fills the
cache with answers that sources at their default address, or at any other, then trust."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.cache import SCHEMA_VERSION, TTL_FOUND, Cache
from citewarden.verify.config import DEFAULT_BASE_URLS
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.sources.cached import CachedSource

DOI = "10.1371/journal.pone.0033693"


class _Source:
    """A Crossref-like source at ``base_url`` that says it knows no DOI, counting requests."""

    name = "crossref"

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.asked = 0

    async def by_doi(self, doi: str) -> Lookup:
        self.asked += 1
        return Lookup.not_found(self.name)

    async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
        self.asked += 1
        return {d: Lookup.not_found(self.name) for d in dois}


@pytest.mark.parametrize("method", ["by_doi", "by_dois"])
async def test_answers_from_another_address_are_not_used(tmp_path: Path, method: str) -> None:
    with Cache(tmp_path) as cache:
        planted = CachedSource(_Source("http://attacker.example"), cache)
        await getattr(planted, method)(DOI if method == "by_doi" else [DOI])
        default = _Source(DEFAULT_BASE_URLS["crossref"])
        trusted = CachedSource(default, cache)
        answer = await trusted.by_doi(DOI)
        other = CachedSource(_Source("http://127.0.0.1:9/crossref"), cache)
        assert other.peek("by_doi", DOI) is None
    assert default.asked == 1 and not answer.from_cache
    assert planted.peek("by_doi", DOI) is not None  # each address keeps its own answers


def test_the_address_is_its_scheme_host_port_and_path_only() -> None:
    same = [
        "https://api.crossref.org",
        "HTTPS://API.Crossref.org:443/",
        "https://user:password@api.crossref.org/?mailto=a@example.org#x",
    ]
    assert {CachedSource(_Source(url), None).space for url in same} == {"crossref"}
    others = [
        "http://api.crossref.org",
        "https://api.crossref.org:8443",
        "https://api.crossref.org/v2",
        "https://mirror.example/crossref",
    ]
    spaces = {CachedSource(_Source(url), None).space for url in others}
    assert len(spaces) == len(others) and "crossref" not in spaces
    assert all("password" not in s and "mailto" not in s for s in spaces)


async def test_entries_of_the_default_address_stay_valid(tmp_path: Path) -> None:
    """Entries written before keys held the address are those of the default address."""
    with Cache(tmp_path) as cache:
        stored = {"source": "crossref", "outcome": "not_found", "records": [], "reason": None}
        cache.set(f"v{SCHEMA_VERSION}|crossref|by_doi|{DOI}", stored, TTL_FOUND)
        source = _Source(DEFAULT_BASE_URLS["crossref"])
        answer = await CachedSource(source, cache).by_doi(DOI)
    assert answer.from_cache and answer.outcome is Outcome.NOT_FOUND and source.asked == 0
