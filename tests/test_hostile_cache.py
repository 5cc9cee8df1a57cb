"""A hostile or damaged cache directory: no code runs from it, damage is repaired and said
once, an unusable directory is reported -- through the real on-disk cache and the CLI."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

from citewarden.cache import STORE, TTL_FOUND, VALUE_FORMAT, Cache, CacheUnavailable
from cli_process import run_as_nobody, run_citewarden

KEY = "v1|crossref|by_doi|10.1371/journal.pone.0033693"


class _Payload:
    """Unpickling this creates a directory: proof that code from the cache ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.mkdir, (str(self.marker),))


def _plant(directory: Path, key: object, value: object) -> None:
    """Write a row the way an attacker with write access to the cache directory would."""
    with diskcache.Cache(str(directory / STORE)) as raw:
        raw.set(key, value)


# -- item 5: plain JSON, no pickle ----------------------------------------------------------


def test_pickled_value_is_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "code-ran"
    Cache(tmp_path).close()
    _plant(tmp_path, KEY, _Payload(marker))
    with Cache(tmp_path) as cache:
        assert cache.get(KEY) is None
        cache.prune()
    assert not marker.exists()


def test_pickled_key_is_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "code-ran"
    Cache(tmp_path).close()
    _plant(tmp_path, ("tuple", "key", _Payload(marker)), "x")
    with Cache(tmp_path) as cache:
        cache.prune()
        cache.stats()
    assert not marker.exists()


def test_values_are_versioned_json_text_on_disk(tmp_path: Path) -> None:
    with Cache(tmp_path, clock=lambda: 1000.0) as cache:
        cache.set(KEY, {"outcome": "found", "records": [{"title": "T"}]}, ttl=60)
        cache.set("v1|big", "x" * 100_000, ttl=60)  # stored in a file by diskcache
        assert cache.get(KEY) == {"outcome": "found", "records": [{"title": "T"}]}
        assert cache.get("v1|big") == "x" * 100_000
    con = sqlite3.connect(tmp_path / STORE / "cache.db")
    rows = dict(con.execute("SELECT key, value FROM Cache WHERE key = ?", (KEY,)).fetchall())
    modes = {m for (m,) in con.execute("SELECT mode FROM Cache").fetchall()}
    con.close()
    assert modes <= {diskcache.core.MODE_RAW, diskcache.core.MODE_TEXT}
    stored = json.loads(rows[KEY])
    assert stored == {
        "format": VALUE_FORMAT,
        "expires": 1060.0,
        "stored": 1000.0,
        "value": {"outcome": "found", "records": [{"title": "T"}]},
    }
    assert pickle.PROTO not in rows[KEY].encode()[:1]


def test_value_of_another_format_is_a_miss(tmp_path: Path) -> None:
    with Cache(tmp_path) as cache:
        cache._store.set(KEY, json.dumps({"format": 1, "expires": 1e12, "value": 1}))
        assert cache.get(KEY) is None


# -- item 4: damaged and unusable caches ----------------------------------------------------


def _filled(tmp_path: Path) -> Path:
    with Cache(tmp_path) as cache:
        for i in range(400):
            cache.set(f"v1|k{i}", {"title": "x" * 200, "i": i}, ttl=600)
    return tmp_path / STORE / "cache.db"


