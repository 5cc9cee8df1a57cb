"""A store another process keeps locked costs one short wait, not a minute per write: after
the first write that times out, writes are not tried for a while (one warning), reads go on, and
opening a store locked past the timeout says the cache cannot be used now."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewarden import cache as cache_module
from citewarden.cache import STORE, Cache, CacheUnavailable

KEY = "v1|crossref|by_doi|10.1371/journal.pone.0033693"
#: Longer than the cache's own lock timeout, far shorter than diskcache's minute.
BOUND = 5.0


@pytest.fixture
def store(tmp_path: Path) -> Path:
    with Cache(tmp_path) as cache:
        cache.set(KEY, {"title": "kept"}, ttl=600)
    return tmp_path


@pytest.fixture
def locked(store: Path) -> Iterator[Path]:
    """The store with its write lock held by another connection, as another process would."""
    con = sqlite3.connect(store / STORE / "cache.db", isolation_level=None)
    con.execute("BEGIN IMMEDIATE")
    yield store
    con.execute("ROLLBACK")
    con.close()


def _within(seconds: float, work: object) -> bool:
    """Whether ``work()`` returns within ``seconds`` (run in a thread left behind otherwise)."""
    done = threading.Event()

    def run() -> None:
        work()  # type: ignore[operator]
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done.wait(seconds)


def test_writes_to_a_locked_store_wait_once(store: Path, caplog: pytest.LogCaptureFixture) -> None:
    with Cache(store) as cache:
        con = sqlite3.connect(store / STORE / "cache.db", isolation_level=None)
        con.execute("BEGIN IMMEDIATE")
        try:
            start = time.monotonic()
            with caplog.at_level(logging.WARNING, logger="citewarden.cache"):
                writes = _within(BOUND, lambda: [cache.set(f"k{i}", i, 600) for i in range(5)])
            assert writes, "writes to a locked store waited past the bound"
            assert time.monotonic() - start < BOUND
            assert cache.get(KEY) == {"title": "kept"}  # reads go on
        finally:
            con.execute("ROLLBACK")
            con.close()
        cache.set("later", 1, 600)  # not tried again for a while
        assert cache.get("later") is None
    assert len([r for r in caplog.records if "cache write failed" in r.message]) == 1


def test_opening_a_locked_store_is_reported_quickly(locked: Path) -> None:
    outcome: list[BaseException] = []

    def open_it() -> None:
        try:
            Cache(locked).close()
        except CacheUnavailable as exc:
            outcome.append(exc)

    assert _within(BOUND, open_it), "opening a locked store waited past the bound"
    assert outcome and "locked" in str(outcome[0])


def test_writes_are_tried_again_once_the_lock_is_released(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock another process held for a while (a long prune, a check's writes) pauses the
    writes of a long-lived process (the editor's) for a while, not for the rest of its
    session, where its answers were never kept again."""
    monkeypatch.setattr(cache_module, "LOCKED_PAUSE", 0.3)
    with Cache(store) as cache:
        con = sqlite3.connect(store / STORE / "cache.db", isolation_level=None)
        con.execute("BEGIN IMMEDIATE")
        try:
            cache.set("during", 1, 600)
        finally:
            con.execute("ROLLBACK")
            con.close()
        cache.set("right after", 1, 600)  # within the pause: not tried
        assert cache.get("during") is None and cache.get("right after") is None
        time.sleep(0.4)
        cache.set("later", 1, 600)
        assert cache.get("later") == 1
