"""An in-memory source over recorded work records, for offline accuracy runs and tests.

It answers the way the real services do: a DOI look-up returns the recorded record or a
definite "no such record"; a search always returns its best-ranked records (a search engine
returns something for any query), so the engine has to reject wrong candidates itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from rapidfuzz import fuzz, process

from citewarden.verify.normalize import fold
from citewarden.verify.records import Lookup, Query, WorkRecord
from citewarden.verify.sources.crossref import work_from_csl


def load_records(path: Path, source: str = "crossref") -> list[WorkRecord]:
    out: list[WorkRecord] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = work_from_csl(json.loads(line)["message"], source)
            if rec is not None:
                out.append(rec)
    return out


class MemorySource:
    """``by_doi`` from a dict; ``search`` ranks titles (plus a bonus for the first author)."""

    def __init__(
        self, name: str, records: Iterable[WorkRecord], *, searchable: bool = True
    ) -> None:
        self.name = name
        self.records = list(records)
        self.by_key = {r.doi: r for r in self.records if r.doi}
        self.titles = [fold(r.title) for r in self.records]
        self.searchable = searchable
        self.calls: dict[str, int] = {"by_doi": 0, "search": 0}

    async def by_doi(self, doi: str) -> Lookup:
        self.calls["by_doi"] += 1
        rec = self.by_key.get(doi.lower())
        return Lookup.found(self.name, [rec]) if rec else Lookup.not_found(self.name)

    async def search(self, query: Query) -> Lookup:
        if not self.searchable:
            return Lookup.failed(self.name, "unsupported")
        self.calls["search"] += 1
        hits = process.extract(
            fold(query.title), self.titles, scorer=fuzz.token_set_ratio, limit=20
        )
        ranked = []
        for _, score, i in hits:
            rec = self.records[i]
            bonus = 0.0
            if query.authors and rec.authors:
                bonus = 15.0 if fold(rec.authors[0].family) == fold(query.authors[0]) else 0.0
            ranked.append((score + bonus, i))
        ranked.sort(key=lambda t: -t[0])
        return Lookup.found(self.name, [self.records[i] for _, i in ranked[: query.limit]])


class FlakySource:
    """Wraps a source so that a deterministic share of its requests fail (as a timeout
    would): the engine must then abstain (``unverified``), never claim ``not_found``."""

    def __init__(self, inner: MemorySource, fail_rate: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.fail_rate = fail_rate
        self.failures = 0

    def _fails(self, key: str) -> bool:
        digest = hashlib.sha256(f"{self.name}|{key}".encode()).digest()
        if int.from_bytes(digest[:4], "big") / 2**32 < self.fail_rate:
            self.failures += 1
            return True
        return False

    async def by_doi(self, doi: str) -> Lookup:
        if self._fails("doi:" + doi):
            return Lookup.failed(self.name, "timeout")
        return await self.inner.by_doi(doi)

    async def search(self, query: Query) -> Lookup:
        if self._fails("q:" + query.title):
            return Lookup.failed(self.name, "timeout")
        return await self.inner.search(query)