@pytest.mark.parametrize("damage", ["random", "truncated", "zeros", "text", "fifo", "device"])
def test_damaged_store_is_moved_aside_and_rebuilt(tmp_path: Path, damage: str) -> None:
    db = _filled(tmp_path)
    data = db.read_bytes()
    if damage == "random":
        db.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        db.write_bytes(data[: len(data) // 3])
    elif damage == "zeros":
        db.write_bytes(b"\0" * 8192)
    elif damage == "text":
        db.write_text("not a database\n")
    else:  # opening a FIFO for reading blocks; a link to /dev/zero reads without end
        db.unlink()
        if damage == "fifo":
            os.mkfifo(db)
        else:
            db.symlink_to("/dev/zero")
    for extra in db.parent.glob("cache.db-*"):
        extra.unlink()
    with Cache(tmp_path) as cache:
        assert cache.notice is not None and "was damaged" in cache.notice
        cache.set(KEY, {"ok": True}, ttl=60)
        assert cache.get(KEY) == {"ok": True}
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(f"{STORE}.damaged-")]
    assert len(aside) == 1 and (aside[0] / "cache.db").exists()
    with Cache(tmp_path) as again:  # rebuilt: nothing more to say
        assert again.notice is None and again.get(KEY) == {"ok": True}


def test_uncreatable_directory_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(CacheUnavailable, match="cannot create the cache directory"):
        Cache(blocker / "cache")


def test_a_cache_directory_that_is_a_file_or_a_link_to_itself_is_said_to_be_that(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(CacheUnavailable, match=r"file: it is a file, not a directory$"):
        Cache(tmp_path / "file")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(CacheUnavailable, match=r"loop: Too many levels of symbolic links"):
        Cache(tmp_path / "loop")
    with pytest.raises(CacheUnavailable, match=r"/dev/full: it is a device, a FIFO or a socket"):
        Cache("/dev/full")


@pytest.mark.parametrize("what", ["file", "link_to_itself"])
def test_a_store_that_is_no_directory_is_moved_aside_and_rebuilt(tmp_path: Path, what: str) -> None:
    store = tmp_path / STORE
    if what == "file":
        store.write_text("x")
    else:
        store.symlink_to(store)
    with Cache(tmp_path) as cache:
        assert cache.notice is not None and "damaged (not a directory)" in cache.notice
        cache.set(KEY, {"ok": True}, ttl=60)
        assert cache.get(KEY) == {"ok": True}
    assert len(list(tmp_path.glob(f"{STORE}.damaged-*"))) == 1
    with Cache(tmp_path) as again:
        assert again.notice is None and again.get(KEY) == {"ok": True}


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "paper"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{sadasivan2012}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text(
        "@article{sadasivan2012,\n  title = {Methylphenidate exposure induces dopamine neuron"
        " loss},\n  author = {Sadasivan, Shankar},\n  year = {2012},\n"
        "  doi = {10.1371/journal.pone.0033693}\n}\n"
    )
    return root


def test_check_with_a_damaged_cache_says_so_once_and_runs(tmp_path: Path) -> None:
    root = _project(tmp_path)
    fresh = run_citewarden(
        ["check", "--offline", "--format", "json", "."],
        root,
        {"CITEWARDEN_CACHE_DIR": str(tmp_path / "fresh")},
    )
    cache_dir = tmp_path / "cache"
    db = _filled(cache_dir)
    db.write_bytes(os.urandom(db.stat().st_size))
    damaged = run_citewarden(
        ["check", "--offline", "--format", "json", "."],
        root,
        {"CITEWARDEN_CACHE_DIR": str(cache_dir)},
    )
    assert "Traceback" not in damaged.stderr
    assert damaged.returncode == fresh.returncode, damaged.stderr
    assert damaged.stderr.count("was damaged") == 1
    assert json.loads(damaged.stdout) == json.loads(fresh.stdout) or (
        json.loads(damaged.stdout).keys() == json.loads(fresh.stdout).keys()
    )
    again = run_citewarden(
        ["check", "--offline", "--format", "json", "."],
        root,
        {"CITEWARDEN_CACHE_DIR": str(cache_dir)},
    )
    assert "damaged" not in again.stderr


def test_check_with_an_uncreatable_cache_directory_reports_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (tmp_path / "file").write_text("")
    done = run_citewarden(
        ["check", "--offline", "."], root, {"CITEWARDEN_CACHE_DIR": str(tmp_path / "file" / "c")}
    )
    assert "Traceback" not in done.stderr
    assert done.stderr.count("verifying without a cache: cannot create the cache directory") == 1


def test_a_cache_directory_of_an_unknown_user_is_reported_by_its_variable(tmp_path: Path) -> None:
    """``~nouser/...`` cannot be expanded: the cache is unavailable, never a crash."""
    root = _project(tmp_path)
    env = {"CITEWARDEN_CACHE_DIR": "~citewarden-no-such-user/c"}
    done = run_citewarden(["check", "--offline", "."], root, env)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("verifying without a cache: CITEWARDEN_CACHE_DIR=") == 1
    stats = run_citewarden(["cache", "stats"], root, env)
    assert "Traceback" not in stats.stderr, stats.stderr
    assert stats.returncode == 2 and "CITEWARDEN_CACHE_DIR=" in stats.stderr
    assert not (root / "~citewarden-no-such-user").exists()


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temporary directory other users can enter (pytest's own is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="citewarden-ro-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_check_with_a_read_only_cache_for_another_user_reports_it(open_tmp: Path) -> None:
    """A cache the user cannot write (root's, or made read-only): reported, check runs."""
    tmp_path = open_tmp
    root = _project(tmp_path)
    cache_dir = tmp_path / "cache"
    _filled(cache_dir)
    env = {"CITEWARDEN_CACHE_DIR": str(cache_dir), "HOME": str(tmp_path)}
    if os.geteuid() == 0:  # run the command as an unprivileged user, as a user would be
        for p in (tmp_path, root, *root.iterdir()):
            p.chmod(0o755 if p.is_dir() else 0o644)
        done = run_as_nobody(["check", "--offline", "."], root, env)
    else:
        for p in (cache_dir, cache_dir / STORE):
            p.chmod(0o555)
        try:
            done = run_citewarden(["check", "--offline", "."], root, env)
        finally:
            for p in (cache_dir, cache_dir / STORE):
                p.chmod(0o755)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("verifying without a cache:") == 1, done.stderr
    assert "not writable" in done.stderr


def test_cache_commands_report_damage_and_unusable_directories(tmp_path: Path) -> None:
    db = _filled(tmp_path / "cache")
    db.write_bytes(b"\0" * 4096)
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
    stats = run_citewarden(["cache", "stats"], tmp_path, env)
    assert stats.returncode == 0 and "entries: 0" in stats.stdout
    assert stats.stderr.count("was damaged") == 1
    (tmp_path / "file").write_text("")
    bad = run_citewarden(
        ["cache", "prune"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(tmp_path / "file" / "c")}
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "cannot create the cache directory" in bad.stderr


def _drop_table(store: diskcache.Cache) -> diskcache.Cache:
    """The store as another process leaves it after it was opened: its tables are gone."""
    con = sqlite3.connect(Path(store.directory) / "cache.db")
    con.execute("DROP TABLE Cache")
    con.execute("DROP TABLE Settings")
    con.commit()
    con.close()
    return store


@pytest.mark.parametrize("action", ["stats", "clear", "prune"])
def test_a_store_failing_during_a_cache_command_is_reported(
    tmp_path: Path,
    action: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SQLite failing while `cache stats|clear|prune` runs: a message and status 2."""
    from citewarden import cache, cli

    _filled(tmp_path / "cache")
    store = Cache(tmp_path / "cache")
    _drop_table(store._store)
    with pytest.raises(
        CacheUnavailable, match=f"cannot {'read' if action == 'stats' else action} the cache"
    ):
        getattr(store, action)()
    store.close()
    opened = cache._open_store
    monkeypatch.setattr(cache, "_open_store", lambda path: _drop_table(opened(path)))
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    assert cli.main(["cache", action]) == 2
    err = capsys.readouterr().err
    assert "no such table" in err and "Traceback" not in err, err


def _value_file(directory: Path, key: str) -> Path:
    con = sqlite3.connect(directory / STORE / "cache.db")
    try:
        (name,) = con.execute("SELECT filename FROM Cache WHERE key = ?", (key,)).fetchone()
    finally:
        con.close()
    return directory / STORE / name


def _outside_value(tmp_path: Path) -> Path:
    """A file outside the store holding a value as the cache writes it."""
    outside = tmp_path / "outside.json"
    envelope = {"format": VALUE_FORMAT, "expires": 5000, "stored": 1000, "value": "outside"}
    outside.write_text(json.dumps(envelope))
    return outside


@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_value_file_reached_through_a_link_is_not_read(tmp_path: Path, link: str) -> None:
    """A value file that is a link, or in a folder that is a link, to a file outside the
    store is a miss, where the file it pointed to was read as the value."""
    directory = tmp_path / "cache"
    with Cache(directory, clock=lambda: 1000.0) as cache:
        cache.set("v2|big", "x" * 100_000, ttl=600)  # in a value file of its own
    value_file = _value_file(directory, "v2|big")
    outside = _outside_value(tmp_path)
    if link == "file":
        value_file.unlink()
        value_file.symlink_to(outside)
    else:
        elsewhere = tmp_path / "elsewhere"
        shutil.move(value_file.parent, elsewhere)
        shutil.copy(outside, elsewhere / value_file.name)
        value_file.parent.symlink_to(elsewhere)
    with Cache(directory, clock=lambda: 1000.0) as cache:
        assert cache.get("v2|big") is None


def test_value_files_of_a_cache_directory_reached_through_a_link_are_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with Cache(tmp_path / "link", clock=lambda: 1000.0) as cache:
        cache.set("v2|big", "x" * 100_000, ttl=600)
    with Cache(tmp_path / "link", clock=lambda: 1000.0) as cache:
        assert cache.get("v2|big") == "x" * 100_000


@pytest.mark.parametrize("lifetime", [TTL_FOUND + 1, 10 * 365 * 86400.0, float("inf")])
def test_an_entry_given_a_lifetime_citewarden_never_gives_is_a_miss(
    tmp_path: Path, lifetime: float
) -> None:
    """The longest an answer is kept is 30 days: one stored for longer (planted, or by
    another program) is not read, where a "no such record" could be planted for ten years."""
    envelope = {"format": VALUE_FORMAT, "stored": 1000.0, "expires": 1000.0 + lifetime, "value": 1}
    with Cache(tmp_path, clock=lambda: 2000.0) as cache:
        cache.set("v2|sound", 1, ttl=TTL_FOUND)
        cache._store.set("v2|planted", json.dumps(envelope))
        assert cache.get("v2|sound") == 1
        assert cache.get("v2|planted") is None


@pytest.mark.parametrize(
    ("name", "kind"),
    [("cache.db-shm", "fifo"), ("cache.db-wal", "device"), ("cache.db-wal", "dir")],
)
def test_a_companion_file_sqlite_cannot_open_is_damage(
    tmp_path: Path, name: str, kind: str
) -> None:
    """A -wal or -shm file beside the database that is a FIFO, a link or a folder is damage:
    moved aside and rebuilt, where the cache could not be used on any run again."""
    with Cache(tmp_path) as cache:
        cache.set(KEY, {"ok": True}, ttl=60)
    companion = tmp_path / STORE / name
    companion.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(companion)
    elif kind == "device":
        companion.symlink_to("/dev/zero")
    else:
        companion.mkdir()
    with Cache(tmp_path) as cache:
        assert (
            cache.notice is not None and f"damaged ({name} is not a regular file)" in cache.notice
        )
        cache.set(KEY, {"new": True}, ttl=60)
    with Cache(tmp_path) as again:
        assert again.notice is None and again.get(KEY) == {"new": True}


def test_a_store_another_process_rebuilt_meanwhile_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes finding the same damaged store: the one that comes second keeps the
    store the first started, where it moved that new store aside too (and the first went
    on writing into the moved one)."""
    import citewarden.cache as cache_module

    db = _filled(tmp_path)
    db.write_bytes(os.urandom(db.stat().st_size))
    for extra in db.parent.glob("cache.db-*"):
        extra.unlink()
    probe = cache_module._probe

    def probe_then_the_other_process_rebuilds(path: Path) -> str | None:
        damage = probe(path)
        monkeypatch.setattr(cache_module, "_probe", probe)
        with Cache(tmp_path) as other:  # the other process: moves it aside, starts anew
            assert other.notice is not None and "moved it to" in other.notice
            other.set(KEY, {"other": True}, ttl=60)
        return damage

    monkeypatch.setattr(cache_module, "_probe", probe_then_the_other_process_rebuilds)
    with Cache(tmp_path) as second:
        assert second.notice is not None and "another process moved it aside" in second.notice
        assert second.get(KEY) == {"other": True}
    assert len(list(tmp_path.glob(f"{STORE}.damaged-*"))) == 1


def _damaged_copies(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """A cache directory holding ``count`` damaged stores moved aside (2020-01-01 on) and,
    older, a link named as one to a folder outside holding ``keep.txt``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    directory = tmp_path / "cache"
    directory.mkdir()
    for i in range(count):
        (directory / f"{STORE}.damaged-2020010{i + 1}T000000-1" / "x").mkdir(parents=True)
    (directory / f"{STORE}.damaged-20190101T000000-1").symlink_to(outside)
    return directory, outside


def test_only_the_newest_damaged_stores_are_kept(tmp_path: Path) -> None:
    """A store damaged again and again leaves three copies, the newest, where every one was
    kept and could fill the disk; a link among them is removed, never followed."""
    directory, outside = _damaged_copies(tmp_path, 4)
    db = _filled(directory)
    db.write_bytes(os.urandom(db.stat().st_size))
    with Cache(directory) as cache:
        assert cache.notice is not None and "was damaged" in cache.notice
    kept = sorted(p.name for p in directory.glob(f"{STORE}.damaged-*"))
    assert len(kept) == 3
    assert kept[:2] == [f"{STORE}.damaged-20200103T000000-1", f"{STORE}.damaged-20200104T000000-1"]
    assert (outside / "keep.txt").read_text() == "mine"


def test_cache_clear_removes_the_damaged_stores_kept_beside_the_cache(tmp_path: Path) -> None:
    """``cache clear`` removes what the cache holds, the damaged stores moved aside too
    (they were left for ever); a link among them is removed, never followed."""
    directory, outside = _damaged_copies(tmp_path, 2)
    (directory / "lookups.damaged-notes.txt").write_text("not a store's name")
    _filled(directory)
    done = run_citewarden(["cache", "clear"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(directory)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "removed 400 cache entries",
        "removed 3 damaged cache stores",
    ]
    assert not list(directory.glob(f"{STORE}.damaged-2*"))
    assert (directory / "lookups.damaged-notes.txt").exists()
    assert (outside / "keep.txt").read_text() == "mine"
    with Cache(directory) as cache:
        assert cache.stats()["entries"] == 0
