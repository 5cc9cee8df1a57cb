"""A sound cache SQLite cannot use for the moment (a full disk, a lock, an I/O error) is left
as it is: the run goes on without it, and the next run finds every entry again."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import citewarden.cache as cache_module
from citewarden.cache import STORE, Cache, CacheUnavailable

KEY = "v1|crossref|by_doi|10.1371/journal.pone.0033693"
OUTAGES = ["database or disk is full", "database is locked", "disk I/O error"]


def _stored(tmp_path: Path) -> None:
    with Cache(tmp_path) as cache:
        cache.set(KEY, {"title": "kept"}, ttl=600)


def _failing(message: str) -> Any:
    def fail(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError(message)

    return fail


def _assert_untouched(tmp_path: Path) -> None:
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(STORE)] == [STORE]
    with Cache(tmp_path) as cache:
        assert cache.notice is None and cache.get(KEY) == {"title": "kept"}


@pytest.mark.parametrize("message", OUTAGES)
def test_store_that_cannot_open_now_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    _stored(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(cache_module, "_open_store", _failing(message))
        with pytest.raises(CacheUnavailable, match=message):
            Cache(tmp_path)
    _assert_untouched(tmp_path)


@pytest.mark.parametrize("message", OUTAGES)
def test_store_that_cannot_be_checked_now_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    _stored(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(cache_module.sqlite3, "connect", _failing(message))
        with pytest.raises(CacheUnavailable, match=message):
            Cache(tmp_path)
    _assert_untouched(tmp_path)


@pytest.mark.parametrize("message", ["database disk image is malformed", "file is not a database"])
def test_corrupt_store_is_still_moved_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    _stored(tmp_path)
    real = cache_module._open_store
    calls: list[Path] = []

    def corrupt_once(path: Path) -> Any:
        calls.append(path)
        if len(calls) == 1:
            raise sqlite3.DatabaseError(message)
        return real(path)

    monkeypatch.setattr(cache_module, "_open_store", corrupt_once)
    with Cache(tmp_path) as cache:
        assert cache.notice is not None and message in cache.notice
    assert any(p.name.startswith(f"{STORE}.damaged-") for p in tmp_path.iterdir())
