"""Snapshot indexes do not pile up: a rebuild replaces the index of the file's earlier state
and removes what dead builds left, and ``citewarden cache clear|prune`` cover the indexes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from citewarden.verify.records import Outcome
from citewarden.verify.sources.snapshot import (
    INDEX_DIR,
    SnapshotSource,
    clear_indexes,
    prune_indexes,
)
from cli_process import run_citewarden

DATA = Path(__file__).parent / "data" / "snapshot" / "crossref-works.jsonl"
DOI = "10.1371/journal.pone.0033693"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


async def _indexed(path: Path, index_dir: Path) -> Path:
    source = SnapshotSource(path, index_dir)
    try:
        assert (await source.by_doi(DOI)).outcome is Outcome.FOUND
        return source.index_path()
    finally:
        source.close()


def _names(index_dir: Path) -> set[str]:
    return {p.name for p in index_dir.iterdir()}


async def test_a_rebuild_replaces_the_index_of_the_earlier_state(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    path, other = tmp_path / "works.jsonl", tmp_path / "other.jsonl"
    shutil.copy(DATA, path)
    shutil.copy(DATA, other)
    first = await _indexed(path, index_dir)
    kept = await _indexed(other, index_dir)
    dead = index_dir / f"snapshot-{'0' * 16}-{'1' * 16}.tmp{_dead_pid()}"
    live = index_dir / f"snapshot-{'0' * 16}-{'2' * 16}.tmp{os.getpid()}"
    dead.write_bytes(b"half a build")
    live.write_bytes(b"a build in progress")
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n")  # the file changes: a new index
    second = await _indexed(path, index_dir)
    assert second != first
    assert _names(index_dir) == {second.name, kept.name, live.name}


async def test_prune_keeps_the_newest_index_of_each_file(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    current = await _indexed(path, index_dir)
    older = index_dir / current.name.replace(current.stem[-16:], "f" * 16)
    shutil.copy(current, older)
    os.utime(older, ns=(1, 1))
    earlier_version = index_dir / f"snapshot-{'a' * 20}.sqlite"
    earlier_version.write_bytes(b"")
    dead = index_dir / f"snapshot-{'0' * 16}-{'1' * 16}.tmp{_dead_pid()}-journal"
    dead.write_bytes(b"")
    assert prune_indexes(index_dir) == 3
    assert _names(index_dir) == {current.name}
    assert clear_indexes(index_dir) == 1 and not _names(index_dir)


async def test_cache_clear_removes_the_snapshot_indexes(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    await _indexed(path, cache_dir / INDEX_DIR)
    env = {"CITEWARDEN_CACHE_DIR": str(cache_dir)}
    done = run_citewarden(["cache", "clear"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "removed 0 cache entries\nremoved 1 snapshot index\n"
    assert not _names(cache_dir / INDEX_DIR)


async def test_cache_prune_removes_indexes_no_longer_read(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    current = await _indexed(path, cache_dir / INDEX_DIR)
    (cache_dir / INDEX_DIR / f"snapshot-{'a' * 20}.sqlite").write_bytes(b"")
    done = run_citewarden(["cache", "prune"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(cache_dir)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("\npruned 1 snapshot index\n")
    assert _names(cache_dir / INDEX_DIR) == {current.name}
