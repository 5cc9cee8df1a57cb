"""A store diskcache cannot work with -- a setting of the wrong kind, tables of an older or
foreign layout -- is damage: moved aside and rebuilt, never a crash nor a cache that stays
unusable (``citewarden cache clear`` included)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

import citewarden.cache as cache_module
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


def _setting_of_right_type(key: str, sql_value: str) -> Callable[[Path], None]:
    """A setting of the type diskcache expects but a value citewarden never writes."""

    def damage(directory: Path) -> None:
        _run_sql(_stored(directory), f"UPDATE Settings SET value = {sql_value} WHERE key = '{key}'")

    return damage


def _foreign_table(sql: str) -> Callable[[Path], None]:
    def damage(directory: Path) -> None:
        (directory / STORE).mkdir(parents=True)
        _run_sql(directory / STORE / "cache.db", sql)

    return damage


DAMAGES = {
    "older_layout": _foreign_table("CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB)"),
    "no_value_column": _foreign_table(
        "CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB, raw INTEGER, store_time REAL,"
        " expire_time REAL, access_time REAL, access_count INTEGER, tag BLOB, size INTEGER,"
        " mode INTEGER, filename TEXT)"
    ),
    "foreign_settings": _foreign_table("CREATE TABLE Settings (name TEXT, setting TEXT)"),
    "eviction_policy": _bad_setting("eviction_policy", "bogus"),
    "size_limit": _bad_setting("size_limit", "abc"),
    "sqlite_synchronous": _bad_setting("sqlite_synchronous", "bogus"),
    # every answer would be dropped as it is stored
    "size_limit_zero": _setting_of_right_type("size_limit", "0"),
    # every opening would fail ("You can only execute one statement at a time")
    "journal_mode_of_two_statements": _setting_of_right_type(
        "sqlite_journal_mode", "'wal; DROP TABLE Cache'"
    ),
    "cull_limit_negative": _setting_of_right_type("cull_limit", "-1"),
    # taken for a store past its size limit: every write would drop entries, new ones too
    "size_recorded_wrong": _setting_of_right_type("size", "1000000000000000"),
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


def test_a_layout_only_opening_finds_wrong_is_damage_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    DAMAGES["older_layout"](tmp_path)
    monkeypatch.setattr(cache_module, "_missing_column", lambda con: None, raising=False)
    with Cache(tmp_path) as cache:
        assert cache.notice is not None and "no such column" in cache.notice
        cache.set(KEY, {"title": "new"}, ttl=600)
        assert cache.get(KEY) == {"title": "new"}


@pytest.mark.parametrize(
    ("name", "action"), [("eviction_policy", "stats"), ("older_layout", "clear")]
)
def test_cache_commands_rebuild_a_store_diskcache_cannot_use(
    tmp_path: Path, name: str, action: str
) -> None:
    DAMAGES[name](tmp_path / "cache")
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
    done = run_citewarden(["cache", action], tmp_path, env)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("was damaged") == 1


def test_a_store_whose_values_fill_files_reopens_without_notice(tmp_path: Path) -> None:
    """The size recorded of entries kept in files of their own, written over and removed,
    is their size: such a store is never taken for a damaged one."""
    with Cache(tmp_path) as cache:
        for i in range(12):
            cache.set(f"v2|k{i}", "x" * (40_000 + i), ttl=600)
        cache.set("v2|k0", "y" * 50_000, ttl=600)
        cache.set("v2|k1", "small", ttl=600)
        cache.clear()
        cache.set("v2|k2", "z" * 60_000, ttl=600)
    with Cache(tmp_path) as cache:
        assert cache.notice is None
        assert cache.get("v2|k2") == "z" * 60_000
