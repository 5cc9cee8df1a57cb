"""A cached record with a field of the wrong type (a damaged or hand-edited store, another
version) is a miss, by the single and the batched look-ups alike: never a crash, never a
finding made from it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from citewarden.cache import TTL_FOUND, Cache
from citewarden.verify.records import (
    Lookup,
    Person,
    Update,
    UpdateKind,
    WorkRecord,
    lookup_to_dict,
    record_from_dict,
    record_to_dict,
)
from citewarden.verify.sources.cached import OFFLINE_MISS, CachedSource

DOI = "10.1371/journal.pone.0033693"
RECORD = WorkRecord(
    "crossref",
    "Methylphenidate exposure induces dopamine neuron loss",
    authors=(Person("Sadasivan", "Shankar"),),
    year=2012,
    other_years=(2011,),
    doi=DOI,
    venue="PLoS ONE",
    issn=("1932-6203",),
    pages="e33693",
    updates=(Update(UpdateKind.CORRECTION, "10.1371/annotation/c76d", "2012-05-08"),),
    extra=(("alt", "Other title"),),
    relevance=1.5,
)

DAMAGE: dict[str, tuple[str, Any]] = {
    "year as text": ("year", "2012"),
    "year with a fraction": ("year", 2012.5),
    "huge year": ("year", 10**30),
    "year true": ("year", True),
    "other year as text": ("other_years", ["2011"]),
    "title as a number": ("title", 12345),
    "title as a list": ("title", ["a", "b"]),
    "no title": ("title", None),
    "source as a number": ("source", 1),
    "doi as a number": ("doi", 1),
    "venue as an object": ("venue", {"a": 1}),
    "pages as a number": ("pages", 7),
    "abstract as a number": ("abstract", 5),
    "issn as text": ("issn", "1932-6203"),
    "issn holding a number": ("issn", [1932]),
    "authors as text": ("authors", "Sadasivan"),
    "author name as a number": ("authors", [[1, "Shankar"]]),
    "author of three parts": ("authors", [["a", "b", "c"]]),
    "update kind unknown": ("updates", [["gone", None, None, None]]),
    "update doi as a number": ("updates", [["correction", 5, None, None]]),
    "extra as an object": ("extra", {"alt": "x"}),
    "is_notice as text": ("is_notice", "yes"),
    "relevance as text": ("relevance", "high"),
}


def test_a_sound_record_round_trips() -> None:
    assert record_from_dict(record_to_dict(RECORD)) == RECORD


@pytest.mark.parametrize("name", DAMAGE)
def test_a_wrongly_typed_field_is_refused(name: str) -> None:
    field, value = DAMAGE[name]
    data = record_to_dict(RECORD)
    data[field] = value
    with pytest.raises(ValueError):
        record_from_dict(data)


def _damaged_cache(tmp_path: Path, field: str, value: Any) -> Cache:
    cache = Cache(tmp_path)
    stored = lookup_to_dict(Lookup.found("crossref", [RECORD]))
    damaged = copy.deepcopy(stored)
    damaged["records"][0][field] = value  # type: ignore[index]
    cache.set(cache.key("crossref", "by_doi", DOI), damaged, TTL_FOUND)
    return cache


class _Inner:
    name = "crossref"

    async def by_doi(self, doi: str) -> Lookup:
        raise AssertionError("offline: never asked")

    async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
        raise AssertionError("offline: never asked")


@pytest.mark.parametrize(
    "name", ["year as text", "title as a list", "huge year", "doi as a number"]
)
async def test_a_damaged_cached_record_is_a_miss(tmp_path: Path, name: str) -> None:
    with _damaged_cache(tmp_path, *DAMAGE[name]) as cache:
        source = CachedSource(_Inner(), cache, offline=True)
        single = await source.by_doi(DOI)
        batched = await source.by_dois([DOI])
    assert single.reason == OFFLINE_MISS
    assert [lookup.reason for lookup in batched.values()] == [OFFLINE_MISS]


@pytest.mark.parametrize("records", [{"a": 1}, ["not a record"], "text"])
async def test_damaged_records_of_a_lookup_are_a_miss(tmp_path: Path, records: Any) -> None:
    with Cache(tmp_path) as cache:
        stored = {"source": "crossref", "outcome": "found", "records": records, "reason": None}
        cache.set(cache.key("crossref", "by_doi", DOI), stored, TTL_FOUND)
        source = CachedSource(_Inner(), cache, offline=True)
        assert (await source.by_doi(DOI)).reason == OFFLINE_MISS
        assert [r.reason for r in (await source.by_dois([DOI])).values()] == [OFFLINE_MISS]


@pytest.mark.parametrize("year", [0, 3050, -5, True])
def test_a_record_with_a_year_no_date_has_is_stored_so_that_it_reads_back(year: int) -> None:
    """What is written can be read: OpenAlex's and Semantic Scholar's readers keep only a
    year from 1 to 2999 (as Crossref's do), and a record holding another writes none, so a
    search page with one odd year is not a miss on every later run."""
    from citewarden.verify.records import lookup_from_dict
    from citewarden.verify.sources.openalex import work_from_openalex
    from citewarden.verify.sources.semanticscholar import work_from_s2

    openalex = work_from_openalex(
        {"id": "https://openalex.org/W1", "display_name": "A study", "publication_year": year}
    )
    s2 = work_from_s2({"paperId": "x", "title": "A study", "year": year})
    odd = WorkRecord("crossref", "A study", year=year, other_years=(year, 2011))
    for record in (openalex, s2, odd):
        assert record is not None
        back = lookup_from_dict(lookup_to_dict(Lookup.found(record.source, [record])))
        assert back.records[0].year is None
        assert back.records[0].title == "A study"
    assert record_from_dict(record_to_dict(odd)).other_years == (2011,)


async def test_a_cached_failure_is_a_miss(tmp_path: Path) -> None:
    """A failure is never stored: one found in the store (planted, another version's) is
    a miss, where it was read as the source's answer and the source was not asked."""
    with Cache(tmp_path) as cache:
        stored = {"source": "crossref", "outcome": "failed", "records": [], "reason": "planted"}
        cache.set(cache.key("crossref", "by_doi", DOI), stored, TTL_FOUND)
        source = CachedSource(_Inner(), cache, offline=True)
        assert (await source.by_doi(DOI)).reason == OFFLINE_MISS
        assert [r.reason for r in (await source.by_dois([DOI])).values()] == [OFFLINE_MISS]
