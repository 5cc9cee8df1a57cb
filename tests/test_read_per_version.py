"""A file read once per version: read again when its modification time or size changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from citewarden.files import ReadPerVersion, file_stamp


def test_a_file_is_read_once_per_version(tmp_path: Path) -> None:
    reads: list[Path] = []

    def read(path: Path) -> str:
        reads.append(path)
        return path.read_text(encoding="utf-8")

    memo = ReadPerVersion(read, limit=4)
    style = tmp_path / "a.cbx"
    style.write_text("one", encoding="utf-8")
    assert memo(style) == "one" and memo(style) == "one" and len(reads) == 1
    style.write_text("three", encoding="utf-8")  # another size
    assert memo(style) == "three" and len(reads) == 2
    st = style.stat()
    style.write_text("four!", encoding="utf-8")  # same size, another time
    os.utime(style, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert memo(style) == "four!" and len(reads) == 3
    assert file_stamp(style) == (style.stat().st_mtime_ns, 5)


def test_at_most_limit_files_are_kept(tmp_path: Path) -> None:
    reads: list[Path] = []

    def read(path: Path) -> str:
        reads.append(path)
        return path.name

    memo = ReadPerVersion(read, limit=2)
    files = [tmp_path / f"{i}.bst" for i in range(3)]
    for f in files:
        f.write_text("x", encoding="utf-8")
        memo(f)
    assert len(memo._known) <= 2
    memo(files[2])
    assert len(reads) == 3  # the last one is still kept


def test_a_missing_file_raises_and_has_no_stamp(tmp_path: Path) -> None:
    memo = ReadPerVersion(lambda p: p.name)
    with pytest.raises(OSError):
        memo(tmp_path / "missing.cbx")
    assert file_stamp(tmp_path / "missing.cbx") is None
    assert file_stamp(Path("bad\0name")) is None
