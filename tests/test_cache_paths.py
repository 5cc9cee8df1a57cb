"""A cache directory whose path holds characters that mean something in a URI (``#``, ``?``,
``%``) is opened like any other: its entries are kept from one run to the next, and no
database is made at the part of the path before such a character."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.cache import Cache

KEY = "v1|crossref|by_doi|10.1371/journal.pone.0033693"


@pytest.mark.parametrize("name", ["notes#2", "what?", "100%", "a%20b", "x?mode=rw#y"])
def test_entries_survive_reopening_a_directory_with_uri_characters(
    tmp_path: Path, name: str
) -> None:
    directory = tmp_path / name / "cache"
    with Cache(directory) as cache:
        cache.set(KEY, {"title": "kept"}, ttl=600)
    with Cache(directory) as cache:
        assert cache.notice is None
        assert cache.get(KEY) == {"title": "kept"}
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no database made elsewhere
