"""A store diskcache cannot work with (a setting of the wrong kind) is damage: moved aside
and rebuilt, never a crash."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from citewarden.cache import STORE, Cache
from cli_process import run_citewarden

KEY = "v1|crossref|by_doi|10.1371/journal.pone.0033693"


def _stored(directory: Path) -> Path:
    with Cache(directory) as cache:
        cache.set(KEY, {"title": "old"}, ttl=600)
    return directory / STORE / "cache.db"


def _run_sql(db: Path, sql: str) -> None:
    con = sqlite3.connect(db)
    try:
        con.execute(sql)
        con.commit()
    finally:
        con.close()


def _bad_setting(key: str, value: str) -> Callable[[Path], None]:
    def damage(directory: Path) -> None:
        _run_sql(_stored(directory), f"UPDATE Settings SET value = '{value}' WHERE key = '{key}'")

    return damage


DAMAGES = {
    "eviction_policy": _bad_setting("eviction_policy", "bogus"),
    "size_limit": _bad_setting("size_limit", "abc"),
    "sqlite_synchronous": _bad_setting("sqlite_synchronous", "bogus"),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_store_diskcache_cannot_use_is_moved_aside_and_rebuilt(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    damage(tmp_path)
    with Cache(tmp_path) as cache:
        assert cache.notice is not None and "was damaged" in cache.notice
        cache.set(KEY, {"title": "new"}, ttl=600)
        assert cache.get(KEY) == {"title": "new"}
        assert cache.stats()["entries"] == 1
    assert len(list(tmp_path.glob(f"{STORE}.damaged-*"))) == 1
    with Cache(tmp_path) as cache:
        assert cache.notice is None and cache.get(KEY) == {"title": "new"}


@pytest.mark.parametrize(("name", "action"), [("eviction_policy", "stats")])
def test_cache_commands_rebuild_a_store_diskcache_cannot_use(
    tmp_path: Path, name: str, action: str
) -> None:
    DAMAGES[name](tmp_path / "cache")
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
    done = run_citewarden(["cache", action], tmp_path, env)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("was damaged") == 1
